"""The bet vocabulary, used everywhere (engine, validation, settlement, API)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .paytables import BetType

__all__ = ["Bet", "BetType", "PlayerBanker", "Role", "bets_from_json"]


class Role(StrEnum):
    SEATED = "seated"
    SPECTATOR = "spectator"


@dataclass(frozen=True, slots=True)
class Bet:
    """One stake on one bet area.

    ``amount`` is in integer minor units. ``order`` is the order in which the bet was accepted
    (lower = earlier; the squeeze tie-break of bid-squeeze). ``level`` is the bettor's player level
    (the star-city squeeze tie-break), ``balance`` the bettor's balance before the round (minor
    units), ``personal_limits`` and ``personal_minimums`` a spectator's own per-bet-type maximum
    and minimum stakes (個人限紅, a range: its API form is ``{type: max}`` or ``{type: {min?,
    max?}}``, :func:`personal_limits_from_json`)."""

    bettor_id: str
    role: Role
    type: BetType
    amount: int
    order: int = 0
    seat: int | None = None
    level: int | None = None
    balance: int | None = None
    personal_limits: Mapping[BetType, int] = field(default_factory=lambda: MappingProxyType({}))
    personal_minimums: Mapping[BetType, int] = field(default_factory=lambda: MappingProxyType({}))


def personal_limits_from_json(
    limits: Mapping[str, Any] | None,
) -> tuple[Mapping[BetType, Any], Mapping[BetType, Any]]:
    """A spectator's personal limits (個人限紅) in API form — per bet type a maximum alone, or a
    range ``{"min"?, "max"?}`` — as ``(maxima, minima)``. Values are passed through unchecked
    (:mod:`baccarat.validation` checks them); raises ``ValueError`` for an unknown bet type."""
    maxima: dict[BetType, Any] = {}
    minima: dict[BetType, Any] = {}
    for key, value in (limits or {}).items():
        bet_type = BetType(key)
        if isinstance(value, Mapping):
            if value.get("max") is not None:
                maxima[bet_type] = value["max"]
            if value.get("min") is not None:
                minima[bet_type] = value["min"]
        else:
            maxima[bet_type] = value
    return MappingProxyType(maxima), MappingProxyType(minima)


def _bet(i: int, b: Mapping[str, Any]) -> Bet:
    maxima, minima = personal_limits_from_json(b.get("personal_limits"))
    return Bet(
        bettor_id=str(b["bettor_id"]),
        role=Role(b["role"]),
        type=BetType(b["type"]),
        amount=b["amount"],
        order=i,
        seat=b.get("seat"),
        level=b.get("level"),
        balance=b.get("balance"),
        personal_limits=maxima,
        personal_minimums=minima,
    )


@dataclass(frozen=True, slots=True)
class PlayerBanker:
    """The player-banker seat (star-city's 荷官 seat): a player who covers the Banker/Player bets.

    ``balance`` is the player-banker's balance before the round (minor units); it must cover the
    worst-case liability of the bets it covers. The player-banker does not bet at its own table."""

    bettor_id: str
    balance: int
    level: int | None = None


def bets_from_json(bets: Sequence[Mapping[str, Any]]) -> list[Bet]:
    """API-form bets (accepted order = list order) → :class:`Bet` objects.

    Raises ``KeyError``, ``TypeError``, ``ValueError`` or ``AttributeError`` on a malformed bet."""
    return [_bet(i, b) for i, b in enumerate(bets)]


def player_banker_from_json(pb: Mapping[str, Any] | None) -> PlayerBanker | None:
    """An API-form player-banker (``bettor_id``, ``balance``, optional ``level``), or ``None``."""
    if pb is None:
        return None
    return PlayerBanker(bettor_id=pb["bettor_id"], balance=pb["balance"], level=pb.get("level"))
