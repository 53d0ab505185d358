"""Where a locked book's settlement is kept, apart from the round item: the book's leaves (each
bettor ref with its leaf hash, in book order — written at the deal, so a settlement chunk can
compute any inclusion path without re-reading the slips), and, per chunk of
:data:`~baccarat_api.limits.CHUNK_SLIPS` consecutive leaves, the receipts, the operator's
settlement page and the public book page, with the round's settlement progress.

Every write here is deterministic (the same inputs write the same bytes), so a chunk retried
after a crash or redelivered writes exactly what it wrote before. The progress is created by the
transaction that settles (or voids) the round (:class:`SettleProgress`, a record of the
repository's write vocabulary); a chunk's one ``round_settlement_page`` event is written once,
with its :class:`ChunkEmitted` marker put only if absent in the same transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from baccarat_api.ids import RoundRef


@dataclass(frozen=True, slots=True)
class Leaf:
    """One leaf of a locked book: the bettor's ref and ``SHA-256(0x00 ‖ leaf bytes)``."""

    bettor_ref: str
    hash: bytes


@dataclass(frozen=True, slots=True)
class SettleProgress:
    """A book round's settlement fan-out, created with its settlement (or void): ``chunks`` to
    run; past ``due_at`` (the resolution + a grace) the sweep sends again the chunks of a round
    whose fan-out is not complete (the progress is in the sparse ``DueRounds`` index until it
    is)."""

    operator_id: str
    table_id: str
    shoe_number: int
    round_number: int
    chunks: int
    resolved_at: str
    due_at: str
    voided: bool = False

    @property
    def ref(self) -> RoundRef:
        return RoundRef(self.table_id, self.shoe_number, self.round_number)


@dataclass(frozen=True, slots=True)
class ChunkEmitted:
    """The marker that chunk ``chunk``'s ``round_settlement_page`` event was written: put only
    if absent, in the event's own transaction — so the event is written exactly once."""

    operator_id: str
    table_id: str
    shoe_number: int
    round_number: int
    chunk: int
    at: str


@dataclass(frozen=True, slots=True)
class Progress:
    """A round's fan-out as read: the chunks, those whose items are written (``done``) and
    those whose event is written (``emitted``)."""

    chunks: int
    resolved_at: str
    due_at: str
    voided: bool = False
    done: frozenset[int] = frozenset()
    emitted: frozenset[int] = frozenset()

    @property
    def complete(self) -> bool:
        every = frozenset(range(self.chunks))
        return self.done >= every and self.emitted >= every


@dataclass(frozen=True, slots=True)
class PageEntry:
    """One bettor of the operator's settlement page."""

    bettor_id: str
    bettor_ref: str
    stake: int
    net: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "bettor_id": self.bettor_id,
            "bettor_ref": self.bettor_ref,
            "stake": self.stake,
            "net": self.net,
        }


@dataclass(frozen=True, slots=True)
class ReceiptItem:
    """A slip's receipt as stored: its bettor (the operator looks receipts up by id) and the
    ``bacc-receipt-v1`` document."""

    bettor_id: str
    bettor_ref: str
    doc: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChunkOut:
    """Everything one chunk writes: its receipts, the operator's page and the public page."""

    chunk: int
    receipts: tuple[ReceiptItem, ...]
    page: tuple[PageEntry, ...]
    book_page: Mapping[str, Any]


class ChunkStore(Protocol):
    """The settlement's storage (DynamoDB: :mod:`baccarat_api.adapters.dynamodb.chunks`; in
    memory: :mod:`baccarat_api.adapters.memory_chunks`)."""

    def put_leaves(self, operator_id: str, round_id: str, leaves: Sequence[Leaf]) -> None:
        """Store the round's leaves in book order (idempotent: the same leaves again write the
        same items)."""

    def leaves(self, operator_id: str, round_id: str) -> list[Leaf]:
        """The round's leaves in book order (``[]`` if none were stored)."""

    def progress(self, operator_id: str, ref: RoundRef) -> Progress | None:
        """The round's fan-out (strongly consistent), or ``None`` (not a resolved book round)."""

    def put_chunk(self, operator_id: str, ref: RoundRef, out: ChunkOut) -> None:
        """Write the chunk's receipts, its operator page and its public page (the same bytes
        however often), then mark it done."""

    def mark_emitted(self, operator_id: str, ref: RoundRef, chunk: int) -> Progress:
        """Record that the chunk's event is written (after its transaction, or after finding
        its marker); the progress after (complete: out of the sweep's index)."""

    def receipt(self, operator_id: str, ref: RoundRef, bettor_id: str) -> ReceiptItem | None:
        """The bettor's receipt of the round, or ``None`` (none written yet, or no slip)."""

    def page(self, operator_id: str, ref: RoundRef, chunk: int) -> list[PageEntry] | None:
        """The operator's settlement page of a chunk, or ``None`` (not written yet)."""

    def book_page(self, operator_id: str, ref: RoundRef, chunk: int) -> dict[str, Any] | None:
        """The public book page of a chunk, or ``None`` (not written yet)."""

    def due_progress(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        """(operator id, round) of book rounds whose fan-out is not complete and due by
        ``now``, at most ``limit`` (the sparse ``DueRounds`` index: no scan)."""

    def postpone(self, operator_id: str, ref: RoundRef, due_at: str) -> None:
        """Move a fan-out not complete to ``due_at`` in the sweep's index (its chunks were just
        sent again: the next sweep waits for them)."""

    def emitted_marker(self, operator_id: str, ref: RoundRef, chunk: int) -> bool:
        """Whether the chunk's event marker (:class:`ChunkEmitted`) is stored."""


@dataclass(frozen=True, slots=True)
class ChunkMessage:
    """One chunk of a round's fan-out to run."""

    operator_id: str
    round_id: str
    chunk: int

    def as_dict(self) -> dict[str, Any]:
        return {"operator_id": self.operator_id, "round_id": self.round_id, "chunk": self.chunk}

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> ChunkMessage:
        return cls(str(doc["operator_id"]), str(doc["round_id"]), int(doc["chunk"]))


class ChunkQueue(Protocol):
    """Where a fan-out's chunks are sent to be run (SQS in AWS:
    :mod:`baccarat_api.adapters.sqs_chunks`; a thread under ``make run``; at once in the
    service's tests). At least once: a chunk run twice writes the same items."""

    def send(self, messages: Sequence[ChunkMessage]) -> None:
        """Send the chunks (the caller's fan-out is already durable: a lost send is resent by
        the sweep)."""
