"""Straightforward implementations of the engine's hot work, for same-run ratios only.

Written the obvious way from the spec: a fresh HMAC per block, a Card object per card, a
Hand class recomputing totals, rules as if/else. Never used by the product."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from baccarat.bets import Bet
from baccarat.outcome import Round
from baccarat.paytables import BetType, Grade, grade
from baccarat.profiles import TableConfig

TAG = b"bacc-pf-v1/"
RANKS = "A23456789TJQK"
SUITS = "SHDC"


@dataclass
class Card:
    cid: int

    @property
    def rank(self) -> str:
        return RANKS[self.cid % 13]

    @property
    def suit(self) -> str:
        return SUITS[(self.cid % 52) // 13]

    @property
    def value(self) -> int:
        r = self.cid % 13
        return r + 1 if r < 9 else 0


class Hand:
    def __init__(self) -> None:
        self.cards: list[Card] = []

    def total(self) -> int:
        return sum(c.value for c in self.cards) % 10


class Stream:
    def __init__(self, key: bytes) -> None:
        self.key = key
        self.j = 0
        self.buf: list[int] = []

    def word(self) -> int:
        if not self.buf:
            block = hmac.new(self.key, TAG + b"stream" + self.j.to_bytes(4, "big"), "sha256")
            d = block.digest()
            self.buf = [int.from_bytes(d[i : i + 4], "big") for i in range(0, 32, 4)]
            self.j += 1
        return self.buf.pop(0)

    def uniform(self, m: int) -> int:
        limit = 2**32 - (2**32 % m)
        while True:
            x = self.word()
            if x < limit:
                return x % m


def _banker_draws(b: int, p3: int | None) -> bool:
    if p3 is None:
        return b <= 5
    if b <= 2:
        return True
    if b == 3:
        return p3 != 8
    if b == 4:
        return 2 <= p3 <= 7
    if b == 5:
        return 4 <= p3 <= 7
    if b == 6:
        return p3 in (6, 7)
    return False


def play_round(cards: list[Card], pos: int) -> tuple[Hand, Hand, int]:
    player, banker = Hand(), Hand()
    player.cards.append(cards[pos])
    banker.cards.append(cards[pos + 1])
    player.cards.append(cards[pos + 2])
    banker.cards.append(cards[pos + 3])
    pos += 4
    if player.total() >= 8 or banker.total() >= 8:
        return player, banker, pos
    p3 = None
    if player.total() <= 5:
        player.cards.append(cards[pos])
        p3 = cards[pos].value
        pos += 1
    if _banker_draws(banker.total(), p3):
        banker.cards.append(cards[pos])
        pos += 1
    return player, banker, pos


def derive_and_play(
    secret: bytes, client_seed: str, shoe_number: int, rules: tuple[int, int, int, int, int]
) -> list[tuple[Hand, Hand]]:
    decks, burn, cut_min, cut_max, round_limit = rules
    c_hash = hashlib.sha256(TAG + b"client" + client_seed.encode()).digest()
    rb = bytes((decks, burn, cut_min, cut_max)) + round_limit.to_bytes(2, "big")
    key = hmac.new(
        secret, TAG + b"shoe" + c_hash + shoe_number.to_bytes(4, "big") + rb, "sha256"
    ).digest()
    stream = Stream(key)
    cards = [Card(i) for i in range(52 * decks)]
    for t in range(len(cards) - 1, 0, -1):
        j = stream.uniform(t + 1)
        cards[t], cards[j] = cards[j], cards[t]
    cut = None
    if cut_max:
        cut = len(cards) - (cut_min + stream.uniform(cut_max - cut_min + 1))
    pos = 0
    if burn:
        v = cards[0].value or 10
        pos = 1 + v
    rounds = []
    last = False
    while True:
        start = pos
        player, banker, pos = play_round(cards, pos)
        rounds.append((player, banker))
        if round_limit and len(rounds) == round_limit:
            break
        if last:
            break
        if cut is not None and pos > cut:
            if start >= cut:
                break
            last = True
    return rounds


# --- round facts and settlement, the obvious way ----------------------------------------------


def round_facts(player: list[int], banker: list[int], start: int, number: int) -> dict[str, Any]:
    """Round facts from card ids through Card objects and Hand totals, each fact on its own."""
    p, b = Hand(), Hand()
    p.cards = [Card(c) for c in player]
    b.cards = [Card(c) for c in banker]
    pt, bt = p.total(), b.total()
    two_p = (p.cards[0].value + p.cards[1].value) % 10
    two_b = (b.cards[0].value + b.cards[1].value) % 10
    third = start + 5 if len(player) == 3 else start + 4
    return {
        "round_number": number,
        "start": start,
        "player": {
            "cards": [c.rank + c.suit for c in p.cards],
            "positions": [start, start + 2, start + 4][: len(player)],
            "total": pt,
        },
        "banker": {
            "cards": [c.rank + c.suit for c in b.cards],
            "positions": [start + 1, start + 3, third][: len(banker)],
            "total": bt,
        },
        "result": "player" if pt > bt else "banker" if bt > pt else "tie",
        "natural": two_p >= 8 or two_b >= 8,
        "player_natural": two_p >= 8,
        "banker_natural": two_b >= 8,
        "player_pair": p.cards[0].rank == p.cards[1].rank,
        "banker_pair": b.cards[0].rank == b.cards[1].rank,
        "player_perfect_pair": p.cards[0].rank + p.cards[0].suit
        == p.cards[1].rank + p.cards[1].suit,
        "banker_perfect_pair": b.cards[0].rank + b.cards[0].suit
        == b.cards[1].rank + b.cards[1].suit,
        "cards_dealt": len(player) + len(banker),
        "banker_card_count": len(banker),
        "winning_margin": abs(pt - bt),
    }


def settle(table: TableConfig, rnd: Round, bets: Sequence[Bet]) -> tuple[dict[str, int], int]:
    """A house-banked table settled line by line in Fractions, each bet graded on the round's own
    properties: (net by bettor, house take). The same money as ``baccarat.settlement.settle``."""
    pays = table.pay_table
    nets: dict[str, Fraction] = {}
    take = Fraction(0)
    for bet in bets:
        g, mult = grade(BetType(bet.type), rnd, pays)
        if g is Grade.WIN:
            owed = Fraction(1) if bet.type == BetType.BANKER and pays.banker < 1 else mult
            gross = table.rounding.receive(bet.amount * owed)
            net = Fraction(table.rounding.receive(bet.amount * mult))
            take -= net  # the house pays the gross win and keeps the line's commission
        elif g is Grade.LOSE:
            net = Fraction(-bet.amount)
            take += bet.amount
        else:
            net = Fraction(0)
        nets[bet.bettor_id] = nets.get(bet.bettor_id, Fraction(0)) + net
    out: dict[str, int] = {}
    for bettor, gross in nets.items():
        net = gross
        if gross > 0 and pays.commission_rate:
            net = Fraction(table.rounding.receive(gross * (1 - pays.commission_rate)))
        take += gross - net
        out[bettor] = int(net)
    return out, int(take)
