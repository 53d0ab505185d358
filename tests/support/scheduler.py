"""A scheduler a test reads: it records every tick the repository schedules; the test delivers
them (``table_clock.run_tick``) when it has moved its clock to their due time."""

from __future__ import annotations

from baccarat_api.ports.scheduler import Tick


class ManualScheduler:
    """The ticks scheduled so far, in order (:attr:`ticks`); :meth:`take` the earliest due."""

    def __init__(self) -> None:
        self.ticks: list[Tick] = []

    def schedule(self, tick: Tick) -> None:
        self.ticks.append(tick)

    def take(self) -> Tick | None:
        """The scheduled tick due first (the earliest scheduled of equal ones), removed."""
        if not self.ticks:
            return None
        first = min(range(len(self.ticks)), key=lambda i: (self.ticks[i]["due"], i))
        return self.ticks.pop(first)
