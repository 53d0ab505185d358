"""Signed webhooks (docs/webhooks.md): every event of the operator feed POSTed to the operator's
URL in each table's order, signed (``Baccarat-Signature``), retried with exponential backoff
(:func:`backoff`) for 24 hours, then parked as a failure the operator lists and replays.

The signing secret is answered once and stored sealed under KMS. A failing event stops its
shard until it is delivered or parked, so a table's events arrive in order; receivers
de-duplicate by ``event_id``."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from baccarat_api.clock import at_ms as clock_at_ms
from baccarat_api.clock import ms_of as clock_ms_of
from baccarat_api.limits import WEBHOOK_RETRY_CLAIM_SECONDS
from baccarat_api.lru import Lru
from baccarat_api.ports.records import (
    DeliveryState,
    EventRecord,
    WebhookFailure,
    WebhookRecord,
)
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.ports.vault import SecretVault as Vault
from baccarat_api.ports.vault import webhook_context
from baccarat_api.ports.webhooks import Sender, Sent
from baccarat_api.ports.writes import ABSENT, Put, Update
from baccarat_api.service import feed, idempotency
from baccarat_api.service.errors import DomainError, not_found
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import (
    WebhookFailureOut,
    WebhookFailuresOut,
    WebhookRetryOut,
    WebhookSecretOut,
)

SIGNATURE_HEADER = "Baccarat-Signature"
SECRET_PREFIX = "whsec_"
#: The first retry's delay, the longest, and how long an event is retried before it is parked.
FIRST_DELAY_SECONDS = 10
MAX_DELAY_SECONDS = 3600
RETRY_WINDOW_SECONDS = 24 * 3600
#: Events POSTed per delivery pass of a shard (then the pass ends; the next goes on).
EVENTS_PER_PASS = 25
MAX_FAILURES_PAGE = 100


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``Baccarat-Signature`` header value of ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def backoff(attempts: int) -> float:
    """Seconds before attempt ``attempts + 1`` of an event that failed ``attempts`` times."""
    return float(min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** max(0, attempts - 1)))


# --- the webhook routes -------------------------------------------------------------------------


def set_webhook(repo: Repository, vault: Vault, operator_id: str, url: str) -> WebhookSecretOut:
    """Set (or replace) the webhook with a new secret, conditional on the webhook as read: of
    two PUTs at once one answers its secret and the other ``409 concurrent_update`` — never two
    secrets answered of which only one signs. A removed webhook is read too (its item stays):
    the PUT after a DELETE replaces it, conditional on it as read, like any other."""
    was = repo.get_webhook(operator_id, removed=True)
    raw, sealed = vault.draw_secret(webhook_context(operator_id))  # one KMS call
    created = repo.clock()
    hook = WebhookRecord(operator_id, url, sealed, created)
    write: Put | Update = Put(hook) if was is None else Update(
        WebhookRecord, (operator_id,), set={"url": url, "secret_ct": sealed, "created_at": created},
        remove=("removed_at",), expect={"secret_ct": was.secret_ct},
    )  # fmt: skip
    try:
        repo.transact("set webhook", [write])
    except ConditionFailed:
        raise DomainError("concurrent_update", "the webhook changed meanwhile; retry") from None
    return WebhookSecretOut(url=url, secret=_text(raw), created_at=created)


def _text(raw: bytes) -> str:
    """The secret as operators use it: ``whsec_`` + the 32 bytes in base64url (HMAC key: its
    UTF-8 bytes)."""
    return SECRET_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def delete_webhook(repo: Repository, operator_id: str) -> None:
    """Mark the webhook removed (nothing is ever deleted; its sealed secret stays unusable)."""
    hook = repo.get_webhook(operator_id)
    if hook is None:
        raise not_found("webhook", operator_id)
    removed = Update(
        WebhookRecord, (operator_id,), set={"removed_at": repo.clock()},
        expect={"created_at": hook.created_at},
    )  # fmt: skip
    try:
        repo.transact("remove webhook", [removed])
    except ConditionFailed:
        raise DomainError("concurrent_update", "the webhook changed meanwhile; retry") from None


def _failure_out(f: WebhookFailure) -> WebhookFailureOut:
    return WebhookFailureOut(
        event_id=f.event_id,
        table_id=f.table_id,
        seq=f.seq,
        attempts=f.attempts,
        first_failed_at=f.first_failed_at,
        parked_at=f.parked_at,
        last_error=f.last_error,
    )


def list_failures(repo: Repository, operator_id: str, limit: int) -> WebhookFailuresOut:
    found = repo.webhook_failures(operator_id, max(1, min(limit, MAX_FAILURES_PAGE)))
    return WebhookFailuresOut(failures=[_failure_out(f) for f in found])


#: The webhook secrets this container unsealed, by (operator, ciphertext): a ciphertext always
#: unseals to the same secret and a new secret has a new ciphertext, so nothing here goes
#: stale. Without it every delivery pass paid a KMS ``Decrypt`` (two a round at a quiet table:
#: ≈ $6 per million rounds) and its round trip.
_SECRETS: Lru[tuple[str, bytes], str] = Lru(64)


def _secret(vault: Vault, hook: WebhookRecord) -> str:
    return _SECRETS.get(
        (hook.operator_id, hook.secret_ct),
        lambda: _text(vault.unseal(hook.secret_ct, webhook_context(hook.operator_id))),
    )


def _body(repo: Repository, e: EventRecord) -> bytes:
    ref = feed.round_ref(e)
    rounds = {r.round_id: r for r in repo.rounds_at(e.operator_id, [ref] if ref else [])}
    doc = feed.render(e, rounds).model_dump(mode="json")
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def _post(sender: Sender, hook: WebhookRecord, secret: str, body: bytes, at: str) -> Sent:
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: sign(secret, clock_ms_of(at) // 1000, body),
        "User-Agent": "baccarat-webhooks/1",
    }
    return sender.post(hook.url, body, headers)


def retry_failure(
    repo: Repository,
    vault: Vault,
    sender: Sender,
    operator_id: str,
    event_id: str,
    idem: IdempotencyRequest | None = None,
) -> WebhookRetryOut:
    """POST a parked event once, now: delivered → no longer parked; else it stays parked. With
    ``idem`` a retry of the request answers the first answer and POSTs nothing again (the
    record is written with the outcome, in one transaction)."""
    if idem is not None:
        idempotency.replay(repo.load(operator_id, idem_key=idem.key_hash).idempotency, idem)
    parked = repo.get_webhook_failure(operator_id, event_id)
    if parked is None or parked.delivered_at is not None:
        raise not_found("webhook failure", event_id)
    hook = repo.get_webhook(operator_id)
    if hook is None:
        raise DomainError("webhook_not_set", "no webhook is set: PUT /v1/webhook first")
    (event,) = repo.events_at(operator_id, [(parked.table_id, parked.seq)])
    claim = _claim(repo, parked, idem)
    sent = _post(sender, hook, _secret(vault, hook), _body(repo, event), repo.clock())
    out = WebhookRetryOut(
        event_id=event_id, delivered=sent.ok, status=sent.status, error=sent.error
    )
    if sent.ok:
        changed = {"delivered_at": repo.clock(), "attempts": parked.attempts + 1}
    else:
        changed = {"attempts": parked.attempts + 1, "last_error": _error(sent)}
    writes: list[Put | Update] = [
        Update(
            WebhookFailure,
            (operator_id, event_id),
            set=changed,
            remove=("retrying_at",),
            expect={"retrying_at": claim},
        )
    ]
    stored = idempotency.record(repo.clock(), idem, operator_id, idempotency.answer(out))
    if stored is not None:
        writes.append(Put(stored, expired_by=idempotency.ttl_now()))
    try:
        repo.transact("webhook retried" if sent.ok else "webhook retry failed", writes)
    except ConditionFailed as exc:  # the same key's request completed meanwhile: its answer
        if idem is not None and exc.duplicate:
            idempotency.replay(repo.load(operator_id, idem_key=idem.key_hash).idempotency, idem)
        raise
    return out


def _claim(repo: Repository, parked: WebhookFailure, idem: IdempotencyRequest | None) -> str:
    """Claim ``parked`` for one retry's POST (``retrying_at``, conditional on the claim as read
    and on it not delivered): a retry already POSTing it — the same key's request retried after
    a lost answer, or another — is refused (409, retryable), so the event is POSTed once. A
    claim older than ``WEBHOOK_RETRY_CLAIM_SECONDS`` was left by a request that died: taken."""
    now = repo.clock()
    held = parked.retrying_at
    if (
        held is not None
        and clock_ms_of(now) - clock_ms_of(held) < WEBHOOK_RETRY_CLAIM_SECONDS * 1000
    ):
        raise _retry_in_flight(parked.event_id, held, idem)
    try:
        repo.transact(
            "webhook retry claimed",
            [
                Update(
                    WebhookFailure,
                    (parked.operator_id, parked.event_id),
                    set={"retrying_at": now},
                    expect={
                        "retrying_at": ABSENT if held is None else held,
                        "delivered_at": ABSENT,
                    },
                )
            ],
        )
    except ConditionFailed:
        raise _retry_in_flight(parked.event_id, now, idem) from None
    return now


def _retry_in_flight(event_id: str, since: str, idem: IdempotencyRequest | None) -> DomainError:
    details = {"event_id": event_id, "retrying_since": since}
    if idem is not None:
        return DomainError(
            "idempotency_in_progress",
            "a request with this Idempotency-Key is POSTing this event; retry to get its answer",
            details=details,
        )
    return DomainError(
        "concurrent_update",
        "another retry of this event is POSTing it now; retry the request",
        details=details,
    )


def _error(sent: Sent) -> str:
    return sent.error or f"HTTP {sent.status}"


# --- delivery -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pass:
    """What one delivery pass of a shard did: events delivered and parked, and when the shard
    wants to be delivered again (seconds from now; ``None``: when new events come);
    ``waiting``: it did nothing, the shard is waiting out a retry's backoff; ``due_ms``: when
    that backoff (the one this pass waited for or saved) is due, 0 if none — it names the retry
    message that brings the shard back."""

    delivered: int = 0
    parked: int = 0
    again_in: float | None = None
    waiting: bool = False
    due_ms: int = 0


def deliver(
    repo: Repository,
    vault: Vault,
    sender: Sender,
    operator_id: str,
    shard: int,
    *,
    scale: float = 1.0,
    now_ms: int | None = None,
    time_left: Callable[[], float] | None = None,
    reserve: float = 0.0,
) -> Pass:
    """One pass over the feed shard: POST its next events in order until one fails (then its
    retry is scheduled) or :data:`EVENTS_PER_PASS` went out — or, given ``time_left`` (seconds
    the caller may still run: a Lambda's), until less than ``reserve`` (a POST's timeout and a
    margin) is left: the pass then saves where it is and wants to go on at once. The shard's
    delivery state moves conditionally on what was read: of two concurrent passes one moves it
    (the other's deliveries were duplicates, which receivers drop by ``event_id``)."""
    hook = repo.get_webhook(operator_id)
    if hook is None:
        return Pass()
    state = repo.delivery_state(operator_id, shard)
    now = clock_ms_of(repo.clock()) if now_ms is None else now_ms
    if state.next_at_ms > now:
        wait = (state.next_at_ms - now) / 1000
        return Pass(again_in=wait, waiting=True, due_ms=state.next_at_ms)
    slots = feed.pending(repo, operator_id, shard, (state.pos, state.taken), EVENTS_PER_PASS)
    if not slots:
        return Pass()
    secret = _secret(vault, hook)
    found = {
        (e.table_id, e.seq): e
        for e in repo.events_at(operator_id, [(s.entry.table_id, s.seq) for s in slots])
    }
    after, delivered, parked, again = state, 0, 0, None
    for slot in slots:
        if time_left is not None and time_left() < reserve:
            again = 0.0  # out of time: the rest in the next pass (what was sent is saved)
            break
        event = found[(slot.entry.table_id, slot.seq)]
        sent = _post(sender, hook, secret, _body(repo, event), repo.clock())
        if sent.ok:
            after = _state_after(after, slot)
            delivered += 1
            continue
        since = after.failing_since_ms or now
        attempts = after.attempts + 1
        if now - since >= RETRY_WINDOW_SECONDS * 1000 * scale:
            _park(repo, event, attempts, since, _error(sent))
            after = _state_after(after, slot)
            parked += 1
            continue
        wait = backoff(attempts) * scale
        after = replace(after, attempts=attempts, failing_since_ms=since,
                        next_at_ms=now + int(wait * 1000))  # fmt: skip
        again = wait
        break
    else:
        again = 0.0 if len(slots) == EVENTS_PER_PASS else None
    _save(repo, state, after)
    return Pass(delivered, parked, again, due_ms=after.next_at_ms)


def _state_after(state: DeliveryState, slot: feed.Slot) -> DeliveryState:
    pos, taken = feed.past(slot)
    return replace(state, pos=pos, taken=taken, attempts=0, failing_since_ms=0, next_at_ms=0)


def _park(repo: Repository, e: EventRecord, attempts: int, since_ms: int, error: str) -> None:
    since = clock_at_ms(since_ms)
    parked = WebhookFailure(
        e.operator_id, e.event_id, e.table_id, e.seq, attempts, since, repo.clock(), error
    )
    # once: a slow pass must not park again an event already parked (and perhaps replayed
    # since: its delivered_at would be lost)
    with contextlib.suppress(ConditionFailed):
        repo.transact("park webhook", [Put(parked)])


def _save(repo: Repository, before: DeliveryState, after: DeliveryState) -> None:
    if after == before:
        return
    if (before.pos, before.taken, before.attempts) == (0, 0, 0) and before.next_at_ms == 0:
        write: Put | Update = Put(after)  # the first save: a slower first pass loses to it
    else:
        write = Update(
            DeliveryState,
            (before.operator_id, before.shard),
            set={k: getattr(after, k) for k in (
                "pos", "taken", "attempts", "failing_since_ms", "next_at_ms")},
            expect={"pos": before.pos, "taken": before.taken},
        )  # fmt: skip
    with contextlib.suppress(ConditionFailed):  # a concurrent pass moved it first: it stands
        repo.transact("webhook delivery", [write])
