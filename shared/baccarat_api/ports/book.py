"""The book of a house-banked round's spectators, stored apart from the live item: the
spectators and watchers present at a table (an item each, their counts in count shards), and a
round's betting window split into book shards with the spectators' slips under them (an item
each). Nothing here grows with the number of bettors, so the number has no cap. Nothing is
ever deleted: a leave marks the spectator absent, a cancel marks the slip cancelled, and every
read skips the marked.

The lock of a round's book is ONE transaction that flips every window shard ``open → locked``;
every slip confirm, cancel and removal checks its shard's window in its own transaction, so on
each shard the confirms and the lock are totally ordered: a confirm that returned is in the
locked book, one after the lock is refused and writes nothing. The locked book is then read
strongly consistent, shard by shard, in ``bettor_ref`` order (the book tree's leaf order).

Its failures are this port's exceptions (:class:`BookError` and below): the service turns
them into its own errors."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from baccarat_api.ports.writes import Write

#: Count shards of a table's spectators (and of its watchers): a join adds 1 to ONE of them
#: (by its bettor id), so concurrent joins do not all write one item; a count is their sum.
COUNT_SHARDS = 8
#: The first character of a ``bettor_ref`` after ``br_`` (base32, RFC 4648's alphabet), in
#: byte order: a round's book has a shard per value, so the slips of a shard are a contiguous
#: run of the book's ``bettor_ref`` order and a storm of confirms spreads over all of them.
SHARD_CHARS = "".join(sorted("abcdefghijklmnopqrstuvwxyz234567"))
BOOK_SHARDS = len(SHARD_CHARS)
REF_PREFIX = "br_"

WindowStatus = Literal["open", "locked", "cancelled"]


def count_shard(bettor_id: str) -> int:
    """The count shard a bettor's presence is counted in (the same at join and leave)."""
    return int(hashlib.sha256(bettor_id.encode()).hexdigest()[:8], 16) % COUNT_SHARDS


def slip_shard(bettor_ref: str) -> str:
    """The book shard of a slip: its ref's first character after ``br_``."""
    if not bettor_ref.startswith(REF_PREFIX) or bettor_ref[3:4] not in SHARD_CHARS:
        raise ValueError(f"not a bettor ref: {bettor_ref!r}")
    return bettor_ref[3]


@dataclass(frozen=True, slots=True)
class Spectator:
    """A spectator present at a table. ``epoch`` moves at every change (a first join: 1; a
    leave and a rejoin move it on, never back), so a slip confirmed on a read of it is refused
    once it left (even if it came back) or its balance or limits changed."""

    bettor_id: str
    bettor_ref: str
    balance: int
    joined_at: str
    personal_limits: Mapping[str, Any] | None = None
    epoch: int = 1


@dataclass(frozen=True, slots=True)
class Watcher:
    """A watcher present at a table (no bets)."""

    bettor_id: str
    joined_at: str


@dataclass(frozen=True, slots=True)
class Line:
    """One bet line of a slip."""

    type: str
    amount: int


@dataclass(frozen=True, slots=True)
class Slip:
    """A spectator's confirmed slip of a round (one per bettor: a new one replaces it).
    ``spec_epoch``: the spectator's epoch it was confirmed on."""

    bettor_id: str
    bettor_ref: str
    lines: tuple[Line, ...]
    placed_at: str
    spec_epoch: int

    @property
    def total(self) -> int:
        return sum(line.amount for line in self.lines)


@dataclass(frozen=True, slots=True)
class Window:
    """A round's betting window as its shards hold it (every shard alike: they move together).
    ``epoch``: the window's ``opened_at`` (a window reopened for the same round is another)."""

    round_id: str
    status: WindowStatus
    epoch: str
    closes_at: str
    shards: int = BOOK_SHARDS


@dataclass(frozen=True, slots=True)
class NamesPage:
    """Who is present: ``count`` in all, the first ``names`` (bettor-id order) after the
    cursor, and ``next`` (the last name, for the page after) or ``None`` at the end."""

    count: int
    names: tuple[str, ...]
    next: str | None


@dataclass(frozen=True, slots=True)
class SpectatorsPage:
    """:class:`NamesPage` with each spectator as stored."""

    count: int
    spectators: tuple[Spectator, ...]
    next: str | None


@dataclass(frozen=True, slots=True)
class BookCursor:
    """Where a page of the locked book ends: the shard index and the last ref read in it."""

    shard: int
    after: str = ""


@dataclass(frozen=True, slots=True)
class BookPage:
    """A page of the locked book (at most one shard's run of it), ``next`` or ``None``."""

    slips: tuple[Slip, ...]
    next: BookCursor | None = field(default=None)


class BookError(Exception):
    """A book write refused (nothing of it was written)."""


class WindowClosed(BookError):
    """The round's window is not open (locked, cancelled, another epoch, past ``closes_at``
    or never opened)."""


class PresenceMoved(BookError):
    """The spectator is not at the epoch the write was made on (it left, or changed)."""


class NotPresent(BookError):
    """No such spectator (or watcher) at the table."""


class WindowExists(BookError):
    """The round already has a window of another epoch."""


