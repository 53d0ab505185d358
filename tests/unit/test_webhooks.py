"""Webhook delivery over the in-memory repository with a scripted receiver: signatures, each
shard in order, exponential backoff, parking after 24 h, listing and retrying a parked event,
and a delivery pass that lost to a concurrent one changing nothing twice."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from support.clock import ManualClock

from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.jobs import delivery
from baccarat_api.ports.records import DeliveryState, feed_shard
from baccarat_api.ports.webhooks import Sent, wake_message
from baccarat_api.service import events, feed, webhooks
from baccarat_api.service.errors import DomainError

OP = "op-hooks"
TABLE = "tbl_00000000000000aa"
SHARD = feed_shard(TABLE)
HOUR_MS = 3600 * 1000


class Script:
    """A receiver answering from a script of statuses (then 200), recording what it got."""

    def __init__(self, *statuses: int | None) -> None:
        self.statuses = list(statuses)
        self.got: list[tuple[dict[str, str], bytes]] = []

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        self.got.append((headers, body))
        status = self.statuses.pop(0) if self.statuses else 200
        return Sent(status, "" if status else "no answer: timeout")

    def ids(self) -> list[str]:
        return [json.loads(b)["event_id"] for _, b in self.got]


def setup(n: int = 3) -> tuple[MemoryRepository, MemoryVault, str]:
    repo, vault = MemoryRepository(), MemoryVault()
    secret = webhooks.set_webhook(repo, vault, OP, "https://example.com/h").secret
    for i in range(n):
        live = repo.load(OP, live=TABLE).live
        ev = events.emit(live, OP, TABLE, "2026-01-01T00:00:00.000Z",
                         [("watcher_joined", {"bettor_id": f"w{i}"})])  # fmt: skip
        repo.emitting("e", [], ev)
    feed.index(repo, [(OP, TABLE, n)])
    return repo, vault, secret


def test_each_event_is_posted_signed_in_order() -> None:
    repo, vault, secret = setup()
    receiver = Script()
    done = webhooks.deliver(repo, vault, receiver, OP, SHARD)
    assert (done.delivered, done.again_in) == (3, None)
    assert receiver.ids() == [f"{TABLE}:{n}" for n in (1, 2, 3)]
    for headers, body in receiver.got:
        t, v1 = (p.split("=", 1)[1] for p in headers["Baccarat-Signature"].split(","))
        want = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
        assert v1 == want and headers["Content-Type"] == "application/json"
    assert webhooks.deliver(repo, vault, receiver, OP, SHARD).delivered == 0  # nothing twice
    assert secret.startswith("whsec_") and len(secret) == 6 + 43


def test_a_failure_stops_the_shard_and_backs_off_exponentially() -> None:
    repo, vault, _ = setup()
    receiver = Script(500, None, 503)
    t0 = 1_767_225_600_000
    first = webhooks.deliver(repo, vault, receiver, OP, SHARD, now_ms=t0)
    assert (first.delivered, first.again_in) == (0, 10.0)
    waiting = webhooks.deliver(repo, vault, receiver, OP, SHARD, now_ms=t0 + 5_000)
    assert waiting.again_in == 5.0 and len(receiver.got) == 1  # not before its time
    second = webhooks.deliver(repo, vault, receiver, OP, SHARD, now_ms=t0 + 10_000)
    assert second.again_in == 20.0
    third = webhooks.deliver(repo, vault, receiver, OP, SHARD, now_ms=t0 + 30_000)
    assert third.again_in == 40.0
    done = webhooks.deliver(repo, vault, receiver, OP, SHARD, now_ms=t0 + 70_000)
    assert done.delivered == 3
    assert receiver.ids() == [f"{TABLE}:1"] * 4 + [f"{TABLE}:2", f"{TABLE}:3"]
    assert [webhooks.backoff(n) for n in (1, 2, 3, 9, 30)] == [10, 20, 40, 2560, 3600]


def test_after_24_hours_of_failures_the_event_is_parked_and_the_shard_goes_on() -> None:
    repo, vault, _ = setup(2)
    down = Script(*([500] * 100))
    t = 1_767_225_600_000
    while t < 1_767_225_600_000 + 25 * HOUR_MS:
        done = webhooks.deliver(repo, vault, down, OP, SHARD, now_ms=t)
        if done.parked:
            break
        assert done.again_in is not None
        t += int(done.again_in * 1000)
    assert done.parked == 1
    (parked,) = webhooks.list_failures(repo, OP, 10).failures
    assert parked.event_id == f"{TABLE}:1" and parked.last_error == "HTTP 500"
    assert parked.attempts > 20
    assert done.again_in == 10.0  # the shard went on: event 2 failed once (the receiver is down)
    up = Script()
    t += 10_000
    assert webhooks.deliver(repo, vault, up, OP, SHARD, now_ms=t).delivered == 1  # event 2
    retried = webhooks.retry_failure(repo, vault, Script(502), OP, parked.event_id)
    assert (retried.delivered, retried.status) == (False, 502)
    assert webhooks.list_failures(repo, OP, 10).failures[0].attempts == parked.attempts + 1
    ok = webhooks.retry_failure(repo, vault, up, OP, parked.event_id)
    assert ok.delivered and webhooks.list_failures(repo, OP, 10).failures == []
    assert up.ids() == [f"{TABLE}:2", f"{TABLE}:1"]
    with pytest.raises(DomainError) as err:
        webhooks.retry_failure(repo, vault, up, OP, parked.event_id)
    assert err.value.code == "not_found"


def test_without_a_webhook_nothing_is_sent_and_a_retry_says_so() -> None:
    repo, vault, _ = setup(1)
    webhooks.delete_webhook(repo, OP)
    receiver = Script()
    assert webhooks.deliver(repo, vault, receiver, OP, SHARD).delivered == 0
    assert receiver.got == []
    with pytest.raises(DomainError) as err:
        webhooks.delete_webhook(repo, OP)
    assert err.value.code == "not_found"


def test_a_webhook_removed_can_be_set_again_and_again() -> None:
    """After one DELETE every later PUT answered 409 ``concurrent_update``
    for ever (the removed item was rewritten with an if-absent Put). A PUT after a DELETE sets
    a new webhook that delivers, with the new secret, from where the removed one stopped."""
    repo, vault, _ = setup(2)
    receiver = Script()
    assert webhooks.deliver(repo, vault, receiver, OP, SHARD).delivered == 2
    for round_ in range(3):
        webhooks.delete_webhook(repo, OP)
        assert repo.get_webhook(OP) is None
        url = f"https://example.com/again-{round_}"
        secret = webhooks.set_webhook(repo, vault, OP, url).secret
        again = webhooks.set_webhook(repo, vault, OP, url + "/b").secret  # a PUT again replaces
        hook = repo.get_webhook(OP)
        assert hook is not None and (hook.url, hook.removed_at) == (url + "/b", None)
        assert secret != again
    live = repo.load(OP, live=TABLE).live
    ev = events.emit(live, OP, TABLE, "2026-01-01T00:00:00.000Z",
                     [("watcher_joined", {"bettor_id": "late"})])  # fmt: skip
    repo.emitting("e", [], ev)
    feed.index(repo, [(OP, TABLE, 3)])
    assert webhooks.deliver(repo, vault, receiver, OP, SHARD).delivered == 1
    headers, body = receiver.got[-1]
    t, v1 = (p.split("=", 1)[1] for p in headers["Baccarat-Signature"].split(","))
    want = hmac.new(again.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    assert v1 == want and receiver.ids() == [f"{TABLE}:{n}" for n in (1, 2, 3)]


def test_a_pass_that_lost_to_a_concurrent_one_leaves_the_winners_state() -> None:
    repo, vault, _ = setup(2)
    before = repo.delivery_state(OP, SHARD)
    webhooks.deliver(repo, vault, Script(), OP, SHARD)  # the winner: both delivered
    moved = repo.delivery_state(OP, SHARD)
    assert (moved.pos, moved.taken) != (before.pos, before.taken)
    stale = replace_state(before, attempts=1)  # what the loser read: the shard at its start
    webhooks._save(repo, stale, replace_state(stale, taken=1, attempts=0))
    assert repo.delivery_state(OP, SHARD) == moved


def replace_state(state: object, **changes: int) -> object:
    import dataclasses

    return dataclasses.replace(state, **changes)  # type: ignore[type-var]


def test_a_warm_container_unseals_the_signing_secret_once_and_a_new_secret_at_once() -> None:
    """The secret is unsealed (KMS ``Decrypt``) on the container's first pass only; a webhook
    set again (a new secret, a new ciphertext) signs with the new secret from its first pass."""
    repo, vault, secret = setup(1)
    unsealed: list[bytes] = []
    real = vault.unseal

    def counting(ciphertext: bytes, context: dict[str, str]) -> bytes:
        unsealed.append(ciphertext)
        return real(ciphertext, context)

    vault.unseal = counting  # type: ignore[method-assign]
    receiver = Script()

    def signed_with(key: str) -> bool:
        headers, body = receiver.got[-1]
        t, v1 = (p.split("=", 1)[1] for p in headers["Baccarat-Signature"].split(","))
        return v1 == hmac.new(key.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()

    def one_more_event() -> None:
        live = repo.load(OP, live=TABLE).live
        assert live is not None
        ev = events.emit(live, OP, TABLE, "2026-01-01T00:00:00.000Z",
                         [("watcher_left", {"bettor_id": f"w{live.seq}"})])  # fmt: skip
        repo.emitting("e", [], ev)
        feed.index(repo, [(OP, TABLE, ev.after.seq)])

    assert webhooks.deliver(repo, vault, receiver, OP, SHARD).delivered == 1
    one_more_event()
    assert webhooks.deliver(repo, vault, receiver, OP, SHARD).delivered == 1
    assert len(unsealed) == 1 and signed_with(secret)
    rotated = webhooks.set_webhook(repo, vault, OP, "https://example.com/h").secret
    one_more_event()
    assert webhooks.deliver(repo, vault, receiver, OP, SHARD).delivered == 1
    assert len(unsealed) == 2 and signed_with(rotated) and not signed_with(secret)


def test_a_slow_first_pass_never_moves_the_shard_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two passes start from a shard never delivered before. The fast one delivers all three
    events; the slow one, which read the state before, gets one through and then a failure.
    Its save loses (the state is new only once): the shard stays past the three, nothing is
    delivered again, no retry is scheduled."""
    repo, vault, _ = setup(3)
    assert webhooks.deliver(repo, vault, Script(), OP, SHARD).delivered == 3
    real = repo.delivery_state
    monkeypatch.setattr(repo, "delivery_state", lambda op, shard: DeliveryState(op, shard))
    webhooks.deliver(repo, vault, Script(200, 500), OP, SHARD)  # the slow pass, stale
    monkeypatch.setattr(repo, "delivery_state", real)
    state = repo.delivery_state(OP, SHARD)
    assert (state.attempts, state.next_at_ms) == (0, 0)
    again = Script()
    assert webhooks.deliver(repo, vault, again, OP, SHARD).delivered == 0 and again.got == []


