"""The write vocabulary of the repository, and the game-state writes expressed in it ONCE.

Every state change is a list of :class:`Put` and :class:`Update` (each with its condition) that an
adapter applies all-or-nothing with :meth:`StateWrites.transact`: the DynamoDB adapter as one
``PutItem``/``UpdateItem`` (one write) or one ``TransactWriteItems`` (more), the in-memory one
under a lock. Conditions are checked against the state before the transaction; if any fails,
nothing is written and :class:`~baccarat_api.ports.repository.ConditionFailed` is raised.

A new transactional write is one method here (its list of writes), used by both adapters; a new
record kind is a dataclass in :mod:`.records` with its ``KEY_FIELDS`` entry (plus its item shape in
the DynamoDB codec)."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from baccarat.audit import settlement_hash
from baccarat_api.clock import seconds_after
from baccarat_api.limits import CHUNK_RESEND_SECONDS
from baccarat_api.ports.chunks import SettleProgress
from baccarat_api.ports.documents import ProofSignature, Settlement, Void
from baccarat_api.ports.records import (
    ENDED,
    KEY_FIELDS,
    OPEN,
    EventRecord,
    FairnessTotals,
    FeedEntry,
    FeedHead,
    FeedMark,
    IdempotencyRecord,
    LiveRecord,
    ProofRecord,
    Record,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
    TableNumber,
    TableRecord,
)
from baccarat_api.ports.scheduler import Scheduler, Tick


def book_progress(round_: RoundRecord, at: str, *, voided: bool) -> list[Write]:
    """A book round's settlement fan-out, created by the transaction that resolves the round
    (so a crash after it loses no chunk): its progress, due to the sweep
    :data:`~baccarat_api.limits.CHUNK_RESEND_SECONDS` after ``at``. Nothing elsewhere."""
    if round_.book is None or not round_.book["chunks"]:
        return []
    progress = SettleProgress(
        round_.operator_id,
        round_.table_id,
        round_.shoe_number,
        round_.round_number,
        chunks=round_.book["chunks"],
        resolved_at=at,
        due_at=seconds_after(at, CHUNK_RESEND_SECONDS),
        voided=voided,
    )
    return [Put(progress)]


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


#: In :attr:`Update.expect`: the field must be absent (``None``; the item does not store it).
ABSENT: Final = _Absent()


@dataclass(frozen=True, slots=True)
class Below:
    """In :attr:`Update.expect`: the field is absent (``None``) or less than ``value`` — a
    counter under its cap, a time already past (the chat's rate windows and mutes)."""

    value: Any


#: A record's key: its kind and the values of its ``KEY_FIELDS``.
Key = tuple[type, tuple[Any, ...]]


def key_of(record: Record) -> Key:
    kind = type(record)
    return kind, tuple(getattr(record, name) for name in KEY_FIELDS[kind])


@dataclass(frozen=True, slots=True)
class Put:
    """Store ``record`` whole. ``if_absent``: only if no item has its key — or, with
    ``expired_by`` (epoch seconds), the item there has ``expires_at`` at or before it."""

    record: Record
    if_absent: bool = True
    expired_by: int | None = None

    @property
    def key(self) -> Key:
        return key_of(self.record)


@dataclass(frozen=True, slots=True)
class Update:
    """Change an EXISTING item of ``kind`` named by ``key`` (its ``KEY_FIELDS`` values): set the
    fields of ``set``, remove (make ``None``) those of ``remove``, add the integers of ``add``
    to those fields, only if every field of ``expect`` holds its value (:data:`ABSENT`: is
    ``None``; :class:`Below`: is ``None`` or less). With ``upsert`` the item need not exist: a
    missing one is made from the key and the record's defaults first. With
    ``return_existing``, a lost condition brings the stored record back
    (``ConditionFailed.existing``)."""

    kind: type
    ident: tuple[Any, ...]
    set: Mapping[str, Any]
    remove: tuple[str, ...] = ()
    expect: Mapping[str, Any] = field(default_factory=dict)
    return_existing: bool = False
    add: Mapping[str, int] = field(default_factory=dict)
    upsert: bool = False

    @property
    def key(self) -> Key:
        return self.kind, self.ident


Write = Put | Update


@dataclass(frozen=True, slots=True)
class Emit:
    """The events a change reports and the table's live state they move: ``before`` as read
    (``None``: the table has no live item yet) → ``after`` (``seq`` advanced by exactly
    ``len(events)``; the events numbered ``before.seq + 1`` …). Built by
    :func:`baccarat_api.service.events.emit`; written by :meth:`StateWrites.emitting` only."""

    before: LiveRecord | None
    after: LiveRecord
    events: tuple[EventRecord, ...]

    def writes(self) -> list[Write]:
        """The live item (put if it was absent, else updated on condition that ``seq`` is still
        the one read: the table's optimistic lock) and one new item per event."""
        first = 0 if self.before is None else self.before.seq
        assert [e.seq for e in self.events] == list(
            range(first + 1, first + 1 + len(self.events))
        ), "events are numbered consecutively after the live state's seq"
        assert self.after.seq == first + len(self.events)
        live: Write
        if self.before is None:
            live = Put(self.after)
        else:
            changed = {
                name: getattr(self.after, name)
                for name in self.after.__dataclass_fields__
                if name not in KEY_FIELDS[LiveRecord]
                and getattr(self.after, name) != getattr(self.before, name)
            }
            live = Update(
                LiveRecord,
                (self.before.operator_id, self.before.table_id),
                set={k: v for k, v in changed.items() if v is not None},
                remove=tuple(k for k, v in changed.items() if v is None),
                expect={"seq": self.before.seq},
            )
        return [live, *(Put(e) for e in self.events)]


class StateWrites(ABC):
    """The game-state writes of :class:`~baccarat_api.ports.repository.Repository`, each one
    transaction, written once for every adapter over its :meth:`transact`."""

    @abstractmethod
    def transact(self, what: str, writes: Sequence[Write], token: str | None = None) -> None:
        """Apply ``writes`` all-or-nothing (``what`` names it in errors). A lost condition
        raises ``ConditionFailed`` with ``existing`` = the stored record of the first failed
        write that asked for it (``return_existing``) and ``duplicate`` = an idempotency
        record's put lost (a request with the same key completed first); nothing is written.

        ``token`` (the write's id, at most 36 characters) makes a transaction idempotent, as
        DynamoDB's ``ClientRequestToken`` does: the same token with the same writes again (within
        10 minutes of its success) succeeds without a second effect; with other writes it raises
        ``OutcomeUnknown``. A write whose outcome cannot be known (a timeout after it was sent)
        raises ``OutcomeUnknown`` too: the caller re-reads its primary item."""

    def _write(
        self, what: str, writes: Sequence[Write], idem: IdempotencyRecord | None, token: str
    ) -> None:
        """``writes`` plus, with ``idem``, the idempotency record's put (new, or replacing an
        expired one), in the same transaction, carrying the write's id as its token."""
        if idem is not None:
            writes = [*writes, Put(idem, expired_by=int(time.time()))]
        self.transact(what, writes, token or None)

    def emitting(
        self,
        what: str,
        writes: Sequence[Write],
        emit: Emit | None,
        idem: IdempotencyRecord | None = None,
        token: str = "",
    ) -> None:
        """THE one way events are written: ``writes`` plus the live state's move and the event
        items of ``emit`` (and, with ``idem``, the idempotency record), ONE transaction. Every
        transaction that reports a change goes through here. Once it has committed, a running
        table's next step is scheduled when the change moved it."""
        self._write(what, [*writes, *([] if emit is None else emit.writes())], idem, token)
        if emit is not None:
            self._schedule(emit)

    def _schedule(self, emit: Emit) -> None:
        after = emit.after
        tick = after.tick
        if tick is None or (emit.before is not None and emit.before.tick == tick):
            return
        scheduler: Scheduler | None = getattr(self, "scheduler", None)
        if scheduler is not None:
            scheduler.schedule(Tick(operator_id=after.operator_id, table_id=after.table_id, **tick))

    def table_change(
        self,
        what: str,
        emit: Emit,
        writes: Sequence[Write] = (),
        idem: IdempotencyRecord | None = None,
        token: str = "",
    ) -> None:
        """A change of the table's live state (presence, the betting window, reveals): the live
        item, its events and ``writes`` (other small per-table items), one transaction."""
        self.emitting(what, writes, emit, idem, token)

    # tables and shoes -------------------------------------------------------------------------
    def create_table(
        self,
        table: TableRecord,
        idem: IdempotencyRecord | None = None,
        live: Emit | None = None,
    ) -> None:
        """Put a new table (``ConditionFailed`` if the id exists) and its public fairness totals
        (zero: the table is known to the fairness route before any of its proofs is final); a
        running table's live state too (``live``: seq 0, no event); a numbered table's claim
        of its number (``ConditionFailed`` if another table holds it)."""
        writes: list[Write] = [
            Put(table),
            Put(FairnessTotals(table.table_id, operator_id=table.operator_id)),
        ]
        if table.number is not None:
            writes.append(Put(TableNumber(table.operator_id, table.number, table.table_id)))
        if live is None:
            self._write("create table", writes, idem, table.write_id)
        else:
            self.emitting("create table", writes, live, idem, table.write_id)

    def commit_shoe(
        self,
        table: TableRecord,
        shoe: ShoeRecord,
        idem: IdempotencyRecord | None = None,
        emit: Emit | None = None,
    ) -> None:
        """Put the shoe (new) and, on the table as it was read (same next shoe number, no open
        shoe), set the open shoe and advance the next shoe number; name the operator on the
        table's public fairness totals (made if missing: a table created before they named it),
        through which the public routes find the open shoe."""
        number = shoe.shoe_number
        self.emitting(
            "commit shoe",
            [
                Put(shoe),
                Update(
                    TableRecord,
                    (table.operator_id, table.table_id),
                    set={"open_shoe_id": shoe.shoe_id, "next_shoe_number": number + 1},
                    expect={"next_shoe_number": number, "open_shoe_id": ABSENT},
                ),
                Update(
                    FairnessTotals,
                    (table.table_id,),
                    set={"operator_id": table.operator_id, "latest_shoe_number": number},
                    upsert=True,
                ),
            ],
            emit,
            idem,
            shoe.write_id,
        )

    @staticmethod
    def _shoe_update(before: ShoeRecord, after: ShoeRecord) -> Update:
        """The shoe from ``before`` to ``after`` (optimistic lock: same version, still open);
        its idle-close time moves with it (an ended shoe leaves the sweep's ``IDLE#`` part)."""
        moved: dict[str, Any] = {
            "status": after.status,
            "rounds_dealt": after.rounds_dealt,
            "cursor": after.cursor,
            "version": after.version,
            "results": after.results,
            "recent_bettors": after.recent_bettors,
            "chain_head": after.chain_head,
        }
        remove: tuple[str, ...] = ()
        if after.status == ENDED:
            assert after.server_seed and after.end_reason and after.ended_at
            moved |= {
                "server_seed": after.server_seed,
                "end_reason": after.end_reason,
                "ended_at": after.ended_at,
                "end_write_id": after.end_write_id,
            }
            remove = ("close_by",)
        elif after.close_by is not None:
            moved["close_by"] = after.close_by
        if after.v2 is not None:  # a bacc-pf-v2 shoe: the cards drawn, the round locked
            moved["v2"] = after.v2
        return Update(
            ShoeRecord,
            (before.operator_id, before.table_id, before.shoe_number),
            set=moved,
            remove=remove,
            expect={"version": before.version, "status": OPEN},
        )

    @staticmethod
    def _shoe_end_writes(shoe: ShoeRecord, proof: ProofRecord, chain_head: str) -> list[Write]:
        """Free the table, hand it the shoe's chain head, and publish the proof (all part of
        ending a shoe)."""
        return [
            Update(
                TableRecord,
                (shoe.operator_id, shoe.table_id),
                set={"chain_head": chain_head},
                remove=("open_shoe_id",),
                expect={"open_shoe_id": shoe.shoe_id},
            ),
            Put(proof),
        ]

    def record_round(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        round_: RoundRecord,
        proof: ProofRecord | None,
        idem: IdempotencyRecord | None = None,
        emit: Emit | None = None,
    ) -> None:
        """Put the round (new) and move the shoe from ``before`` to ``after`` (same version, still
        open); when the round ends the shoe, also free the table and publish ``proof``."""
        writes: list[Write] = [Put(round_), self._shoe_update(before, after)]
        if round_.void is not None:  # voided as written (a v2 beacon void): its book's refunds
            writes += book_progress(round_, round_.void["voided_at"], voided=True)
        if proof is not None:
            writes += self._shoe_end_writes(before, proof, after.chain_head)
        self.emitting("deal round", writes, emit, idem, round_.write_id)

    def lock_round(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        idem: IdempotencyRecord | None,
        emit: Emit,
        write_id: str,
    ) -> None:
        """Lock a bacc-pf-v2 round: the shoe's ``v2.locked`` and the events (no card yet)."""
        self.emitting("lock round", [self._shoe_update(before, after)], emit, idem, write_id)

    def close_shoe(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        proof: ProofRecord,
        idem: IdempotencyRecord | None = None,
        emit: Emit | None = None,
    ) -> None:
        """End the shoe (same version, still open), free the table, publish the proof."""
        writes = [
            self._shoe_update(before, after),
            *self._shoe_end_writes(before, proof, after.chain_head),
        ]
        self.emitting("close shoe", writes, emit, idem, after.end_write_id)

    # rounds -----------------------------------------------------------------------------------
    @staticmethod
    def _resolution_update(
        round_: RoundRecord, changes: dict[str, Any], doc: Settlement | Void
    ) -> Update:
        """Resolve a round that is neither settled nor voided: ``changes`` plus the
        bacc-audit-v1 hash of ``doc`` (the settlement or void document); the round leaves the
        DueRounds index. Returns the winner's round when the condition fails."""
        return Update(
            RoundRecord,
            (round_.operator_id, round_.table_id, round_.shoe_number, round_.round_number),
            set={**changes, "settlement_hash": settlement_hash(round_.round_hash, doc)},
            expect={"settled_at": ABSENT, "void": ABSENT},
            return_existing=True,
        )

    def save_settlement(
        self,
        round_: RoundRecord,
        settled_at: str,
        auto: bool,
        idem: IdempotencyRecord | None = None,
        *,
        write_id: str = "",
        emit: Emit | None = None,
    ) -> None:
        """Settle the round with the money computed at its deal (``settled_at``; ``auto``: by
        the system), if it is neither settled nor voided; ``ConditionFailed`` otherwise, with
        ``existing`` = the stored round."""
        settled = replace(round_, settled_at=settled_at, auto_settled=auto).settlement
        assert settled is not None
        changes = {"settled_at": settled_at, "auto_settled": auto, "resolve_write_id": write_id}
        writes: list[Write] = [self._resolution_update(round_, changes, settled)]
        writes += book_progress(round_, settled_at, voided=False)
        self.emitting("settle round", writes, emit, idem, write_id)

    def void_round(
        self,
        round_: RoundRecord,
        void: Void,
        idem: IdempotencyRecord | None = None,
        *,
        write_id: str = "",
        emit: Emit | None = None,
    ) -> None:
        """Void the round (``void``: its void document), if it is neither settled nor voided
        (a round is settled or voided, once)."""
        changes = {"void": void, "resolve_write_id": write_id}
        writes: list[Write] = [self._resolution_update(round_, changes, void)]
        if round_.book is not None:
            writes += book_progress(round_, void["voided_at"], voided=True)
        self.emitting("void round", writes, emit, idem, write_id)

    # final proofs -----------------------------------------------------------------------------
    def finalise_proof(
        self,
        proof: ProofRecord,
        signature: ProofSignature,
        page_count: int,
        finalised_at: str,
        line: ShoeFairness,
    ) -> None:
        """Make the proof final, once: its ``signature`` (the manifest of the pages already
        stored, signed) on the proof item if it has none — the write-once condition that decides
        between two finalisers — and, in the same transaction, the shoe's line of the table's
        fairness summary and the totals it adds to (made if missing). A lost condition brings
        the winner's proof back (``ConditionFailed.existing``)."""
        iv: dict[str, Any] = dict(line.interventions)
        counted = ("voided_rounds", "voided_player_net", "voided_player_banker_net", "rounds_dealt")
        totals = {"shoes": 1, "closed_early": int(bool(iv["closed_early"]))}
        totals |= {k: int(iv.get(k, 0)) for k in counted}
        # a bacc-pf-v2 shoe's unknowable count (None) adds what it dealt: a lower bound
        possible = iv["rounds_possible"]
        totals["rounds_possible"] = int(iv["rounds_dealt"] if possible is None else possible)
        writes: list[Write] = [
            Update(
                ProofRecord,
                (proof.shoe_id,),
                set={
                    "signature": signature,
                    "page_count": page_count,
                    "finalised_at": finalised_at,
                },
                expect={"signature": ABSENT},
                return_existing=True,
            ),
            Put(line),
            Update(FairnessTotals, (line.table_id,), set={}, add=totals, upsert=True),
        ]
        self.transact("finalise proof", writes)

    # the operator feed (service/feed.py) ---------------------------------------------------
    def append_feed(self, head: FeedHead, marks: Sequence[tuple[FeedMark, int]]) -> None:
        """Append to the feed shard of ``head`` (as read: ``pos`` 0 = no entry yet), for each
        ``(mark as read, last)`` (``seq`` 0 = none of the table's events yet), one entry: the
        table's events ``mark.seq + 1`` … ``last``, at the next positions. ONE transaction, on
        condition that the head and every mark are still as read: so positions are gap-free and
        each event is appended once, whoever appends concurrently."""
        writes: list[Write] = []
        pos = head.pos
        for mark, last in marks:
            pos += 1
            entry = FeedEntry(head.operator_id, head.shard, pos, mark.table_id, mark.seq + 1, last)
            writes.append(Put(entry))
            writes.append(_counter_update(FeedMark, mark, "seq", mark.seq, last))
        writes.append(_counter_update(FeedHead, head, "pos", head.pos, pos))
        self.transact("append feed", writes)


def _counter_update(kind: type, record: Record, name: str, before: int, after: int) -> Write:
    """A counter item from ``before`` (as read; 0: the item is absent) to ``after``."""
    if before == 0:
        return Put(replace(record, **{name: after}))  # type: ignore[arg-type]
    return Update(kind, key_of(record)[1], set={name: after}, expect={name: before})
