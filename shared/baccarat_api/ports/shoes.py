"""The shoe source port: a shoe record's derived cards and its secret (``s_i``), which needs
the vault (one KMS ``Decrypt``) unless the adapter has it already
(:class:`baccarat_api.adapters.shoe_cache.ShoeCache`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from baccarat.fairness import Shoe
from baccarat_api.ports.records import ShoeRecord


@dataclass(frozen=True, slots=True)
class DerivedShoe:
    shoe: Shoe
    secret: bytes

    def __repr__(self) -> str:  # never print the secret
        return f"DerivedShoe(rounds={len(self.shoe.rounds)}, secret=<hidden>)"


class ShoeSource(Protocol):
    def get(self, shoe: ShoeRecord) -> DerivedShoe: ...
