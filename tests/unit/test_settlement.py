"""settle(): the seed's worked example, each money rule, and the conservation property
(Σ participants' nets + house take = 0) over random rounds and random valid bet lists."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from baccarat.bets import Bet, BetType, PlayerBanker, Role
from baccarat.cards import CARDS_PER_DECK, parse_code
from baccarat.outcome import Result, Round, deal_round
from baccarat.paytables import Grade
from baccarat.profiles import (
    BID_SQUEEZE,
    PROFILES,
    STAR_CITY,
    AreaLimit,
    Banking,
    Profile,
    Rounding,
    TableConfig,
    Tier,
    repo_tiers,
)
from baccarat.settlement import HOUSE, PLAYER_BANKER, Settlement, settle
from baccarat.validation import validate_bets

TIERS = repo_tiers()
FUN = TIERS["star-city-fun"]
STD = TIERS["bid-squeeze-standard"]
SC = TableConfig(STAR_CITY, FUN)
SC_PB = TableConfig(STAR_CITY, FUN, Banking.PLAYER_BANKER)
BS = TableConfig(BID_SQUEEZE, STD)
BS_PB = TableConfig(BID_SQUEEZE, STD, Banking.PLAYER_BANKER)
A = PlayerBanker("A", 10**9)


def deal(text: str) -> Round:
    """A real round from hand-picked cards, in dealing order (P, B, P, B, then thirds)."""
    return deal_round([parse_code(c) for c in text.split()], 0)


PLAYER_7_6 = deal("7S 4D KH 2C")  # Player 7, Banker 6: Player wins, no pairs
BANKER_7_6 = deal("4D 7S 2C KH")  # Player 6, Banker 7: Banker wins, no pairs
BANKER_SIX = deal("TS 4C 3H 2D KD")  # Player 3 (drew K), Banker 6 on two cards: Banker wins
TIE_PAIR = deal("4S 3D 4H 5C")  # natural 8 – natural 8, Player pair
TIE_7 = deal("7S 4D KH 3C")  # 7 – 7


def bet(bettor: str, kind: str, amount: int, seat: int | None = 1, **kw: Any) -> Bet:
    role = Role.SEATED if seat is not None else Role.SPECTATOR
    return Bet(bettor, role, BetType(kind), amount, seat=seat, balance=10**9, level=9, **kw)


def test_hand_built_rounds_are_what_the_tests_say() -> None:
    assert (PLAYER_7_6.result, PLAYER_7_6.player_pair, PLAYER_7_6.banker_pair) == (
        Result.PLAYER,
        False,
        False,
    )
    assert (BANKER_7_6.result, BANKER_7_6.banker_total) == (Result.BANKER, 7)
    assert (BANKER_SIX.result, BANKER_SIX.banker_total, BANKER_SIX.banker_card_count) == (
        Result.BANKER,
        6,
        2,
    )
    assert (TIE_PAIR.result, TIE_PAIR.player_pair, TIE_PAIR.banker_pair) == (
        Result.TIE,
        True,
        False,
    )
    assert TIE_7.result is Result.TIE and not TIE_7.player_pair


# --- the seed's example ------------------------------------------------------------------------


def test_seed_example_player_banker() -> None:
    """Seed 000: A is player-banker, B bets Banker 200, C bets Player 100, Player wins →
    A +99 = (200 − 100) × 0.99, B −200, C +99 = 100 × 0.99; the house takes 2."""
    bets = [bet("B", "banker", 200, seat=1), bet("C", "player", 100, seat=2)]
    pb = PlayerBanker("A", FUN.player_banker_min_balance)
    validate_bets(SC_PB, bets, 1, pb)
    s = settle(SC_PB, PLAYER_7_6, bets, pb)
    assert s.nets() == {"A": 99, "B": -200, "C": 99}
    assert s.house_take == 2
    assert s.player_banker is not None
    assert (s.player_banker.gross, s.player_banker.commission) == (100, 1)
    assert [x.covered_by for x in s.lines] == [PLAYER_BANKER, PLAYER_BANKER]
    assert s.rounding is Rounding.FLOOR_HOUSE_FAVOUR
    assert s.as_dict()["rounding"] == "floor_house_favour"


# --- star-city money rules ---------------------------------------------------------------------


def test_star_city_commission_is_on_the_round_net_not_each_line() -> None:
    """+1000 on Player, −100 on Tie: commission 1% of 900 = 9 (per line it would be 10)."""
    s = settle(SC, PLAYER_7_6, [bet("B", "player", 1000), bet("B", "tie", 100)])
    (b,) = s.bettors
    assert (b.stake, b.gross, b.commission, b.net) == (1100, 900, 9, 891)
    assert all(x.commission == 0 for x in s.lines)
    assert s.house_take == -891


def test_star_city_losses_pay_no_commission() -> None:
    s = settle(SC, PLAYER_7_6, [bet("B", "banker", 5000), bet("B", "player_pair", 1000)])
    (b,) = s.bettors
    assert (b.gross, b.commission, b.net) == (-6000, 0, -6000)
    assert s.house_take == 6000


def test_star_city_player_banker_covers_only_banker_and_player() -> None:
    """On a tie with a Player pair: Banker/Player push, the Tie and pair wins are the house's."""
    bets = [
        bet("B", "banker", 200, seat=1),
        bet("B", "tie", 100, seat=1),
        bet("C", "player_pair", 100, seat=2),
    ]
    s = settle(SC_PB, TIE_PAIR, bets, A)
    assert [x.covered_by for x in s.lines] == [PLAYER_BANKER, HOUSE, HOUSE]
    assert [x.grade for x in s.lines] == [Grade.PUSH, Grade.WIN, Grade.WIN]
    assert [x.net for x in s.lines] == [0, 800, 1100]
    assert s.nets() == {"B": 792, "C": 1089, "A": 0}
    assert (s.house_covered, s.house_commission, s.house_take) == (-1900, 19, -1881)


