"""The in-memory :class:`~baccarat_api.ports.book.BookStore`: the same answers and refusals as
the DynamoDB one (held to one contract by ``tests/integration/test_book_store_contract.py``),
every write all-or-nothing under one lock. The lock's extra writes go to the repository it is
given (the in-memory one), inside that lock, before any shard flips. Like the DynamoDB one it
keeps the epoch of a spectator who left (``left``): a rejoin moves it on, never back."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from baccarat_api.ports.book import (
    BOOK_SHARDS,
    SHARD_CHARS,
    BookCursor,
    BookPage,
    NamesPage,
    NotPresent,
    PresenceMoved,
    Slip,
    Spectator,
    SpectatorsPage,
    Watcher,
    Window,
    WindowClosed,
    WindowExists,
    slip_shard,
)
from baccarat_api.ports.writes import StateWrites, Write

Table = tuple[str, str]


class MemoryBookStore:
    """The book in dicts. ``writes``: where :meth:`lock` applies its ``also`` writes."""

    def __init__(self, writes: StateWrites | None = None) -> None:
        self._lock = threading.RLock()
        self._writes = writes
        self.spectators_: dict[Table, dict[str, Spectator]] = {}
        self.watchers_: dict[Table, dict[str, Watcher]] = {}
        self.windows: dict[Table, Window] = {}
        self.slips: dict[Table, dict[str, Slip]] = {}
        self.left: dict[Table, dict[str, int]] = {}  # the epoch of each who left

    # presence ---------------------------------------------------------------------------------

    def join_spectator(self, operator_id: str, table_id: str, spectator: Spectator) -> bool:
        slip_shard(spectator.bettor_ref)
        with self._lock:
            present = self.spectators_.setdefault((operator_id, table_id), {})
            if spectator.bettor_id in present:
                return False
            before = self.left.get((operator_id, table_id), {}).pop(spectator.bettor_id, 0)
            present[spectator.bettor_id] = dataclasses.replace(spectator, epoch=before + 1)
            return True

    def get_spectator(self, operator_id: str, table_id: str, bettor_id: str) -> Spectator | None:
        with self._lock:
            return self.spectators_.get((operator_id, table_id), {}).get(bettor_id)

    def update_spectator(
        self,
        operator_id: str,
        table_id: str,
        bettor_id: str,
        epoch: int,
        balance: int,
        personal_limits: Mapping[str, Any] | None,
        drop_slip: str | None = None,
    ) -> Spectator:
        with self._lock:
            present = self.spectators_.get((operator_id, table_id), {})
            now = present.get(bettor_id)
            if now is None:
                raise NotPresent(bettor_id)
            if now.epoch != epoch:
                raise PresenceMoved(bettor_id)
            after = dataclasses.replace(
                now, balance=balance, personal_limits=personal_limits, epoch=epoch + 1
            )
            present[bettor_id] = after
            if drop_slip is not None:
                self._drop_open_slip(operator_id, drop_slip, now.bettor_ref)
            return after

    def _drop_open_slip(self, operator_id: str, round_id: str, bettor_ref: str) -> None:
        window = self.windows.get((operator_id, round_id))
        if window is not None and window.status == "open":
            self.slips.get((operator_id, round_id), {}).pop(bettor_ref, None)

    def leave_spectator(
        self, operator_id: str, table_id: str, bettor_id: str, round_id: str | None = None
    ) -> bool:
        with self._lock:
            present = self.spectators_.get((operator_id, table_id), {})
            gone = present.pop(bettor_id, None)
            if gone is None:
                return False
            self.left.setdefault((operator_id, table_id), {})[bettor_id] = gone.epoch + 1
            if round_id is not None:
                self._drop_open_slip(operator_id, round_id, gone.bettor_ref)
            return True

    def spectators(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> NamesPage:
        with self._lock:
            return _names(self.spectators_.get((operator_id, table_id), {}), limit, after)

    def spectator_page(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> SpectatorsPage:
        with self._lock:
            present = self.spectators_.get((operator_id, table_id), {})
            names = _names(present, limit, after)
            return SpectatorsPage(names.count, tuple(present[b] for b in names.names), names.next)

    def join_watcher(self, operator_id: str, table_id: str, watcher: Watcher) -> bool:
        with self._lock:
            present = self.watchers_.setdefault((operator_id, table_id), {})
            if watcher.bettor_id in present:
                return False
            present[watcher.bettor_id] = watcher
            return True

    def get_watcher(self, operator_id: str, table_id: str, bettor_id: str) -> Watcher | None:
        with self._lock:
            return self.watchers_.get((operator_id, table_id), {}).get(bettor_id)

    def leave_watcher(self, operator_id: str, table_id: str, bettor_id: str) -> bool:
        with self._lock:
            return self.watchers_.get((operator_id, table_id), {}).pop(bettor_id, None) is not None

    def watchers(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> NamesPage:
        with self._lock:
            return _names(self.watchers_.get((operator_id, table_id), {}), limit, after)

    # the window and its slips -----------------------------------------------------------------

    def open_window(self, operator_id: str, round_id: str, epoch: str, closes_at: str) -> Window:
        with self._lock:
            found = self.windows.get((operator_id, round_id))
            if found is not None and found.status != "cancelled":
                if found.epoch != epoch:
                    raise WindowExists(round_id)
                return found
            if found is not None and found.epoch == epoch:
                return found
            window = Window(round_id, "open", epoch, closes_at, BOOK_SHARDS)
            self.windows[(operator_id, round_id)] = window
            return window

    def window(self, operator_id: str, round_id: str) -> Window | None:
        with self._lock:
            return self.windows.get((operator_id, round_id))

    def cancel_window(self, operator_id: str, round_id: str, epoch: str) -> bool:
        with self._lock:
            found = self.windows.get((operator_id, round_id))
            if found is None or found.epoch != epoch or found.status == "cancelled":
                return False
            self.windows[(operator_id, round_id)] = dataclasses.replace(found, status="cancelled")
            return True

    def _check_open(self, operator_id: str, round_id: str, epoch: str, now: str) -> None:
        window = self.windows.get((operator_id, round_id))
        if window is None or window.status != "open" or window.epoch != epoch:
            raise WindowClosed(round_id)
        if not window.closes_at > now:
            raise WindowClosed(round_id)

    def confirm_slip(
        self,
        operator_id: str,
        table_id: str,
        round_id: str,
        window_epoch: str,
        slip: Slip,
        now: str,
    ) -> None:
        slip_shard(slip.bettor_ref)
        with self._lock:
            self._check_open(operator_id, round_id, window_epoch, now)
            spectator = self.spectators_.get((operator_id, table_id), {}).get(slip.bettor_id)
            if spectator is None or spectator.epoch != slip.spec_epoch:
                raise PresenceMoved(slip.bettor_id)
            self.slips.setdefault((operator_id, round_id), {})[slip.bettor_ref] = slip

    def cancel_slip(
        self, operator_id: str, round_id: str, window_epoch: str, bettor_ref: str, now: str
    ) -> bool:
        with self._lock:
            self._check_open(operator_id, round_id, window_epoch, now)
            return self.slips.get((operator_id, round_id), {}).pop(bettor_ref, None) is not None

    def get_slip(self, operator_id: str, round_id: str, bettor_ref: str) -> Slip | None:
        with self._lock:
            return self.slips.get((operator_id, round_id), {}).get(bettor_ref)

    def lock(
        self,
        operator_id: str,
        round_id: str,
        window_epoch: str,
        also: Sequence[Write] = (),
        what: str = "lock book",
    ) -> None:
        with self._lock:
            window = self.windows.get((operator_id, round_id))
            if window is None or window.status != "open" or window.epoch != window_epoch:
                raise WindowClosed(round_id)
            if also:
                if self._writes is None:
                    raise ValueError("lock: extra writes need the repository")
                self._writes.transact(what, also)  # its lost condition: nothing flipped
            self.windows[(operator_id, round_id)] = dataclasses.replace(window, status="locked")

    def book_page(
        self, operator_id: str, round_id: str, cursor: BookCursor | None = None, limit: int = 1000
    ) -> BookPage:
        with self._lock:
            slips = self.slips.get((operator_id, round_id), {})
            at = cursor or BookCursor(0)
            char = SHARD_CHARS[at.shard]
            run = sorted(r for r in slips if slip_shard(r) == char and r > at.after)
            page = tuple(slips[r] for r in run[:limit])
        if len(run) > limit:
            return BookPage(page, BookCursor(at.shard, page[-1].bettor_ref))
        return BookPage(page, BookCursor(at.shard + 1) if at.shard + 1 < BOOK_SHARDS else None)


def _names(present: Mapping[str, object], limit: int, after: str | None) -> NamesPage:
    ids = sorted(b for b in present if after is None or b > after)
    names = tuple(ids[:limit])
    return NamesPage(len(present), names, names[-1] if len(ids) > limit else None)
