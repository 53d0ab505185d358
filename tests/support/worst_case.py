"""The worst case of every documented limit at once, as real request bodies: 200 bets
(:data:`~baccarat_api.limits.MAX_BETS_PER_ROUND`), bettor ids of 64 characters
(:data:`~baccarat_api.limits.MAX_ID_LENGTH`), personal limits on every bet type, the largest
amounts, balances and levels the contract allows — for either profile and banking mode. The byte
budget's tests (:mod:`baccarat_api.limits`, ``tests/integration/test_byte_budgets.py``) store and
answer them and compare the sizes with the worst case computed from the limits."""

from __future__ import annotations

from typing import Any

from baccarat.bets import BetType
from baccarat_api.limits import MAX_BETS_PER_ROUND, MAX_ID_LENGTH, MAX_MONEY

#: The tier of each profile whose limits are the largest (the worst case's amounts).
TIERS = {"star-city": "star-city-supreme", "bid-squeeze": "bid-squeeze-high"}
#: The largest seat number and level the request schema accepts (a table judges them after).
MAX_LEVEL = 10_000
ALL_TYPES = [t.value for t in BetType]


def bettor(n: int, prefix: str = "b") -> str:
    """A distinct bettor id of exactly 64 characters from the widest set (``.``, ``:``, …)."""
    head = f"{prefix}.{n:03d}:"
    return head + ("x@-_." * 13)[: MAX_ID_LENGTH - len(head)]


def _limits() -> dict[str, Any]:
    """Personal limits on every bet type, a range each (a locked bet keeps its own type's)."""
    return {t: {"min": 100, "max": MAX_MONEY} for t in ALL_TYPES}


def worst_bets(profile: str, tier: dict[str, Any]) -> list[dict[str, Any]]:
    """200 bets that the table accepts: bid-squeeze — one seated bettor and 199 spectators, each
    a distinct bettor (the most participants, nets and balances), each at its area's maximum;
    star-city — 7 seated bettors (spectators only watch there), 200 bets among them."""
    limits = tier["limits"]
    common = {"balance": MAX_MONEY, "level": MAX_LEVEL, "personal_limits": _limits()}
    if profile == "bid-squeeze":
        types = [t for t in ALL_TYPES if t in limits]
        bets = [{"bettor_id": bettor(0), "role": "seated", "seat": 7, "type": "banker",
                 "amount": limits["banker"]["max"], **common}]  # fmt: skip
        for n in range(1, MAX_BETS_PER_ROUND):
            kind = types[n % len(types)]
            bets.append({"bettor_id": bettor(n), "role": "spectator", "type": kind,
                         "amount": limits[kind]["max"], **common})  # fmt: skip
        return bets
    # star-city: 7 seats; Banker or Player per bettor; per area and per bettor the table's caps
    types = [t for t in limits if t != "player"]
    bets = []
    for n in range(MAX_BETS_PER_ROUND):
        seat = n % 7 + 1
        kind = types[(n // 7) % len(types)]
        bets.append({"bettor_id": bettor(seat), "role": "seated", "seat": seat, "type": kind,
                     "amount": tier["min_bet"], **common})  # fmt: skip
    return bets


def worst_player_banker() -> dict[str, Any]:
    return {"bettor_id": bettor(999, "p"), "balance": MAX_MONEY}


def worst_deal(profile: str, banking: str, tier: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"bets": worst_bets(profile, tier)}
    if banking == "player_banker":
        body["player_banker"] = worst_player_banker()
    return body


WORST_NOTE = "ß" * 256  # 256 characters, 512 UTF-8 bytes


def fullest_presence() -> dict[str, Any]:
    """A live state's presence at the limits, as ``LiveRecord`` fields: 7 seats, the
    player-banker, :data:`~baccarat_api.limits.MAX_SPECTATORS` spectators with personal limits on
    every bet type and :data:`~baccarat_api.limits.MAX_WATCHERS` watchers, every id 64
    characters, the largest balances and levels."""
    from baccarat_api.limits import MAX_SPECTATORS, MAX_WATCHERS

    return {
        "seats": {str(n): {"bettor_id": bettor(n, "s"), "balance": MAX_MONEY, "level": MAX_LEVEL}
                  for n in range(1, 8)},
        "banker": {"bettor_id": bettor(0, "pb"), "balance": MAX_MONEY},
        "spectators": {bettor(n, "sp"): {"balance": MAX_MONEY, "personal_limits": _limits()}
                       for n in range(MAX_SPECTATORS)},
        "watchers": [bettor(n, "w") for n in range(MAX_WATCHERS)],
    }  # fmt: skip
