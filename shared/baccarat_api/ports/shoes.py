"""The shoe source port: a shoe record's derived cards and its secret (``s_i``), and its table's
bettor-ref key (copied onto the shoe at commit), each needing the vault (one KMS ``Decrypt``)
unless the adapter has it already (:class:`baccarat_api.adapters.shoe_cache.ShoeCache`)."""

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

    def ref_key(self, shoe: ShoeRecord) -> bytes:
        """The ``ref_key`` of the shoe's table (32 bytes; from ``shoe.ref_key_ct``)."""
