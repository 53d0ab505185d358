"""Straightforward implementations of the engine's hot work, for same-run ratios only.

Written the obvious way from the spec: a fresh HMAC per block, a Card object per card, a
Hand class recomputing totals, rules as if/else. Never used by the product."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

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
