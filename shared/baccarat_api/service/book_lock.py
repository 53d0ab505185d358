"""A book table's window locked and its book sealed at the deal.

**The lock** is ONE transaction: every book shard ``open → locked`` at the window's epoch, the
live window ``locked`` and its ``betting_closed`` event (conditional on ``seq``). Every
spectator's confirm checks its shard's window in its own transaction, so a confirm that
returned is in the locked book and one after the lock wrote nothing. The live window stays
``locked`` until the deal: a deal that crashed after the lock is finished from the same book by
whoever deals the window next (the table clock's ``close`` step, the sweep, the operator).

**The seal**: the locked book read strongly consistent in the book's order (``bettor_ref``
ascending), each slip a leaf (:func:`baccarat.booktree.leaf_bytes`, role ``spectator``), the
Merkle root over them (the empty book's is the empty tree's), and each slip's money settled
alone on the dealt cards (:func:`baccarat.bookmoney.slip_settlement`), added up once into the
book's totals — the round's :class:`~baccarat_api.ports.documents.BookDoc`.

**At a bacc-pf-v2 table** the same lock comes first, at the round's lock (:mod:`.locking`), whose
``book_root`` covers the book's root (:func:`spectators_root`); the seal waits for the drawn
cards (:mod:`.drawing`), from the same locked book — or returns every stake
(:func:`seal` without a round) when the beacon never came."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from baccarat import booktree
from baccarat.bookmoney import BookTotals, slip_settlement
from baccarat.outcome import Round
from baccarat.profiles import TableConfig
from baccarat.settlement import Settlement
from baccarat_api import limits
from baccarat_api.ports.book import BOOK_SHARDS, Line, Slip, WindowClosed, whole_book
from baccarat_api.ports.chunks import Leaf
from baccarat_api.ports.documents import BettingWindow, BookDoc, BookTotalsDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.service.book_slips import book_round_id, in_window, is_book_window, open_book
from baccarat_api.service.events import LiveMoved, complete, emit
from baccarat_api.service.window import LOCKED


def lock_book(repo: Repository, live: LiveRecord, at: str) -> None:
    """Lock the live window's book with the live window (one transaction); then the caller
    reads the table again (:class:`~.events.LiveMoved` when it moved: decided again)."""
    betting = live.betting
    assert betting is not None
    closed = {"shoe_id": betting["shoe_id"], "round_number": betting["round_number"]}
    ev = emit(
        live, live.operator_id, live.table_id, at, [("betting_closed", closed)],
        betting={**betting, "status": LOCKED},
    )  # fmt: skip
    ev = complete(repo, ev)
    round_id, epoch = book_round_id(betting), betting["opened_at"]
    try:
        repo.book.lock(live.operator_id, round_id, epoch, also=ev.writes(), what="lock book")
    except ConditionFailed:
        raise LiveMoved from None
    except WindowClosed:
        found = repo.book.window(live.operator_id, round_id)
        if found is None or found.epoch != epoch:
            open_book(repo, live.operator_id, betting)  # the opener's write of it was lost
        raise LiveMoved from None


def locked_slips(repo: Repository, operator_id: str, betting: BettingWindow) -> list[Slip]:
    """The window's locked book: its slips in book order (strongly consistent)."""
    return [
        s for s in window_slips(repo, operator_id, book_round_id(betting)) if in_window(s, betting)
    ]


def window_slips(repo: Repository, operator_id: str, round_id: str, epoch: str = "") -> list[Slip]:
    """The book of round ``round_id`` placed at or after ``epoch`` (its window's: a v2 draw
    reads the book its lock sealed by the epoch the lock kept), in book order."""
    return [s for s in whole_book(repo.book, operator_id, round_id) if s.placed_at >= epoch]


def _lines(slip: Slip) -> list[dict[str, Any]]:
    return [{"type": line.type, "amount": line.amount} for line in slip.lines]


def _leaves(round_id: str, slips: Sequence[Slip]) -> tuple[list[Slip], list[bytes]]:
    """The slips in book order and their leaves' bytes."""
    ordered = booktree.in_book_order(slips, lambda s: s.bettor_ref)
    data = [
        booktree.leaf_bytes(round_id, s.bettor_ref, booktree.SPECTATOR, _lines(s)) for s in ordered
    ]
    return ordered, data


def spectators_root(round_id: str, slips: Sequence[Slip]) -> bytes:
    """The Merkle root of a locked book (the empty tree's for an empty one)."""
    return booktree.root(_leaves(round_id, slips)[1])


@dataclass(frozen=True, slots=True)
class Sealed:
    """A locked book as its round stores it (``doc``) and its leaves (stored before the deal's
    write: deterministic bytes, harmless if the deal is retried)."""

    doc: BookDoc
    leaves: list[Leaf]


def seal(
    config: TableConfig, rnd: Round | None, round_id: str, slips: Sequence[Slip],
    shards: int = BOOK_SHARDS,
) -> Sealed:  # fmt: skip
    """The book's leaves, root and totals on the dealt round ``rnd`` (``None``: a round voided
    before any card existed — every stake returned)."""
    ordered, data = _leaves(round_id, slips)
    totals = BookTotals()
    settled: dict[tuple[Line, ...], Settlement] = {}  # a slip's money is its lines' alone
    for slip in ordered:
        if rnd is None:
            totals.refund(_lines(slip))
            continue
        if slip.lines not in settled:
            settled[slip.lines] = slip_settlement(config, rnd, _lines(slip))
        totals.add(settled[slip.lines])
    count = len(ordered)
    doc: BookDoc = {
        "root": booktree.root(data).hex(),
        "count": count,
        "chunks": -(-count // limits.CHUNK_SLIPS),
        "shards": shards,
        "totals": cast(BookTotalsDoc, totals.as_dict()),
    }
    leaves = [Leaf(s.bettor_ref, booktree.leaf_hash(b)) for s, b in zip(ordered, data, strict=True)]
    return Sealed(doc, leaves)


def locked_book(
    repo: Repository, from_book: bool, table: LiveRecord, at: str
) -> tuple[BettingWindow, list[Slip]] | None:
    """A from-book deal (or v2 lock) of a book table's window: the window and its locked book
    (if it is not locked yet: the lock, then :class:`~.events.LiveMoved` — the caller reads
    the table again). ``None`` for any other deal."""
    betting = table.betting
    if not from_book or betting is None or not is_book_window(betting):
        return None
    if betting["status"] != LOCKED:
        lock_book(repo, table, at)
        raise LiveMoved
    return betting, locked_slips(repo, table.operator_id, betting)


def sealed_book(
    repo: Repository, from_book: bool, table: LiveRecord, config: TableConfig, rnd: Round,
    at: str,
) -> Sealed | None:  # fmt: skip
    """A from-book deal of a book table's window: its locked book (:func:`locked_book`) sealed
    on the round's cards. ``None`` for any other deal."""
    got = locked_book(repo, from_book, table, at)
    if got is None:
        return None
    betting, slips = got
    return seal(config, rnd, book_round_id(betting), slips, int(betting["book_shards"]))
