"""Configuration from the environment (set by template.yaml in AWS, by the local runner)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from baccarat_api.limits import RATE_LIMIT_BURST, RATE_LIMIT_PER_SECOND


@dataclass(frozen=True, slots=True)
class Settings:
    """``STATE_TABLE``, ``CONFIG_TABLE``: the two DynamoDB tables of template.yaml.
    ``KMS_KEY_ID``: the key chain and shoe secrets are encrypted under (only the functions that
    handle secrets have it). ``AUTH_CACHE_SECONDS``: how long a warm container trusts a key it has
    looked up (0 = look it up on every request). ``API_BASE_PATH``: a path prefix to strip
    (a named API Gateway stage; the template uses ``$default``, so ``/``).
    ``RATE_LIMIT_PER_SECOND``, ``RATE_LIMIT_BURST``: the per-operator token bucket
    (:mod:`baccarat_api.http.ratelimit`; defaults in :mod:`baccarat_api.limits`; rate 0 = off)."""

    state_table: str
    config_table: str
    kms_key_id: str | None = None
    auth_cache_seconds: float = 60.0
    api_base_path: str = "/"
    rate_limit_per_second: float = RATE_LIMIT_PER_SECOND
    rate_limit_burst: int = RATE_LIMIT_BURST

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            state_table=os.environ.get("STATE_TABLE", ""),
            config_table=os.environ.get("CONFIG_TABLE", ""),
            kms_key_id=os.environ.get("KMS_KEY_ID") or None,
            auth_cache_seconds=float(os.environ.get("AUTH_CACHE_SECONDS", "60")),
            api_base_path=os.environ.get("API_BASE_PATH", "/"),
            rate_limit_per_second=float(
                os.environ.get("RATE_LIMIT_PER_SECOND", str(RATE_LIMIT_PER_SECOND))
            ),
            rate_limit_burst=int(os.environ.get("RATE_LIMIT_BURST", str(RATE_LIMIT_BURST))),
        )
