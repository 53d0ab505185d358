"""The :class:`~baccarat_api.ports.chunks.ChunkStore` in dicts (tests, the in-memory API)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from baccarat_api.ports.chunks import Leaf

__all__ = ["MemoryChunkStore"]


class MemoryChunkStore:
    """The settlement's storage in dicts, under one lock."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.leaves_: dict[tuple[str, str], tuple[Leaf, ...]] = {}

    def put_leaves(self, operator_id: str, round_id: str, leaves: Sequence[Leaf]) -> None:
        with self._lock:
            self.leaves_[operator_id, round_id] = tuple(leaves)

    def leaves(self, operator_id: str, round_id: str) -> list[Leaf]:
        with self._lock:
            return list(self.leaves_.get((operator_id, round_id), ()))