class BookStore(Protocol):
    """The book's storage (DynamoDB: :mod:`baccarat_api.adapters.dynamodb.book`; in memory:
    :mod:`baccarat_api.adapters.memory_book`)."""

    # presence ---------------------------------------------------------------------------------

    def join_spectator(self, operator_id: str, table_id: str, spectator: Spectator) -> bool:
        """Mark the spectator present and count it (epoch 1, or one past the epoch its leave
        left); ``False`` (nothing written) if it is already there: joining twice, even at
        once, is one item and one count."""

    def get_spectator(self, operator_id: str, table_id: str, bettor_id: str) -> Spectator | None:
        """The spectator as stored (strongly consistent), or ``None``."""

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
        """Set balance and limits if the spectator is still at ``epoch`` (its epoch + 1):
        the spectator after. ``NotPresent`` / ``PresenceMoved`` otherwise. ``drop_slip``: a
        round whose slip of the bettor the change refuses — marked cancelled in the same transaction
        while that window is open (a locked slip stays: it is dealt)."""

    def leave_spectator(
        self, operator_id: str, table_id: str, bettor_id: str, round_id: str | None = None
    ) -> bool:
        """Mark the spectator absent (its epoch one up) and uncount it, with its slip of
        ``round_id`` marked cancelled if that window is open (a locked slip stays: it is
        dealt). ``False`` if it was not there."""

    def spectators(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> NamesPage:
        """The count and the first ``limit`` present spectators' ids after ``after``."""

    def spectator_page(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> SpectatorsPage:
        """:meth:`spectators` with each spectator as stored."""

    def join_watcher(self, operator_id: str, table_id: str, watcher: Watcher) -> bool:
        """Add the watcher and count it; ``False`` if already there."""

    def get_watcher(self, operator_id: str, table_id: str, bettor_id: str) -> Watcher | None:
        """The watcher as stored (strongly consistent), or ``None`` (absent)."""

    def leave_watcher(self, operator_id: str, table_id: str, bettor_id: str) -> bool:
        """Mark the watcher absent and uncount it; ``False`` if it was not there."""

    def watchers(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> NamesPage:
        """The count and the first ``limit`` watchers' ids after ``after``."""

    # the window and its slips -----------------------------------------------------------------

    def open_window(self, operator_id: str, round_id: str, epoch: str, closes_at: str) -> Window:
        """Open the round's window (every shard, one transaction); the same epoch again is a
        no-op. ``WindowExists`` if the round has one of another epoch that is not cancelled;
        over a cancelled one it opens again at ``epoch`` (the slips stored under the cancelled
        window stay, but a window's slips are only those placed at or after its epoch)."""

    def cancel_window(self, operator_id: str, round_id: str, epoch: str) -> bool:
        """Mark every shard of the round's window of ``epoch`` cancelled (from open or locked;
        one transaction): no slip is confirmed or dealt in it any more. ``False`` (nothing
        written) if the round has no window of that epoch or it is cancelled already."""

    def window(self, operator_id: str, round_id: str) -> Window | None:
        """The round's window (strongly consistent), or ``None``."""

    def confirm_slip(
        self,
        operator_id: str,
        table_id: str,
        round_id: str,
        window_epoch: str,
        slip: Slip,
        now: str,
    ) -> None:
        """Store the slip (replacing the bettor's earlier one) in ONE transaction that checks
        its shard's window (open, ``window_epoch``, ``closes_at`` after ``now``) and the
        spectator (at ``slip.spec_epoch``). ``WindowClosed`` / ``PresenceMoved`` otherwise
        (the window checked first); nothing written."""

    def cancel_slip(
        self, operator_id: str, round_id: str, window_epoch: str, bettor_ref: str, now: str
    ) -> bool:
        """Mark the bettor's slip cancelled while its shard's window is open (``WindowClosed``
        otherwise); ``False`` if there was none (or it was cancelled already)."""

    def get_slip(self, operator_id: str, round_id: str, bettor_ref: str) -> Slip | None:
        """The bettor's slip of the round (strongly consistent), or ``None``."""

    def lock(
        self,
        operator_id: str,
        round_id: str,
        window_epoch: str,
        also: Sequence[Write] = (),
        what: str = "lock book",
    ) -> None:
        """Flip every shard ``open → locked`` (each conditional on ``window_epoch``) and apply
        ``also`` (the live item's move and its event: the repository's writes), ONE
        transaction. ``WindowClosed`` if a shard is not open at that epoch; a lost condition
        of ``also``: the repository's ``ConditionFailed``. Either way nothing is written."""

    def book_page(
        self, operator_id: str, round_id: str, cursor: BookCursor | None = None, limit: int = 1000
    ) -> BookPage:
        """A page of the round's slips in ``bettor_ref`` order (strongly consistent): at most
        ``limit`` slips of one shard, from ``cursor`` (``None``: the start)."""


def whole_book(store: BookStore, operator_id: str, round_id: str, limit: int = 1000) -> list[Slip]:
    """Every slip of the round's book in ``bettor_ref`` order, page by page."""
    slips: list[Slip] = []
    cursor: BookCursor | None = None
    while True:
        page = store.book_page(operator_id, round_id, cursor, limit)
        slips += page.slips
        if page.next is None:
            return slips
        cursor = page.next
