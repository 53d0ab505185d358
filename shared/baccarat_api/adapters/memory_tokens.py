"""The in-memory :class:`~baccarat_api.ports.tokens.TokenStore`: the same answers and refusals
as the DynamoDB one (:mod:`baccarat_api.adapters.dynamodb.tokens`)."""

from __future__ import annotations

import threading
from collections import Counter

from baccarat_api.ports.tokens import Revocations, RevocationsMoved, TokenKey


class MemoryTokenStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.keys: dict[str, TokenKey] = {}
        self.items: dict[tuple[str, str], Revocations] = {}
        #: round trips by kind, as the DynamoDB store makes them
        self.calls: Counter[str] = Counter()

    def token_keys(self) -> list[TokenKey]:
        self.calls["query"] += 1
        with self._lock:
            return list(self.keys.values())

    def add_token_key(self, key: TokenKey) -> bool:
        self.calls["write"] += 1
        with self._lock:
            if key.kid in self.keys:
                return False
            self.keys[key.kid] = key
            return True

    def revocations(self, operator_id: str, table_id: str) -> Revocations:
        self.calls["get"] += 1
        with self._lock:
            return self.items.get((operator_id, table_id)) or Revocations()

    def put_revocations(self, operator_id: str, table_id: str, revocations: Revocations) -> None:
        self.calls["write"] += 1
        with self._lock:
            stored = self.items.get((operator_id, table_id))
            if (0 if stored is None else stored.version) != revocations.version - 1:
                raise RevocationsMoved(table_id)
            self.items[(operator_id, table_id)] = Revocations(
                dict(revocations.revoked), dict(revocations.floor), revocations.version
            )
