"""The webhook routes over HTTP (real API Gateway v2 events through WebhooksFunction's handler,
moto behind: DynamoDB and KMS): the secret answered once and stored sealed, refusals, failures
listed, removal; and DeliveryFunction's handler on an SQS event."""

from __future__ import annotations

import json

from support.stack import Api, LambdaContext, Stack, function_module

from baccarat_api.adapters.dynamodb import keys


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
