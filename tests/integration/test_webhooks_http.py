"""The webhook routes over HTTP (real API Gateway v2 events through WebhooksFunction's handler,
moto behind: DynamoDB and KMS): the secret answered once and stored sealed, refusals, failures
listed, removal; and DeliveryFunction's handler on an SQS event."""

from __future__ import annotations

import json
from typing import Any

import boto3
from support.stack import Api, LambdaContext, Stack, function_module

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.webhooks import SqsWakeup
from baccarat_api.ports.records import feed_shard
from baccarat_api.ports.webhooks import Sent
from baccarat_api.service import feed


def test_the_webhook_routes(api: Api, stack: Stack) -> None:
    put = api.call("PUT", "/v1/webhook", {"url": "https://example.com/hook"})
    assert put.status == 200 and put.function == "WebhooksFunction"
    secret = put.body["secret"]
    assert secret.startswith("whsec_") and put.body["url"] == "https://example.com/hook"
    pk, sk = keys.webhook_key("operator-a")
    item = stack.dynamodb.get_item(
        TableName=stack.repo.state, Key={"pk": {"S": pk}, "sk": {"S": sk}}
    )["Item"]
    assert secret.encode() not in item["secret_ct"]["B"] and secret not in json.dumps(
        {k: str(v) for k, v in item.items()}
    )  # stored sealed under KMS, never in clear
    again = api.call("PUT", "/v1/webhook", {"url": "https://example.com/other"})
    assert again.body["secret"] != secret  # a new secret each time
    assert api.call("PUT", "/v1/webhook", {"url": "ftp://x"}).status == 400
    assert api.call("PUT", "/v1/webhook", {}).status == 400
    listed = api.get("/v1/webhook/failures")
    assert listed.status == 200 and listed.body == {"failures": []}
    retry = api.post("/v1/webhook/failures/tbl_0000000000000000:1/retry")
    assert (retry.status, retry.error["code"]) == (404, "not_found")
    assert api.get("/v1/webhook/failures", key=stack.key_b).body == {"failures": []}
    gone = api.call("DELETE", "/v1/webhook")
    assert gone.status == 204
    assert api.call("DELETE", "/v1/webhook").status == 404
    assert api.call("DELETE", "/v1/webhook", key=None).status == 401


def test_the_delivery_handler_takes_an_sqs_batch(stack: Stack) -> None:
    handler = function_module("functions/delivery/").handler
    body = json.dumps({"operator_id": "operator-a", "shard": 0})
    out = handler(
        {"Records": [{"messageId": "m1", "body": body}, {"messageId": "m2", "body": "{}"}]},
        LambdaContext("DeliveryFunction"),
    )
    assert out == {"batchItemFailures": [{"itemIdentifier": "m2"}]}  # the malformed one


class _SlowReceiver:
    """A receiver taking ``seconds`` to answer each POST, on a clock of its own (the pass's
    Lambda context reads the time left from it): 200 to everything."""

    def __init__(self, seconds: float, budget: float) -> None:
        self.seconds, self.budget, self.elapsed = seconds, budget, 0.0
        self.left_at_post: list[float] = []
        self.ids: list[str] = []

    def time_left_ms(self) -> int:
        return int((self.budget - self.elapsed) * 1000)

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        self.left_at_post.append(self.budget - self.elapsed)
        self.elapsed += self.seconds
        self.ids.append(json.loads(body)["event_id"])
        return Sent(200)


class _Wakeups:
    def __init__(self) -> None:
        self.sent: list[tuple[str, int, int]] = []

    def later(
        self, operator_id: str, shard: int, delay_seconds: int, retry: bool = False, due_ms: int = 0
    ) -> None:
        self.sent.append((operator_id, shard, delay_seconds))


def test_a_delivery_pass_ends_before_its_function_times_out(api: Api, stack: Stack) -> None:
    """DeliveryFunction runs 60 s (template.yaml); a receiver answering each POST just within
    its 10 s would make a pass of 25 events run 250 s: killed mid-pass, its progress (saved at
    its end) lost, redelivered the same way until dead-lettered — the shard stuck. A pass stops
    while the time left still holds one more POST's timeout, saves where it is and comes back
    at once."""
    api.call("PUT", "/v1/webhook", {"url": "https://example.com/hook"})
    table = api.post("/v1/tables", {"squeeze_seconds": 0, "profile": "star-city",
                                    "tier": "star-city-fun", "banking": "house"}).body  # fmt: skip
    shoe = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "slow"}).body
    bet = {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker", "amount": 100,
           "balance": 50000}  # fmt: skip
    for _ in range(12):
        round_id = api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"bets": [bet]}).body["round_id"]
        api.post(f"/v1/rounds/{round_id}/settlement")
    rt = runtime.get_runtime()
    seq = rt.repo.load("operator-a", live=table["table_id"]).live.seq
    assert seq >= 25  # more than one pass's EVENTS_PER_PASS
    feed.index(rt.repo, [("operator-a", table["table_id"], seq)])
    timeout = rt.settings.webhook_timeout_seconds
    receiver, wakeups = _SlowReceiver(timeout - 0.5, budget=60.0), _Wakeups()
    rt.__dict__["sender"], rt.__dict__["wakeup"] = receiver, wakeups
    shard = feed_shard(table["table_id"])
    handler = function_module("functions/delivery/").handler
    message = {"messageId": "m1", "body": json.dumps({"operator_id": "operator-a", "shard": shard})}
    context = LambdaContext("DeliveryFunction")
    context.get_remaining_time_in_millis = receiver.time_left_ms  # type: ignore[method-assign]
    assert handler({"Records": [message]}, context) == {"batchItemFailures": []}
    assert receiver.ids  # it delivered some
    assert min(receiver.left_at_post) >= timeout  # never a POST that could outlast the function
    assert wakeups.sent == [("operator-a", shard, 0)]  # and it comes back at once for the rest
    while wakeups.sent:  # the next invocations, each with the function's whole time
        wakeups.sent.clear()
        receiver.elapsed = 0.0
        assert handler({"Records": [message]}, context) == {"batchItemFailures": []}
    assert receiver.ids == [f"{table['table_id']}:{n}" for n in range(1, seq + 1)]  # each once


def test_the_queue_tells_a_passs_own_message_from_a_wake(stack: Stack) -> None:
    """SqsWakeup on SQS (moto): the indexer's wake names the shard; the message a pass sends to
    come back also says ``retry`` (DeliveryFunction hands it to the pass), with its delay."""
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="delivery")["QueueUrl"]
    queue = SqsWakeup(sqs, url)
    sent: list[dict[str, Any]] = []
    real = sqs.send_message
    sqs.send_message = lambda **kw: (sent.append(kw), real(**kw))[1]
    queue.later("operator-a", 7, 0)
    queue.later("operator-a", 7, 3, retry=True)
    queue.later("operator-a", 7, 5000, retry=True)  # SQS's longest delay: 900 s, a hop
    assert [(json.loads(m["MessageBody"]), m["DelaySeconds"]) for m in sent] == [
        ({"operator_id": "operator-a", "shard": 7}, 0),
        ({"operator_id": "operator-a", "shard": 7, "retry": True}, 3),
        ({"operator_id": "operator-a", "shard": 7, "retry": True}, 900),
    ]
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
    first = got["Messages"][0]
    assert json.loads(first["Body"]) == json.loads(sent[0]["MessageBody"])  # SQS takes it
