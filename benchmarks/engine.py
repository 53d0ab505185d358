"""Engine figures: derive and play whole shoes, each part of it, round facts — each next to the
straightforward implementation (benchmarks/naive.py) run in the same process, as a ratio."""

from __future__ import annotations

import os

from baccarat.fairness import (
    _stream_words,
    client_hash,
    derive_shoe,
    play_rounds,
    shoe_key,
    shuffle,
)
from baccarat.rules import ShoeRules

from . import naive
from ._timing import fmt_time, per_call

RULE_SETS = {
    4: ShoeRules(decks=4, burn=0, cut_min=0, cut_max=0, round_limit=30),
    6: ShoeRules(decks=6, burn=1, cut_min=14, cut_max=26, round_limit=0),
    8: ShoeRules(decks=8, burn=1, cut_min=14, cut_max=26, round_limit=0),
}


def _naive_words(key: bytes, blocks: int) -> list[int]:
    stream = naive.Stream(key)
    return [stream.word() for _ in range(8 * blocks)]


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

    # The 8-deck shoe, part by part.
    rules = RULE_SETS[8]
    key = shoe_key(secret, client_hash("bench"), 1, rules)
    shoe = derive_shoe(secret, "bench", 1, rules)
    cards, cut = list(shoe.cards), shoe.cut_index
    blocks = (rules.size + 7) // 8
    naive_cards = [naive.Card(c) for c in cards]
    n = len(shoe.rounds)

    def naive_play() -> None:
        pos = shoe.first_start
        for _ in range(n):
            _, _, pos = naive.play_round(naive_cards, pos)

    def facts_engine() -> None:
        for r in shoe.rounds:
            r.facts()

    def facts_naive() -> None:
        for r in shoe.rounds:
            naive.round_facts(list(r.player), list(r.banker), r.start, r.number)

    same = all(
        r.facts() == naive.round_facts(list(r.player), list(r.banker), r.start, r.number)
        for r in shoe.rounds
    )
    parts = [
        (
            f"stream words ({blocks} HMAC blocks)",
            per_call(lambda: _stream_words(key, 0, blocks)),
            per_call(lambda: _naive_words(key, blocks)),
            1,
        ),
        (
            "shuffle (words + Fisher–Yates + cut)",
            per_call(lambda: shuffle(key, rules)),
            per_call(lambda: naive.derive_and_play(secret, "bench", 1, (8, 0, 0, 0, 1))),
            1,
        ),
        (
            f"play {n} rounds (per round)",
            per_call(lambda: play_rounds(cards, shoe.first_start, rules, cut)),
            per_call(naive_play),
            n,
        ),
        (
            f"round facts, JSON-ready (per round; same: {'yes' if same else 'NO'})",
            per_call(facts_engine),
            per_call(facts_naive),
            n,
        ),
    ]
    lines.append("# 8 decks, part by part (naive shuffle = its derive with one round)")
    for label, fast, slow, per in parts:
        lines.append(
            f"  {label:<48} {fmt_time(fast / per)} {fmt_time(slow / per)} {slow / fast:6.2f}x"
        )
    return lines
