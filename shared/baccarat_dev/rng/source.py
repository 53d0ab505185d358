"""Fresh, seeded inputs from the production derivation (``baccarat.fairness``), nothing
re-implemented: one seed chain per report table, shoes by :func:`~baccarat.fairness.derive_shoe`,
stream words by :func:`~baccarat.fairness.stream_words` / :func:`~baccarat.fairness.stream_block`
and draws by :func:`~baccarat.fairness.uniform`.

A report *table* is what an operator's table is: a chain of ``N`` shoe secrets whose top secret
``s_N`` is ``SHA-256("bacc-rng-report/" ‖ seed ‖ "/" ‖ label)`` (instead of KMS randomness, so
that anyone can reproduce the report from its seed), the published anchor ``s_0``, and shoe ``i``
dealt from ``s_i`` with the client seed ``"<label> shoe <i>"``."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from baccarat.fairness import (
    Shoe,
    chain_step,
    client_hash,
    derive_shoe,
    shoe_key,
    stream_words,
    verify_link,
)
from baccarat.rules import BID_SQUEEZE_RULES, STAR_CITY_RULES, ShoeRules

#: The seed `make rng-report` uses (any string will do; the report records it).
DEFAULT_SEED = "bacc-pf-v1 rng evidence 1"

#: The rules dealt for each deck count: the two profiles, and between them a 6-deck shoe with
#: bid-squeeze's burn and cut card window.
RULES_BY_DECKS: dict[int, ShoeRules] = {
    4: STAR_CITY_RULES,
    6: ShoeRules(decks=6, burn=1, cut_min=14, cut_max=26, round_limit=0),
    8: BID_SQUEEZE_RULES,
}


@dataclass(frozen=True, slots=True)
class Table:
    """One seed chain of ``length`` shoes dealt under ``rules``."""

    seed: str
    label: str
    rules: ShoeRules
    length: int

    @property
    def top_secret(self) -> bytes:
        return hashlib.sha256(f"bacc-rng-report/{self.seed}/{self.label}".encode()).digest()

    def client_seed(self, shoe_number: int) -> str:
        return f"{self.label} shoe {shoe_number}"

    def secrets(self) -> tuple[bytes, list[bytes]]:
        """(anchor ``s_0``, ``[s_1 … s_N]``), walking the chain down from ``s_N`` once."""
        out = [b""] * self.length
        s = self.top_secret
        for k in range(self.length, 0, -1):
            out[k - 1] = s
            s = chain_step(s)
        return s, out

    def key(self, secret: bytes, shoe_number: int) -> bytes:
        """The shoe key ``K`` of shoe ``shoe_number`` (its stream's HMAC key)."""
        c_hash = client_hash(self.client_seed(shoe_number))
        return shoe_key(secret, c_hash, shoe_number, self.rules)


def check_anchor(table: Table, anchor: bytes, secrets: list[bytes]) -> None:
    """The first and last shoe secrets lead to the published anchor (the production check)."""
    for number in sorted({1, len(secrets)}):
        if not verify_link(secrets[number - 1], number, anchor):
            raise AssertionError(f"{table.label}: s_{number} does not lead to the anchor")


def shoes(table: Table, secrets: list[bytes], first_number: int) -> Iterator[Shoe]:
    """The shoes ``first_number, first_number + 1, …`` of ``table``, one per secret given."""
    for offset, secret in enumerate(secrets):
        number = first_number + offset
        yield derive_shoe(secret, table.client_seed(number), number, table.rules)


class CountingWords:
    """The stream words of one key (:func:`~baccarat.fairness.stream_words`), counting how many
    were taken: ``uniform`` discards a word without saying so; the count shows it."""

    __slots__ = ("_words", "taken")

    def __init__(self, key: bytes) -> None:
        self._words = stream_words(key)
        self.taken = 0

    def __iter__(self) -> CountingWords:
        return self

    def __next__(self) -> int:
        self.taken += 1
        return next(self._words)
