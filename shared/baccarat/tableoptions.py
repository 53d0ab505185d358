"""What a table chooses beside its profile and tier — who banks it, how its settlement rounds —
and how a profile's house earns its commission."""

from __future__ import annotations

import math
from enum import StrEnum
from fractions import Fraction


class Banking(StrEnum):
    """Who covers the Banker/Player bets: the house, or a player sitting in the banker seat."""

    HOUSE = "house"
    PLAYER_BANKER = "player_banker"


class CommissionModel(StrEnum):
    """How a profile's house earns on even-money bets.

    ``on_positive_net``: star-city — the house takes ``pay_table.commission_rate`` (1%) of every
    participant's positive net for the round; losses pay none.
    ``in_banker_pay``: bid-squeeze — Banker pays 0.95; the missing 5% is the line's commission."""

    ON_POSITIVE_NET = "on_positive_net"
    IN_BANKER_PAY = "in_banker_pay"


class Rounding(StrEnum):
    """The rounding rule of a table's settlement (one rule per table, named in every Settlement).

    ``floor_house_favour`` (the default): every amount a participant *receives* — a winning line's
    pay (e.g. 0.95 × stake) and a positive round result after commission (0.99 × net) — is floored
    to the whole minor unit; the fraction left over stays with the house, as part of the line's or
    the round's commission. Losses are always whole stakes, so nothing else is ever rounded.

    ``half_up``: the same amounts are rounded to the nearest minor unit, halves up; the house
    keeps the difference (which may then be a fraction of a unit in the participant's favour).

    Either way the commission is *defined* as the exact difference between what was owed before and
    after rounding, so no minor unit is ever created or lost."""

    FLOOR_HOUSE_FAVOUR = "floor_house_favour"
    HALF_UP = "half_up"

    def receive(self, amount: Fraction) -> int:
        """What a participant receives of a non-negative exact ``amount``, in whole minor units."""
        if amount < 0:
            raise ValueError(f"rounding applies to amounts received, got {amount}")
        if self is Rounding.HALF_UP:
            return math.floor(amount + Fraction(1, 2))
        return math.floor(amount)
