"""Time as the service writes it: UTC, ISO 8601 with milliseconds and a ``Z`` (so the strings
sort as the times do). The service reads the time from its repository's :class:`Clock` (the
system clock, or a test's), never from here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """The time now, as :func:`now` writes it."""

    def __call__(self) -> str: ...


def now() -> str:
    """UTC, ISO 8601 with milliseconds and a ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: The clock of a deployed service.
system_clock: Clock = now


def at_ms(ms: int) -> str:
    """The moment ``ms`` (milliseconds since the epoch), as :func:`now` writes it."""
    at = datetime.fromtimestamp(ms // 1000, UTC) + timedelta(milliseconds=ms % 1000)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ms_of(iso: str) -> int:
    """The moment ``iso`` (as :func:`now` writes it), in milliseconds since the epoch."""
    at = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return int(at.timestamp()) * 1000 + at.microsecond // 1000


def seconds_after(iso: str, seconds: int) -> str:
    """``iso`` (as :func:`now` writes it) plus ``seconds``, in the same format."""
    at = datetime.fromisoformat(iso.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
