"""Cards as integer ids, exactly as bacc-pf-v1 numbers them.

A shoe of ``D`` decks holds ids ``0 … 52·D − 1``; suit = ``(c mod 52) div 13`` in the order
S, H, D, C and rank = ``c mod 13`` in the order A, 2 … 9, T, J, Q, K.
"""

from __future__ import annotations

SUITS = "SHDC"
RANKS = "A23456789TJQK"
CARDS_PER_DECK = 52

#: Point value by rank index: A = 1, 2–9 face value, T/J/Q/K = 0.
RANK_POINTS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0)
#: Point value by ``c mod 52`` (hot-path lookup, no arithmetic on rank).
DECK_POINTS: tuple[int, ...] = tuple(RANK_POINTS[c % 13] for c in range(CARDS_PER_DECK))
#: Code by ``c mod 52``.
DECK_CODES: tuple[str, ...] = tuple(
    RANKS[c % 13] + SUITS[(c % CARDS_PER_DECK) // 13] for c in range(CARDS_PER_DECK)
)
_CODE_TO_DECK_ID = {code: i for i, code in enumerate(DECK_CODES)}


def rank(card: int) -> int:
    """Rank index 0 (A) … 12 (K)."""
    return card % 13


def suit(card: int) -> int:
    """Suit index 0 (S) … 3 (C)."""
    return (card % CARDS_PER_DECK) // 13


def points(card: int) -> int:
    """Baccarat point value."""
    return DECK_POINTS[card % CARDS_PER_DECK]


def code(card: int) -> str:
    """Two-letter code, rank then suit, e.g. ``AS``, ``TD``, ``KC``."""
    return DECK_CODES[card % CARDS_PER_DECK]


def codes(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [DECK_CODES[c % CARDS_PER_DECK] for c in cards]


def parse_code(text: str) -> int:
    """Id (within the first deck) of a card code; raises ``ValueError`` on anything else."""
    try:
        return _CODE_TO_DECK_ID[text]
    except KeyError:
        raise ValueError(f"not a card code: {text!r}") from None


def burn_count(card: int) -> int:
    """Cards burned after exposing ``card``: its point value, or 10 for T, J, Q, K."""
    return DECK_POINTS[card % CARDS_PER_DECK] or 10


def hand_total(cards: list[int] | tuple[int, ...]) -> int:
    return sum(DECK_POINTS[c % CARDS_PER_DECK] for c in cards) % 10
