"""A clock a test sets and moves, passed to the repository it builds (``repo.clock``)."""

from __future__ import annotations

import pytest

from baccarat_api import runtime
from baccarat_api.clock import at_ms, ms_of, system_clock


class ManualClock:
    """The system's time until :meth:`set`; from then on the time set, moved only by
    :meth:`set` and :meth:`advance` (as :func:`baccarat_api.clock.now` writes it)."""

    def __init__(self, at: str | None = None) -> None:
        self.at = at

    def __call__(self) -> str:
        return system_clock() if self.at is None else self.at

    def set(self, at: str) -> None:
        self.at = at

    def advance(self, seconds: float) -> str:
        """The time ``seconds`` later (from the time now, if none was set); returns it."""
        self.at = at_ms(ms_of(self()) + round(seconds * 1000))
        return self.at


def service_clock(monkeypatch: pytest.MonkeyPatch) -> ManualClock:
    """A :class:`ManualClock` as the clock of the warm container's repository (what the app's
    routes and the jobs' handlers read) for the rest of the test."""
    clock = ManualClock()
    monkeypatch.setattr(runtime.get_runtime().repo, "clock", clock)
    return clock
