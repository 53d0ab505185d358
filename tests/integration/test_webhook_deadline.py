"""A receiver that trickles its answer (one byte per 0.5 s) held a POST far
beyond ``WEBHOOK_TIMEOUT_SECONDS`` (the timeout was per socket read), and deliveries ran one
after the other: one operator's slow receiver delayed every other operator's events — in
``make run`` and in a DeliveryFunction batch. Now the timeout is the whole exchange's (the POST
is abandoned and counts as a failed try, retried with backoff) and the passes of different
operators run at once (bounded), so another operator's event is delivered while the slow
receiver is still trickling. Real sockets on loopback; outcomes, not wall-clock precision."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.receivers import Quick, Trickler
from support.stack import LambdaContext, Stack, function_module

from baccarat_api import runtime
from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.adapters.webhooks import HttpSender
from baccarat_api.jobs.delivery import run_forever
from baccarat_api.ports.records import feed_shard
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service import events, feed, webhooks

SLOW, FAST = "op-slow", "op-fast"
TABLES = {SLOW: "tbl_00000000000000a1", FAST: "tbl_00000000000000b2"}


@pytest.fixture
def trickler() -> Iterator[Trickler]:
    server = Trickler(every=0.5)
    yield server
    server.close()


@pytest.fixture
def quick() -> Iterator[Quick]:
    server = Quick()
    yield server
    server.close()


def one_event(repo: Repository, operator_id: str) -> None:
    """The first event at the operator's table, indexed into its feed."""
    table = TABLES[operator_id]
    live = repo.load(operator_id, live=table).live
    ev = events.emit(live, operator_id, table, "2026-01-01T00:00:00.000Z",
                     [("watcher_joined", {"bettor_id": "w"})])  # fmt: skip
    repo.emitting("e", [], ev)
    feed.index(repo, [(operator_id, table, 1)])  # its first


def hooks(repo: Repository, vault: SecretVault, trickler: Trickler, quick: Quick) -> None:
    webhooks.set_webhook(repo, vault, SLOW, trickler.url)
    webhooks.set_webhook(repo, vault, FAST, quick.url)
    one_event(repo, SLOW)
    one_event(repo, FAST)


def test_a_trickled_answer_is_abandoned_at_the_timeout_and_counts_as_a_failed_try(
    trickler: Trickler,
) -> None:
    """A 1 s timeout against a receiver whose 200 takes 9.5 s to trickle in: before, the POST
    waited it out and counted it delivered; now it is abandoned while the receiver is still
    trickling, a failed try whose retry is scheduled by the backoff."""
    repo, vault = MemoryRepository(), MemoryVault()
    webhooks.set_webhook(repo, vault, SLOW, trickler.url)
    one_event(repo, SLOW)
    sender = HttpSender(1.0, allow_private=True)
    done = webhooks.deliver(repo, vault, sender, SLOW, feed_shard(TABLES[SLOW]))
    assert trickler.answering.is_set() and not trickler.finished.is_set()  # abandoned mid-answer
    assert (done.delivered, done.again_in) == (0, webhooks.backoff(1))
    state = repo.delivery_state(SLOW, feed_shard(TABLES[SLOW]))
    assert (state.attempts, state.pos) == (1, 0)  # a failed try; the event is still next
    sent = sender.post(trickler.url, b'{"event_id":"x"}', {})
    assert (sent.ok, sent.status) == (False, None) and "1 s" in sent.error


