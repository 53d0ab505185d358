"""AWS SDK clients as every container builds them: standard retries (3 attempts), short timeouts,
keep-alive, and botocore's wire log guarded (:mod:`.logguard`)."""

from __future__ import annotations

from typing import Any


def client_config() -> Any:
    from botocore.config import Config

    from baccarat_api.adapters.logguard import install

    install()  # no KMS plaintext in botocore's DEBUG wire log, whatever the log level
    return Config(
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=2,
        read_timeout=5,
        tcp_keepalive=True,
    )


def client(service: str) -> Any:
    """``boto3.client(service)`` with :func:`client_config` (region, credentials and endpoint
    from the environment)."""
    import boto3

    return boto3.client(service, config=client_config())  # type: ignore[call-overload]
