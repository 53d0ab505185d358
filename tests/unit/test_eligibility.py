"""Who leaves after a round: below the tier minimum balance, idle 5 rounds, orphaned spectators."""

from __future__ import annotations

from dataclasses import replace

import pytest

from baccarat.bets import Bet, BetType, PlayerBanker, Role
from baccarat.cards import parse_code
from baccarat.eligibility import below_minimum_after, idle_bettors, spectators_to_remove
from baccarat.outcome import deal_round
from baccarat.profiles import BID_SQUEEZE, STAR_CITY, Banking, TableConfig, repo_tiers
from baccarat.settlement import settle

TIERS = repo_tiers()
FUN = TIERS["star-city-fun"]
SC = TableConfig(STAR_CITY, FUN)
SC_PB = TableConfig(STAR_CITY, FUN, Banking.PLAYER_BANKER)
BS = TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-standard"])


# --- minimum balance ---------------------------------------------------------------------------


def test_bettors_falling_below_the_bettor_minimum() -> None:
    """Fun tier: bettors need 1,000. B ends on 999 (out), C on exactly 1,000 (stays)."""
    out = below_minimum_after(SC, {"B": 1_199, "C": 1_100, "D": 900}, {"B": -200, "C": -100})
    assert out.bettors == ("B", "D")
    assert out.player_banker is None
    assert dict(out.balances_after) == {"B": 999, "C": 1_000, "D": 900}


def test_player_banker_is_held_to_its_own_minimum() -> None:
    """Fun tier: the player-banker needs 35,000; 35,099 − 100 = 34,999 is out, while the same
    balance for a bettor would be fine."""
    out = below_minimum_after(SC_PB, {"A": 35_099, "B": 35_099}, {"A": -100, "B": -100}, "A")
    assert out.player_banker == "A"
    assert out.bettors == ()
    stays = below_minimum_after(SC_PB, {"A": 35_100}, {"A": -100}, "A")
    assert stays.player_banker is None


def test_below_minimum_from_a_real_settlement() -> None:
    r = deal_round([parse_code(c) for c in ["7S", "4D", "KH", "2C"]], 0)  # Player wins
    bets = [
        Bet("B", Role.SEATED, BetType.BANKER, 200, seat=1, balance=1_100),
        Bet("C", Role.SEATED, BetType.PLAYER, 100, seat=2, balance=1_000),
    ]
    pb = PlayerBanker("A", 35_000)
    s = settle(SC_PB, r, bets, pb)
    out = below_minimum_after(SC_PB, {"A": 35_000, "B": 1_100, "C": 1_000}, s.nets(), "A")
    assert out.bettors == ("B",)  # 900
    assert out.player_banker is None  # 35,099
    assert out.balances_after["C"] == 1_099


def test_nets_need_balances() -> None:
    with pytest.raises(ValueError):
        below_minimum_after(SC, {"B": 5_000}, {"B": 100, "X": 5})
    with pytest.raises(ValueError):
        below_minimum_after(SC_PB, {"B": 5_000}, {"B": 100}, "A")


# --- five idle rounds --------------------------------------------------------------------------

HISTORY = [{"B", "C"}, {"C"}, {"C"}, {"D"}, {"C"}, {"C"}]  # oldest first


def test_star_city_removes_bettors_idle_five_rounds_in_a_row() -> None:
    """B last bet 6 rounds ago (out); D bet 3 rounds ago (stays); E never bet (out)."""
    assert STAR_CITY.idle_round_limit == 5
    assert idle_bettors(SC, HISTORY, ["B", "C", "D", "E"]) == ("B", "E")


def test_four_idle_rounds_are_not_enough() -> None:
    history = [{"B"}, set(), set(), set(), set()]
    assert idle_bettors(SC, history, ["B"]) == ()
    assert idle_bettors(SC, [*history, set()], ["B"]) == ("B",)


def test_a_short_history_removes_nobody() -> None:
    assert idle_bettors(SC, [set()] * 4, ["B"]) == ()


def test_newcomers_need_a_full_window_at_the_table() -> None:
    assert idle_bettors(SC, HISTORY, ["E", "F"], rounds_present={"E": 5, "F": 4}) == ("E",)


def test_the_limit_is_the_profiles() -> None:
    """Bid-squeeze's seed has no idle rule; a profile with limit 2 removes after 2 rounds."""
    assert idle_bettors(BS, HISTORY, ["B", "E"]) == ()
    quick = TableConfig(replace(STAR_CITY, idle_round_limit=2), FUN)
    assert idle_bettors(quick, HISTORY, ["B", "C", "D"]) == ("B", "D")


# --- bid-squeeze spectators without seated bettors ---------------------------------------------


def test_spectators_leave_when_the_seats_empty() -> None:
    out = spectators_to_remove(BS, seated=[], spectators=["W1", "W2", "W3"], bet_this_round={"W2"})
    assert out.now == ("W1", "W3")
    assert out.after_settlement == ("W2",)


def test_spectators_stay_while_someone_is_seated() -> None:
    out = spectators_to_remove(BS, seated=["S1"], spectators=["W1"], bet_this_round=set())
    assert (out.now, out.after_settlement) == ((), ())


def test_star_city_has_no_such_rule() -> None:
    out = spectators_to_remove(SC, seated=[], spectators=["W1"], bet_this_round=set())
    assert (out.now, out.after_settlement) == ((), ())
