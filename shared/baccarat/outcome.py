"""One dealt round and every fact a bet can be settled on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import CARDS_PER_DECK, DECK_POINTS, code, rank, suit
from .rules import NATURAL_TOTALS, banker_draws, player_draws


class Result(StrEnum):
    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


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

    def facts(self) -> dict[str, Any]:
        """Every outcome fact, JSON-ready (card codes, not ids)."""
        return {
            "round_number": self.number,
            "start": self.start,
            "player": {
                "cards": [code(c) for c in self.player],
                "positions": list(self.player_positions),
                "total": self.player_total,
            },
            "banker": {
                "cards": [code(c) for c in self.banker],
                "positions": list(self.banker_positions),
                "total": self.banker_total,
            },
            "result": self.result.value,
            "natural": self.natural,
            "player_natural": self.player_natural,
            "banker_natural": self.banker_natural,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "player_perfect_pair": self.player_perfect_pair,
            "banker_perfect_pair": self.banker_perfect_pair,
            "cards_dealt": self.cards_dealt,
            "banker_card_count": self.banker_card_count,
            "winning_margin": self.winning_margin,
        }


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
