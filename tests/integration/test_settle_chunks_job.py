"""The settlement fan-out in AWS, on moto: a book round's settlement sends one message per chunk
to the SQS queue (``SETTLE_CHUNK_QUEUE_URL``) instead of running them; ``SettleChunkFunction``'s
handler runs each (receipts and pages written, the page event once), drops a body that is no
chunk, and reports a chunk that failed alone; the sam-local event is a chunk it takes."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import boto3
import pytest
from support.bookround import with_book
from support.stack import Api, LambdaContext, Stack, function_module, new_shoe, new_table

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.book import slip_item
from baccarat_api.adapters.sqs_chunks import SqsChunkQueue
from baccarat_api.ids import parse_round_id
from baccarat_api.ports.book import Slip
from baccarat_api.ports.chunks import ChunkMessage
from baccarat_api.service import settle_chunks

OP = "operator-a"


def record(message_id: str, body: str) -> dict[str, Any]:
    return {
        "messageId": message_id,
        "receiptHandle": f"handle-{message_id}",
        "body": body,
        "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1767225600000"},
        "messageAttributes": {},
        "md5OfBody": hashlib.md5(body.encode()).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:baccarat-test-SettleChunkQueue",
        "awsRegion": "us-east-1",
    }


def test_chunks_go_to_the_queue_and_the_function_runs_them(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="settle-chunks")["QueueUrl"]
    monkeypatch.setenv("SETTLE_CHUNK_QUEUE_URL", url)
    runtime.reset()
    t = new_table(api, profile="bid-squeeze", bet_behind="book")
    seated = [
        {"bettor_id": "sam", "role": "seated", "seat": 1, "balance": 50_000, "level": 5,
         "type": "banker", "amount": 1000},
    ]  # fmt: skip
    rid = api.post(f"/v1/shoes/{new_shoe(api, t)}/rounds", {"bets": seated}).body["round_id"]
    ref = parse_round_id(rid)
    assert ref is not None
    r = stack.repo.get_round(OP, ref)
    assert r is not None

    def write(round_id: str, slips: list[Slip]) -> None:
        for s in slips:
            stack.dynamodb.put_item(TableName=stack.repo.state, Item=slip_item(OP, round_id, s))

    with_book(stack.repo, r, 150, write)
    assert api.post(f"/v1/rounds/{rid}/settlement").status == 200
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    bodies = sorted((json.loads(m["Body"]) for m in got), key=lambda b: b["chunk"])
    assert bodies == [ChunkMessage(OP, rid, k).as_dict() for k in (0, 1)]
    assert api.get(f"/v1/rounds/{rid}/receipts/spectator-00001").status == 404  # not run yet

    # overdue: the sweep's resend sends them again and postpones the progress (on DynamoDB)
    class Held:
        def __init__(self) -> None:
            self.sent: list[ChunkMessage] = []

        def send(self, messages: Any) -> None:
            self.sent += messages

    held = Held()
    stack.repo.chunk_queue = held
    later = "2999-01-01T00:00:00.000Z"
    assert settle_chunks.resend_due(stack.repo, later) == [rid]
    assert settle_chunks.resend_due(stack.repo, later) == []  # postponed by the grace
    assert [m.chunk for m in held.sent] == [0, 1]

    handler = function_module("functions/settle_chunks/").handler
    event = {
        "Records": [
            record("m1", got[0]["Body"]),
            record("m2", "{not a chunk"),  # dropped: retrying it would never help
            record("m3", got[1]["Body"]),
            record("m4", got[1]["Body"]),  # a duplicate delivery: nothing twice
        ]
    }
    assert handler(event, LambdaContext("SettleChunkFunction")) == {"batchItemFailures": []}
    progress = stack.repo.chunks.progress(OP, ref)
    assert progress is not None and progress.complete
    assert stack.repo.chunks.due_progress("9999-12-31T00:00:00.000Z", 10) == []  # out of the index
    assert api.get(f"/v1/rounds/{rid}/receipts/spectator-00001").status == 200
    feed = api.get(f"/v1/tables/{t}/events", query="limit=100").body["events"]
    assert sorted(e["data"]["page"] for e in feed if e["type"] == "round_settlement_page") == [0, 1]


def test_a_failed_send_is_logged_not_raised() -> None:
    class Down:
        def send_message_batch(self, **kw: Any) -> Any:
            raise ConnectionError("sqs down")

    SqsChunkQueue(Down(), "https://sqs/q").send([ChunkMessage(OP, "tbl_a_s1_r1", 0)])


def test_the_sam_local_event_is_a_chunk_the_function_takes(stack: Stack) -> None:
    from baccarat_dev.template import REPO_ROOT

    event = json.loads((REPO_ROOT / "events" / "settle_chunks.json").read_text())
    handler = function_module("functions/settle_chunks/").handler
    assert handler(event, LambdaContext("SettleChunkFunction")) == {"batchItemFailures": []}