def test_a_parked_events_times_are_written_as_every_time_of_the_api() -> None:
    """docs/api.md: times are UTC ISO 8601 with milliseconds (strings that sort as the times
    do); ``first_failed_at`` is the first failure's moment in that format."""
    repo, vault, _ = setup(1)
    down = Script(*([500] * 100))
    t0 = t = 1_767_225_600_123
    while not (done := webhooks.deliver(repo, vault, down, OP, SHARD, now_ms=t)).parked:
        assert done.again_in is not None
        t += int(done.again_in * 1000)
    (parked,) = webhooks.list_failures(repo, OP, 10).failures
    assert parked.first_failed_at == "2026-01-01T00:00:00.123Z"  # t0
    assert t > t0 and len(parked.parked_at) == len(parked.first_failed_at)


class Queue:
    """DeliveryQueue as the delivery function sees it: the messages waiting, each with its
    delay and body (``later`` is the port's SqsWakeup), received in delay order."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, dict[str, object]]] = []

    def later(
        self, operator_id: str, shard: int, delay_seconds: int, retry: bool = False, due_ms: int = 0
    ) -> None:
        self.messages.append((delay_seconds, wake_message(operator_id, shard, retry, due_ms)))


def test_events_appended_while_a_shard_backs_off_add_no_retry_messages() -> None:
    """In AWS every append wakes its shard (a message on DeliveryQueue). A wake that finds the
    shard waiting out a retry's backoff must not schedule another message for that retry: each
    did, so every event written while a receiver was down added a message that re-sent itself
    (hop after hop) until the retry was due — then all of them ran at once, each POSTing the
    same event, each failure scheduling again: the queue grew with the table's activity for as
    long as the receiver failed."""
    repo, vault, _ = setup(1)
    queue, down = Queue(), Script(*([500] * 100))
    delivery.pass_and_reschedule(repo, vault, down, queue, OP, SHARD, 1.0)  # fails: a retry
    assert [d for d, _ in queue.messages] == [10]
    for i in range(5):  # the table goes on: five more events, five wakes while it waits
        live = repo.load(OP, live=TABLE).live
        joined = [("watcher_joined", {"bettor_id": f"x{i}"})]
        repo.emitting("e", [], events.emit(live, OP, TABLE, "2026-01-01T00:00:00.000Z", joined))
        touched: set[tuple[str, int]] = set()
        feed.index(repo, [(OP, TABLE, i + 2)], touched)
        delivery.wake(queue, touched)
    assert len(queue.messages) == 6  # the retry and five wakes
    for _ in range(5):  # each wake is received: the shard is still waiting out its backoff
        delivery.pass_and_reschedule(repo, vault, down, queue, OP, SHARD, 1.0)
    assert len(queue.messages) == 6 and len(down.got) == 1  # no message added, nothing re-sent
    (retry,) = [body for delay, body in queue.messages if delay > 0]
    assert retry.get("retry") is True  # the retry's own message goes on hop after hop
    delivery.pass_and_reschedule(repo, vault, down, queue, OP, SHARD, 1.0, retry=True)
    assert len(queue.messages) == 7 and queue.messages[-1][1].get("retry") is True


def test_a_message_received_again_carries_its_pass_on() -> None:
    """A pass that saved a backoff and then failed to send its retry message fails its SQS
    record: the record comes again (a wake, received twice) and must schedule the retry."""
    wake = {"operator_id": OP, "shard": SHARD}
    assert not delivery.continues({"attributes": {"ApproximateReceiveCount": "1"}}, wake)
    assert not delivery.continues({}, wake)
    assert delivery.continues({"attributes": {"ApproximateReceiveCount": "2"}}, wake)
    assert delivery.continues({}, {**wake, "retry": True})


def test_a_wake_that_runs_before_the_retry_message_arrives_leaves_one_retry_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The backoff is due, the retry's message is still on its way (SQS delays are whole
    seconds, rounded up) and a wake of the indexer's comes first: it runs the pass, which fails
    and sends the new backoff's retry message. The old retry message then finds the shard
    waiting and must not go on as well: it did, hop after hop, so from then on two chains of
    retry messages ran for one shard (each race another), each POSTing the same event."""
    repo, vault, _ = setup(1)
    clock = ManualClock("2026-01-01T00:00:00.000Z")
    repo.clock = clock
    queue, down = Queue(), Script(*([500] * 100))
    delivery.pass_and_reschedule(repo, vault, down, queue, OP, SHARD, 1.0)  # fails: a retry
    ((delay, old),) = queue.messages
    assert (delay, old.get("retry")) == (10, True)
    queue.messages.clear()
    clock.advance(10.5)  # the backoff is due; the wake of a new event is received first
    delivery.pass_and_reschedule(repo, vault, down, queue, OP, SHARD, 1.0)
    assert len(down.got) == 2 and [d for d, _ in queue.messages] == [20]  # the new retry
    clock.advance(0.5)  # then the old retry message: the shard waits out the new backoff
    delivery.pass_and_reschedule(
        repo, vault, down, queue, OP, SHARD, 1.0, retry=True, due_ms=delivery.due_of(old)
    )
    assert [d for d, _ in queue.messages] == [20]  # still ONE retry message for the shard
    assert len(down.got) == 2
    # the one left goes on hop after hop while the backoff is longer than SQS's longest delay
    (_, new) = queue.messages[0]
    clock.advance(1)
    delivery.pass_and_reschedule(
        repo, vault, down, queue, OP, SHARD, 1.0, retry=True, due_ms=delivery.due_of(new)
    )
    assert [d for d, _ in queue.messages] == [20, 19] and len(down.got) == 2
