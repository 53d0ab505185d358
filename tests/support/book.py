"""Bettor refs for the book store's tests: a ``br_`` + 24 base32 characters derived from the
bettor id (the shape of :func:`baccarat.proofdoc.bettor_ref`'s refs, without a table key)."""

from __future__ import annotations

import base64
import hashlib


def ref(bettor_id: str) -> str:
    digest = hashlib.sha256(bettor_id.encode()).digest()
    return "br_" + base64.b32encode(digest).decode().lower()[:24]
