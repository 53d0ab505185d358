"""Exactly-once POSTs (``Idempotency-Key``, docs/api.md): a POST's answer is stored in an
idempotency record in the same transaction as its effect, and read in the same round trip as
the item the POST reads anyway.

A retry with the same key and request replays the stored answer (a round's answer is rendered
from the round, byte for byte); the same key with another request is 422
``idempotency_key_reused``; a duplicate in flight loses the record's conditional put and
answers the first one's result, or 409 ``idempotency_in_progress``. Only successes are stored;
records live :data:`RETENTION_SECONDS`."""

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


def ttl_now() -> int:
    """Epoch seconds by the system's time, not the repository's clock: what DynamoDB's TTL
    compares an idempotency record's ``expires_at`` with."""
    return int(time.time())


#: Renders a stored answer that names a round (``IdempotencyRecord.round_id``) from that round.
Render = Callable[[str], dict[str, Any]]


def live(record: IdempotencyRecord | None, request: IdempotencyRequest | None) -> bool:
    """Whether ``record`` answers ``request``: live, for the same request (422
    ``idempotency_key_reused`` when it is live for another)."""
    if request is None or record is None or record.expires_at <= ttl_now():
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
        expires_at=ttl_now() + RETENTION_SECONDS,
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
