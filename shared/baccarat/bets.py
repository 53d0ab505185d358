"""The bet vocabulary, used everywhere (engine, validation, settlement, API)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from .paytables import BetType

__all__ = ["Bet", "BetType", "Role"]


class Role(StrEnum):
    SEATED = "seated"
    SPECTATOR = "spectator"


@dataclass(frozen=True, slots=True)
class Bet:
    """One stake on one bet area.

    ``amount`` is in integer minor units. ``order`` is the order in which the bet was accepted
    (lower = earlier; the squeeze tie-break of bid-squeeze). ``level`` is the bettor's player level
    (the star-city squeeze tie-break), ``balance`` the bettor's balance before the round (minor
    units), ``personal_limits`` a spectator's own per-bet-type maximum stakes."""

    bettor_id: str
    role: Role
    type: BetType
    amount: int
    order: int = 0
    seat: int | None = None
    level: int | None = None
    balance: int | None = None
    personal_limits: Mapping[BetType, int] = field(default_factory=lambda: MappingProxyType({}))
