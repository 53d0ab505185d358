"""Every fact of ``outcome.Round`` on hand-built card lists (expected values worked out by hand
from game-rules.md, not computed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.cards import parse_code
from baccarat.outcome import Result, Round, deal_round


def ids(text: str) -> list[int]:
    """Card ids from codes; ``@k`` puts the card in deck k (so ``KS KS@1`` is two real cards of
    an 8-deck shoe with the same rank and suit)."""
    out = []
    for word in text.split():
        name, _, deck = word.partition("@")
        out.append(parse_code(name) + 52 * int(deck or 0))
    return out


FILLER = "AC 2C 3C"  # cards before the round's start, never dealt
TRAILER = "QD QD QD"  # cards after the round, never dealt


def facts(
    number: int,
    start: int,
    player: str,
    p_pos: tuple[int, ...],
    p_total: int,
    banker: str,
    b_pos: tuple[int, ...],
    b_total: int,
    result: str,
    naturals: tuple[bool, bool],
    pairs: tuple[bool, bool],
    perfect: tuple[bool, bool],
    margin: int,
) -> dict[str, Any]:
    """The facts() dict, spelled out; positions are relative to ``start``."""
    p_cards, b_cards = player.split(), banker.split()
    return {
        "round_number": number,
        "start": start,
        "player": {
            "cards": p_cards,
            "positions": [start + p for p in p_pos],
            "total": p_total,
        },
        "banker": {
            "cards": b_cards,
            "positions": [start + p for p in b_pos],
            "total": b_total,
        },
        "result": result,
        "natural": naturals[0] or naturals[1],
        "player_natural": naturals[0],
        "banker_natural": naturals[1],
        "player_pair": pairs[0],
        "banker_pair": pairs[1],
        "player_perfect_pair": perfect[0],
        "banker_perfect_pair": perfect[1],
        "cards_dealt": len(p_cards) + len(b_cards),
        "banker_card_count": len(b_cards),
        "winning_margin": margin,
    }


NO = (False, False)
BOTH = (True, True)

# (name, cards in dealing order P B P B [P3] [B3], start, expected facts)
CASES = [
    (
        "both stand: player 7 beats banker 6",
        "7S QS KH 6D",
        0,
        facts(1, 0, "7S KH", (0, 2), 7, "QS 6D", (1, 3), 6, "player", NO, NO, NO, 1),
    ),
    (
        "player stood, banker 3 draws: its third card comes right after the four",
        "6H 2C TS AD 5S",
        3,
        facts(1, 3, "6H TS", (0, 2), 6, "2C AD 5S", (1, 3, 4), 8, "banker", NO, NO, NO, 2),
    ),
    (
        "both draw, banker's third card after player's; seed: 4 + 10 + 9 = 13 → 3",
        "4S 3H TS KC 9C 9H",
        3,
        facts(1, 3, "4S TS 9C", (0, 2, 4), 3, "3H KC 9H", (1, 3, 5), 2, "player", NO, NO, NO, 1),
    ),
    (
        "player draws a 2, banker stands on 6",
        "5D 6S KD QH 2H",
        0,
        facts(1, 0, "5D KD 2H", (0, 2, 4), 7, "6S QH", (1, 3), 6, "player", NO, NO, NO, 1),
    ),
    (
        "banker 3 stands when player's third card is an 8",
        "AS 2D 2S AH 8C",
        0,
        facts(1, 0, "AS 2S 8C", (0, 2, 4), 1, "2D AH", (1, 3), 3, "banker", NO, NO, NO, 2),
    ),
    (
        "natural 9 beats natural 8",
        "4C 3D 5C 5H",
        0,
        facts(1, 0, "4C 5C", (0, 2), 9, "3D 5H", (1, 3), 8, "player", BOTH, NO, NO, 1),
    ),
    (
        "banker natural 8 stops player's draw on 0",
        "TC 8S QC KS",
        0,
        facts(1, 0, "TC QC", (0, 2), 0, "8S KS", (1, 3), 8, "banker", (False, True), NO, NO, 8),
    ),
    (
        "player natural 8 stops banker's draw on 0",
        "5H JD 3H QC",
        0,
        facts(1, 0, "5H 3H", (0, 2), 8, "JD QC", (1, 3), 0, "player", (True, False), NO, NO, 8),
    ),
    (
        "natural tie 9 – 9, margin 0",
        "9S 9D KH QD",
        3,
        facts(1, 3, "9S KH", (0, 2), 9, "9D QD", (1, 3), 9, "tie", BOTH, NO, NO, 0),
    ),
    (
        "two-card tie 7 – 7; seed: 9 + 8 = 17 → 7",
        "9S 5C 8H 2C",
        0,
        facts(1, 0, "9S 8H", (0, 2), 7, "5C 2C", (1, 3), 7, "tie", NO, NO, NO, 0),
    ),
    (
        "three-card tie 9 – 9, not natural",
        "AS 3H 3D KC 5C 6S",
        1,
        facts(1, 1, "AS 3D 5C", (0, 2, 4), 9, "3H KC 6S", (1, 3, 5), 9, "tie", NO, NO, NO, 0),
    ),
    (
        "player perfect pair (K♠ from two decks), banker plain pair (K♥ K♦)",
        "KS KH KS@1 KD AS 6C",
        0,
        facts(
            1,
            0,
            "KS KS AS",
            (0, 2, 4),
            1,
            "KH KD 6C",
            (1, 3, 5),
            6,
            "banker",
            NO,
            BOTH,
            (True, False),
            5,
        ),
    ),
    (
        "K + Q is not a pair; banker natural with a perfect pair 9♦ 9♦",
        "KS 9D QS 9D@2",
        0,
        facts(
            1,
            0,
            "KS QS",
            (0, 2),
            0,
            "9D 9D",
            (1, 3),
            8,
            "banker",
            (False, True),
            (False, True),
            (False, True),
            8,
        ),
    ),
    (
        "player's third card matching the first is not a pair",
        "5S 6H 9S@1 KD 5S@2",
        0,
        facts(1, 0, "5S 9S 5S", (0, 2, 4), 9, "6H KD", (1, 3), 6, "player", NO, NO, NO, 3),
    ),
    (
        "banker wins with 6 on three cards (Lucky 6, 20:1)",
        "TS 2H KS AD 5C 3S",
        2,
        facts(1, 2, "TS KS 5C", (0, 2, 4), 5, "2H AD 3S", (1, 3, 5), 6, "banker", NO, NO, NO, 1),
    ),
    (
        "banker wins with 6 on two cards after player drew (Lucky 6, 12:1)",
        "TS 4H 5S 2D 9C",
        0,
        facts(1, 0, "TS 5S 9C", (0, 2, 4), 4, "4H 2D", (1, 3), 6, "banker", NO, NO, NO, 2),
    ),
    (
        "non-natural win by 9 (dragon 30)",
        "AS TH 3S QH 5D KD",
        0,
        facts(1, 0, "AS 3S 5D", (0, 2, 4), 9, "TH QH KD", (1, 3, 5), 0, "player", NO, NO, NO, 9),
    ),
]


@pytest.mark.parametrize(("name", "cards", "start", "want"), CASES, ids=[c[0] for c in CASES])
def test_round_facts(name: str, cards: str, start: int, want: dict[str, Any]) -> None:
    deck = ids(" ".join(FILLER.split()[:start])) + ids(cards) + ids(TRAILER)
    rnd = deal_round(deck, start)
    assert rnd.facts() == want
    # the properties say the same as facts()
    assert rnd.start == want["start"] == start
    assert rnd.number == 1
    assert list(rnd.player_positions) == want["player"]["positions"]
    assert list(rnd.banker_positions) == want["banker"]["positions"]
    assert [deck[p] for p in rnd.player_positions] == list(rnd.player)
    assert [deck[p] for p in rnd.banker_positions] == list(rnd.banker)
    assert rnd.player_total == want["player"]["total"]
    assert rnd.banker_total == want["banker"]["total"]
    assert rnd.result is Result(want["result"])
    assert rnd.natural == want["natural"]
    assert rnd.player_natural == want["player_natural"]
    assert rnd.banker_natural == want["banker_natural"]
    assert rnd.player_pair == want["player_pair"]
    assert rnd.banker_pair == want["banker_pair"]
    assert rnd.player_perfect_pair == want["player_perfect_pair"]
    assert rnd.banker_perfect_pair == want["banker_perfect_pair"]
    assert rnd.cards_dealt == want["cards_dealt"] == len(cards.split())
    assert rnd.banker_card_count == want["banker_card_count"]
    assert rnd.winning_margin == want["winning_margin"]
    assert rnd.end == start + rnd.cards_dealt
    # facts() is JSON: it survives a round trip unchanged
    assert json.loads(json.dumps(rnd.facts())) == want


def test_banker_third_card_position_depends_on_players_draw() -> None:
    stood = deal_round(ids("7S 2C KH AD 5S 9D"), 0)  # P 7 stands, B 3 draws at 4
    drew = deal_round(ids("2S 2C KH AD 5S 9D"), 0)  # P 2 draws at 4, B 3 draws at 5
    assert stood.banker_positions == (1, 3, 4) and stood.banker[2] == parse_code("5S")
    assert drew.player_positions == (0, 2, 4) and drew.player[2] == parse_code("5S")
    assert drew.banker_positions == (1, 3, 5) and drew.banker[2] == parse_code("9D")


@pytest.mark.parametrize(
    ("first_two", "pair", "perfect"),
    [
        ("KS KS@3", True, True),
        ("KS KH", True, False),
        ("KS QS", False, False),  # both worth 0, different ranks: not a pair
        ("TS JS", False, False),
        ("8D 8D@1", True, True),
        ("8D 8C", True, False),
        ("AS AS@7", True, True),
        ("AS 2S", False, False),
    ],
)
def test_pairs_on_either_side(first_two: str, pair: bool, perfect: bool) -> None:
    a, b = ids(first_two)
    filler = ids("9C KH")  # the other side: 9 + K = 9, a natural: nobody draws, no pair
    player_side = deal_round([a, filler[0], b, filler[1]], 0)
    banker_side = deal_round([filler[0], a, filler[1], b], 0)
    assert (player_side.player_pair, player_side.player_perfect_pair) == (pair, perfect)
    assert (banker_side.banker_pair, banker_side.banker_perfect_pair) == (pair, perfect)
    assert not player_side.banker_pair and not banker_side.player_pair


def test_round_from_fields() -> None:
    """Round is plain data: build one directly and read its facts."""
    rnd = Round(number=7, start=40, player=tuple(ids("9S TD")), banker=tuple(ids("KC QH 3S")))
    assert rnd.end == 45
    assert rnd.player_positions == (40, 42)
    assert rnd.banker_positions == (41, 43, 44)
    assert (rnd.player_total, rnd.banker_total, rnd.winning_margin) == (9, 3, 6)
    assert rnd.facts()["round_number"] == 7
    assert rnd.result == "player"  # a str enum: compares equal to its JSON value
