"""The HttpApi Lambda authorizer (template.yaml ``OperatorKey``): real authorizer v2 events in,
simple responses out; the functions take the operator from its context; and the whole API works
behind it as API Gateway runs it (tests/support/gateway.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.gateway import GatewayApi, authorize, authorizer_event, public_route_keys
from support.stack import Api, Stack, http_api_event, star_city_bets

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.operators import OperatorStore, add_key, key_id_of, revoke_key
from baccarat_api.apikeys import hash_key
from baccarat_dev.template import load


def request_event(api: Api, method: str, path: str, authorization: str | None) -> dict[str, Any]:
    headers = {} if authorization is None else {"authorization": authorization}
    return http_api_event(method, path, api.route(method, path), headers=headers)


def test_an_operator_key_is_authorized_with_its_operator_in_the_context(
    api: Api, stack: Stack
) -> None:
    event = authorizer_event(request_event(api, "GET", "/v1/tiers", f"Bearer {stack.key_a}"))
    assert event["type"] == "REQUEST" and event["identitySource"] == [f"Bearer {stack.key_a}"]
    assert authorize(event) == {"isAuthorized": True, "context": {"operator_id": "operator-a"}}
    event = authorizer_event(request_event(api, "POST", "/v1/tables", f"Bearer {stack.key_b}"))
    assert authorize(event) == {"isAuthorized": True, "context": {"operator_id": "operator-b"}}


@pytest.mark.parametrize(
    "authorization",
    [
        "",
        "Bearer",
        "Basic abc",
        "bk_x",
        "Bearer not-a-known-key",
        "Bearer a b",
        "Bearer " + "x" * 300,
    ],
)
def test_anything_but_a_known_key_is_refused(api: Api, authorization: str) -> None:
    event = authorizer_event(request_event(api, "GET", "/v1/tiers", authorization))
    assert authorize(event) == {"isAuthorized": False}


def test_a_revoked_key_is_refused_and_the_other_keys_keep_working(api: Api, stack: Stack) -> None:
    store = OperatorStore(stack.dynamodb, stack.repo.config)
    second = add_key(store, "operator-a").key
    revoke_key(store, "operator-a", key_id_of(stack.key_a))
    for key, ok in ((stack.key_a, False), (second, True), (stack.key_b, True)):
        answer = authorize(
            authorizer_event(request_event(api, "GET", "/v1/tiers", f"Bearer {key}"))
        )
        assert answer["isAuthorized"] is ok, key


def test_the_authorizer_caches_nothing_itself(api: Api, stack: Stack) -> None:
    """API Gateway caches its answers (ReauthorizeEvery); the function itself must not add a
    second cache, or a revoked key would live on for twice the promised time."""
    event = authorizer_event(request_event(api, "GET", "/v1/tiers", f"Bearer {stack.key_a}"))
    assert authorize(event)["isAuthorized"] is True
    revoke_key(OperatorStore(stack.dynamodb, stack.repo.config), "operator-a",
               key_id_of(stack.key_a))  # fmt: skip
    # the container's environment as the template sets it (AUTH_CACHE_SECONDS=0)
    env = load()["Resources"]["AuthorizerFunction"]["Properties"]["Environment"]["Variables"]
    assert env["AUTH_CACHE_SECONDS"] == "0"


def test_the_authorizer_with_the_templates_environment_answers_revocation_at_once(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = load()["Resources"]["AuthorizerFunction"]["Properties"]["Environment"]["Variables"]
    for name, value in env.items():
        if isinstance(value, str):  # not KMS_KEY_ID's !GetAtt (the stack's key stays)
            monkeypatch.setenv(name, value)
    runtime.reset()
    event = authorizer_event(request_event(api, "GET", "/v1/tiers", f"Bearer {stack.key_a}"))
    assert authorize(event)["isAuthorized"] is True
    revoke_key(OperatorStore(stack.dynamodb, stack.repo.config), "operator-a",
               key_id_of(stack.key_a))  # fmt: skip
    assert authorize(event) == {"isAuthorized": False}


def test_a_store_outage_fails_the_authorizer_instead_of_denying(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A throttled key lookup must not become a cached 403 for a valid key: the authorizer
    fails (API Gateway answers 500 and caches nothing)."""
    from baccarat_api.ports.repository import StoreUnavailable

    from .test_errors import inject

    monkeypatch.setenv("AUTH_CACHE_SECONDS", "0")
    runtime.reset()
    inject(runtime.get_runtime().dynamodb, "GetItem", "ThrottlingException")
    event = authorizer_event(request_event(api, "GET", "/v1/tiers", f"Bearer {stack.key_a}"))
    with pytest.raises(StoreUnavailable):
        authorize(event)


def test_nothing_of_the_key_is_logged(api: Api, stack: Stack, logs: list[str]) -> None:
    for authorization in (f"Bearer {stack.key_a}", "Bearer bk_wrong-key-material"):
        authorize(authorizer_event(request_event(api, "GET", "/v1/tiers", authorization)))
    text = "\n".join(logs)
    assert logs and "operator key refused" in text
    for secret in (stack.key_a, hash_key(stack.key_a), "wrong-key-material"):
        assert secret not in text


