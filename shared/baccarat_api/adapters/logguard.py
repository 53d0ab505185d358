"""Keeps secrets out of third-party logs.

botocore's wire log — the loggers ``botocore.endpoint`` and ``botocore.parsers`` at DEBUG —
prints whole request and response bodies, and those of KMS carry secrets in base64: the chain
secret of ``GenerateDataKey``, the shoe secret of ``Encrypt`` and ``Decrypt``. Whatever level
anyone sets (``boto3.set_stream_logger``, a root logger at DEBUG), :func:`install` drops those
DEBUG records at their source. The service's own logger never carries a secret
(tests/integration/test_secrets_lifecycle.py captures every log line of a whole shoe's life)."""

from __future__ import annotations

import logging

WIRE_LOGGERS = ("botocore.endpoint", "botocore.parsers")


class _DropWireBodies(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.DEBUG


def install() -> None:
    """Idempotent: one filter per wire logger."""
    for name in WIRE_LOGGERS:
        target = logging.getLogger(name)
        if not any(isinstance(f, _DropWireBodies) for f in target.filters):
            target.addFilter(_DropWireBodies())
