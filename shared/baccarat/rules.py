"""Shoe rules (what bacc-pf-v1 commits to) and the third-card drawing rules, as data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import CARDS_PER_DECK

_RULE_FIELDS = ("decks", "burn", "cut_min", "cut_max", "round_limit")


class UnsafeRulesError(ValueError):
    """Rule settings that bacc-pf-v1 refuses (they could run out of cards, or do not encode)."""


#: Deck counts the product deals (the spec encodes any u8; the product offers 4–8).
MIN_DECKS = 4
MAX_DECKS = 8
#: Most cards one round can use, and most cards a burn can take (exposed card + 10).
MAX_ROUND_CARDS = 6
MAX_BURN_CARDS = 11
#: The cut card must leave at least this many cards behind it.
MIN_CUT_DISTANCE = 11


@dataclass(frozen=True, slots=True)
class ShoeRules:
    """The six committed bytes: decks, burn, cut card window and round limit."""

    decks: int
    burn: int
    cut_min: int
    cut_max: int
    round_limit: int

    @property
    def size(self) -> int:
        return CARDS_PER_DECK * self.decks

    @property
    def has_cut_card(self) -> bool:
        return self.cut_max > 0

    def to_bytes(self) -> bytes:
        """``u8(D) ‖ u8(burn) ‖ u8(cut_min) ‖ u8(cut_max) ‖ u16(round_limit)``."""
        return bytes((self.decks, self.burn, self.cut_min, self.cut_max)) + (
            self.round_limit.to_bytes(2, "big")
        )

    def problems(self) -> list[str]:
        """Every reason these settings are refused; empty when they are safe."""
        found: list[str] = []
        if not MIN_DECKS <= self.decks <= MAX_DECKS:
            found.append(f"decks must be {MIN_DECKS}–{MAX_DECKS}, got {self.decks}")
        if self.burn not in (0, 1):
            found.append(f"burn must be 0 or 1, got {self.burn}")
        if not 0 <= self.round_limit <= 0xFFFF:
            found.append(f"round_limit must fit in u16, got {self.round_limit}")
        if not (0 <= self.cut_min <= 0xFF and 0 <= self.cut_max <= 0xFF):
            found.append("cut_min and cut_max must fit in u8")
        if found:
            return found
        if self.has_cut_card:
            if self.cut_min < MIN_CUT_DISTANCE:
                found.append(
                    f"cut_min must be at least {MIN_CUT_DISTANCE} with a cut card, "
                    f"got {self.cut_min}"
                )
            if self.cut_min > self.cut_max:
                found.append(f"cut_min {self.cut_min} exceeds cut_max {self.cut_max}")
            if self.cut_max >= self.size:
                found.append(f"cut_max {self.cut_max} must be below the shoe size {self.size}")
        else:
            if self.cut_min != 0:
                found.append("cut_min must be 0 without a cut card (cut_max 0)")
            if self.round_limit == 0:
                found.append("without a cut card the shoe needs a round limit")
            elif MAX_BURN_CARDS + MAX_ROUND_CARDS * self.round_limit > self.size:
                found.append(
                    f"{self.round_limit} rounds could need "
                    f"{MAX_BURN_CARDS + MAX_ROUND_CARDS * self.round_limit} cards; "
                    f"the shoe has {self.size}"
                )
        return found

    def check(self) -> ShoeRules:
        """Return self, or raise :class:`UnsafeRulesError` naming every problem."""
        found = self.problems()
        if found:
            raise UnsafeRulesError("; ".join(found))
        return self

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShoeRules:
        """The inverse of :meth:`as_dict` (the ``rules`` object of a shoe or proof). Raises
        ``KeyError`` on a missing field, ``TypeError`` on a value that is not an integer."""
        values = [data[name] for name in _RULE_FIELDS]
        if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
            raise TypeError("shoe rules are integers")
        return cls(*values)

    def as_dict(self) -> dict[str, int]:
        return {
            "decks": self.decks,
            "burn": self.burn,
            "cut_min": self.cut_min,
            "cut_max": self.cut_max,
            "round_limit": self.round_limit,
        }


# --- drawing rules --------------------------------------------------------------------------

#: A two-card total of 8 or 9 is a natural: nobody draws.
NATURAL_TOTALS = frozenset({8, 9})
#: Player draws on these two-card totals (and stands on 6–7).
PLAYER_DRAWS_ON = frozenset({0, 1, 2, 3, 4, 5})
#: Banker, when Player stood: draws on these totals.
BANKER_DRAWS_WHEN_PLAYER_STOOD = frozenset({0, 1, 2, 3, 4, 5})
#: Banker, when Player drew a third card worth ``p3``: banker total → the ``p3`` values it draws on.
BANKER_DRAWS_ON_THIRD: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset(range(10)) - {8},
    4: frozenset(range(2, 8)),
    5: frozenset(range(4, 8)),
    6: frozenset({6, 7}),
    7: frozenset(),
}


def player_draws(player_total: int, banker_total: int) -> bool:
    """Does Player take a third card, given both two-card totals?"""
    if player_total in NATURAL_TOTALS or banker_total in NATURAL_TOTALS:
        return False
    return player_total in PLAYER_DRAWS_ON


def banker_draws(player_total: int, banker_total: int, player_third: int | None) -> bool:
    """Does Banker take a third card? ``player_third`` is the point value of Player's third card,
    or ``None`` when Player stood (or either side had a natural)."""
    if player_total in NATURAL_TOTALS or banker_total in NATURAL_TOTALS:
        return False
    if player_third is None:
        return banker_total in BANKER_DRAWS_WHEN_PLAYER_STOOD
    return player_third in BANKER_DRAWS_ON_THIRD[banker_total]


#: The two profiles' shoe rules (fairness-v1.md, "Profiles").
STAR_CITY_RULES = ShoeRules(decks=4, burn=0, cut_min=0, cut_max=0, round_limit=30)
BID_SQUEEZE_RULES = ShoeRules(decks=8, burn=1, cut_min=14, cut_max=26, round_limit=0)
PROFILE_RULES: dict[str, ShoeRules] = {
    "star-city": STAR_CITY_RULES,
    "bid-squeeze": BID_SQUEEZE_RULES,
}
