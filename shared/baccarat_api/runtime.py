"""The per-container wiring: settings, AWS clients, repository, vault, caches.

Built lazily on first use and then reused for the life of the warm container. Tests and the
local runner call :func:`reset` after changing the environment."""

from __future__ import annotations

import threading
from functools import cached_property
from typing import TYPE_CHECKING, Any

from baccarat_api.http.ratelimit import RateLimiter
from baccarat_api.service.auth import KeyCache
from baccarat_api.settings import Settings

if TYPE_CHECKING:
    from baccarat_api.adapters.dynamodb.repository import DynamoRepository
    from baccarat_api.adapters.kms import KmsVault
    from baccarat_api.adapters.shoe_cache import ShoeCache


def _client_config() -> Any:
    from botocore.config import Config

    from baccarat_api.adapters.logguard import install

    install()  # no KMS plaintext in botocore's DEBUG wire log, whatever the log level
    return Config(
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=2,
        read_timeout=5,
        tcp_keepalive=True,
    )


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.key_cache = KeyCache(settings.auth_cache_seconds)
        self.limiter = RateLimiter(settings.rate_limit_per_second, settings.rate_limit_burst)

    @cached_property
    def dynamodb(self) -> Any:
        import boto3

        return boto3.client("dynamodb", config=_client_config())

    @cached_property
    def kms(self) -> Any:
        import boto3

        return boto3.client("kms", config=_client_config())

    @cached_property
    def repo(self) -> DynamoRepository:
        from baccarat_api.adapters.dynamodb.repository import DynamoRepository

        s = self.settings
        if not s.state_table or not s.config_table:
            raise RuntimeError("STATE_TABLE and CONFIG_TABLE must be set")
        return DynamoRepository(self.dynamodb, s.state_table, s.config_table)

    @cached_property
    def vault(self) -> KmsVault:
        from baccarat_api.adapters.kms import KmsVault

        if not self.settings.kms_key_id:
            raise RuntimeError("KMS_KEY_ID must be set for this route")
        return KmsVault(self.kms, self.settings.kms_key_id)

    @cached_property
    def shoes(self) -> ShoeCache:
        from baccarat_api.adapters.shoe_cache import ShoeCache

        return ShoeCache(self.vault)


_lock = threading.Lock()
_runtime: Runtime | None = None


def get_runtime() -> Runtime:
    global _runtime
    if _runtime is None:
        with _lock:
            if _runtime is None:
                _runtime = Runtime(Settings.from_env())
    return _runtime


def reset() -> None:
    """Forget clients and caches (tests, the local runner)."""
    global _runtime
    with _lock:
        _runtime = None
