"""The third-card rules, exhaustively, against the seeds' own tables written out literally.

Seed 000 (star-city) gives Banker's decision after Player drew as an S/H grid: rows are Banker's
two-card total, columns the point value of Player's third card (its header reads 閒家三張牌的合計,
but the grid is the standard third-card rule and seed 001 states it per third card: 若閒家補得
第三張牌是…). S = 不要牌 (stand), H = 要牌 (hit)."""

from __future__ import annotations

import pytest

from baccarat.cards import points
from baccarat.outcome import deal_round
from baccarat.rules import banker_draws, player_draws

# Seed 000, 莊家兩張牌點數合計 (rows) × 閒家第三張牌 0 … 9 (columns), copied cell by cell.
SEED_000_BANKER_GRID = {
    7: "SSSSSSSSSS",
    6: "SSSSSSHHSS",
    5: "SSSSHHHHSS",
    4: "SSHHHHHHSS",
    3: "HHHHHHHHSH",
    2: "HHHHHHHHHH",
    1: "HHHHHHHHHH",
    0: "HHHHHHHHHH",
}

# Seed 000, Player's two-card total → action (必須補牌一支 / 無須補牌 / 例牌).
SEED_000_PLAYER = {
    0: "draw",
    1: "draw",
    2: "draw",
    3: "draw",
    4: "draw",
    5: "draw",
    6: "stand",
    7: "stand",
    8: "natural",
    9: "natural",
}

# Seed 000, Banker's two-card total when Player stood (6 or 7).
SEED_000_BANKER_PLAYER_STOOD = {
    0: "draw",
    1: "draw",
    2: "draw",
    3: "draw",
    4: "draw",
    5: "draw",
    6: "stand",
    7: "stand",
    8: "natural",
    9: "natural",
}

# Seed 001's table, Banker column, as written: 0–2 必須補牌; 3 若閒家補得第三張牌是8，不得補牌;
# 4 …是0,1,8,9，不得補牌; 5 …是0,1,2,3,8,9，不得補牌; 6 …是6,7，必須補牌; 7 不得補牌.
SEED_001_BANKER_STANDS_ON = {
    0: set(),
    1: set(),
    2: set(),
    3: {8},
    4: {0, 1, 8, 9},
    5: {0, 1, 2, 3, 8, 9},
    6: {0, 1, 2, 3, 4, 5, 8, 9},
    7: set(range(10)),
}

TOTALS = range(10)
THIRD = [None, *range(10)]


def natural(total: int) -> bool:
    return SEED_000_PLAYER[total] == "natural"


def expected_player_draws(pt: int, bt: int) -> bool:
    return not natural(pt) and not natural(bt) and SEED_000_PLAYER[pt] == "draw"


def expected_banker_draws(pt: int, bt: int, p3: int | None) -> bool:
    """``p3 is None``: Player stood; otherwise Player drew a card worth ``p3``."""
    if natural(pt) or natural(bt):
        return False
    if p3 is None:
        return SEED_000_BANKER_PLAYER_STOOD[bt] == "draw"
    return SEED_000_BANKER_GRID[bt][p3] == "H"


def test_the_two_seeds_agree() -> None:
    for bt, row in SEED_000_BANKER_GRID.items():
        stands = {p3 for p3, cell in enumerate(row) if cell == "S"}
        assert stands == SEED_001_BANKER_STANDS_ON[bt], bt
        assert len(row) == 10 and set(row) <= {"S", "H"}
    assert set(SEED_000_BANKER_GRID) == set(range(8))


def test_player_rule_every_pair_of_totals() -> None:
    wrong = [
        (pt, bt)
        for pt in TOTALS
        for bt in TOTALS
        if player_draws(pt, bt) != expected_player_draws(pt, bt)
    ]
    assert wrong == []


def test_banker_rule_every_triple() -> None:
    """All 10 × 10 × 11 (player total, banker total, player third card or none)."""
    wrong = [
        (pt, bt, p3)
        for pt in TOTALS
        for bt in TOTALS
        for p3 in THIRD
        if banker_draws(pt, bt, p3) != expected_banker_draws(pt, bt, p3)
    ]
    assert wrong == []


@pytest.mark.parametrize("nat", [8, 9])
def test_naturals_stop_everyone(nat: int) -> None:
    for other in TOTALS:
        for p3 in THIRD:
            assert not player_draws(nat, other) and not player_draws(other, nat)
            assert not banker_draws(nat, other, p3) and not banker_draws(other, nat, p3)


# --- the same decisions, through real cards dealt by outcome.deal_round -------------------------


def card(value: int, variant: int) -> int:
    """A shoe card id worth ``value``; ``variant`` varies the rank (for 0: T/J/Q/K), suit and
    deck."""
    rank = 9 + variant % 4 if value == 0 else value - 1
    suit = (variant // 4) % 4
    deck = variant % 8
    c = deck * 52 + suit * 13 + rank
    assert points(c) == value
    return c


def reachable() -> list[tuple[int, int, int | None]]:
    """The triples a real deal can produce: Player draws exactly when neither side has a
    natural and Player's total is 0–5."""
    out: list[tuple[int, int, int | None]] = []
    for pt in TOTALS:
        for bt in TOTALS:
            if expected_player_draws(pt, bt):
                out += [(pt, bt, p3) for p3 in range(10)]
            else:
                out.append((pt, bt, None))
    return out


def test_reachable_count() -> None:
    # 36 (pt, bt) pairs with a natural, 16 with Player standing on 6/7, 48 × 10 with a third card
    assert len(reachable()) == 36 + 16 + 48 * 10


def test_deal_round_every_reachable_triple_every_split() -> None:
    """Each triple is dealt with 10 different two-card splits, ranks, suits, decks and start
    positions; the round must draw exactly as the seed's tables say."""
    wrong = []
    dealt = 0
    for pt, bt, p3 in reachable():
        for a in range(10):
            p1, p2 = a, (pt - a) % 10
            b1 = (3 * a + bt + 1) % 10
            b2 = (bt - b1) % 10
            fifth = p3 if p3 is not None else (a + bt) % 10
            sixth = (a + 7) % 10
            hand = [
                card(p1, a),
                card(b1, a + 1),
                card(p2, a + 2),
                card(b2, a + 3),
                card(fifth, a + 4),
                card(sixth, a + 5),
            ]
            start = a
            cards = [card(9, 99)] * start + hand + [card(9, 98)] * 2
            rnd = deal_round(cards, start, number=a + 1)
            dealt += 1

            want_p = expected_player_draws(pt, bt)
            want_b = expected_banker_draws(pt, bt, p3)
            want_player = tuple(hand[i] for i in (0, 2, 4)[: 3 if want_p else 2])
            b3 = 5 if want_p else 4
            want_banker = tuple(hand[i] for i in (1, 3, b3)[: 3 if want_b else 2])
            final_p = (pt + points(hand[4])) % 10 if want_p else pt
            final_b = (bt + points(hand[b3])) % 10 if want_b else bt
            got = (rnd.player, rnd.banker, rnd.player_total, rnd.banker_total, rnd.start)
            want = (want_player, want_banker, final_p, final_b, start)
            if got != want or rnd.natural != (natural(pt) or natural(bt)):
                wrong.append(((pt, bt, p3, a), got, want))
    assert dealt == 532 * 10
    assert wrong == []
