"""The :class:`~baccarat_api.ports.chunks.ChunkStore` in dicts (tests, the in-memory API). The
progress records are the repository's (put by the settlement's transaction): this store reads
them from it and keeps their ``done`` and ``emitted`` sets beside. Each chunk item is one
``_put`` (as each is one ``PutItem`` on DynamoDB), so a test can fail a chunk between two."""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from baccarat_api.ids import RoundRef
from baccarat_api.ports.chunks import (
    ChunkEmitted,
    ChunkOut,
    Leaf,
    PageEntry,
    Progress,
    ReceiptItem,
    SettleProgress,
)

__all__ = ["MemoryChunkStore"]

_Key = tuple[str, str, str]


class _Records(Protocol):
    """What this store reads of the in-memory repository: its items by record key."""

    items: dict[Any, Any]


class MemoryChunkStore:
    """The settlement's storage in dicts, under one lock."""

    def __init__(self, records: _Records | None = None) -> None:
        self._lock = threading.RLock()
        self._records = records
        self.leaves_: dict[tuple[str, str], tuple[Leaf, ...]] = {}
        #: (operator, round id, item name) → the item, as written (a deep copy)
        self.items: dict[_Key, Any] = {}
        self.done: dict[tuple[str, str], set[int]] = {}
        self.emitted: dict[tuple[str, str], set[int]] = {}
        #: rounds whose fan-out is complete (out of the sweep's index)
        self.complete: set[tuple[str, str]] = set()
        self.writes = 0

    def put_leaves(self, operator_id: str, round_id: str, leaves: Sequence[Leaf]) -> None:
        with self._lock:
            self.leaves_[operator_id, round_id] = tuple(leaves)

    def leaves(self, operator_id: str, round_id: str) -> list[Leaf]:
        with self._lock:
            return list(self.leaves_.get((operator_id, round_id), ()))

    # the fan-out ---------------------------------------------------------------------------

    def _record(self, operator_id: str, ref: RoundRef) -> SettleProgress | None:
        if self._records is None:
            return None
        ident = (operator_id, ref.table_id, ref.shoe_number, ref.round_number)
        found = self._records.items.get((SettleProgress, ident))
        return found if isinstance(found, SettleProgress) else None

    def progress(self, operator_id: str, ref: RoundRef) -> Progress | None:
        with self._lock:
            record = self._record(operator_id, ref)
            if record is None:
                return None
            at = (operator_id, ref.round_id)
            return Progress(
                chunks=record.chunks,
                resolved_at=record.resolved_at,
                due_at=record.due_at,
                voided=record.voided,
                done=frozenset(self.done.get(at, ())),
                emitted=frozenset(self.emitted.get(at, ())),
            )

    def _put(self, key: _Key, value: Any) -> None:
        with self._lock:
            self.writes += 1
            self.items[key] = copy.deepcopy(value)

    def put_chunk(self, operator_id: str, ref: RoundRef, out: ChunkOut) -> None:
        rid = ref.round_id
        if self.progress(operator_id, ref) is None:
            raise KeyError(f"no settlement progress of {rid}")
        for r in out.receipts:
            self._put((operator_id, rid, f"RCPT#{r.bettor_id}"), (r.bettor_ref, dict(r.doc)))
        self._put((operator_id, rid, f"PAGE#{out.chunk:05d}"), [e.as_dict() for e in out.page])
        self._put((operator_id, rid, f"BOOK#{out.chunk:05d}"), dict(out.book_page))
        with self._lock:
            self.done.setdefault((operator_id, rid), set()).add(out.chunk)

    def mark_emitted(self, operator_id: str, ref: RoundRef, chunk: int) -> Progress:
        with self._lock:
            self.emitted.setdefault((operator_id, ref.round_id), set()).add(chunk)
            progress = self.progress(operator_id, ref)
            if progress is None:
                raise KeyError(f"no settlement progress of {ref.round_id}")
            if progress.complete:
                self.complete.add((operator_id, ref.round_id))
            return progress

    def receipt(self, operator_id: str, ref: RoundRef, bettor_id: str) -> ReceiptItem | None:
        with self._lock:
            found = self.items.get((operator_id, ref.round_id, f"RCPT#{bettor_id}"))
            if found is None:
                return None
            return ReceiptItem(bettor_id, found[0], copy.deepcopy(found[1]))

    def page(self, operator_id: str, ref: RoundRef, chunk: int) -> list[PageEntry] | None:
        with self._lock:
            found = self.items.get((operator_id, ref.round_id, f"PAGE#{chunk:05d}"))
            return None if found is None else [PageEntry(**e) for e in found]

    def book_page(self, operator_id: str, ref: RoundRef, chunk: int) -> dict[str, Any] | None:
        with self._lock:
            found = self.items.get((operator_id, ref.round_id, f"BOOK#{chunk:05d}"))
            return None if found is None else copy.deepcopy(found)

    def postpone(self, operator_id: str, ref: RoundRef, due_at: str) -> None:
        with self._lock:
            record = self._record(operator_id, ref)
            if record is None or (operator_id, ref.round_id) in self.complete:
                return
            assert self._records is not None
            ident = (operator_id, ref.table_id, ref.shoe_number, ref.round_number)
            self._records.items[(SettleProgress, ident)] = dataclasses.replace(
                record, due_at=due_at
            )

    def emitted_marker(self, operator_id: str, ref: RoundRef, chunk: int) -> bool:
        if self._records is None:
            return False
        ident = (operator_id, ref.table_id, ref.shoe_number, ref.round_number, chunk)
        return (ChunkEmitted, ident) in self._records.items

    def due_progress(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        if self._records is None:
            return []
        with self._lock:
            due = sorted(
                (
                    r
                    for r in list(self._records.items.values())
                    if isinstance(r, SettleProgress)
                    and r.due_at <= now
                    and (r.operator_id, r.ref.round_id) not in self.complete
                ),
                key=lambda r: r.due_at,
            )
            return [(r.operator_id, r.ref) for r in due][:limit]
