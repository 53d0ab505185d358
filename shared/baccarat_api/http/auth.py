"""Operator authentication: ``Authorization: Bearer <operator key>``.

Keys are stored only as their SHA-256 (config table, ``KEY#<hash>``) mapping to an operator id
(:mod:`baccarat_api.adapters.dynamodb.operators` makes them). :func:`authenticate` is the one check:
in AWS the HttpApi Lambda authorizer (:mod:`baccarat_api.http.authorizer`) runs it and hands the
operator id to the functions (:func:`authorizer_operator`); locally the FastAPI dependency runs it.
A warm container remembers a key it has looked up for ``AUTH_CACHE_SECONDS`` (default 60 s; 0
disables), so a warm request costs no DynamoDB round trip for auth; a revoked key stops working
within that time (in AWS: API Gateway's authorizer cache, 60 s; the authorizer itself caches
nothing)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from typing import Any

from baccarat_api.ports.repository import Repository
from baccarat_api.service.errors import ApiError

KEY_PREFIX = "bk_"
_MAX_KEY_LENGTH = 256


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A fresh operator key (256 bits from the OS CSPRNG); show it once, store its hash."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def bearer_token(authorization: str | None) -> str:
    """The key of an ``Authorization: Bearer <key>`` header, or 401."""
    if not authorization:
        raise ApiError("unauthorized", "an operator key is required: Authorization: Bearer <key>")
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if (
        not hmac.compare_digest(scheme.lower(), "bearer")
        or not token
        or len(token) > _MAX_KEY_LENGTH
        or not token.isascii()
        or not token.isprintable()
        or " " in token
    ):
        raise ApiError("unauthorized", "the Authorization header must be 'Bearer <key>'")
    return token


class KeyCache:
    """key hash → (operator id, expiry), per warm container."""

    def __init__(self, ttl_seconds: float) -> None:
        self.ttl = ttl_seconds
        self._items: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def get(self, key_hash: str) -> str | None:
        if self.ttl <= 0:
            return None
        with self._lock:
            hit = self._items.get(key_hash)
            if hit is None:
                return None
            if hit[1] < time.monotonic():
                del self._items[key_hash]
                return None
            return hit[0]

    def put(self, key_hash: str, operator_id: str) -> None:
        if self.ttl <= 0:
            return
        with self._lock:
            if len(self._items) > 10_000:
                self._items.clear()
            self._items[key_hash] = (operator_id, time.monotonic() + self.ttl)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def authorizer_operator(event: Any) -> str | None:
    """The operator id the HttpApi Lambda authorizer put in the event
    (``requestContext.authorizer.lambda.operator_id``), or ``None`` when the request did not
    come through it. Only API Gateway (and whoever may invoke the function directly) can set
    it: a client's headers or body cannot."""
    if not isinstance(event, dict):
        return None
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    operator_id = (authorizer.get("lambda") or {}).get("operator_id")
    return operator_id if isinstance(operator_id, str) and operator_id else None


def authenticate(authorization: str | None, repo: Repository, cache: KeyCache | None) -> str:
    """The operator id of the request's key, or :class:`ApiError` 401 (never says why a key
    failed: unknown and revoked look the same)."""
    key_hash = hash_key(bearer_token(authorization))
    if cache is not None:
        hit = cache.get(key_hash)
        if hit is not None:
            return hit
    operator_id = repo.operator_for_key(key_hash)
    if operator_id is None:
        raise ApiError("unauthorized", "unknown or revoked operator key")
    if cache is not None:
        cache.put(key_hash, operator_id)
    return operator_id
