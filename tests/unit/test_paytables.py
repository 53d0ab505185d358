"""Every pay of both profiles, pinned against the seeds' tables written out here independently.

The oracle below is written from seed 001's bet table and seed 000's pay table (not from
``paytables.py``), so a changed pay, push or win condition anywhere fails these tests — including
through the settlement, whose conservation property alone could not see a wrong pay."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from baccarat.bets import Bet, Role
from baccarat.outcome import Round, deal_round
from baccarat.paytables import BID_SQUEEZE, STAR_CITY, BetType, Grade, grade
from baccarat.profiles import BID_SQUEEZE as BID_PROFILE
from baccarat.profiles import TableConfig, repo_tiers
from baccarat.settlement import settle

F = Fraction
PUSH = "push"
LOSE = "lose"

# Seed 001 (競咪百家樂), "有以下注方式供玩家選擇": net win per unit.
SEED_DRAGON = {9: F(30), 8: F(10), 7: F(5), 6: F(3), 5: F(2), 4: F(1)}  # 閒龍寶/莊龍寶
COMMON_DRAGON = {9: F(30), 8: F(10), 7: F(6), 6: F(4), 5: F(2), 4: F(1)}


def oracle(bet: BetType, r: Round, dragon: dict[int, Fraction]) -> Fraction | str:
    """What one unit on ``bet`` wins (a Fraction), or PUSH / LOSE, per the seeds."""
    p, b = r.player_total, r.banker_total
    p_nat = (r.player_total if len(r.player) == 2 else -1) in (8, 9)
    b_nat = (r.banker_total if len(r.banker) == 2 else -1) in (8, 9)
    natural = p_nat or b_nat
    n_cards = len(r.player) + len(r.banker)
    ranks = lambda cards: [c % 13 for c in cards[:2]]  # noqa: E731
    suits = lambda cards: [(c % 52) // 13 for c in cards[:2]]  # noqa: E731
    ppair = len(set(ranks(r.player))) == 1
    bpair = len(set(ranks(r.banker))) == 1
    pperfect = ppair and len(set(suits(r.player))) == 1
    bperfect = bpair and len(set(suits(r.banker))) == 1
    if bet is BetType.BANKER:  # 莊 1:0.95; 和局退回
        return F(19, 20) if b > p else PUSH if b == p else LOSE
    if bet is BetType.BANKER_NO_COMMISSION:  # 免佣莊 1:1, 莊以6點取勝賠一半
        return (F(1, 2) if b == 6 else F(1)) if b > p else PUSH if b == p else LOSE
    if bet is BetType.PLAYER:  # 閒 1:1
        return F(1) if p > b else PUSH if b == p else LOSE
    if bet is BetType.TIE:  # 和 1:8
        return F(8) if p == b else LOSE
    if bet is BetType.BANKER_PAIR:  # 莊對子 1:11
        return F(11) if bpair else LOSE
    if bet is BetType.PLAYER_PAIR:
        return F(11) if ppair else LOSE
    if bet is BetType.BIG:  # 大 1:0.5, 五或六張牌
        return F(1, 2) if n_cards in (5, 6) else LOSE
    if bet is BetType.SMALL:  # 小 1:1.5, 四張牌
        return F(3, 2) if n_cards == 4 else LOSE
    if bet is BetType.LUCKY6:  # 幸運6: 1:12 two cards, 1:20 three cards
        if b > p and b == 6:
            return F(12) if len(r.banker) == 2 else F(20)
        return LOSE
    if bet is BetType.ANY_PAIR:  # 任意對子 1:5
        return F(5) if ppair or bpair else LOSE
    if bet is BetType.PERFECT_PAIR:  # 完美對子 1:25
        return F(25) if pperfect or bperfect else LOSE
    side_wins = p > b if bet is BetType.PLAYER_DRAGON else b > p
    if natural:  # 勝方以例牌贏出 1:1; 例牌和局 退回下注
        return F(1) if side_wins else PUSH if p == b else LOSE
    margin = abs(p - b)
    return dragon[margin] if side_wins and margin in dragon else LOSE


cards6 = st.lists(st.integers(0, 8 * 52 - 1), min_size=6, max_size=6, unique=True)


def _as_oracle(g: Grade, m: Fraction) -> Fraction | str:
    return m if g is Grade.WIN else PUSH if g is Grade.PUSH else LOSE


@settings(max_examples=examples(30))
@given(cards=cards6)
def test_every_bid_squeeze_bet_pays_what_seed_001_says(cards: list[int]) -> None:
    r = deal_round(cards, 0)
    for bet in BetType:
        assert _as_oracle(*grade(bet, r, BID_SQUEEZE)) == oracle(bet, r, SEED_DRAGON), bet
        common = BID_SQUEEZE.with_dragon("common")
        assert _as_oracle(*grade(bet, r, common)) == oracle(bet, r, COMMON_DRAGON), bet


@settings(max_examples=examples(10))
@given(cards=cards6)
def test_star_city_pays_what_seed_000_says(cards: list[int]) -> None:
    # 莊 1:1, 閒 1:1, 和 1:8 (和局押莊閒會退回注金), 莊一對 / 閒一對 1:11
    r = deal_round(cards, 0)
    p, b = r.player_total, r.banker_total
    expected = {
        BetType.BANKER: F(1) if b > p else PUSH if b == p else LOSE,
        BetType.PLAYER: F(1) if p > b else PUSH if b == p else LOSE,
        BetType.TIE: F(8) if p == b else LOSE,
        BetType.BANKER_PAIR: F(11) if r.banker[0] % 13 == r.banker[1] % 13 else LOSE,
        BetType.PLAYER_PAIR: F(11) if r.player[0] % 13 == r.player[1] % 13 else LOSE,
    }
    assert {bet: _as_oracle(*grade(bet, r, STAR_CITY)) for bet in STAR_CITY.offered} == expected


@settings(max_examples=examples(10))
@given(cards=cards6, units=st.lists(st.integers(1, 50), min_size=13, max_size=13))
def test_house_banked_bid_squeeze_settlement_pays_the_seed_amounts(
    cards: list[int], units: list[int]
) -> None:
    """Each line's net is the seed's pay × stake, floored (stakes are whole units of 100, so only
    Banker 0.95 and the halves can round): a wrong pay fails here even though Σ nets stays 0."""
    table = TableConfig(BID_PROFILE, repo_tiers()["bid-squeeze-standard"])
    r = deal_round(cards, 0)
    bets = [
        Bet(f"s{i}", Role.SEATED, bet, 1000 + 100 * u, order=i, seat=i % 7 + 1)
        for i, (bet, u) in enumerate(zip(BetType, units, strict=True))
    ]
    s = settle(table, r, bets)
    for line, bet in zip(s.lines, bets, strict=True):
        want = oracle(bet.type, r, SEED_DRAGON)
        if want == PUSH:
            assert line.net == 0
        elif want == LOSE:
            assert line.net == -bet.amount
        else:
            assert isinstance(want, Fraction)
            assert line.net == (bet.amount * want.numerator) // want.denominator


def _dealt(player: tuple[int, ...], banker: tuple[int, ...]) -> Round:
    """Deal the hands through the drawing rules (so every case is a round that can happen)."""
    order = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    r = deal_round([*order, *range(400, 406)], 0)
    assert (r.player, r.banker) == (player, banker), "the drawing rules deal other hands"
    return r


# Card ids: rank = id mod 13 (0 = A … 8 = 9, 9–12 = T J Q K), suit = (id mod 52) div 13.
ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, KING = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12
H = 13  # add to move a card from spades to hearts


@pytest.mark.parametrize(
    ("player", "banker", "bet", "pays"),
    [
        # Lucky 6 on two cards: P T 5 (5) draws T → 5; B T 6 (6) stands on a 0 → Banker 6 wins
        ((TEN, FIVE, TEN + H), (TEN, SIX), BetType.LUCKY6, F(12)),
        # Lucky 6 on three cards: P T K (0) draws 2; B A 2 (3) draws 3 → Banker 6 beats 2
        ((TEN, KING, TWO), (ACE, TWO + H, THREE), BetType.LUCKY6, F(20)),
        # Dragon, seed table, non-natural: P 0 + 9 = 9 vs B 0 + T = 0 → by 9 pays 30
        ((TEN, KING, NINE), (TEN + H, KING + H, TEN + 2 * H), BetType.PLAYER_DRAGON, F(30)),
        # … by 7 pays 5 (the common table would pay 6)
        ((TEN, KING, SEVEN), (TEN + H, KING + H, TEN + 2 * H), BetType.PLAYER_DRAGON, F(5)),
        # Big: 6 cards dealt pays 0.5; Small: 4 cards (naturals) pays 1.5
        ((TEN, KING, NINE), (TEN + H, KING + H, TEN + 2 * H), BetType.BIG, F(1, 2)),
        ((EIGHT, TEN), (SEVEN, TEN + H), BetType.SMALL, F(3, 2)),
        # Any Pair 5 (4S 4H), Perfect Pair 25 (4S 4S from two decks)
        ((FOUR, FOUR + H), (SEVEN, TEN), BetType.ANY_PAIR, F(5)),
        ((FOUR, FOUR + 52), (SEVEN, TEN), BetType.PERFECT_PAIR, F(25)),
    ],
)
def test_named_seed_pays(
    player: tuple[int, ...], banker: tuple[int, ...], bet: BetType, pays: Fraction
) -> None:
    r = _dealt(player, banker)
    assert oracle(bet, r, SEED_DRAGON) == pays  # the hand really is the case named
    assert grade(bet, r, BID_SQUEEZE) == (Grade.WIN, pays)


def test_every_shipped_tier_pays_whole_minor_units_per_chip() -> None:
    """Each bet line is priced on its own, so a tier whose chip unit × some pay were fractional
    would round identical stakes differently (two Banker 10s ≠ one Banker 20). Every shipped tier
    keeps unit × pay whole for every pay any table of its profile may choose; only the star-city
    1% round commission on a 0.95 Banker win can leave a fraction (floored, documented)."""
    from baccarat.paytables import DRAGON_TABLES
    from baccarat.profiles import PROFILES, Banking

    for tier in repo_tiers().values():
        profile = PROFILES[tier.profile]
        for banking in Banking:
            for pays in profile.banker_pays_choices[banking]:
                for dragon in profile.dragon_choices or (None,):
                    table = TableConfig(profile, tier, banking, pays, dragon)
                    pt = table.pay_table
                    multipliers = [
                        pt.banker,
                        pt.player,
                        pt.tie,
                        pt.pair,
                        pt.banker_no_commission,
                        pt.banker_no_commission_six,
                        pt.big,
                        pt.small,
                        pt.lucky6_two_cards,
                        pt.lucky6_three_cards,
                        pt.any_pair,
                        pt.perfect_pair,
                        pt.dragon_natural,
                        *DRAGON_TABLES[dragon or "seed"].values(),
                    ]
                    for m in multipliers:
                        assert (tier.unit * m).denominator == 1, (tier.id, m)
                    assert (tier.unit * pt.commission_rate).denominator == 1, tier.id
