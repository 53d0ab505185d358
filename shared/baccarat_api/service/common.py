"""Helpers shared by the use cases: time and digests."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

from baccarat.audit import canonical


def now() -> str:
    """UTC, ISO 8601 with milliseconds and a ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def digest(value: Any) -> str:
    """SHA-256 (hex) of the value's canonical JSON (:func:`baccarat.audit.canonical`)."""
    return hashlib.sha256(canonical(value)).hexdigest()


def seconds_after(iso: str, seconds: int) -> str:
    """``iso`` (as :func:`now` writes it) plus ``seconds``, in the same format (so the strings
    sort as the times do)."""
    at = datetime.fromisoformat(iso.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
