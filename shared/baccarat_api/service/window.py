"""The betting window's status at a moment (pure: the live state's ``betting`` and a time)."""

from __future__ import annotations

from baccarat_api.ports.documents import BettingWindow
from baccarat_api.ports.live_records import LiveRecord
from baccarat_api.service.errors import DomainError

#: ``locked``: a book table's window whose book is locked (no slip lands any more), not yet
#: dealt — stored by the lock, so a deal that crashed after it is finished from the same book.
OPEN, CLOSED, LOCKED, DEALT = "open", "closed", "locked", "dealt"
#: The statuses of a window that waits to be dealt.
WAITING = (OPEN, CLOSED, LOCKED)


def window_status(betting: BettingWindow | None, at: str) -> str | None:
    """The window's status at ``at``: an ``open`` window past its ``closes_at`` is closed."""
    if betting is None:
        return None
    status = betting["status"]
    if status == OPEN and at >= betting["closes_at"]:
        return CLOSED
    return status


def window_open(live: LiveRecord, at: str) -> BettingWindow:
    """The live state's open window (409 ``betting_closed`` after ``closes_at``, once locked
    or dealt, when none is open, or when its shoe is no longer the table's open shoe)."""
    betting = live.betting
    status = window_status(betting, at)
    if betting is None or status != OPEN or betting["shoe_id"] != live.open_shoe_id:
        raise DomainError(
            "betting_closed",
            "no betting window is open at this table",
            details={"status": status},
        )
    return betting
