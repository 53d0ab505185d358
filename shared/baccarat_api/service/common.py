"""Helpers shared by the use cases."""

from __future__ import annotations

import hashlib
from typing import Any

from baccarat.audit import canonical


def digest(value: Any) -> str:
    """SHA-256 (hex) of the value's canonical JSON (:func:`baccarat.audit.canonical`)."""
    return hashlib.sha256(canonical(value)).hexdigest()
