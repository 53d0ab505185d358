"""Squeeze rights (both profiles) and the reveal plan of a dealt round."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.bets import Bet, BetType, Role
from baccarat.outcome import Round, deal_round
from baccarat.squeeze import Profile, SqueezeRights, reveal_plan, squeeze_rights

SEATED, SPECTATOR = Role.SEATED, Role.SPECTATOR
B, P, T = BetType.BANKER, BetType.PLAYER, BetType.TIE
NC = BetType.BANKER_NO_COMMISSION


def bet(
    who: str,
    type_: BetType,
    amount: int,
    order: int,
    level: int | None = None,
    role: Role = SEATED,
) -> Bet:
    return Bet(who, role, type_, amount, order=order, level=level)


def star(*bets: Bet, pb: str | None = None) -> str | None:
    rights = squeeze_rights("star-city", bets, player_banker_id=pb)
    assert rights.player == rights.banker  # one leader for the whole round
    return rights.player


def bid(*bets: Bet) -> tuple[str | None, str | None]:
    rights = squeeze_rights(Profile.BID_SQUEEZE, bets)
    return rights.player, rights.banker


# --- star-city ---------------------------------------------------------------------------------
def test_star_city_largest_total_stake_leads() -> None:
    # a: Banker 500 = 500; b: Player 300 + Tie 100 + Player Pair 200 = 600 → b leads.
    bets = (
        bet("a", B, 500, 0),
        bet("b", P, 300, 1),
        bet("b", T, 100, 2),
        bet("b", BetType.PLAYER_PAIR, 200, 3),
    )
    assert star(*bets) == "b"


def test_star_city_equal_stakes_higher_level_then_earlier_order_then_id() -> None:
    assert star(bet("a", B, 500, 0, level=3), bet("b", P, 500, 1, level=7)) == "b"
    assert star(bet("a", B, 500, 1, level=3), bet("b", P, 500, 0, level=3)) == "b"
    assert star(bet("b", B, 500, 0, level=3), bet("a", P, 500, 0, level=3)) == "a"
    # A known level outranks an unknown one.
    assert star(bet("a", B, 500, 0), bet("b", P, 500, 1, level=0)) == "b"


def test_star_city_player_banker_and_spectators_never_squeeze() -> None:
    bets = (
        bet("pb", T, 1000, 0),
        bet("watcher", P, 5000, 1, role=SPECTATOR),
        bet("c", B, 100, 2),
    )
    assert star(*bets, pb="pb") == "c"
    assert star(bet("pb", B, 100, 0), pb="pb") is None
    assert star() is None  # nobody staked: the system reveals after the countdown


# --- bid-squeeze -------------------------------------------------------------------------------
def test_bid_largest_stake_per_hand() -> None:
    bets = (
        bet("a", B, 300, 0),
        bet("b", B, 500, 1),
        bet("c", P, 200, 2),
        bet("d", P, 100, 3),
        bet("d", T, 900, 4),  # side bets do not count
    )
    assert bid(*bets) == ("c", "b")


def test_bid_stake_is_summed_and_no_commission_counts_as_banker() -> None:
    # a: Banker 300 + No-commission Banker 300 = 600 beats b: Banker 500.
    assert bid(bet("a", B, 300, 0), bet("b", B, 500, 1), bet("a", NC, 300, 2)) == (None, "a")
    assert bid(bet("a", NC, 100, 0)) == (None, "a")


def test_bid_equal_stakes_earlier_accepted_bet() -> None:
    assert bid(bet("a", B, 500, 5), bet("b", B, 500, 2)) == (None, "b")
    assert bid(bet("a", P, 500, 1), bet("b", P, 500, 2)) == ("a", None)
    # The bettor's earliest bet on the hand counts.
    assert bid(bet("a", P, 200, 3), bet("b", P, 300, 2), bet("a", P, 100, 1)) == ("a", None)


def test_bid_only_seated_bettors() -> None:
    bets = (
        bet("s", B, 100, 0),
        bet("v", B, 900, 1, role=SPECTATOR),
        bet("v", P, 900, 2, role=SPECTATOR),
    )
    assert bid(*bets) == (None, "s")


def test_bid_equal_banker_and_player_stakes_take_the_player_hand() -> None:
    # a tops both hands with equal stakes → a squeezes Player; Banker goes to the next: b.
    assert bid(bet("a", B, 500, 0), bet("a", P, 500, 1), bet("b", B, 200, 2)) == ("a", "b")
    # Nobody else on Banker: the system reveals the Banker hand.
    assert bid(bet("a", B, 500, 0), bet("a", P, 500, 1)) == ("a", None)
    # Someone staked more on Player: a keeps the Banker hand.
    assert bid(bet("a", B, 500, 0), bet("a", P, 500, 1), bet("c", P, 800, 2)) == ("c", "a")
    # Equal Player stake accepted earlier: c squeezes Player, a keeps Banker.
    assert bid(bet("c", P, 500, 0), bet("a", B, 500, 1), bet("a", P, 500, 2)) == ("c", "a")


def test_bid_unequal_stakes_may_squeeze_both_hands() -> None:
    assert bid(bet("a", B, 500, 0), bet("a", P, 400, 1), bet("b", B, 100, 2)) == ("a", "a")


def test_profile_must_be_known() -> None:
    with pytest.raises(ValueError):
        squeeze_rights("macau", [])


@given(
    st.lists(
        st.tuples(
            st.sampled_from("abcde"),
            st.sampled_from([B, P, NC, T]),
            st.integers(1, 5).map(lambda x: x * 100),
            st.sampled_from([SEATED, SPECTATOR]),
            st.integers(0, 3),
        ),
        max_size=12,
    ),
    st.sampled_from(list(Profile)),
)
def test_rights_are_deterministic_and_go_to_seated_bettors(
    rows: list[tuple[str, BetType, int, Role, int]], profile: Profile
) -> None:
    bets = [
        Bet(w, role, t, amt, order=i, level=lvl) for i, (w, t, amt, role, lvl) in enumerate(rows)
    ]
    rights = squeeze_rights(profile, bets)
    assert squeeze_rights(profile, list(reversed(bets))) == rights  # input order is irrelevant
    seated = {b.bettor_id for b in bets if b.role is SEATED}
    assert {rights.player, rights.banker} <= seated | {None}


# --- reveal plan -------------------------------------------------------------------------------
def test_reveal_plan_four_cards() -> None:
    # Player 9♠ T♠ (natural 9), Banker A♠ A♥ → four cards from position 10.
    rnd = Round(number=3, start=10, player=(8, 9), banker=(0, 13))
    plan = reveal_plan(rnd, SqueezeRights(Profile.BID_SQUEEZE, "p1", "b1"))
    assert [(c.position, c.hand, c.index, c.face, c.squeezer) for c in plan.cards] == [
        (10, "player", 1, "up", None),
        (11, "banker", 1, "up", None),
        (12, "player", 2, "down", "p1"),
        (13, "banker", 2, "down", "b1"),
    ]


def test_reveal_plan_third_cards_face_down_same_squeezer() -> None:
    # Player 2♠ 3♠ = 5 draws; Banker 2♥ 2♦ = 4 and Player's third card 5 → Banker draws.
    cards = [1, 14, 2, 27, 4, 5]
    rnd = deal_round(cards, 0, number=7)
    assert rnd.cards_dealt == 6
    rights = squeeze_rights("star-city", [bet("lead", P, 100, 0)])
    plan = reveal_plan(rnd, rights)
    assert [(c.position, c.hand, c.index, c.face, c.squeezer) for c in plan.cards] == [
        (0, "player", 1, "up", None),
        (1, "banker", 1, "up", None),
        (2, "player", 2, "down", "lead"),
        (3, "banker", 2, "down", "lead"),
        (4, "player", 3, "down", "lead"),
        (5, "banker", 3, "down", "lead"),
    ]
    d = plan.as_dict()
    assert json.loads(json.dumps(d)) == d
    assert {k: d[k] for k in ("profile", "player", "banker")} == {
        "profile": "star-city",
        "player": "lead",
        "banker": "lead",
    }
    assert [c["position"] for c in d["initial"]] == [0, 1, 2, 3]
    assert [c["position"] for c in d["draws"]] == [4, 5]
    assert "card" not in json.dumps(d)  # no card faces in the plan


def test_reveal_plan_banker_third_card_only() -> None:
    # Player 3♠ 4♠ = 7 stands; Banker A♥ 2♥ = 3 draws → Banker's third card at start + 4.
    rnd = deal_round([2, 13, 3, 14, 9], 0)
    assert (len(rnd.player), len(rnd.banker)) == (2, 3)
    plan = reveal_plan(rnd, SqueezeRights(Profile.BID_SQUEEZE, None, "b"))
    assert [(c.position, c.hand, c.face, c.squeezer) for c in plan.cards][-1] == (
        4,
        "banker",
        "down",
        "b",
    )
    assert plan.cards[2].squeezer is None  # Player hand: nobody → system reveal