def test_functions_take_the_operator_from_the_authorizer_context(api: Api, stack: Stack) -> None:
    """Behind the authorizer the function does not look the key up again: an event with the
    authorizer's context and no Authorization header is served as that operator."""
    table = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body
    path = f"/v1/tables/{table['table_id']}"
    from support.stack import LambdaContext, function_module

    route = api.route("GET", path)
    handler = function_module(route.code_uri).handler

    def as_operator(operator_id: str) -> dict[str, Any]:
        event = http_api_event("GET", path, route)
        event["requestContext"]["authorizer"] = {"lambda": {"operator_id": operator_id}}
        out = handler(event, LambdaContext(function_name=route.function))
        return {"status": out["statusCode"], "body": json.loads(out["body"])}

    mine = as_operator("operator-a")
    assert mine["status"] == 200 and mine["body"]["table_id"] == table["table_id"]
    theirs = as_operator("operator-b")
    assert theirs["status"] == 404 and theirs["body"]["error"]["code"] == "not_found"
    # without the context (and without a key) the function answers 401 itself
    event = http_api_event("GET", path, route)
    out = handler(event, LambdaContext(function_name=route.function))
    assert out["statusCode"] == 401


def test_a_client_cannot_claim_an_operator(api: Api, stack: Stack) -> None:
    """Headers, query strings or bodies naming an operator change nothing: only the key (or
    API Gateway's authorizer context) does."""
    table = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body
    path = f"/v1/tables/{table['table_id']}"
    spoof = {"x-operator-id": "operator-a", "x-amzn-authorizer": "operator-a"}
    r = api.get(path, key=stack.key_b, headers=spoof)
    assert r.status == 404
    assert api.get(path, key=False, headers=spoof).status == 401


def test_the_whole_api_behind_the_authorizer(stack: Stack) -> None:
    gw = GatewayApi(stack.key_a)
    assert gw.get("/v1/tiers", key=False).body == {"message": "Unauthorized"}
    assert gw.get("/v1/tiers", key=False).status == 401
    refused = gw.get("/v1/tiers", key="bk_unknown")
    assert (refused.status, refused.body) == (403, {"message": "Forbidden"})

    table = gw.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    )
    assert table.status == 201, table.body
    shoe = gw.post(f"/v1/tables/{table.body['table_id']}/shoes", {"client_seed": "gw"})
    assert shoe.status == 201, shoe.body
    shoe_id = shoe.body["shoe_id"]
    dealt = gw.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
    assert dealt.status == 201, dealt.body
    settled = gw.post(f"/v1/rounds/{dealt.body['round_id']}/settlement")
    assert settled.status == 200, settled.body
    assert gw.get(f"/v1/shoes/{shoe_id}/proof", key=False).status == 409  # public, still open
    assert gw.post(f"/v1/shoes/{shoe_id}/close").status == 200
    assert gw.get(f"/v1/shoes/{shoe_id}/proof", key=False).status == 200
    # one authorizer call per distinct header value (API Gateway's cache), whatever the route
    assert gw.authorizer_calls == 2
    # the other operator behind the same gateway sees none of it
    other = GatewayApi(stack.key_b)
    assert other.get(f"/v1/shoes/{shoe_id}").status == 404


def test_the_template_puts_every_route_but_the_public_ones_behind_the_authorizer() -> None:
    t = load()
    auth = t["Resources"]["HttpApi"]["Properties"]["Auth"]
    assert auth["DefaultAuthorizer"] == "OperatorKey"
    operator_key = auth["Authorizers"]["OperatorKey"]
    assert operator_key["FunctionArn"] == {"Fn::GetAtt": ["AuthorizerFunction", "Arn"]}
    assert operator_key["AuthorizerPayloadFormatVersion"] == "2.0"
    assert operator_key["EnableSimpleResponses"] is True
    assert operator_key["EnableFunctionDefaultPermissions"] is True
    assert operator_key["Identity"]["Headers"] == ["Authorization"]
    assert operator_key["Identity"]["ReauthorizeEvery"] == {"Ref": "AuthorizerCacheSeconds"}
    assert t["Parameters"]["AuthorizerCacheSeconds"]["Default"] == 60
    # the player paths' CORS preflights carry no Authorization (test_player_cors.py)
    public = {k for k in public_route_keys() if not k.startswith("OPTIONS ")}
    assert public == {
        "GET /v1/shoes/{shoe_id}/proof",
        "GET /v1/signing-keys",
        "GET /v1/tables/{table_id}/fairness",
        "GET /v1/shoes/{shoe_id}/rounds/{round_number}/book",
        "GET /verify",
        "GET /lobby",  # the lobby page: its token stays in the browser's fragment
        "GET /table",  # the table page: its player token stays in the browser's fragment
    }
    # nothing that touches an operator's state is public
    assert all(key.startswith("GET ") for key in public), public
    assert not {k for k in public if "{round_id}" in k}
