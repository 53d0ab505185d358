"""The running tables' timers end to end on the AWS stand-ins: ``TableClockFunction``'s handler
given SQS batches of the shape Lambda sends (a failing tick reported alone, a body that is no
tick dropped), :class:`SqsScheduler` on moto's SQS, the live item's ``TICK#`` slot in the
DueRounds index on moto's DynamoDB, the sweep delivering an overdue tick, and the runtime's
choice of scheduler. ``run_tick`` is replaced by a recorder: what a step does is the table
clock's own tests'."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from support.clock import ManualClock
from support.stack import LambdaContext, Stack, function_module

from baccarat_api import runtime
from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.sqs_scheduler import SqsScheduler, tick_body
from baccarat_api.adapters.thread_scheduler import ThreadScheduler
from baccarat_api.jobs import table_clock as job
from baccarat_api.jobs.sweep import run_sweep
from baccarat_api.ports.documents import TickDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.scheduler import NoScheduler, Tick
from baccarat_api.ports.writes import Put, Update
from baccarat_api.service import auto_settle, table_clock

PAST = "2026-01-01T00:00:10.000Z"


def tick(table_id: str = "tbl_a", step: str = "close", due: str = PAST) -> Tick:
    return Tick(operator_id="operator-a", table_id=table_id, step=step, key="k", due=due)  # type: ignore[typeddict-item]


def record(message_id: str, body: str) -> dict[str, Any]:
    """One record as Lambda's SQS event source mapping sends it."""
    return {
        "messageId": message_id,
        "receiptHandle": f"handle-{message_id}",
        "body": body,
        "attributes": {
            "ApproximateReceiveCount": "1",
            "SentTimestamp": "1767225600000",
            "SenderId": "123456789012",
            "ApproximateFirstReceiveTimestamp": "1767225600001",
        },
        "messageAttributes": {},
        "md5OfBody": hashlib.md5(body.encode()).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:baccarat-test-TableClockQueue",
        "awsRegion": "us-east-1",
    }


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[Tick]:
    """``run_tick`` recorded; a tick of table ``tbl_bad`` fails."""
    got: list[Tick] = []

    def fake(repo: Any, shoes: Any, vault: Any, t: Tick, beacon: Any = None) -> table_clock.Outcome:
        if t["table_id"] == "tbl_bad":
            raise RuntimeError("the store said no")
        got.append(t)
        return "done"

    monkeypatch.setattr(table_clock, "run_tick", fake)
    return got


# --- the function ----------------------------------------------------------------------------


def test_the_function_takes_each_tick_of_a_batch_and_reports_only_the_failed_one(
    stack: Stack, runs: list[Tick]
) -> None:
    handler = function_module("functions/table_clock/").handler
    event = {
        "Records": [
            record("m1", tick_body(tick("tbl_a"))),
            record("m2", tick_body(tick("tbl_bad"))),
            record("m3", tick_body(tick("tbl_b", "reveal"))),
            record("m4", "{not a tick"),  # dropped: retrying it would never help
            record("m5", json.dumps({"operator_id": "operator-a", "shard": 0})),
        ]
    }
    out = handler(event, LambdaContext("TableClockFunction"))
    assert out == {"batchItemFailures": [{"itemIdentifier": "m2"}]}
    assert runs == [tick("tbl_a"), tick("tbl_b", "reveal")]


def test_the_sam_local_event_is_a_tick_the_function_takes(stack: Stack, runs: list[Tick]) -> None:
    from baccarat_dev.template import REPO_ROOT

    event = json.loads((REPO_ROOT / "events" / "ticks.json").read_text())
    handler = function_module("functions/table_clock/").handler
    assert handler(event, LambdaContext("TableClockFunction")) == {"batchItemFailures": []}
    assert [t["table_id"] for t in runs] == ["tbl_samlocal"]


def test_an_early_tick_is_sent_again_not_taken(
    stack: Stack, runs: list[Tick], monkeypatch: pytest.MonkeyPatch
) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="table-clock")["QueueUrl"]
    monkeypatch.setenv("TABLE_CLOCK_QUEUE_URL", url)
    runtime.reset()
    far = tick(due="2999-01-01T00:00:00.000Z")
    handler = function_module("functions/table_clock/").handler
    out = handler({"Records": [record("m1", tick_body(far))]}, LambdaContext("TableClockFunction"))
    assert out == {"batchItemFailures": []}
    assert runs == []
    assert int(queue_depth(sqs, url, "ApproximateNumberOfMessagesDelayed")) == 1


def queue_depth(sqs: Any, url: str, name: str) -> str:
    return str(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[name])["Attributes"][name])


# --- the scheduler on SQS -------------------------------------------------------------------


def test_sqs_scheduler_sends_the_tick_delayed_to_its_second(stack: Stack) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="table-clock")["QueueUrl"]
    sent: list[dict[str, Any]] = []
    real = sqs.send_message
    sqs.send_message = lambda **kw: (sent.append(kw), real(**kw))[1]
    clock = ManualClock("2026-01-01T00:00:00.000Z")
    scheduler = SqsScheduler(sqs, url, clock)
    later = tick(due="2026-01-01T00:00:12.400Z")
    now = tick("tbl_now", due="2026-01-01T00:00:00.000Z")
    scheduler.schedule(later)
    scheduler.schedule(now)
    assert [m["DelaySeconds"] for m in sent] == [12, 0]
    # the one due now is there at once and reads back as the tick; the other waits its delay
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [job.parse_tick(m["Body"]) for m in got] == [now]
    assert queue_depth(sqs, url, "ApproximateNumberOfMessagesDelayed") == "1"


