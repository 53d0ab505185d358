"""``make run``'s timers: a heap and a thread delivering each tick at its due time. Short dues
(tens of milliseconds); the tests assert what is delivered and in which order, never how late."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from baccarat_api.adapters.thread_scheduler import ThreadScheduler
from baccarat_api.clock import at_ms
from baccarat_api.ports.scheduler import Tick


def due_in(ms: int) -> str:
    return at_ms(int(time.time() * 1000) + ms)


def tick(key: str, due: str) -> Tick:
    return Tick(operator_id="op", table_id="tbl_a", step="reveal", key=key, due=due)


class Inbox:
    def __init__(self, expect: int) -> None:
        self.got: list[Tick] = []
        self.all = threading.Event()
        self.expect = expect

    def __call__(self, t: Tick) -> None:
        self.got.append(t)
        if len(self.got) >= self.expect:
            self.all.set()


@pytest.fixture
def schedulers() -> Iterator[list[ThreadScheduler]]:
    made: list[ThreadScheduler] = []
    yield made
    for s in made:
        s.stop()


def test_ticks_are_delivered_in_due_order_whatever_the_order_scheduled(
    schedulers: list[ThreadScheduler],
) -> None:
    inbox = Inbox(4)
    s = ThreadScheduler(inbox)
    schedulers.append(s)
    for key, ms in (("c", 90), ("a", 30), ("d", 120), ("b", 60)):
        s.schedule(tick(key, due_in(ms)))
    assert inbox.all.wait(5)
    assert [t["key"] for t in inbox.got] == ["a", "b", "c", "d"]
    assert s.pending() == 0


def test_a_tick_already_due_is_delivered_at_once_and_a_duplicate_is_delivered_too(
    schedulers: list[ThreadScheduler],
) -> None:
    inbox = Inbox(3)
    s = ThreadScheduler(inbox)
    schedulers.append(s)
    past = tick("x", "2020-01-01T00:00:00.000Z")
    s.schedule(past)
    s.schedule(past)  # twice: the job makes it harmless; the scheduler does not hide it
    s.schedule(tick("y", due_in(20)))
    assert inbox.all.wait(5)
    assert [t["key"] for t in inbox.got] == ["x", "x", "y"]


def test_a_delivery_that_fails_does_not_stop_the_clock(schedulers: list[ThreadScheduler]) -> None:
    inbox = Inbox(1)

    def deliver(t: Tick) -> None:
        if t["key"] == "bad":
            raise RuntimeError("one table's failure")
        inbox(t)

    s = ThreadScheduler(deliver)
    schedulers.append(s)
    s.schedule(tick("bad", due_in(10)))
    s.schedule(tick("good", due_in(30)))
    assert inbox.all.wait(5)
    assert [t["key"] for t in inbox.got] == ["good"]


def test_a_tick_scheduled_from_a_delivery_is_delivered(schedulers: list[ThreadScheduler]) -> None:
    """The job schedules again from inside a delivery (an early tick): no deadlock."""
    inbox = Inbox(2)
    holder: list[ThreadScheduler] = []

    def deliver(t: Tick) -> None:
        inbox(t)
        if t["key"] == "first":
            holder[0].schedule(tick("again", due_in(20)))

    s = ThreadScheduler(deliver)
    holder.append(s)
    schedulers.append(s)
    s.schedule(tick("first", due_in(10)))
    assert inbox.all.wait(5)
    assert [t["key"] for t in inbox.got] == ["first", "again"]


def test_stop_ends_the_thread_and_drops_what_waits() -> None:
    inbox = Inbox(1)
    s = ThreadScheduler(inbox, name="table-clock-stop-test")
    s.schedule(tick("far", due_in(60_000)))
    assert s.pending() == 1
    s.stop()
    assert not any(t.name == "table-clock-stop-test" for t in threading.enumerate())
    assert inbox.got == []


def test_a_tick_due_in_a_distant_year_keeps_the_thread_alive(
    schedulers: list[ThreadScheduler],
) -> None:
    inbox = Inbox(1)
    s = ThreadScheduler(inbox)
    schedulers.append(s)
    s.schedule(tick("far", "9999-12-31T23:59:59.999Z"))  # waited for in pieces, not at once
    time.sleep(0.05)  # the thread is waiting on the far tick now
    s.schedule(tick("near", due_in(20)))
    assert inbox.all.wait(5), "the thread died waiting for the far tick"
    assert [t["key"] for t in inbox.got] == ["near"] and s.pending() == 1
