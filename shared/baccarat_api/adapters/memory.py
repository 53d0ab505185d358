"""An in-memory :class:`~baccarat_api.ports.repository.Repository` for service tests
(and any caller that wants the game without storage): the same game-state writes as the DynamoDB
adapter (:class:`~baccarat_api.ports.writes.StateWrites`), applied faithfully — all or nothing,
every condition checked against the state before the transaction, one item written at most once per
transaction (DynamoDB refuses two writes to one item too), a transaction's token honoured as
DynamoDB honours ``ClientRequestToken`` (the same writes again: success, applied once; other
writes: ``IdempotentParameterMismatch`` → ``OutcomeUnknown``; a failed one is not remembered),
records stored as given (frozen dataclasses, so a caller cannot change the store's copy).

It counts its calls (:attr:`MemoryRepository.calls`), one per DynamoDB round trip the adapter
would make, so service tests can pin round trips without moto. Not thread-safe beyond its lock:
enough for tests that race two calls."""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from baccarat_api.adapters.memory_book import MemoryBookStore
from baccarat_api.adapters.memory_chat import MemoryChatReads
from baccarat_api.adapters.memory_chunks import MemoryChunkStore
from baccarat_api.adapters.memory_feed import FeedReads, WebhookReads
from baccarat_api.adapters.memory_lobby import LobbyStore
from baccarat_api.adapters.memory_tokens import MemoryTokenStore
from baccarat_api.clock import Clock, system_clock
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.records import (
    ENDED,
    KEY_FIELDS,
    EventRecord,
    FairnessTotals,
    IdempotencyRecord,
    LiveRecord,
    ProofRecord,
    Record,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
    SigningKeyRecord,
    TableRecord,
)
from baccarat_api.ports.repository import (
    BadPosition,
    ConditionFailed,
    DayPosition,
    FairnessPage,
    OutcomeUnknown,
    Repository,
    ShoeHistory,
    Snapshot,
)
from baccarat_api.ports.scheduler import NoScheduler, Scheduler
from baccarat_api.ports.writes import ABSENT, Below, Key, Put, Update, Write


def _expected(value: Any, expected: Any) -> bool:
    """Whether a stored field's ``value`` holds an update's expectation."""
    if expected is ABSENT:
        return value is None
    if isinstance(expected, Below):
        return value is None or bool(value < expected.value)
    return bool(value == expected)


