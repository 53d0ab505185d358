"""Where a locked book's settlement is kept, apart from the round item: the book's leaves (each
bettor ref with its leaf hash, in book order — written at the deal, so a settlement chunk can
compute any inclusion path without re-reading the slips), and, per chunk of
:data:`~baccarat_api.limits.CHUNK_SLIPS` consecutive leaves, the receipts, the operator's
settlement page and the public book page, with the round's settlement progress.

Every write here is deterministic (the same inputs write the same bytes), so a chunk retried
after a crash or redelivered writes exactly what it wrote before."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Leaf:
    """One leaf of a locked book: the bettor's ref and ``SHA-256(0x00 ‖ leaf bytes)``."""

    bettor_ref: str
    hash: bytes


class ChunkStore(Protocol):
    """The settlement's storage (DynamoDB: :mod:`baccarat_api.adapters.dynamodb.chunks`; in
    memory: :mod:`baccarat_api.adapters.memory_chunks`)."""

    def put_leaves(self, operator_id: str, round_id: str, leaves: Sequence[Leaf]) -> None:
        """Store the round's leaves in book order (idempotent: the same leaves again write the
        same items)."""

    def leaves(self, operator_id: str, round_id: str) -> list[Leaf]:
        """The round's leaves in book order (``[]`` if none were stored)."""
