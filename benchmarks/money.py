"""Money figures: validate + settle a full table (7 seated bettors and a spectator, side bets),
next to a straightforward settlement (Fractions line by line, each bet graded on the round's
properties: benchmarks/naive.py) run in the same process, as a ratio."""

from __future__ import annotations

import os

from baccarat.bets import Bet, Role
from baccarat.fairness import derive_shoe
from baccarat.paytables import BetType
from baccarat.profiles import BID_SQUEEZE, STAR_CITY, Rounding, TableConfig, repo_tiers
from baccarat.rules import BID_SQUEEZE_RULES
from baccarat.settlement import settle
from baccarat.validation import validate_bets

from . import naive
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
    tiers = repo_tiers()
    table = TableConfig(profile=BID_SQUEEZE, tier=tiers["bid-squeeze-standard"])
    shoe = derive_shoe(os.urandom(32), "bench", 1, BID_SQUEEZE_RULES)
    bets = full_table_bets()
    rounds = shoe.rounds
    i = 0

    def one_settlement() -> None:
        nonlocal i
        settle(table, rounds[i % len(rounds)], bets)
        i += 1

    def one_naive() -> None:
        nonlocal i
        naive.settle(table, rounds[i % len(rounds)], bets)
        i += 1

    def validate_and_settle() -> None:
        nonlocal i
        accepted = validate_bets(table, bets, 1)
        settle(table, rounds[i % len(rounds)], accepted.bets)
        i += 1

    # The same money, every round of the shoe, both rounding rules, with and without commission.
    same = True
    for t in (table, TableConfig(profile=BID_SQUEEZE, tier=table.tier, rounding=Rounding.HALF_UP)):
        for r in rounds:
            s = settle(t, r, bets)
            same &= (s.nets(), s.house_take) == naive.settle(t, r, bets)
    star = TableConfig(profile=STAR_CITY, tier=tiers["star-city-fun"])
    star_bets = [b for b in bets if b.type in STAR_CITY.offered and b.role is Role.SEATED]
    for r in rounds:
        s = settle(star, r, star_bets)
        same &= (s.nets(), s.house_take) == naive.settle(star, r, star_bets)

    from tests.support import validation_oracle

    t_settle = per_call(one_settlement)
    t_naive = per_call(one_naive)
    t_both = per_call(validate_and_settle)
    t_validate = per_call(lambda: validate_bets(table, bets, 1))
    t_before = per_call(lambda: validation_oracle.validate_bets(table, bets, 1))
    return [
        f"## Money: a full bid-squeeze table ({len(bets)} bet lines, 8 bettors, side bets)",
        f"{'':<22}{'engine':>12}{'naive':>13}{'ratio':>8}",
        f"{'settle':<22}{fmt_time(t_settle)} {fmt_time(t_naive)} {t_naive / t_settle:6.2f}x"
        f"  {1 / t_settle:,.0f} settlements/s; same money as naive on {len(rounds)} rounds × 3 "
        f"tables: {'yes' if same else 'NO'}",
        f"{'validate + settle':<22}{fmt_time(t_both)}{'':>22}  {1 / t_both:,.0f} rounds/s",
        f"{'validate':<22}{fmt_time(t_validate)}{'':>22}  {t_validate / t_settle:.2f}× settle; "
        f"the implementation before (tests/support/validation_oracle.py, same answers): "
        f"{fmt_time(t_before).strip()} = {t_before / t_settle:.2f}× settle",
    ]
