"""Engine figures: derive and play whole shoes, rounds resolved per second."""

from __future__ import annotations

import os

from baccarat.fairness import derive_shoe
from baccarat.rules import ShoeRules

from . import naive
from ._timing import fmt_time, per_call

RULE_SETS = {
    4: ShoeRules(decks=4, burn=0, cut_min=0, cut_max=0, round_limit=30),
    6: ShoeRules(decks=6, burn=1, cut_min=14, cut_max=26, round_limit=0),
    8: ShoeRules(decks=8, burn=1, cut_min=14, cut_max=26, round_limit=0),
}


def run() -> list[str]:
    secret = os.urandom(32)
    lines = ["## Engine (pure core): derive + shuffle + play a whole shoe"]
    lines.append(
        f"{'decks':>5}  {'rules':<18} {'engine':>12} {'naive':>12} {'ratio':>7}  rounds/s (engine)"
    )
    for decks, rules in RULE_SETS.items():
        raw = (rules.decks, rules.burn, rules.cut_min, rules.cut_max, rules.round_limit)
        fast = per_call(lambda r=rules: derive_shoe(secret, "bench", 1, r))
        slow = per_call(lambda r=raw: naive.derive_and_play(secret, "bench", 1, r))
        n_rounds = len(derive_shoe(secret, "bench", 1, rules).rounds)
        label = f"{rules.burn}/{rules.cut_min}-{rules.cut_max}/{rules.round_limit}"
        lines.append(
            f"{decks:>5}  {label:<18} {fmt_time(fast)} {fmt_time(slow)} {slow / fast:6.2f}x"
            f"  {n_rounds / fast:,.0f} ({n_rounds} rounds/shoe)"
        )
    return lines
