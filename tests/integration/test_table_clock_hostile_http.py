"""A running table attacked end to end: ``make run`` restarted with running tables (the thread
scheduler's heap is lost with the process: its start-up pass must take up every stored tick at
once, not leave the tables still until the sweep's minute), and a frontend integrating from
docs/api.md alone, over the HTTP handlers (every state, event and field of a running table as
documented)."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.stack import Stack

from baccarat_api import runtime
from baccarat_api.jobs import table_clock as job
from baccarat_api.ports.documents import TickDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.scheduler import Tick
from baccarat_api.ports.writes import Put
from baccarat_api.service import table_clock

PAST = "2026-01-01T00:00:10.000Z"
FAR = "2999-01-01T00:00:00.000Z"


@pytest.fixture
def delivered(monkeypatch: pytest.MonkeyPatch) -> list[Tick]:
    """``run_tick`` recorded (what a step does is the table clock's own tests')."""
    got: list[Tick] = []
    lock = threading.Lock()

    def fake(repo: Any, shoes: Any, vault: Any, t: Tick) -> table_clock.Outcome:
        with lock:
            got.append(t)
        return "done"

    monkeypatch.setattr(table_clock, "run_tick", fake)
    return got


@pytest.fixture
def fresh_runtime(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TABLE_CLOCK_QUEUE_URL", raising=False)
    runtime.reset()
    yield
    runtime.reset()


def stored(table_id: str, due: str | None, step: str = "close") -> LiveRecord:
    t = None if due is None else TickDoc(step=step, key=f"{table_id}:k", due=due)  # type: ignore[typeddict-item]
    return dataclasses.replace(LiveRecord("operator-a", table_id, seq=1, updated_at=PAST), tick=t)


def wait_for(cond: Any, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return bool(cond())


def test_a_restarted_make_run_takes_up_every_stored_tick_at_once(
    stack: Stack, fresh_runtime: None, delivered: list[Tick]
) -> None:
    """The tables outlive the process (a shared DynamoDB Local, a stack): the new process's
    thread has an empty heap. Each running table's stored next step is scheduled again at
    start-up: an overdue one is taken at once (not ≥ 5 s later by the sweep, whose first run is
    a minute after start), a future one waits for its due; a table with no tick (paused,
    waiting) is left alone."""
    stack.repo.transact("t", [Put(stored("tbl_overdue", PAST))])
    stack.repo.transact("t", [Put(stored("tbl_future", FAR, step="open"))])
    stack.repo.transact("t", [Put(stored("tbl_paused", None))])
    rt = runtime.get_runtime()
    thread = job.start_background(rt)
    try:
        assert wait_for(lambda: len(delivered) >= 1)
        assert [(t["table_id"], t["step"], t["due"]) for t in delivered] == [
            ("tbl_overdue", "close", PAST)
        ]
        assert thread.pending() == 1  # tbl_future's open, at its due
    finally:
        thread.stop()


def test_a_batch_of_ticks_is_taken_in_due_order_not_in_arrival_order(
    stack: Stack, delivered: list[Tick]
) -> None:
    """SQS rounds each delay down to the second, so a batch (up to 10) holds ticks due within
    the next second and a half, which the function waits for one after another: taken in the
    order they arrived, a tick due now waits behind one due 1.2 s later (late by that much).
    Taken in due order, each waits only for its own due."""
    from support.stack import LambdaContext, function_module

    from baccarat_api.adapters.sqs_scheduler import tick_body

    from .test_table_clock_job import record

    now = time.time()

    def at(seconds: float) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now + seconds)) + (
            f".{int(((now + seconds) % 1) * 1000):03d}Z"
        )

    later = Tick(operator_id="operator-a", table_id="tbl_later", step="close", key="k", due=at(1.2))
    first = Tick(operator_id="operator-a", table_id="tbl_first", step="open", key="k", due=at(0.1))
    handler = function_module("functions/table_clock/").handler
    event = {"Records": [record("m1", tick_body(later)), record("m2", tick_body(first))]}
    assert handler(event, LambdaContext("TableClockFunction")) == {"batchItemFailures": []}
    assert [t["table_id"] for t in delivered] == ["tbl_first", "tbl_later"]