def test_player_banker_loses_to_winners_and_pays_no_commission() -> None:
    bets = [bet("B", "banker", 5000, seat=1), bet("C", "banker", 300, seat=2)]
    s = settle(SC_PB, BANKER_7_6, bets, A)
    assert s.player_banker is not None
    assert (s.player_banker.gross, s.player_banker.commission, s.player_banker.net) == (
        -5300,
        0,
        -5300,
    )
    assert s.nets() == {"B": 4950, "C": 297, "A": -5300}
    assert s.house_take == 53


def test_star_city_banker_at_095_shows_the_5_percent_on_the_line() -> None:
    table = TableConfig(STAR_CITY, FUN, banker_pays="0.95")
    s = settle(table, BANKER_7_6, [bet("B", "banker", 100)])
    (line,) = s.lines
    assert (line.gross_win, line.commission, line.net) == (100, 5, 95)
    # then 1% of the round's 95 (0.95) — the bettor receives 94.05, floored to 94
    assert s.bettors[0].net == 94
    assert (s.house_covered, s.house_commission, s.house_take) == (-100, 6, -94)


# --- bid-squeeze money rules -------------------------------------------------------------------


def test_bid_squeeze_banker_pays_095_and_the_5_percent_is_the_house_commission() -> None:
    s = settle(BS, BANKER_7_6, [bet("B", "banker", 1000)])
    (line,) = s.lines
    assert (line.grade, line.multiplier) == (Grade.WIN, Fraction(19, 20))
    assert (line.gross_win, line.commission, line.net) == (1000, 50, 950)
    assert s.bettors[0].commission == 0  # no round commission in bid-squeeze
    assert (s.house_covered, s.house_commission, s.house_take) == (-1000, 50, -950)


def test_bid_squeeze_player_banker_pays_even_money_on_banker_and_the_house_keeps_5_percent() -> (
    None
):
    bets = [bet("B", "banker", 1000, seat=1), bet("C", "lucky6", 1000, seat=2)]
    s = settle(BS_PB, BANKER_7_6, bets, A)
    assert [x.covered_by for x in s.lines] == [PLAYER_BANKER, HOUSE]
    assert s.nets() == {"B": 950, "C": -1000, "A": -1000}
    assert (s.house_covered, s.house_commission, s.house_take) == (1000, 50, 1050)


def test_no_commission_banker_pays_half_on_six_and_lucky6_pays_12() -> None:
    bets = [bet("B", "banker_no_commission", 1000), bet("B", "lucky6", 500)]
    s = settle(BS, BANKER_SIX, bets)
    assert [x.net for x in s.lines] == [500, 6000]
    s = settle(BS, BANKER_7_6, bets)
    assert [x.net for x in s.lines] == [1000, -500]


