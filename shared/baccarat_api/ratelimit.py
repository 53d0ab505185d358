"""A per-operator token bucket: ``burst`` requests at once, then ``rate`` per second, per warm
container (per process locally), so one tenant cannot starve the others."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # operator → (tokens, as of)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def wait_seconds(self, operator_id: str) -> float:
        """Take a token for ``operator_id``: 0.0 if there was one, else the seconds until the
        next one (nothing taken)."""
        if not self.enabled:
            return 0.0
        now = self.clock()
        with self._lock:
            tokens, since = self._buckets.get(operator_id, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - since) * self.rate)
            if tokens >= 1.0:
                if len(self._buckets) > 10_000:  # operator ids come from valid keys only
                    self._buckets.clear()
                self._buckets[operator_id] = (tokens - 1.0, now)
                return 0.0
            self._buckets[operator_id] = (tokens, now)
            return (1.0 - tokens) / self.rate