def test_make_run_delivers_another_operator_while_a_receiver_trickles(
    trickler: Trickler, quick: Quick
) -> None:
    """``make run``'s loop: the slow operator comes first; its receiver trickles; the other
    operator's event arrives meanwhile (before, it waited for the whole trickle)."""
    repo, vault = MemoryRepository(), MemoryVault()
    hooks(repo, vault, trickler, quick)
    stop = threading.Event()
    loop = threading.Thread(
        target=run_forever,
        args=(repo, vault, HttpSender(8.0, allow_private=True), lambda: [SLOW, FAST], stop),
        kwargs={"every": 0.05},
    )
    loop.start()
    try:
        assert trickler.answering.wait(4)
        assert quick.got.wait(4), "the fast operator waited for the slow one's receiver"
        assert not trickler.finished.is_set()  # still trickling when the other was delivered
        assert quick.ids == [f"{TABLES[FAST]}:1"]
    finally:
        stop.set()
        loop.join(timeout=15)
    assert not loop.is_alive()


def test_a_delivery_batch_runs_each_operators_pass_at_once(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, trickler: Trickler, quick: Quick
) -> None:
    """DeliveryFunction's SQS batch: the slow operator's message first. Before, the batch's
    passes ran one after the other (the fast operator's waited for the trickle, and in AWS a
    batch of slow receivers outlived the function); now they run at once, each still ending
    while the function has a POST's timeout left."""
    monkeypatch.setenv("WEBHOOK_TIMEOUT_SECONDS", "8")
    monkeypatch.setenv("WEBHOOK_PRIVATE_ADDRESSES", "true")
    runtime.reset()
    rt = runtime.get_runtime()
    hooks(rt.repo, rt.vault, trickler, quick)
    later: list[tuple[str, int, int]] = []

    class Wakeups:
        def later(self, operator_id: str, shard: int, delay: int, retry: bool = False,
                  due_ms: int = 0) -> None:  # fmt: skip
            later.append((operator_id, shard, delay))

    rt.__dict__["wakeup"] = Wakeups()
    records = [
        {"messageId": op, "body": json.dumps({"operator_id": op, "shard": feed_shard(t)})}
        for op, t in TABLES.items()
    ]
    context = LambdaContext("DeliveryFunction")
    ends = time.monotonic() + 60  # the template's Timeout
    context.get_remaining_time_in_millis = lambda: int((ends - time.monotonic()) * 1000)  # type: ignore[method-assign]
    handler = function_module("functions/delivery/").handler
    out: list[Any] = []
    batch = threading.Thread(target=lambda: out.append(handler({"Records": records}, context)))
    batch.start()
    try:
        assert trickler.answering.wait(4)
        assert quick.got.wait(4), "the fast operator waited for the slow one's receiver"
        assert not trickler.finished.is_set()
    finally:
        batch.join(timeout=30)
    assert out == [{"batchItemFailures": []}]
    assert quick.ids == [f"{TABLES[FAST]}:1"]
    # the slow one was abandoned at 8 s: a failed try, its retry scheduled by the backoff
    assert later == [(SLOW, feed_shard(TABLES[SLOW]), int(webhooks.backoff(1)))]
    assert rt.repo.delivery_state(SLOW, feed_shard(TABLES[SLOW])).attempts == 1


def test_a_delivery_batch_fits_the_threads_and_a_pass_the_function() -> None:
    """Every message of a DeliveryFunction batch gets a thread at once (template.yaml's
    BatchSize ≤ CONCURRENCY: none waits behind another operator's pass), and the longest
    WEBHOOK_TIMEOUT_SECONDS allowed still leaves a pass time to POST and save before the
    function's Timeout (it was 60, the function's own: a pass keeping one POST's timeout and
    5 s would never have POSTed, rescheduling itself at once for ever)."""
    from baccarat_api.jobs.delivery import CONCURRENCY, MARGIN_SECONDS
    from baccarat_api.settings import Settings
    from baccarat_dev.template import load

    fn = load()["Resources"]["DeliveryFunction"]["Properties"]
    assert fn["Events"]["Deliveries"]["Properties"]["BatchSize"] <= CONCURRENCY
    longest = Settings.model_fields["webhook_timeout_seconds"].metadata
    most = min(m.le for m in longest if getattr(m, "le", None) is not None)
    assert most + MARGIN_SECONDS < fn["Timeout"]  # at least one POST an invocation
