"""Money figures: validate + settle a full table (7 seated bettors and a spectator, side bets)."""

from __future__ import annotations

import os

from baccarat.bets import Bet, Role
from baccarat.fairness import derive_shoe
from baccarat.paytables import BetType
from baccarat.profiles import BID_SQUEEZE, TableConfig, repo_tiers
from baccarat.rules import BID_SQUEEZE_RULES
from baccarat.settlement import settle
from baccarat.validation import validate_bets

from ._timing import fmt_time, per_call

SIDE_BETS = (
    BetType.TIE,
    BetType.BANKER_PAIR,
    BetType.PLAYER_PAIR,
    BetType.LUCKY6,
    BetType.ANY_PAIR,
    BetType.PERFECT_PAIR,
    BetType.PLAYER_DRAGON,
    BetType.BANKER_DRAGON,
)


def full_table_bets() -> list[Bet]:
    """8 bettors (7 seated + 1 spectator), each on Banker or Player plus 4 side bets: 40 lines."""
    bets: list[Bet] = []
    for n in range(8):
        seated = n < 7
        main = BetType.BANKER if n % 2 else BetType.PLAYER
        for k, bet_type in enumerate((main, *SIDE_BETS[n % 4 : n % 4 + 4])):
            bets.append(
                Bet(
                    bettor_id=f"b{n}",
                    role=Role.SEATED if seated else Role.SPECTATOR,
                    seat=n + 1 if seated else None,
                    type=bet_type,
                    amount=1_000 + 500 * k + 100 * n,
                    order=len(bets),
                    level=5,
                    balance=10_000_000,
                )
            )
    return bets


def run() -> list[str]:
    table = TableConfig(profile=BID_SQUEEZE, tier=repo_tiers()["bid-squeeze-standard"])
    shoe = derive_shoe(os.urandom(32), "bench", 1, BID_SQUEEZE_RULES)
    bets = full_table_bets()
    rounds = shoe.rounds
    i = 0

    def one_settlement() -> None:
        nonlocal i
        settle(table, rounds[i % len(rounds)], bets)
        i += 1

    def validate_and_settle() -> None:
        nonlocal i
        accepted = validate_bets(table, bets, 1)
        settle(table, rounds[i % len(rounds)], accepted.bets)
        i += 1

    t_settle = per_call(one_settlement)
    t_both = per_call(validate_and_settle)
    return [
        f"## Money: a full bid-squeeze table ({len(bets)} bet lines, 8 bettors, side bets)",
        f"settle only          {fmt_time(t_settle)}  {1 / t_settle:10,.0f} settlements/s",
        f"validate + settle    {fmt_time(t_both)}  {1 / t_both:10,.0f} rounds/s",
    ]
