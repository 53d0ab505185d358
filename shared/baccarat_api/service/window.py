"""The betting window's status at a moment (pure: the live state's ``betting`` and a time)."""

from __future__ import annotations

from baccarat_api.ports.documents import BettingWindow

OPEN, CLOSED, DEALT = "open", "closed", "dealt"


def window_status(betting: BettingWindow | None, at: str) -> str | None:
    """The window's status at ``at``: an ``open`` window past its ``closes_at`` is closed."""
    if betting is None:
        return None
    status = betting["status"]
    if status == OPEN and at >= betting["closes_at"]:
        return CLOSED
    return status