def test_sqs_scheduler_survives_a_queue_that_is_gone(stack: Stack) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    gone = "https://sqs.us-east-1.amazonaws.com/123456789012/nothing-here"
    SqsScheduler(sqs, gone).schedule(tick())  # logged, not raised


# --- the index and the sweep ------------------------------------------------------------------


def live(table_id: str, due: str | None, **changes: Any) -> LiveRecord:
    t = None if due is None else TickDoc(step="close", key="k", due=due)
    base = LiveRecord("operator-a", table_id, seq=1, updated_at=PAST, tick=t)
    return dataclasses.replace(base, **changes)


def test_due_ticks_on_dynamodb_follow_the_tick_as_it_moves(stack: Stack) -> None:
    repo = stack.repo
    repo.transact("t", [Put(live("tbl_a", "2026-01-01T00:00:10.000Z"))])
    repo.transact("t", [Put(live("tbl_b", "2026-01-01T00:00:20.000Z"))])
    repo.transact("t", [Put(live("tbl_op", None, deal_by="2026-01-01T00:00:05.000Z"))])
    assert repo.due_ticks("2026-01-01T00:00:15.000Z", 10) == [("operator-a", "tbl_a")]
    assert repo.due_books("2026-01-01T00:00:15.000Z", 10) == [("operator-a", "tbl_op")]
    # a window opens at tbl_a: its deal_by and its next tick move together; the tick keeps the slot
    moved = TickDoc(step="close", key="k2", due="2026-01-01T00:00:40.000Z")
    repo.transact(
        "t",
        [Update(LiveRecord, ("operator-a", "tbl_a"),
                set={"tick": moved, "deal_by": "2026-01-01T00:00:55.000Z", "seq": 2},
                expect={"seq": 1})],
    )  # fmt: skip
    assert repo.due_ticks("2026-01-01T00:00:15.000Z", 10) == []
    assert repo.due_ticks("2026-01-01T00:00:40.000Z", 10) == [
        ("operator-a", "tbl_a"),
        ("operator-a", "tbl_b"),
    ]
    assert repo.due_books("2026-01-01T00:01:00.000Z", 10) == [("operator-a", "tbl_op")]
    # paused, waiting: no tick, the table leaves the index
    repo.transact(
        "t",
        [Update(LiveRecord, ("operator-a", "tbl_b"), set={"seq": 2}, remove=("tick",),
                expect={"seq": 1})],
    )  # fmt: skip
    assert repo.due_ticks("2026-01-01T01:00:00.000Z", 10) == [("operator-a", "tbl_a")]
    assert repo.load("operator-a", live="tbl_a").live.tick == moved  # type: ignore[union-attr]


def test_the_sweep_delivers_an_overdue_tick_on_dynamodb(stack: Stack, runs: list[Tick]) -> None:
    stack.repo.transact("t", [Put(live("tbl_a", "2026-01-01T00:00:10.000Z"))])
    stack.repo.transact("t", [Put(live("tbl_b", "2026-01-01T00:00:12.000Z"))])
    rt = runtime.get_runtime()
    report = run_sweep(rt.repo, at="2026-01-01T00:00:16.000Z", runtime=rt)
    assert runs == [tick("tbl_a", due="2026-01-01T00:00:10.000Z")]  # tbl_b: 4 s, its timer's
    assert report.ticked == ["tbl_a:close"]


def test_the_sweep_delivers_an_overdue_tick_in_memory(runs: list[Tick]) -> None:
    repo = MemoryRepository(ManualClock("2026-01-01T00:01:00.000Z"))
    repo.transact("t", [Put(live("tbl_a", PAST))])
    report = auto_settle.sweep(repo, shoes=object(), unseal=object())  # type: ignore[arg-type]
    assert runs == [tick("tbl_a")]
    assert report.ticked == ["tbl_a:close"]


# --- the runtime's scheduler ------------------------------------------------------------------


@pytest.fixture
def fresh_runtime(stack: Stack) -> Iterator[None]:
    runtime.reset()
    yield
    runtime.reset()


def test_the_runtime_sends_ticks_to_sqs_when_the_queue_is_set(
    fresh_runtime: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLE_CLOCK_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/1/q")
    runtime.reset()
    rt = runtime.get_runtime()
    assert isinstance(rt.scheduler, SqsScheduler)
    assert rt.repo.scheduler is rt.scheduler  # type: ignore[attr-defined]


def test_the_runtime_has_no_timers_without_a_queue_until_make_run_starts_its_thread(
    fresh_runtime: None, monkeypatch: pytest.MonkeyPatch, runs: list[Tick]
) -> None:
    monkeypatch.delenv("TABLE_CLOCK_QUEUE_URL", raising=False)
    rt = runtime.get_runtime()
    assert isinstance(rt.scheduler, NoScheduler)
    assert isinstance(rt.repo.scheduler, NoScheduler)  # type: ignore[attr-defined]
    thread = job.start_background(rt)
    try:
        assert isinstance(thread, ThreadScheduler)
        assert rt.scheduler is thread and rt.repo.scheduler is thread  # type: ignore[attr-defined]
        done = run_tick_seen(runs)
        rt.scheduler.schedule(tick(due="2020-01-01T00:00:00.000Z"))
        assert done.wait(5)
        assert runs == [tick(due="2020-01-01T00:00:00.000Z")]
    finally:
        thread.stop()


def run_tick_seen(runs: list[Tick]) -> Any:
    """An event set once ``runs`` holds a tick (polled: the fake records on the clock's thread)."""
    import threading
    import time

    done = threading.Event()

    def watch() -> None:
        for _ in range(500):
            if runs:
                done.set()
                return
            time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    return done
