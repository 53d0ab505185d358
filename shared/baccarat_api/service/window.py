"""The betting window's status at a moment (pure: the live state's ``betting`` and a time)."""

from __future__ import annotations

from typing import Any

OPEN, CLOSED, DEALT = "open", "closed", "dealt"


def window_status(betting: dict[str, Any] | None, at: str) -> str | None:
    """The window's status at ``at``: an ``open`` window past its ``closes_at`` is closed."""
    if betting is None:
        return None
    status = str(betting["status"])
    if status == OPEN and at >= str(betting["closes_at"]):
        return CLOSED
    return status
