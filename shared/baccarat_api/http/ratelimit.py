"""Over an operator's rate limit (:class:`baccarat_api.ratelimit.RateLimiter`), a request is
answered 429 ``rate_limited`` (retryable) in the one error envelope, with ``Retry-After`` (whole
seconds until a token is back). API Gateway's own throttling (429, its own body, which HTTP APIs
cannot customise) bounds the whole stage; this bounds one operator."""

from __future__ import annotations

import math

from baccarat_api.http.errors import HttpError
from baccarat_api.ratelimit import RateLimiter


def check(limiter: RateLimiter, operator_id: str) -> None:
    """:class:`HttpError` 429 ``rate_limited`` (with ``Retry-After``) when over the limit."""
    wait = limiter.wait_seconds(operator_id)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HttpError(
            "rate_limited",
            f"too many requests for this operator; retry in {seconds} s",
            details={
                "retry_after_seconds": seconds,
                "rate_per_second": limiter.rate,
                "burst": limiter.burst,
            },
            headers={"Retry-After": str(seconds)},
        )
