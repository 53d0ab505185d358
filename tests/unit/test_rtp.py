"""The exact RTP calculator: published figures, closed forms, invariants, and the fast path
against the plain reference and against rounds dealt by the engine itself."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from baccarat.cards import CARDS_PER_DECK
from baccarat.outcome import Result, deal_round
from baccarat.paytables import BID_SQUEEZE, STAR_CITY, BetType, PayTable
from baccarat.rtp import (
    Facts,
    RtpReport,
    compute_rtp,
    format_table,
    outcome_distribution,
    rtp_naive,
)

COMMON_DRAGON = BID_SQUEEZE.with_dragon("common")
TABLES = [BID_SQUEEZE, COMMON_DRAGON, STAR_CITY, BID_SQUEEZE.with_banker(Fraction(1))]


def rounded(x: Fraction, digits: int) -> Fraction:
    return Fraction(round(x, digits))


def edge_percent(report: RtpReport, bet: BetType) -> Fraction:
    return rounded(report.bet(bet).house_edge * 100, 4)


# --- published 8-deck figures -------------------------------------------------------------------


def test_outcome_probabilities_8_decks() -> None:
    r = compute_rtp(BID_SQUEEZE, 8)
    assert rounded(r.p_banker, 6) == Fraction("0.458597")
    assert rounded(r.p_player, 6) == Fraction("0.446247")
    assert rounded(r.p_tie, 6) == Fraction("0.095156")


@pytest.mark.parametrize(
    ("table", "bet", "percent"),
    [
        (BID_SQUEEZE, BetType.BANKER, "1.0579"),
        (BID_SQUEEZE, BetType.PLAYER, "1.2351"),
        (BID_SQUEEZE, BetType.TIE, "14.3596"),
        (BID_SQUEEZE, BetType.BANKER_PAIR, "10.3614"),
        (BID_SQUEEZE, BetType.PLAYER_PAIR, "10.3614"),
        (BID_SQUEEZE, BetType.BANKER_NO_COMMISSION, "1.4581"),
        (COMMON_DRAGON, BetType.PLAYER_DRAGON, "2.6517"),
        (COMMON_DRAGON, BetType.BANKER_DRAGON, "9.3731"),
    ],
)
def test_published_house_edges_8_decks(table: PayTable, bet: BetType, percent: str) -> None:
    assert edge_percent(compute_rtp(table, 8), bet) == Fraction(percent)


# --- invariants ---------------------------------------------------------------------------------


@pytest.mark.parametrize("decks", [1, 2, 4, 6, 8])
@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t.name}/{t.dragon_name}/{t.banker}")
def test_probabilities_are_exact_and_complete(table: PayTable, decks: int) -> None:
    r = compute_rtp(table, decks)
    assert r.p_banker + r.p_player + r.p_tie == 1
    assert [e.bet for e in r.bets] == [b for b in BetType if b in table.offered]
    keep = 1 - table.commission_rate
    for e in r.bets:
        assert e.p_win + e.p_push + e.p_lose == 1, e.bet
        assert sum(p for _, p in e.multipliers) == e.p_win
        assert all(p > 0 and m > 0 for m, p in e.multipliers)
        # The definition of the house edge, including the commission on a winning net.
        assert e.house_edge == e.p_lose - sum(m * keep * p for m, p in e.multipliers)
        assert e.rtp == 1 - e.house_edge


@pytest.mark.parametrize("decks", [1, 4, 8])
def test_outcome_distribution_sums_to_one(decks: int) -> None:
    dist = outcome_distribution(decks)
    assert sum(dist.values()) == 1
    assert all(p > 0 for p in dist.values())


def test_star_city_commission_is_taken_on_wins() -> None:
    r = compute_rtp(STAR_CITY, 4)
    keep = Fraction(99, 100)
    assert r.bet(BetType.BANKER).house_edge == r.p_player - keep * r.p_banker
    assert r.bet(BetType.PLAYER).house_edge == r.p_banker - keep * r.p_player
    assert r.bet(BetType.TIE).house_edge == (1 - r.p_tie) - 8 * keep * r.p_tie
    # Banker 1:1 less 1% favours the bettor (the player-banker covers it, not the house).
    assert r.bet(BetType.BANKER).house_edge < 0 < r.bet(BetType.PLAYER).house_edge
    # Same game, no commission, 0.95 Banker: star-city's outcome probabilities are the shoe's.
    assert (r.p_banker, r.p_player, r.p_tie) == (
        compute_rtp(BID_SQUEEZE, 4).p_banker,
        compute_rtp(BID_SQUEEZE, 4).p_player,
        compute_rtp(BID_SQUEEZE, 4).p_tie,
    )


def test_even_money_banker_variant() -> None:
    r = compute_rtp(BID_SQUEEZE.with_banker(Fraction(1)), 8)
    assert r.bet(BetType.BANKER).house_edge == r.p_player - r.p_banker
    assert r.bet(BetType.BANKER).multipliers == ((Fraction(1), r.p_banker),)


def test_bets_on_the_same_event_agree() -> None:
    r = compute_rtp(BID_SQUEEZE, 8)
    six = dict(r.bet(BetType.BANKER_NO_COMMISSION).multipliers)[Fraction(1, 2)]
    assert r.bet(BetType.LUCKY6).p_win == six  # both: Banker wins with 6
    assert r.bet(BetType.BANKER_NO_COMMISSION).p_win == r.p_banker
    assert r.bet(BetType.BIG).p_win + r.bet(BetType.SMALL).p_win == 1
    # Dragons push only on a natural tie, for both sides alike.
    assert r.bet(BetType.PLAYER_DRAGON).p_push == r.bet(BetType.BANKER_DRAGON).p_push > 0
    assert r.bet(BetType.PLAYER_DRAGON).p_push < r.p_tie


def test_dragon_tables_differ_only_in_pays() -> None:
    seed, common = compute_rtp(BID_SQUEEZE, 8), compute_rtp(COMMON_DRAGON, 8)
    for bet in (BetType.PLAYER_DRAGON, BetType.BANKER_DRAGON):
        a, b = seed.bet(bet), common.bet(bet)
        assert (a.p_win, a.p_push, a.p_lose) == (b.p_win, b.p_push, b.p_lose)
        assert [p for _, p in a.multipliers] == [p for _, p in b.multipliers]
        assert [m for m, _ in b.multipliers] == [Fraction(n) for n in (1, 2, 4, 6, 10, 30)]
        assert a.house_edge > b.house_edge  # the seed's 30/10/5/3/2/1 pays less


@pytest.mark.parametrize("decks", [1, 2, 4, 6, 8])
def test_pair_probabilities_match_closed_forms(decks: int) -> None:
    """Pairs need rank identity, perfect pairs suit identity: check both against arithmetic on
    the first four cards (exchangeable, so the second card of a hand is uniform on the rest)."""
    n = CARDS_PER_DECK * decks
    dist = outcome_distribution(decks)
    r = compute_rtp(BID_SQUEEZE, decks)

    def p(pred: str) -> Fraction:
        return sum((q for f, q in dist.items() if getattr(f, pred)), Fraction(0))

    pair = Fraction(4 * decks - 1, n - 1)
    perfect = Fraction(decks - 1, n - 1)
    assert p("player_pair") == p("banker_pair") == pair
    assert p("player_perfect_pair") == p("banker_perfect_pair") == perfect
    # Banker's two cards given a Player pair of rank r (same suit s for a perfect pair).
    both_pairs = pair * Fraction(
        (4 * decks - 2) * (4 * decks - 3) + (n - 4 * decks) * (4 * decks - 1), (n - 2) * (n - 3)
    )
    both_perfect = perfect * Fraction(
        (decks - 2) * (decks - 3) + (n - decks) * (decks - 1), (n - 2) * (n - 3)
    )
    assert r.bet(BetType.ANY_PAIR).p_win == 2 * pair - both_pairs
    assert r.bet(BetType.PERFECT_PAIR).p_win == 2 * perfect - both_perfect
    assert r.bet(BetType.PLAYER_PAIR).house_edge == 1 - 12 * pair


def test_single_deck_has_no_perfect_pair() -> None:
    e = compute_rtp(BID_SQUEEZE, 1).bet(BetType.PERFECT_PAIR)
    assert e.p_win == 0
    assert e.multipliers == ()
    assert e.house_edge == 1


def test_edges_move_with_the_deck_count() -> None:
    """More decks: Banker slightly worse, Player and Tie slightly better, pairs much better."""
    r4, r6, r8 = (compute_rtp(BID_SQUEEZE, d) for d in (4, 6, 8))
    for bet, rising in [
        (BetType.BANKER, True),
        (BetType.PLAYER, False),
        (BetType.TIE, False),
        (BetType.PLAYER_PAIR, False),
        (BetType.PERFECT_PAIR, False),
    ]:
        edges = [r.bet(bet).house_edge for r in (r4, r6, r8)]
        assert edges == sorted(edges, reverse=not rising), bet
    assert edge_percent(r6, BetType.BANKER) == Fraction("1.0558")
    assert edge_percent(r6, BetType.TIE) == Fraction("14.4382")


@pytest.mark.parametrize("decks", [0, -1, True, 2.0])
def test_rejects_bad_deck_counts(decks: object) -> None:
    with pytest.raises(ValueError, match="decks"):
        compute_rtp(BID_SQUEEZE, decks)  # type: ignore[arg-type]


# --- cross-checks ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("decks", [1, 8])
def test_fast_path_equals_the_naive_reference(decks: int) -> None:
    assert compute_rtp(BID_SQUEEZE, decks) == rtp_naive(BID_SQUEEZE, decks)


@pytest.mark.parametrize("decks", [4, 8])
def test_every_dealt_round_is_an_enumerated_class(decks: int) -> None:
    """Rounds dealt by the engine fall in the enumerated classes, with the same result."""
    dist = outcome_distribution(decks)
    rng = random.Random(20240601 + decks)
    seen: set[Facts] = set()
    for _ in range(300):
        cards = list(range(CARDS_PER_DECK * decks))
        rng.shuffle(cards)
        start = 0
        while start + 6 <= len(cards) and start < 300:
            rnd = deal_round(cards, start)
            facts = Facts(
                player_total=rnd.player_total,
                banker_total=rnd.banker_total,
                player_natural=rnd.player_natural,
                banker_natural=rnd.banker_natural,
                player_pair=rnd.player_pair,
                banker_pair=rnd.banker_pair,
                player_perfect_pair=rnd.player_perfect_pair,
                banker_perfect_pair=rnd.banker_perfect_pair,
                cards_dealt=rnd.cards_dealt,
                banker_card_count=rnd.banker_card_count,
            )
            assert facts in dist, rnd
            assert facts.result is rnd.result
            seen.add(facts)
            start = rnd.end
    assert len(seen) > 200
    assert any(f.result is Result.TIE and f.player_natural for f in seen)


# --- output -------------------------------------------------------------------------------------


def test_as_dict_is_json_with_exact_and_decimal_figures() -> None:
    r = compute_rtp(STAR_CITY, 4)
    d = json.loads(json.dumps(r.as_dict()))
    assert (d["table"], d["decks"], d["commission_rate"]) == ("star-city", 4, "1/100")
    assert Fraction(d["outcomes"]["banker"]["exact"]) == r.p_banker
    assert [b["bet"] for b in d["bets"]] == [e.bet.value for e in r.bets]
    for entry, e in zip(d["bets"], r.bets, strict=True):
        assert Fraction(entry["house_edge"]["exact"]) == e.house_edge
        assert Fraction(entry["p_win"]["exact"]) == e.p_win
        assert len(entry["p_win"]["decimal"].split(".")[1]) >= 6
        assert abs(Fraction(entry["p_win"]["decimal"]) - e.p_win) < Fraction(1, 10**9)
        assert entry["multipliers"][0]["net_after_commission"] == str(
            Fraction(entry["multipliers"][0]["pays"]) * Fraction(99, 100)
        )
    assert d["bets"][0]["house_edge_percent"] == "-0.7834%"


def test_format_table_lists_every_bet() -> None:
    text = format_table(compute_rtp(COMMON_DRAGON, 8))
    lines = text.splitlines()
    assert lines[0] == "Exact RTP — bid-squeeze, 8 decks, dragon table common"
    for bet in BetType:
        assert any(line.startswith(bet.value + " ") for line in lines), bet
    banker = next(line for line in lines if line.startswith("banker "))
    assert banker.split() == [
        "banker",
        "0.95",
        "0.458597",
        "0.095156",
        "0.446247",
        "1.0579%",
        "98.9421%",
    ]
    assert "  wins 30" in text
