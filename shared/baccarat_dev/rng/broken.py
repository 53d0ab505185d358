"""Deliberately broken generators: the controls that prove the checks can fail.

Each takes the production stream (``stream_words`` of a real shoe key) and makes one classic
mistake with it. None of them is used by the product; they exist so that the fixed-seed checks
are shown to reject a biased generator at the very sample sizes at which they pass the real one.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from baccarat.fairness import play_rounds, stream_block, stream_words, uniform
from baccarat.rules import ShoeRules

from .nist import Bits, bits_of
from .sample import Dealt


def off_by_one_shuffle(key: bytes, n: int) -> list[int]:
    """Fisher–Yates with the classic off-by-one, ``j = uniform(t)`` instead of
    ``uniform(t + 1)`` (Sattolo's algorithm): no card can stay where it started, and only cyclic
    permutations come out."""
    words = stream_words(key)
    cards = list(range(n))
    for t in range(n - 1, 0, -1):
        j = uniform(words, t)
        cards[t], cards[j] = cards[j], cards[t]
    return cards


def one_riffle(key: bytes, n: int) -> list[int]:
    """A single Gilbert–Shannon–Reeds riffle of the unshuffled shoe (a shuffler with one pass
    where seven are needed): cut binomially, then drop from each packet in proportion to its
    size."""
    words = stream_words(key)
    cut = sum(next(words) >> 31 for _ in range(n))
    left, right = list(range(cut)), list(range(cut, n))
    out: list[int] = []
    i = j = 0
    while i < len(left) or j < len(right):
        a, b = len(left) - i, len(right) - j
        if uniform(words, a + b) < a:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out


def modulo_uniform(words: Iterator[int], m: int) -> int:
    """``x mod m`` with no rejection: modulo bias (the values below ``2³² mod m`` come up once
    more often than the rest)."""
    return next(words) % m


def stuck_bit_bits(key: bytes, n_bits: int) -> Bits:
    """The production stream with the lowest bit of every u32 word stuck at 1."""
    blocks = -(-n_bits // 256)
    words = np.frombuffer(b"".join(stream_block(key, j) for j in range(blocks)), dtype=">u4")
    return bits_of((words | np.uint32(1)).astype(">u4").tobytes())[:n_bits]


def dealt(cards: list[int], rules: ShoeRules) -> Dealt:
    """The production rounds (``play_rounds``) on a broken shuffle's cards, for rules with neither
    burn nor cut card (the first round starts at 0, the round limit ends the shoe)."""
    if rules.burn or rules.has_cut_card:
        raise ValueError("the controls deal rules without burn or cut card")
    return Dealt(cards, play_rounds(cards, 0, rules, None))
