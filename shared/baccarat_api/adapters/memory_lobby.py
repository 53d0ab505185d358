"""Table numbers and the lobby of :class:`~baccarat_api.adapters.memory.MemoryRepository`, as a
mixin over its items, call counter and lock (each call counted as the DynamoDB round trips the
adapter makes: the lobby's page is a ``query`` and a ``batch_get``)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from baccarat_api.ports.book import BookStore
from baccarat_api.ports.lobby import (
    LobbyPage,
    LobbyPosition,
    LobbyRow,
    LobbyShoe,
    shown_shoe_number,
)
from baccarat_api.ports.records import (
    LiveRecord,
    Record,
    ShoeRecord,
    TableNumber,
    TableNumberCounter,
    TableRecord,
)
from baccarat_api.ports.writes import Key


class LobbyStore:
    """Numbers reserved, skipped and looked up; the lobby's pages."""

    items: dict[Key, Record]
    calls: Counter[str]
    _lock: threading.RLock
    book: BookStore

    def table_number(self, operator_id: str, number: int) -> TableNumber | None:
        self.calls["get"] += 1
        with self._lock:
            found = self.items.get((TableNumber, (operator_id, number)))
            return found if isinstance(found, TableNumber) else None

    def next_table_number(self, operator_id: str) -> int:
        self.calls["write"] += 1
        with self._lock:
            key: Key = (TableNumberCounter, (operator_id,))
            found = self.items.get(key)
            last = found.last if isinstance(found, TableNumberCounter) else 0
            self.items[key] = TableNumberCounter(operator_id, last + 1)
            return last + 1

    def taken_table_numbers(self, operator_id: str, first: int, limit: int) -> list[int]:
        self.calls["query"] += 1
        with self._lock:
            taken = sorted(
                r.number
                for r in self.items.values()
                if isinstance(r, TableNumber) and r.operator_id == operator_id and r.number >= first
            )
        return taken[:limit]

    def lobby_page(self, operator_id: str, after: LobbyPosition | None, limit: int) -> LobbyPage:
        self.calls["query"] += 1
        with self._lock:
            numbered = sorted(
                (
                    r
                    for r in self.items.values()
                    if isinstance(r, TableRecord)
                    and r.operator_id == operator_id
                    and r.number is not None
                ),
                key=_position,
            )
            page = [t for t in numbered if after is None or _position(t) > after]
            tables, more = page[:limit], len(page) > limit
            if tables:
                self.calls["batch_get"] += 1
            rows = [self._row(t) for t in tables]
        return LobbyPage(rows, more)

    def _row(self, t: TableRecord) -> LobbyRow:
        live = self.items.get((LiveRecord, (t.operator_id, t.table_id)))
        shown = shown_shoe_number(t)
        shoe = None
        if shown is not None:
            found = self.items.get((ShoeRecord, (t.operator_id, t.table_id, shown)))
            if isinstance(found, ShoeRecord):
                shoe = _progress(found)
        counts: dict[str, Any] = {}
        if t.bet_behind == "book":
            counts = {
                "spectators": self.book.spectators(t.operator_id, t.table_id, 1).count,
                "watchers": self.book.watchers(t.operator_id, t.table_id, 1).count,
            }
        return LobbyRow(t, live if isinstance(live, LiveRecord) else None, shoe, **counts)


def _progress(s: ShoeRecord) -> LobbyShoe:
    return LobbyShoe(s.shoe_number, s.status, s.rounds_dealt, s.cursor, list(s.results))


def _position(t: TableRecord) -> LobbyPosition:
    return (t.number or 0, t.table_id)
