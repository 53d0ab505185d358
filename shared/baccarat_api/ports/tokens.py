"""The token store port (docs/design/browsers.md §1): the keys player and lobby tokens are MAC'd
with (sealed by the vault, in the config table, ``TOKENKEY#<kid>``) and each table's revocations
(ONE item in the table's partition, ``sk = TOKENS``: ``revoked {jti: exp}``, ``floor {bettor_id:
iat}``), read strongly consistent on every token request. Nothing here is ever deleted: a key
stops verifying by age, a revocation entry is pruned from the item when it can no longer matter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

#: The ``purpose`` of a sealed token key (template.yaml grants KMS use per purpose).
TOKEN_KEY_PURPOSE = "player-token"


def token_key_context(kid: str) -> dict[str, str]:
    """The encryption context a token key is sealed under."""
    return {"purpose": TOKEN_KEY_PURPOSE, "kid": kid}


@dataclass(frozen=True, slots=True)
class TokenKey:
    """A token key as stored: its id, its ciphertext, when it was made (Unix seconds)."""

    kid: str
    ciphertext: bytes
    created_at: int


@dataclass(frozen=True, slots=True)
class Revocations:
    """A table's ``TOKENS`` item: revoked token ids (→ their latest possible expiry) and, per
    person, the ``iat`` at or before which every token of theirs is revoked. ``version`` moves at
    each write (the write is conditional on it: concurrent revocations never lose one)."""

    revoked: dict[str, int] = field(default_factory=dict)
    floor: dict[str, int] = field(default_factory=dict)
    version: int = 0


class RevocationsMoved(Exception):
    """A revocation write lost to a concurrent one (the item's ``version`` moved): read again."""


class TokenStore(Protocol):
    def token_keys(self) -> list[TokenKey]:
        """Every token key ever made (a handful: one per rotation)."""

    def add_token_key(self, key: TokenKey) -> bool:
        """Store a new key; ``False`` when its ``kid`` exists already (nothing written)."""

    def revocations(self, operator_id: str, table_id: str) -> Revocations:
        """The table's revocations (empty when none), ONE strongly consistent read."""

    def put_revocations(self, operator_id: str, table_id: str, revocations: Revocations) -> None:
        """Write the item at ``revocations.version`` if the stored one is still at
        ``version - 1`` (absent = 0), else :class:`RevocationsMoved`."""
