"""A per-operator token bucket: ``burst`` requests at once, then ``rate`` per second.

Over the limit a request is answered 429 ``rate_limited`` (retryable) in the one error envelope,
with ``Retry-After`` (whole seconds until a token is back). API Gateway's own throttling (429,
its own body, which HTTP APIs cannot customise) bounds the whole stage; this bounds one operator
per warm container (per process locally), so one tenant cannot starve the others of it."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from baccarat_api.http.errors import HttpError


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

    def check(self, operator_id: str) -> None:
        """:class:`HttpError` 429 ``rate_limited`` (with ``Retry-After``) when over the limit."""
        wait = self.wait_seconds(operator_id)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise HttpError(
                "rate_limited",
                f"too many requests for this operator; retry in {seconds} s",
                details={
                    "retry_after_seconds": seconds,
                    "rate_per_second": self.rate,
                    "burst": self.burst,
                },
                headers={"Retry-After": str(seconds)},
            )
