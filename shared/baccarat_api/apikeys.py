"""Operator API keys: made from the OS CSPRNG (256 bits), shown once, stored only as their
SHA-256 (the authorizer's check is :func:`baccarat_api.service.auth.authenticate_key`; the admin
store is :mod:`baccarat_api.adapters.dynamodb.operators`)."""

from __future__ import annotations

import hashlib
import secrets

KEY_PREFIX = "bk_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A fresh operator key; show it once, store its hash."""
    return KEY_PREFIX + secrets.token_urlsafe(32)
