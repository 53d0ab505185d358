"""One dealt round and every fact a bet can be settled on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypedDict

from .cards import CARDS_PER_DECK, DECK_CODES, DECK_POINTS, rank, suit
from .rules import NATURAL_TOTALS, banker_draws, player_draws


class Result(StrEnum):
    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


#: A round's result as its facts name it (a :class:`Result` value).
ResultName = Literal["player", "banker", "tie"]


class HandFacts(TypedDict):
    """One hand of a dealt round: card codes, shoe positions, total."""

    cards: list[str]
    positions: list[int]
    total: int


class FactsDoc(TypedDict):
    """Every outcome fact of a dealt round, JSON-ready: what a round record stores, a proof
    publishes and an answer shows. The facts a bet is graded on are the same names
    (``paytables.RoundFacts``, :class:`FactSnapshot`)."""

    round_number: int
    start: int
    player: HandFacts
    banker: HandFacts
    result: ResultName
    natural: bool
    player_natural: bool
    banker_natural: bool
    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool
    cards_dealt: int
    banker_card_count: int
    winning_margin: int


@dataclass(frozen=True, slots=True)
class Round:
    """A resolved round. Cards are shoe card ids; ``start`` is the shoe position of the first card.

    Positions: Player ``start``, Banker ``start+1``, Player ``start+2``, Banker ``start+3``, then
    Player's third card (if drawn), then Banker's (if drawn)."""

    number: int
    start: int
    player: tuple[int, ...]
    banker: tuple[int, ...]

    # --- positions ---------------------------------------------------------------------------
    @property
    def cards_dealt(self) -> int:
        return len(self.player) + len(self.banker)

    @property
    def end(self) -> int:
        """The cursor after this round: where the next round starts."""
        return self.start + self.cards_dealt

    @property
    def player_positions(self) -> tuple[int, ...]:
        s = self.start
        return (s, s + 2, s + 4)[: len(self.player)]

    @property
    def banker_positions(self) -> tuple[int, ...]:
        s = self.start
        third = s + 5 if len(self.player) == 3 else s + 4
        return (s + 1, s + 3, third)[: len(self.banker)]

    # --- totals and result -------------------------------------------------------------------
    @property
    def player_total(self) -> int:
        return sum(DECK_POINTS[c % CARDS_PER_DECK] for c in self.player) % 10

    @property
    def banker_total(self) -> int:
        return sum(DECK_POINTS[c % CARDS_PER_DECK] for c in self.banker) % 10

    @property
    def result(self) -> Result:
        p, b = self.player_total, self.banker_total
        return Result.PLAYER if p > b else Result.BANKER if b > p else Result.TIE

    @property
    def winning_margin(self) -> int:
        """|Player total − Banker total| (0 on a tie)."""
        return abs(self.player_total - self.banker_total)

    @property
    def player_natural(self) -> bool:
        return (DECK_POINTS[self.player[0] % 52] + DECK_POINTS[self.player[1] % 52]) % 10 in (
            NATURAL_TOTALS
        )

    @property
    def banker_natural(self) -> bool:
        return (DECK_POINTS[self.banker[0] % 52] + DECK_POINTS[self.banker[1] % 52]) % 10 in (
            NATURAL_TOTALS
        )

    @property
    def natural(self) -> bool:
        return self.player_natural or self.banker_natural

    @property
    def banker_card_count(self) -> int:
        return len(self.banker)

    # --- pairs ---------------------------------------------------------------------------------
    @property
    def player_pair(self) -> bool:
        return rank(self.player[0]) == rank(self.player[1])

    @property
    def banker_pair(self) -> bool:
        return rank(self.banker[0]) == rank(self.banker[1])

    @property
    def player_perfect_pair(self) -> bool:
        return self.player_pair and suit(self.player[0]) == suit(self.player[1])

    @property
    def banker_perfect_pair(self) -> bool:
        return self.banker_pair and suit(self.banker[0]) == suit(self.banker[1])

    def facts(self) -> FactsDoc:
        """Every outcome fact, JSON-ready (card codes, not ids): the graded facts
        (:class:`FactSnapshot`, computed once) with the cards, their positions and the margin."""
        f, s = FactSnapshot(self), self.start
        third = s + 5 if len(self.player) == 3 else s + 4
        return {
            "round_number": self.number,
            "start": s,
            "player": {
                "cards": [DECK_CODES[c % CARDS_PER_DECK] for c in self.player],
                "positions": [s, s + 2, s + 4][: len(self.player)],
                "total": f.player_total,
            },
            "banker": {
                "cards": [DECK_CODES[c % CARDS_PER_DECK] for c in self.banker],
                "positions": [s + 1, s + 3, third][: len(self.banker)],
                "total": f.banker_total,
            },
            "result": f.result.value,
            "natural": f.player_natural or f.banker_natural,
            "player_natural": f.player_natural,
            "banker_natural": f.banker_natural,
            "player_pair": f.player_pair,
            "banker_pair": f.banker_pair,
            "player_perfect_pair": f.player_perfect_pair,
            "banker_perfect_pair": f.banker_perfect_pair,
            "cards_dealt": f.cards_dealt,
            "banker_card_count": f.banker_card_count,
            "winning_margin": abs(f.player_total - f.banker_total),
        }


class FactSnapshot:
    """The facts a bet is graded on (``paytables.RoundFacts``) of one round, computed once and
    held as plain attributes: settling a table grades dozens of lines on the same round, and
    :class:`Round`'s properties recompute the totals on every read."""

    __slots__ = (
        "banker_card_count",
        "banker_natural",
        "banker_pair",
        "banker_perfect_pair",
        "banker_total",
        "cards_dealt",
        "player_natural",
        "player_pair",
        "player_perfect_pair",
        "player_total",
        "result",
    )

    def __init__(self, rnd: Round) -> None:
        p = [c % CARDS_PER_DECK for c in rnd.player]
        b = [c % CARDS_PER_DECK for c in rnd.banker]
        pp, bp = [DECK_POINTS[c] for c in p], [DECK_POINTS[c] for c in b]
        self.player_total = pt = sum(pp) % 10
        self.banker_total = bt = sum(bp) % 10
        self.result = Result.PLAYER if pt > bt else Result.BANKER if bt > pt else Result.TIE
        self.player_natural = (pp[0] + pp[1]) % 10 in NATURAL_TOTALS
        self.banker_natural = (bp[0] + bp[1]) % 10 in NATURAL_TOTALS
        # Same rank: ids equal mod 13; same rank and suit: equal mod 52.
        self.player_pair = p[0] % 13 == p[1] % 13
        self.banker_pair = b[0] % 13 == b[1] % 13
        self.player_perfect_pair = p[0] == p[1]
        self.banker_perfect_pair = b[0] == b[1]
        self.cards_dealt = len(p) + len(b)
        self.banker_card_count = len(b)


def deal_round(cards: list[int] | tuple[int, ...], start: int, number: int = 1) -> Round:
    """Deal one round from ``cards`` at cursor ``start`` by the drawing rules."""
    p1, b1, p2, b2 = cards[start], cards[start + 1], cards[start + 2], cards[start + 3]
    pt = (DECK_POINTS[p1 % 52] + DECK_POINTS[p2 % 52]) % 10
    bt = (DECK_POINTS[b1 % 52] + DECK_POINTS[b2 % 52]) % 10
    nxt = start + 4
    player: tuple[int, ...] = (p1, p2)
    banker: tuple[int, ...] = (b1, b2)
    third: int | None = None
    if player_draws(pt, bt):
        p3 = cards[nxt]
        nxt += 1
        player = (p1, p2, p3)
        third = DECK_POINTS[p3 % 52]
    if banker_draws(pt, bt, third):
        banker = (b1, b2, cards[nxt])
    return Round(number=number, start=start, player=player, banker=banker)
