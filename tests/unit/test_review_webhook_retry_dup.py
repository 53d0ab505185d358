"""A keyed webhook retry POSTs nothing again — also for a
duplicate that arrives while the first is still in flight (docs/api.md, Idempotency: a
duplicate in flight is 409 idempotency_in_progress, its retry the first answer)."""

from __future__ import annotations

import contextlib

from baccarat_api import clock
from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.limits import WEBHOOK_RETRY_CLAIM_SECONDS
from baccarat_api.ports.records import WebhookFailure
from baccarat_api.ports.webhooks import Sent
from baccarat_api.ports.writes import Put, Update
from baccarat_api.service import events, feed, webhooks
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import request_for

OP = "op-hooks"
TABLE = "tbl_00000000000000aa"


def test_a_keyed_webhook_retry_duplicated_in_flight_posts_the_event_once() -> None:
    repo, vault = MemoryRepository(), MemoryVault()
    event_id = _parked(repo, vault)
    path = f"/v1/webhook/failures/{event_id}/retry"
    idem = request_for("k-1", "POST", path, b"", 200)

    class Receiver:
        """Counts POSTs; while the first is in flight the client's retry (same key) comes in."""

        def __init__(self) -> None:
            self.posts = 0
            self.duplicate: object = None

        def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
            self.posts += 1
            if self.posts == 1:  # the first POST is slow; the caller times out and retries
                try:
                    self.duplicate = webhooks.retry_failure(repo, vault, self, OP, event_id, idem)
                except DomainError as exc:
                    self.duplicate = exc.code
            return Sent(200)

    receiver = Receiver()
    with contextlib.suppress(Exception):  # the first's own outcome is not the point
        webhooks.retry_failure(repo, vault, receiver, OP, event_id, idem)
    assert receiver.posts == 1, (
        f"one keyed request POSTed the parked event {receiver.posts} times "
        f"(the in-flight duplicate answered {receiver.duplicate!r})"
    )


def _parked(repo: MemoryRepository, vault: MemoryVault) -> str:
    webhooks.set_webhook(repo, vault, OP, "https://example.com/h")
    live = repo.load(OP, live=TABLE).live
    ev = events.emit(live, OP, TABLE, "2026-01-01T00:00:00.000Z",
                     [("watcher_joined", {"bettor_id": "w"})])  # fmt: skip
    repo.emitting("e", [], ev)
    feed.index(repo, [(OP, TABLE, 1)])
    event_id = f"{TABLE}:1"
    repo.transact("park", [Put(WebhookFailure(OP, event_id, TABLE, 1, 40, "", "", "HTTP 500"))])
    return event_id


class _Ok:
    def __init__(self) -> None:
        self.posts = 0

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        self.posts += 1
        return Sent(200)


def _claimed(repo: MemoryRepository, event_id: str, at: str) -> None:
    repo.transact("claim", [Update(WebhookFailure, (OP, event_id), set={"retrying_at": at})])


def test_a_retry_in_flight_refuses_another_and_a_dead_ones_claim_is_taken_over() -> None:
    repo, vault = MemoryRepository(), MemoryVault()
    event_id = _parked(repo, vault)
    receiver = _Ok()
    now_ms = clock.ms_of(repo.clock())
    _claimed(repo, event_id, clock.at_ms(now_ms - (WEBHOOK_RETRY_CLAIM_SECONDS - 5) * 1000))
    try:
        webhooks.retry_failure(repo, vault, receiver, OP, event_id)
        raise AssertionError("a retry POSTed an event another retry is POSTing")
    except DomainError as exc:
        assert (exc.code, exc.retryable) == ("concurrent_update", True)
    assert receiver.posts == 0
    # a claim older than WEBHOOK_RETRY_CLAIM_SECONDS: its request died; the event is not stuck
    _claimed(repo, event_id, clock.at_ms(now_ms - (WEBHOOK_RETRY_CLAIM_SECONDS + 5) * 1000))
    out = webhooks.retry_failure(repo, vault, receiver, OP, event_id)
    assert (out.delivered, receiver.posts) == (True, 1)
    stored = repo.get_webhook_failure(OP, event_id)
    assert stored is not None and stored.delivered_at is not None and stored.retrying_at is None
