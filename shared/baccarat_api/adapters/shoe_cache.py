"""Derived shoes and tables' bettor-ref keys, cached per warm container.

Deriving a shoe needs ``s_i`` (one KMS ``Decrypt``) and a few milliseconds of hashing; every
later deal of the same shoe on the same container needs neither. The cache key is everything the
cards depend on and nothing that changes as the shoe is played (not the version or cursor): the
operator, the shoe id, the client seed, the rules and the secret's ciphertext. The cached secret
never leaves this module except to be revealed when the shoe ends.

A table's ``ref_key`` (the HMAC key of its bettor refs) is unsealed once per container and table
(one KMS ``Decrypt``, purpose ``bettor-ref``) and kept next to the shoes, keyed by the operator,
the table and the key's ciphertext."""

from __future__ import annotations

from baccarat.fairness import derive_shoe
from baccarat.rules import ShoeRules
from baccarat_api.lru import Lru
from baccarat_api.ports.records import ShoeRecord
from baccarat_api.ports.shoes import DerivedShoe
from baccarat_api.ports.vault import SecretVault, ref_key_context, shoe_context

CacheKey = tuple[str, str, str, bytes, bytes]


class ShoeCache:
    def __init__(self, vault: SecretVault, maxsize: int = 64) -> None:
        self.vault = vault
        self.maxsize = maxsize
        self._items: Lru[CacheKey, DerivedShoe] = Lru(maxsize)
        self._ref_keys: Lru[tuple[str, str, bytes], bytes] = Lru(maxsize)

    @property
    def misses(self) -> int:
        """Shoes derived (a KMS ``Decrypt`` each) since the container started."""
        return self._items.misses

    @staticmethod
    def key(shoe: ShoeRecord) -> CacheKey:
        rules = ShoeRules.from_dict(shoe.rules).to_bytes()
        return (shoe.operator_id, shoe.shoe_id, shoe.client_seed, rules, shoe.secret_ct)

    def get(self, shoe: ShoeRecord) -> DerivedShoe:
        def derive() -> DerivedShoe:
            context = shoe_context(shoe.operator_id, shoe.table_id, shoe.shoe_number)
            secret = self.vault.unseal(shoe.secret_ct, context)
            rules = ShoeRules.from_dict(shoe.rules)
            return DerivedShoe(
                derive_shoe(secret, shoe.client_seed, shoe.shoe_number, rules), secret
            )

        return self._items.get(self.key(shoe), derive)

    def ref_key(self, shoe: ShoeRecord) -> bytes:
        return self._ref_keys.get(
            (shoe.operator_id, shoe.table_id, shoe.ref_key_ct),
            lambda: self.vault.unseal(
                shoe.ref_key_ct, ref_key_context(shoe.operator_id, shoe.table_id)
            ),
        )

    def clear(self) -> None:
        self._items.clear()
        self._ref_keys.clear()
