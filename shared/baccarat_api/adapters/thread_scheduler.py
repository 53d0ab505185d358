"""The table clock's timers under ``make run``: a heap of ticks and one daemon thread that
hands each to ``deliver`` at its due time (wall clock) — the same job code the SQS function
runs (:func:`baccarat_api.jobs.table_clock.deliver`). Ticks are kept in memory only: those
lost with the process are scheduled again from the tables at the next start
(:func:`baccarat_api.jobs.table_clock.schedule_stored`), and the sweep delivers any still
overdue. A tick scheduled twice is delivered twice, which the job makes harmless."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from datetime import datetime

from baccarat_api.ports.scheduler import Tick


def _epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


#: The longest single wait of the thread (then it looks at its heap again).
_LONGEST_WAIT_SECONDS = 3600.0


class ThreadScheduler:
    """:class:`~baccarat_api.ports.scheduler.Scheduler` on a thread: ``deliver(tick)`` is
    called at ``tick["due"]`` (at once if past), one tick at a time, in due order. A failing
    ``deliver`` is logged; the thread goes on. :meth:`stop` ends the thread (ticks still
    waiting are dropped)."""

    def __init__(
        self,
        deliver: Callable[[Tick], object],
        *,
        now: Callable[[], float] | None = None,
        name: str = "table-clock",
    ) -> None:
        import time

        self._deliver = deliver
        self._now = now or time.time
        self._heap: list[tuple[float, int, Tick]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def schedule(self, tick: Tick) -> None:
        with self._cond:
            heapq.heappush(self._heap, (_epoch(tick["due"]), next(self._order), tick))
            self._cond.notify()

    def pending(self) -> int:
        """How many ticks wait to be delivered."""
        with self._cond:
            return len(self._heap)

    def stop(self, timeout: float | None = 5.0) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _next(self) -> Tick | None:
        """The next due tick, waiting for it; ``None`` once stopped."""
        with self._cond:
            while not self._stopped:
                if not self._heap:
                    self._cond.wait()
                    continue
                wait = self._heap[0][0] - self._now()
                if wait <= 0:
                    return heapq.heappop(self._heap)[2]
                # waited in pieces: a tick due in a distant year would overflow the lock's
                # timeout (OverflowError: timestamp out of range)
                self._cond.wait(min(wait, _LONGEST_WAIT_SECONDS))
            return None

    def _run(self) -> None:
        while (tick := self._next()) is not None:
            try:
                self._deliver(tick)
            except Exception:  # one table's failure must not stop every other table's clock
                from baccarat_api.observability import logger

                logger.exception("table clock: delivery failed", extra=dict(tick))