@pytest.mark.parametrize(
    ("rounding", "net", "commission"),
    [(Rounding.FLOOR_HOUSE_FAVOUR, 104, 6), (Rounding.HALF_UP, 105, 5)],
)
def test_rounding_rule_applies_to_what_the_bettor_receives(
    rounding: Rounding, net: int, commission: int
) -> None:
    """Banker 110 × 0.95 = 104.5: floored (house's favour) or rounded half up."""
    table = replace(BS, rounding=rounding)
    s = settle(table, BANKER_7_6, [bet("B", "banker", 110)])
    (line,) = s.lines
    assert (line.gross_win, line.net, line.commission) == (110, net, commission)
    assert s.rounding is rounding
    assert s.house_take + line.net == 0


def test_push_returns_exactly_the_stake() -> None:
    bets = [
        bet("B", "banker", 1000),
        bet("B", "player", 2000),
        bet("B", "banker_no_commission", 1000),
    ]
    s = settle(BS, TIE_7, bets)
    assert all(
        (x.grade, x.gross_win, x.commission, x.net) == (Grade.PUSH, 0, 0, 0) for x in s.lines
    )
    assert s.nets() == {"B": 0} and s.house_take == 0


# --- shape and purity --------------------------------------------------------------------------


def _json_only(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_only(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_only(v) for v in value)
    return value is None or type(value) in (int, str)


def test_as_dict_is_ints_and_strings() -> None:
    bets = [bet("B", "banker", 200, seat=1), bet("C", "player", 100, seat=2)]
    d = settle(SC_PB, PLAYER_7_6, bets, A).as_dict()
    assert _json_only(d)
    assert json.loads(json.dumps(d)) == d
    assert d["house"] == {"covered": 0, "commission": 2, "take": 2}
    assert d["player_banker"] == {
        "id": "A",
        "role": "player_banker",
        "stake": 0,
        "gross": 100,
        "commission": 1,
        "net": 99,
    }
    assert d["lines"][1] == {
        "index": 1,
        "bettor_id": "C",
        "type": "player",
        "stake": 100,
        "grade": "win",
        "multiplier": "1",
        "gross_win": 100,
        "commission": 0,
        "net": 100,
        "covered_by": "player_banker",
    }


def test_settle_is_deterministic() -> None:
    bets = [bet("B", "banker", 200, seat=1), bet("C", "player", 100, seat=2)]
    assert settle(SC_PB, PLAYER_7_6, bets, A) == settle(SC_PB, PLAYER_7_6, list(bets), A)


@pytest.mark.parametrize(
    ("table", "bets", "pb"),
    [
        (SC_PB, [bet("B", "banker", 100)], None),
        (SC, [bet("B", "banker", 100)], A),
        (SC_PB, [bet("A", "banker", 100)], A),
        (SC, [bet("B", "banker", 0)], None),
        (SC, [replace(bet("B", "banker", 100), amount=True)], None),
    ],
)
def test_settle_refuses_what_validation_refuses_outright(
    table: TableConfig, bets: list[Bet], pb: PlayerBanker | None
) -> None:
    with pytest.raises(ValueError):
        settle(table, PLAYER_7_6, bets, pb)


# --- the property: no coin created or lost -----------------------------------------------------


def _fine(tier: Tier) -> Tier:
    """The tier with a 1-minor-unit chip, so random stakes hit every rounding case."""
    limits = {b: AreaLimit(min=1, max=lim.max) for b, lim in tier.limits.items()}
    return replace(tier, id=tier.id + "-fine", unit=1, min_bet=1, limits=limits)


_PROFILE_TIERS = {name: [t for t in TIERS.values() if t.profile == name] for name in PROFILES}
for _tiers in _PROFILE_TIERS.values():
    _tiers.append(_fine(_tiers[0]))


@st.composite
def tables(draw: st.DrawFn, profile: Profile, banking: Banking) -> TableConfig:
    """Any tier (and the 1-unit variant), pay-table choice and rounding rule of the profile."""
    return TableConfig(
        profile,
        draw(st.sampled_from(_PROFILE_TIERS[profile.name])),
        banking,
        draw(st.sampled_from(profile.banker_pays_choices[banking])),
        draw(st.sampled_from(profile.dragon_choices)) if profile.dragon_choices else None,
        draw(st.sampled_from(list(Rounding))),
    )


def _total(rng: random.Random, lim: AreaLimit, unit: int, cap: int | None) -> int:
    """A valid total for one area: the minimum, the maximum, or anything between (in units)."""
    low, high = lim.min // unit, (lim.max if cap is None else min(lim.max, cap)) // unit
    return unit * rng.choice([low, high, rng.randint(low, high), rng.randint(low, high)])


def _bettor_bets(
    rng: random.Random, table: TableConfig, bettor: str, seat: int | None, round_number: int
) -> list[Bet]:
    """1–4 areas, each staked in one or two bets, within every limit of the table."""
    profile, tier = table.profile, table.tier
    kinds = set(profile.offered)
    if not profile.banker_and_player_together:
        kinds.discard(rng.choice([BetType.BANKER, BetType.PLAYER]))
    last = profile.big_small_last_round
    if last is not None and round_number > last:
        kinds -= {BetType.BIG, BetType.SMALL}
    role = Role.SEATED if seat is not None else Role.SPECTATOR
    room, out = tier.table_max, []
    for kind in rng.sample(sorted(kinds), rng.randint(1, 4)):
        if room is not None and room < tier.limit(kind).min:
            continue
        total = _total(rng, tier.limit(kind), tier.unit, room)
        room = None if room is None else room - total
        split = rng.randint(1, total // tier.unit - 1) * tier.unit if total > tier.unit else 0
        for amount in (split, total - split) if split and rng.random() < 0.3 else (total,):
            out.append(Bet(bettor, role, kind, amount, 0, seat, 99, 10**12))
    return out


Case = tuple[TableConfig, Round, list[Bet], PlayerBanker | None]


@st.composite
def rounds(draw: st.DrawFn, profile: Profile, banking: Banking) -> Case:
    """A random table, a random real round (6 random cards through deal_round) and a random valid
    bet list; the bets come from a hypothesis-chosen seed (fast, and still reproducible)."""
    table = draw(tables(profile, banking))
    decks = table.profile.shoe_rules.decks
    cards = draw(st.lists(st.integers(0, CARDS_PER_DECK * decks - 1), min_size=6, max_size=6))
    round_number = draw(st.integers(1, 40))
    r = deal_round(cards, 0, round_number)
    pb = PlayerBanker("PB", 10**12) if table.banking is Banking.PLAYER_BANKER else None
    seats = table.profile.seats
    n_seated = draw(st.integers(1 if pb is not None else 0, seats))
    n_spectators = draw(st.integers(0, 3)) if table.profile.spectators_may_bet and n_seated else 0
    rng = random.Random(draw(st.integers(0, 2**32)))
    seat_numbers = rng.sample(range(1, seats + 1), n_seated)
    bets: list[Bet] = []
    for n, seat in enumerate(seat_numbers):
        bets += _bettor_bets(rng, table, f"S{n}", seat, round_number)
    for n in range(n_spectators):
        bets += _bettor_bets(rng, table, f"W{n}", None, round_number)
    rng.shuffle(bets)
    return table, r, bets, pb


def _check_conservation(s: Settlement, table: TableConfig) -> None:
    assert sum(s.nets().values()) + s.house_take == 0
    pays = table.pay_table
    for line in s.lines:
        assert line.commission >= 0
        if line.grade is Grade.PUSH:
            assert (line.gross_win, line.commission, line.net) == (0, 0, 0)
        elif line.grade is Grade.LOSE:
            assert line.net == -line.stake
        else:
            assert line.net == line.gross_win - line.commission
            best = table.rounding.receive(line.stake * pays.max_multiplier(line.type))
            assert 0 <= line.net <= best
    rate = pays.commission_rate
    for p in (*s.bettors, *(() if s.player_banker is None else (s.player_banker,))):
        assert p.net == p.gross - p.commission
        if p.gross <= 0:
            assert p.commission == 0
        else:
            assert 0 <= p.commission <= math.ceil(p.gross * rate)
    for b in s.bettors:
        assert b.net >= -b.stake


@pytest.mark.parametrize("banking", list(Banking), ids=str)
@pytest.mark.parametrize("profile", list(PROFILES.values()), ids=lambda p: p.name)
@settings(max_examples=examples(12.5))
@given(data=st.data())
def test_no_coin_is_created_or_lost(
    profile: Profile, banking: Banking, data: st.DataObject
) -> None:
    """For every profile and banking mode (4 × 1,250 cases): Σ nets + house take = 0, a push nets
    0, a loss nets −stake, a win nets at most stake × the bet's best multiplier, and settle is
    deterministic."""
    table, r, bets, pb = data.draw(rounds(profile, banking))
    accepted = validate_bets(table, bets, r.number, pb)
    s = settle(table, r, accepted.bets, pb)
    _check_conservation(s, table)
    assert s == settle(table, r, accepted.bets, pb)
    if pb is not None:
        assert s.player_banker is not None
        assert -s.player_banker.gross <= accepted.player_banker_liability
