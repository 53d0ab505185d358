"""The betting window and the book (issue 13): the table's next round takes confirmed slips
(確認押注 / 取消押注) until ``closes_at``; a deal ``from_book`` locks exactly the book's bets.

Both live on the table's live-state item (:class:`~baccarat_api.ports.records.LiveRecord`):
``betting`` (the window: shoe, round number, ``opened_at``, ``closes_at``, status) and ``book``
(bettor id → slip). Every change is conditional on the live state's ``seq`` and reported by its
event in the same transaction (:mod:`.events`): ``betting_opened``, ``bet_placed``,
``bet_cancelled``, ``betting_closed``.

:func:`book_view` renders the book per seat and per spectator (what each seat shows on the table,
對應押注區): a pure function of the live state, used by ``GET …/state`` and the book routes."""

from __future__ import annotations

from typing import Any

from baccarat_api.clock import now as clock_now
from baccarat_api.ports.records import LiveRecord
from baccarat_api.service.models import BettingWindowOut, BookOut, SlipOut

OPEN, CLOSED, DEALT = "open", "closed", "dealt"


def window_status(betting: dict[str, Any] | None, at: str) -> str | None:
    """The window's status at ``at``: an ``open`` window past its ``closes_at`` is closed."""
    if betting is None:
        return None
    status = str(betting["status"])
    if status == OPEN and at >= str(betting["closes_at"]):
        return CLOSED
    return status


def _slip(bettor_id: str, slip: dict[str, Any]) -> SlipOut:
    return SlipOut(
        bettor_id=bettor_id,
        role=slip["role"],
        seat=slip.get("seat"),
        bets=slip["bets"],
        total=sum(int(b["amount"]) for b in slip["bets"]),
        placed_at=slip["placed_at"],
        order=slip["order"],
    )


def book_view(live: LiveRecord | None, at: str | None = None) -> BookOut:
    """The book of ``live``'s betting window as the table shows it: the window (its status as
    of ``at``, default now), each seat's slip by seat number, each spectator's slip by id, in
    accepted order. A table that never opened betting shows no window and an empty book."""
    table_id = "" if live is None else live.table_id
    if live is None or live.betting is None:
        return BookOut(table_id=table_id, betting=None, seats={}, spectators={}, total=0)
    status = window_status(live.betting, at or clock_now())
    window = BettingWindowOut.model_validate({**live.betting, "status": status})
    slips = sorted(live.book.items(), key=lambda kv: int(kv[1]["order"]))
    seats = {int(s["seat"]): _slip(b, s) for b, s in slips if s.get("seat") is not None}
    spectators = {b: _slip(b, s) for b, s in slips if s.get("seat") is None}
    total = sum(s.total for s in [*seats.values(), *spectators.values()])
    return BookOut(
        table_id=table_id, betting=window, seats=seats, spectators=spectators, total=total
    )
