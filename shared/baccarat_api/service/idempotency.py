"""Exactly-once POSTs: the ``Idempotency-Key`` header, folded into the writes requests already make.

A POST made with a key stores its response in an idempotency record (per operator and key,
:class:`~baccarat_api.ports.records.IdempotencyRecord`) **in the same DynamoDB transaction as its
effect**, and reads that record **in the same round trip** as the item it reads anyway (one
``BatchGetItem``). So:

* a retry with the same key and the same request (method, path, JSON body) answers the stored
  response — same status, same body — in ONE round trip (a deal's: two, see below), also on
  another container or after a cold start (it is in DynamoDB, not in memory), and with the
  header ``Idempotent-Replayed: true``. A round's answers (deal, settlement, void: up to 200 bets)
  are not copied into the record: it names the round, and the replay renders the answer from the
  round record — byte for byte what was first answered (the round's documents are stored in the
  order they were written). A settlement's or void's replay reads the round in the same round
  trip as the record; a deal's reads the shoe there, then the round it names;
* the same key with another request → 422 ``idempotency_key_reused``;
* a duplicate that arrives while the first is in flight reads no record, computes, and then
  loses the transaction (the record's put is conditional); it re-reads what it wrote and, as
  the same request from the same state has the same write id (:mod:`.writeids`), answers the
  first one's committed result. Only if that cannot be told (another key's effect is there)
  is it 409 ``idempotency_in_progress``, ``retryable: true``; its retry gets the stored
  response;
* no effect can exist without its record, nor a record without its effect: a crash between
  the two is impossible, and a first attempt that failed (any error) stored nothing.

Only successes are stored: an error changed nothing, and the same request simply runs again.
Records live :data:`RETENTION_SECONDS` (24 h; the table's TTL attribute ``expires_at``, and a
record past it counts as absent even before DynamoDB's TTL removes it); a retry later than that
is a new request. Independently of keys, a round is dealt once (cursor/version) and settled or
voided once (conditional settlement), whatever keys callers use."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from baccarat_api.ports.records import IdempotencyRecord
from baccarat_api.ports.repository import ConditionFailed, Repository, Snapshot
from baccarat_api.service.errors import DomainError

#: How long a stored response is replayed (seconds): 24 h.
RETENTION_SECONDS = 24 * 60 * 60
#: Longest key accepted (printable ASCII).
MAX_KEY_LENGTH = 255
HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class IdempotencyRequest:
    """A POST's key (as its SHA-256), its fingerprint, and the status its success answers."""

    key_hash: str
    fingerprint: str
    status: int


class Replayed(Exception):
    """The stored response of an earlier request with the same key and the same request; the
    app answers it as it is (``status``, ``body``) with ``Idempotent-Replayed: true``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__("idempotent replay")
        self.status = status
        self.body = body


def request_for(
    key: str | None, method: str, path: str, body: bytes, status: int
) -> IdempotencyRequest | None:
    """The idempotency request of a POST (``None`` without a key); 400 for a malformed key.
    The fingerprint covers the method, the path and the body as JSON (so whitespace and key
    order do not matter; a body that is not JSON is taken as its bytes)."""
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not all(" " <= c <= "~" for c in key):
        raise DomainError(
            "invalid_request",
            f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters",
            details={"header": HEADER},
        )
    parsed: Any
    try:
        parsed = json.loads(body) if body.strip() else None
    except ValueError:
        parsed = {"raw": hashlib.sha256(body).hexdigest()}
    request = json.dumps(
        {"method": method.upper(), "path": path, "body": parsed},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return IdempotencyRequest(
        key_hash=hashlib.sha256(key.encode("ascii")).hexdigest(),
        fingerprint=hashlib.sha256(request.encode("utf-8")).hexdigest(),
        status=status,
    )


#: Renders a stored answer that names a round (``IdempotencyRecord.round_id``) from that round.
Render = Callable[[str], dict[str, Any]]


def live(record: IdempotencyRecord | None, request: IdempotencyRequest | None) -> bool:
    """Whether ``record`` answers ``request``: live, for the same request (422
    ``idempotency_key_reused`` when it is live for another)."""
    if request is None or record is None or record.expires_at <= int(time.time()):
        return False
    if record.fingerprint != request.fingerprint:
        raise DomainError(
            "idempotency_key_reused",
            f"this {HEADER} was used for another request (within the last 24 h); "
            "use a new key for a new request",
            details={"first_used_at": record.created_at},
        )
    return True


def replay(
    record: IdempotencyRecord | None,
    request: IdempotencyRequest | None,
    render: Render | None = None,
) -> None:
    """Answer from ``record`` if it is live: :class:`Replayed` for the same request — its body,
    or, for a round's answer, ``render(round_id)`` — 422 ``idempotency_key_reused`` for another.
    Returns only when there is nothing to replay."""
    if record is None or not live(record, request):
        return
    if record.round_id is None:
        raise Replayed(record.status, record.body)
    assert render is not None, "a round's answer is rendered from the round"
    raise Replayed(record.status, render(record.round_id))


def load(
    repo: Repository,
    operator_id: str,
    request: IdempotencyRequest,
    render: Callable[[Snapshot], Render] | None = None,
    **keys: Any,
) -> Snapshot:
    """The items ``keys`` name and the key's record, in one round trip; replays first (a
    round's answer rendered by ``render(snapshot)`` from the round it read)."""
    snap = repo.load(operator_id, idem_key=request.key_hash, **keys)
    replay(snap.idempotency, request, None if render is None else render(snap))
    return snap


def replaying_refusals(
    repo: Repository, operator_id: str, request: IdempotencyRequest | None, attempt: Callable[[], T]
) -> T:
    """``attempt()``; if a keyed request is refused (a ``DomainError`` from the state it read),
    the key's record read again, alone: a request with the same key that completed meanwhile
    is replayed instead. (One ``BatchGetItem`` of the state and the record is not isolated from
    that request's transaction: it can see the state after it and the record before it, and a
    duplicate then refuses its own effect — a shoe it committed is "open".)"""
    try:
        return attempt()
    except DomainError:
        if request is not None:
            replay(repo.load(operator_id, idem_key=request.key_hash).idempotency, request)
        raise


def record(
    at: str,
    request: IdempotencyRequest | None,
    operator_id: str,
    body: dict[str, Any] | None = None,
    *,
    round_id: str | None = None,
) -> IdempotencyRecord | None:
    """The record to write with the effect (``None`` without a key): the answer ``body``, or
    for a round's answer (deal, settlement, void) the ``round_id`` it is rendered from."""
    if request is None:
        return None
    return IdempotencyRecord(
        operator_id=operator_id,
        key_hash=request.key_hash,
        fingerprint=request.fingerprint,
        status=request.status,
        body={} if body is None else body,
        created_at=at,
        expires_at=int(time.time()) + RETENTION_SECONDS,
        round_id=round_id,
    )


def answer(out: Any) -> dict[str, Any]:
    """A route's answer (a response model) as it is stored to be replayed: its JSON, as the
    app serialises it."""
    body = out.model_dump(mode="json", by_alias=True)
    assert isinstance(body, dict)
    return body


def check_duplicate(exc: ConditionFailed) -> None:
    """A write that lost because a request with the same key completed meanwhile: 409
    ``idempotency_in_progress`` (retryable; the retry replays the stored response)."""
    if exc.duplicate:
        raise DomainError(
            "idempotency_in_progress",
            f"a request with this {HEADER} was in flight and has just completed; retry to get "
            "its response",
        ) from None
