"""The one check that turns an operator key into an operator id (:func:`authenticate_key`), with
a per-container cache (keys themselves: :mod:`baccarat_api.apikeys`).

Keys are stored only as their SHA-256 (config table, ``KEY#<hash>``) mapping to an operator id
(:mod:`baccarat_api.adapters.dynamodb.operators` makes them). In AWS the HttpApi Lambda
authorizer (:mod:`baccarat_api.http.authorizer`) runs the check and hands the operator id to the
functions; locally the FastAPI dependency runs it (:mod:`baccarat_api.http.auth` reads the
header). A warm container remembers a key it has looked up for ``AUTH_CACHE_SECONDS`` (default
60 s; 0 disables), so a warm request costs no DynamoDB round trip for auth; a revoked key stops
working within that time (in AWS: API Gateway's authorizer cache, 60 s; the authorizer itself
caches nothing)."""

from __future__ import annotations

import threading
import time

from baccarat_api.apikeys import hash_key
from baccarat_api.ports.repository import Repository
from baccarat_api.service.errors import DomainError


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


def authenticate_key(key: str, repo: Repository, cache: KeyCache | None) -> str:
    """The operator id of ``key``, or :class:`DomainError` ``unauthorized`` (never says why a
    key failed: unknown and revoked look the same)."""
    key_hash = hash_key(key)
    if cache is not None:
        hit = cache.get(key_hash)
        if hit is not None:
            return hit
    operator_id = repo.operator_for_key(key_hash)
    if operator_id is None:
        raise DomainError("unauthorized", "unknown or revoked operator key")
    if cache is not None:
        cache.put(key_hash, operator_id)
    return operator_id