class MemoryRepository(FeedReads, WebhookReads, MemoryChatReads, LobbyStore, Repository):
    def __init__(self, clock: Clock = system_clock, scheduler: Scheduler | None = None) -> None:
        self.clock = clock
        self.scheduler = NoScheduler() if scheduler is None else scheduler
        self.book = MemoryBookStore(self)
        self.chunks = MemoryChunkStore(self)
        self.token_store = MemoryTokenStore()
        self.items: dict[Key, Record] = {}
        self.tiers: list[dict[str, Any]] = []
        self.retired: set[str] = set()
        #: SHA-256 of an API key → (operator id, revoked)
        self.keys: dict[str, tuple[str, bool]] = {}
        #: round trips by kind (``get``, ``batch_get``, ``write``, ``transaction``, ``query``)
        self.calls: Counter[str] = Counter()
        #: (shoe id, page number) → the stored page's bytes
        self.pages: dict[tuple[str, int], bytes] = {}
        #: key id → the history record of a key that signed proofs
        self.signing_key_records: dict[str, SigningKeyRecord] = {}
        #: ClientRequestToken → (the transaction's writes, when it succeeded), as DynamoDB
        #: remembers a token for 10 minutes
        self.tokens: dict[str, tuple[str, float]] = {}
        self._lock = threading.RLock()

    # writes -----------------------------------------------------------------------------------
    def _holds(self, write: Write) -> bool:
        stored = self.items.get(write.key)
        if isinstance(write, Put):
            if not write.if_absent or stored is None:
                return True
            expires_at = getattr(stored, "expires_at", None)
            return (
                write.expired_by is not None
                and expires_at is not None
                and (expires_at <= write.expired_by)
            )
        if stored is None:
            if not write.upsert:
                return False
            stored = self._new_record(write)
        return all(_expected(getattr(stored, n), e) for n, e in write.expect.items())

    #: How long DynamoDB remembers a transaction's token.
    TOKEN_SECONDS = 600

    def transact(self, what: str, writes: Sequence[Write], token: str | None = None) -> None:
        with self._lock:
            self.calls["write" if len(writes) == 1 else "transaction"] += 1
            token = token if len(writes) > 1 else None  # (a single write has none)
            if token is not None and self._is_replay(what, writes, token):
                return  # the same transaction again: answered, applied once
            self._check(what, writes)
            for w in writes:  # every condition held on the state before: apply them all
                self.items[w.key] = self._record_after(w)
            if token is not None:
                self.tokens[token] = (repr(list(writes)), time.monotonic())

    def _check(self, what: str, writes: Sequence[Write]) -> None:
        """Refuse writes naming one item twice; ``ConditionFailed`` unless every condition
        holds on the state before the transaction."""
        keys = [w.key for w in writes]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{what}: two writes to one item in one transaction")
        failed = [not self._holds(w) for w in writes]
        if any(failed):
            raise self._condition_error(what, writes, failed)

    def _is_replay(self, what: str, writes: Sequence[Write], token: str) -> bool:
        """Whether ``token`` names these writes, succeeded within :attr:`TOKEN_SECONDS`
        (DynamoDB answers them again, applied once); other writes under a remembered token:
        ``OutcomeUnknown`` (``IdempotentParameterMismatch``)."""
        if len(token) > 36:
            raise ValueError("a ClientRequestToken is at most 36 characters")
        seen = self.tokens.get(token)
        if seen is None or time.monotonic() - seen[1] >= self.TOKEN_SECONDS:
            return False
        if seen[0] == repr(list(writes)):
            return True
        raise OutcomeUnknown(f"{what}: IdempotentParameterMismatchException")

    def _condition_error(
        self, what: str, writes: Sequence[Write], failed: list[bool]
    ) -> ConditionFailed:
        """The error of a transaction whose conditions did not all hold: with the stored record
        of the first failed update asking for it, and whether an idempotency record was there."""
        lost = [w for w, f in zip(writes, failed, strict=True) if f]
        existing = next(
            (self.items.get(w.key) for w in lost if isinstance(w, Update) and w.return_existing),
            None,
        )
        duplicate = len(writes) > 1 and any(
            isinstance(w, Put) and isinstance(w.record, IdempotencyRecord) for w in lost
        )
        return ConditionFailed(f"{what}: condition failed", existing=existing, duplicate=duplicate)

    def _record_after(self, w: Write) -> Record:
        """The record a write leaves: a put's, or the stored one (or an upsert's new one) with
        the update's fields set, removed and added to."""
        if isinstance(w, Put):
            return w.record
        before = self.items.get(w.key) or self._new_record(w)
        changes = dict(w.set) | dict.fromkeys(w.remove)
        changes |= {f: getattr(before, f) + n for f, n in w.add.items()}
        return dataclasses.replace(before, **changes)

    @staticmethod
    def _new_record(write: Update) -> Record:
        """The record an upsert makes when its item is missing: its key and its defaults."""
        made: Record = write.kind(**dict(zip(KEY_FIELDS[write.kind], write.ident, strict=True)))
        return made

    # configuration ----------------------------------------------------------------------------
    def add_key(self, key_hash: str, operator_id: str, *, revoked: bool = False) -> None:
        self.keys[key_hash] = (operator_id, revoked)

    def operator_for_key(self, key_hash: str) -> str | None:
        self.calls["get"] += 1
        found = self.keys.get(key_hash)
        return None if found is None or found[1] else found[0]

    def put_tiers(self, tiers: list[dict[str, Any]]) -> None:
        ids = [str(t["id"]) for t in tiers]
        self.retired |= {str(t["id"]) for t in self.tiers} - set(ids)
        self.retired -= set(ids)
        old = [t for t in self.tiers if str(t["id"]) not in ids]
        self.tiers = [dict(t) for t in tiers] + old

    def list_tiers(self) -> list[dict[str, Any]]:
        self.calls["query"] += 1
        return [dict(t) for t in self.tiers if str(t["id"]) not in self.retired]

    def _tier(self, tier_id: str) -> dict[str, Any] | None:
        if tier_id in self.retired:
            return None
        return next((dict(t) for t in self.tiers if str(t["id"]) == tier_id), None)

    def get_tier(self, tier_id: str) -> dict[str, Any] | None:
        self.calls["get"] += 1
        return self._tier(tier_id)

    # reads ------------------------------------------------------------------------------------
    def _one(self, kind: type, *ident: Any) -> Any:
        return self.items.get((kind, ident))

    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None:
        self.calls["get"] += 1
        found: TableRecord | None = self._one(TableRecord, operator_id, table_id)
        return found

    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None:
        self.calls["get"] += 1
        found: ShoeRecord | None = self._one(ShoeRecord, operator_id, ref.table_id, ref.shoe_number)
        return found

    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None:
        self.calls["get"] += 1
        found: RoundRecord | None = self._one(
            RoundRecord, operator_id, ref.table_id, ref.shoe_number, ref.round_number
        )
        return found

    def load(
        self,
        operator_id: str,
        *,
        table_id: str | None = None,
        shoe: ShoeRef | None = None,
        round_: RoundRef | None = None,
        tier_id: str | None = None,
        idem_key: str | None = None,
        live: str | None = None,
    ) -> Snapshot:
        named = [table_id, shoe, round_, tier_id, idem_key, live]
        wanted = sum(x is not None for x in named)
        if wanted:
            self.calls["get" if wanted == 1 else "batch_get"] += 1
        snap = Snapshot()
        with self._lock:
            if table_id is not None:
                snap.table = self._one(TableRecord, operator_id, table_id)
            if shoe is not None:
                snap.shoe = self._one(ShoeRecord, operator_id, shoe.table_id, shoe.shoe_number)
            if round_ is not None:
                snap.round = self._one(
                    RoundRecord,
                    operator_id,
                    round_.table_id,
                    round_.shoe_number,
                    round_.round_number,
                )
            if tier_id is not None:
                snap.tier = self._tier(tier_id)
            if idem_key is not None:
                snap.idempotency = self._one(IdempotencyRecord, operator_id, idem_key)
            if live is not None:
                snap.live = self._one(LiveRecord, operator_id, live)
        return snap

    def table_events(
        self, operator_id: str, table_id: str, after: int, limit: int
    ) -> tuple[list[EventRecord], LiveRecord | None]:
        self.calls["query"] += 1
        with self._lock:
            mine = [
                e
                for e in self._all(EventRecord)
                if (e.operator_id, e.table_id) == (operator_id, table_id) and e.seq > after
            ]
            events = sorted(mine, key=lambda e: e.seq)[:limit]
            live = self._one(LiveRecord, operator_id, table_id) if len(events) < limit else None
        return events, live

    def _all(self, kind: type) -> list[Any]:
        with self._lock:
            return [r for (k, _), r in self.items.items() if k is kind]

    def due_rounds(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        self.calls["query"] += 1
        due = sorted(
            (r for r in self._all(RoundRecord) if r.settle_by is not None and not r.resolved),
            key=lambda r: r.settle_by,
        )
        return [(r.operator_id, r.ref) for r in due if r.settle_by <= now][:limit]

    def due_books(self, now: str, limit: int) -> list[tuple[str, str]]:
        self.calls["query"] += 1
        due = sorted(
            (  # a running table with a tick is indexed by it instead (as in DynamoDB)
                v
                for v in self._all(LiveRecord)
                if v.deal_by is not None and v.deal_by <= now and v.tick is None
            ),
            key=lambda v: v.deal_by or "",
        )
        return [(v.operator_id, v.table_id) for v in due][:limit]

    def day_rounds(
        self,
        operator_id: str,
        day: str,
        *,
        table_id: str | None = None,
        after: DayPosition | None = None,
        limit: int,
        queries: int,
    ) -> tuple[list[RoundRecord], DayPosition | None]:
        """One shard (0), ordered like the DynamoDB index's shards: table, shoe, round."""
        self.calls["query"] += 1
        if after is not None and (
            after[0] != 0 or not re.fullmatch(r"(tbl_[a-z2-7]{16}#\d{6,12}#\d{5,12})?", after[1])
        ):
            raise BadPosition(f"not a position of this listing: {after!r}")

        def key(r: RoundRecord) -> str:
            return f"{r.table_id}#{r.shoe_number:06d}#{r.round_number:05d}"

        rounds = sorted(
            (
                r
                for r in self._all(RoundRecord)
                if r.operator_id == operator_id
                and r.dealt_at[:10] == day
                and (table_id is None or r.table_id == table_id)
                and (after is None or key(r) > after[1])
            ),
            key=key,
        )
        if len(rounds) > limit:
            return rounds[:limit], (0, key(rounds[limit - 1]))
        return rounds, None

    def shoe_history(self, operator_id: str, ref: ShoeRef) -> ShoeHistory:
        self.calls["query"] += 1
        ident = (operator_id, ref.table_id, ref.shoe_number)
        mine = lambda r: (r.operator_id, r.table_id, r.shoe_number) == ident  # noqa: E731
        return ShoeHistory(
            shoe=self._one(ShoeRecord, *ident),
            rounds=sorted(filter(mine, self._all(RoundRecord)), key=lambda r: r.round_number),
        )

    def chain_head_of(self, operator_id: str, ref: ShoeRef) -> str | None:
        self.calls["get"] += 1
        shoe: ShoeRecord | None = self._one(ShoeRecord, operator_id, ref.table_id, ref.shoe_number)
        return None if shoe is None else shoe.chain_head

    # final proofs -----------------------------------------------------------------------------
    def proof_page(self, shoe_id: str, number: int) -> tuple[ProofRecord | None, bytes | None]:
        self.calls["batch_get"] += 1
        with self._lock:
            return self._one(ProofRecord, shoe_id), self.pages.get((shoe_id, number))

    def put_proof_pages(self, shoe_id: str, pages: Sequence[bytes]) -> None:
        self.calls["write"] += len(pages)  # (a part per page ≤ 350 KB)
        with self._lock:
            for number, page in enumerate(pages, start=1):
                self.pages[(shoe_id, number)] = bytes(page)

    def open_rounds(self, shoe_id: str) -> list[tuple[int, str | None]]:
        self.calls["query"] += 1
        return sorted(
            (r.round_number, r.settle_by)
            for r in self._all(RoundRecord)
            if r.ref.shoe.shoe_id == shoe_id and not r.resolved
        )

    def idle_shoes(self, now: str, limit: int) -> list[tuple[str, ShoeRef]]:
        self.calls["query"] += 1
        due = sorted(
            (
                s
                for s in self._all(ShoeRecord)
                if s.status != ENDED and s.close_by is not None and s.close_by <= now
            ),
            key=lambda s: s.close_by or "",
        )
        return [(s.operator_id, s.ref) for s in due][:limit]

    def due_proofs(self, now: str, limit: int) -> list[str]:
        self.calls["query"] += 1
        due = sorted(
            (p for p in self._all(ProofRecord) if p.signature is None and p.operator_id),
            key=lambda p: p.ended_at,
        )
        return [p.shoe_id for p in due if p.ended_at <= now][:limit]

    def record_signing_key(self, jwk: dict[str, str], signed_at: str) -> None:
        self.calls["write"] += 1
        with self._lock:
            old = self.signing_key_records.get(jwk["kid"])
            first = min(old.first_signed_at, signed_at) if old else signed_at
            last = max(old.last_signed_at, signed_at) if old else signed_at
            self.signing_key_records[jwk["kid"]] = SigningKeyRecord(
                kid=jwk["kid"], jwk=dict(jwk), first_signed_at=first, last_signed_at=last
            )

    def signing_keys(self) -> list[SigningKeyRecord]:
        self.calls["query"] += 1
        with self._lock:
            return sorted(self.signing_key_records.values(), key=lambda r: r.first_signed_at)

    def fairness(self, table_id: str, *, before: int | None, limit: int) -> FairnessPage:
        self.calls["query"] += 1 if before is None else 2
        lines = sorted(
            (
                line
                for line in self._all(ShoeFairness)
                if line.table_id == table_id and (before is None or line.shoe_number < before)
            ),
            key=lambda line: -line.shoe_number,
        )
        totals: FairnessTotals | None = self._one(FairnessTotals, table_id)
        return FairnessPage(totals=totals, shoes=lines[:limit], more=len(lines) > limit)

    def due_ticks(self, now: str, limit: int) -> list[tuple[str, str]]:
        self.calls["query"] += 1
        due = sorted(
            (v for v in self._all(LiveRecord) if v.tick is not None and v.tick["due"] <= now),
            key=lambda v: v.tick["due"] if v.tick is not None else "",
        )
        return [(v.operator_id, v.table_id) for v in due][:limit]
