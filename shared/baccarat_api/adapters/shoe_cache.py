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

import threading
from collections import OrderedDict

from baccarat.fairness import derive_shoe
from baccarat.rules import ShoeRules
from baccarat_api.ports.records import ShoeRecord
from baccarat_api.ports.shoes import DerivedShoe
from baccarat_api.ports.vault import SecretVault, ref_key_context, shoe_context

CacheKey = tuple[str, str, str, bytes, bytes]


class ShoeCache:
    def __init__(self, vault: SecretVault, maxsize: int = 64) -> None:
        self.vault = vault
        self.maxsize = maxsize
        self._items: OrderedDict[CacheKey, DerivedShoe] = OrderedDict()
        self._ref_keys: OrderedDict[tuple[str, str, bytes], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.misses = 0

    @staticmethod
    def key(shoe: ShoeRecord) -> CacheKey:
        rules = ShoeRules.from_dict(shoe.rules).to_bytes()
        return (shoe.operator_id, shoe.shoe_id, shoe.client_seed, rules, shoe.secret_ct)

    def get(self, shoe: ShoeRecord) -> DerivedShoe:
        key = self.key(shoe)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        secret = self.vault.unseal(
            shoe.secret_ct, shoe_context(shoe.operator_id, shoe.table_id, shoe.shoe_number)
        )
        derived = DerivedShoe(
            derive_shoe(
                secret, shoe.client_seed, shoe.shoe_number, ShoeRules.from_dict(shoe.rules)
            ),
            secret,
        )
        with self._lock:
            self.misses += 1
            self._items[key] = derived
            self._items.move_to_end(key)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)
        return derived

    def ref_key(self, shoe: ShoeRecord) -> bytes:
        key = (shoe.operator_id, shoe.table_id, shoe.ref_key_ct)
        with self._lock:
            hit = self._ref_keys.get(key)
            if hit is not None:
                self._ref_keys.move_to_end(key)
                return hit
        ref_key = self.vault.unseal(
            shoe.ref_key_ct, ref_key_context(shoe.operator_id, shoe.table_id)
        )
        with self._lock:
            self._ref_keys[key] = ref_key
            while len(self._ref_keys) > self.maxsize:
                self._ref_keys.popitem(last=False)
        return ref_key

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._ref_keys.clear()
