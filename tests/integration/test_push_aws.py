"""The push channel's AWS side without AWS: the template's stream filter is the job's, the
Lambda handlers of PushFunction (its publisher's HTTP layer stubbed: moto has no AppSync
Events) and PushAuthorizerFunction (real AppSync authorizer events over moto), and the SigV4
request the adapter sends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.credentials import Credentials
from support.stack import Api, LambdaContext, Stack, function_module

from baccarat_api.adapters.appsync_push import AppSyncPublisher
from baccarat_api.ports.push import PushUnavailable
from baccarat_dev.template import load

URL = "https://abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com/event"


class Sent:
    def __init__(self, answer: tuple[int, bytes] = (200, b'{"successful":[],"failed":[]}')):
        self.requests: list[tuple[str, bytes, dict[str, str]]] = []
        self.answer = answer

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        self.requests.append((url, body, headers))
        return self.answer


def test_the_stream_filter_of_the_template_is_the_push_jobs() -> None:
    from baccarat_api.jobs.push import FILTER_PATTERN

    resources = load()["Resources"]
    stream = resources["PushFunction"]["Properties"]["Events"]["PushStream"]["Properties"]
    (only,) = stream["FilterCriteria"]["Filters"]
    assert json.loads(only["Pattern"]) == json.loads(FILTER_PATTERN)
    assert stream["ParallelizationFactor"] == 1  # a table's items in write order
    assert stream["BisectBatchOnFunctionError"] is True
    api = resources["PushApi"]["Properties"]["EventConfig"]
    assert api["DefaultPublishAuthModes"] == [{"AuthType": "AWS_IAM"}]
    assert api["DefaultSubscribeAuthModes"] == [{"AuthType": "AWS_LAMBDA"}]
    assert resources["PushNamespace"]["Properties"]["Name"] == "tables"
    env = resources["PushFunction"]["Properties"]["Environment"]["Variables"]
    assert env["PUSH_PUBLISH_URL"] == {"Fn::Sub": "https://${PushApi.Dns.Http}/event"}


def test_a_publish_is_signed_sigv4_for_appsync_and_batched_by_five() -> None:
    sent = Sent()
    publisher = AppSyncPublisher(URL, Credentials("AKIDEXAMPLE", "secret"), send=sent)
    messages = [json.dumps({"type": "rotate", "n": n}) for n in range(7)]
    publisher.publish("/tables/tbl_aaaaaaaaaaaaaaaa/e1", messages)
    assert [len(json.loads(body)["events"]) for _, body, _ in sent.requests] == [5, 2]
    url, body, headers = sent.requests[0]
    assert url == URL
    doc = json.loads(body)
    assert doc["channel"] == "/tables/tbl_aaaaaaaaaaaaaaaa/e1"
    assert doc["events"] == messages[:5]  # each event the message's JSON text, in order
    auth = headers["Authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-west-1/appsync/aws4_request" in auth  # the region of the endpoint's host
    assert "SignedHeaders=" in auth and "x-amz-date" in auth
    assert headers["content-type"] == "application/json"


@pytest.mark.parametrize(
    "answer",
    [(500, b"boom"), (200, b'{"successful":[],"failed":[{"identifier":"1","code":400}]}')],
)
def test_a_refused_publish_raises_so_the_batch_is_retried(answer: tuple[int, bytes]) -> None:
    publisher = AppSyncPublisher(URL, Credentials("a", "b"), send=Sent(answer))
    with pytest.raises(PushUnavailable):
        publisher.publish("/tables/t/e1", ["{}"])


def authorizer_event(operation: str, token: str | None, channel: str | None) -> dict[str, Any]:
    """An AppSync Events Lambda authorizer request."""
    context: dict[str, Any] = {
        "apiId": "abcdefghijklmnopqrstuvwxyz",
        "accountId": "111122223333",
        "requestId": "00000000-0000-0000-0000-000000000000",
        "operation": operation,
        "channelNamespaceName": "tables",
    }
    if channel is not None:
        context["channel"] = channel
    return {"authorizationToken": token, "requestContext": context, "requestHeaders": {}}


def test_the_push_authorizer_allows_an_own_tables_current_channel_only(
    api: Api, stack: Stack
) -> None:
    handler = function_module("functions/push_authorizer/").handler
    ctx = LambdaContext("PushAuthorizerFunction")
    r = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    )
    table_id = r.body["table_id"]
    channel = f"/tables/{table_id}/e1"
    ok = handler(authorizer_event("EVENT_SUBSCRIBE", f"Bearer {stack.key_a}", channel), ctx)
    assert ok["isAuthorized"] is True and ok["ttlOverride"] == 0
    assert ok["handlerContext"] == {"operator_id": "operator-a"}
    connect = handler(authorizer_event("EVENT_CONNECT", f"Bearer {stack.key_b}", None), ctx)
    assert connect["isAuthorized"] is True
    for event in (
        authorizer_event("EVENT_SUBSCRIBE", f"Bearer {stack.key_b}", channel),  # not theirs
        authorizer_event("EVENT_SUBSCRIBE", f"Bearer {stack.key_a}", f"/tables/{table_id}/e2"),
        authorizer_event("EVENT_SUBSCRIBE", None, channel),
        authorizer_event("EVENT_CONNECT", "Bearer nope", None),
        authorizer_event("EVENT_PUBLISH", f"Bearer {stack.key_a}", channel),  # IAM's only
    ):
        assert handler(event, ctx) == {"isAuthorized": False}, event


def test_the_push_function_publishes_what_the_stream_reports(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = Sent()
    monkeypatch.setenv("PUSH_PUBLISH_URL", URL)
    monkeypatch.setattr("baccarat_api.adapters.appsync_push._urlopen", sent)
    handler = function_module("functions/push/").handler
    r = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    )
    table_id = r.body["table_id"]
    assert api.call("PUT", f"/v1/tables/{table_id}/watchers/w1").status == 200
    items = stack.dynamodb.scan(TableName=stack.repo.state)["Items"]
    records = [{"eventName": "INSERT", "dynamodb": {"NewImage": item}} for item in items]
    out = handler({"Records": records}, LambdaContext("PushFunction"))
    assert out == {"published": 1}
    ((_, body, _),) = sent.requests
    doc = json.loads(body)
    assert doc["channel"] == f"/tables/{table_id}/e1"
    (message,) = (json.loads(e) for e in doc["events"])
    assert message["type"] == "events"
    assert [e["type"] for e in message["events"]] == ["watcher_joined"]


def test_a_table_token_subscribes_to_its_own_tables_channel_until_revoked(
    api: Api, stack: Stack
) -> None:
    handler = function_module("functions/push_authorizer/").handler
    ctx = LambdaContext("PushAuthorizerFunction")
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    mine, other = (
        api.post("/v1/tables", body).body["table_id"],
        api.post("/v1/tables", body).body["table_id"],
    )
    minted = api.post(f"/v1/tables/{mine}/tokens", {"bettor_id": "wes", "role": "watcher"})
    assert minted.status == 201, minted.body
    bearer = f"Bearer {minted.body['token']}"

    def allowed(operation: str, channel: str | None, token: str = bearer) -> bool:
        return bool(handler(authorizer_event(operation, token, channel), ctx)["isAuthorized"])

    assert allowed("EVENT_CONNECT", None)
    assert allowed("EVENT_SUBSCRIBE", f"/tables/{mine}/e1")
    assert not allowed("EVENT_SUBSCRIBE", f"/tables/{other}/e1")  # another table of its operator
    assert not allowed("EVENT_SUBSCRIBE", f"/tables/{mine}/e2")  # not the current epoch
    lobby = f"Bearer {api.post('/v1/lobby-tokens', {}).body['token']}"
    assert allowed("EVENT_CONNECT", None, lobby)
    assert not allowed("EVENT_SUBSCRIBE", f"/tables/{mine}/e1", lobby)  # a lobby token: no table
    tampered = bearer[:-2] + ("AA" if not bearer.endswith("AA") else "BB")
    assert not allowed("EVENT_SUBSCRIBE", f"/tables/{mine}/e1", tampered)
    assert api.call("DELETE", f"/v1/tables/{mine}/tokens/{minted.body['jti']}").status == 204
    assert not allowed("EVENT_CONNECT", None)  # revoked: refused at once
    assert not allowed("EVENT_SUBSCRIBE", f"/tables/{mine}/e1")
