"""bacc-pf-v1: seed chain, client hash, shoe key, random stream, unbiased ``uniform``,
Fisher–Yates, cut card, burn, rounds and end of shoe — byte for byte as the spec says."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator
from dataclasses import dataclass

from .cards import burn_count
from .outcome import Round, deal_round
from .rules import ShoeRules

SPEC = "bacc-pf-v1"
TAG = b"bacc-pf-v1/"
SECRET_BYTES = 32
MAX_CLIENT_SEED_BYTES = 256
#: Longest seed chain this service creates or verifies (bounds the work of a chain walk).
MAX_CHAIN_LENGTH = 1_000_000
_TWO32 = 1 << 32
_CHAIN = TAG + b"chain"
_CLIENT = TAG + b"client"
_SHOE = TAG + b"shoe"
_STREAM = TAG + b"stream"
_WORDS = struct.Struct(">8I")


class FairnessError(ValueError):
    """An input bacc-pf-v1 cannot accept (wrong secret length, oversized client seed …)."""


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


# --- seed chain -----------------------------------------------------------------------------


def chain_step(secret: bytes) -> bytes:
    """``s_{k−1} = H(TAG ‖ "chain" ‖ s_k)``."""
    return _sha256(_CHAIN + secret)


def _check_secret(secret: bytes) -> None:
    if len(secret) != SECRET_BYTES:
        raise FairnessError(f"a chain secret is {SECRET_BYTES} bytes, got {len(secret)}")


def walk_chain(secret: bytes, steps: int) -> bytes:
    """Apply the chain step ``steps`` times."""
    _check_secret(secret)
    for _ in range(steps):
        secret = chain_step(secret)
    return secret


def shoe_secret(top_secret: bytes, chain_length: int, shoe_number: int) -> bytes:
    """``s_i`` from the chain's top secret ``s_N``."""
    if not 1 <= shoe_number <= chain_length:
        raise FairnessError(f"shoe number {shoe_number} is outside the chain 1…{chain_length}")
    return walk_chain(top_secret, chain_length - shoe_number)


def anchor_of(top_secret: bytes, chain_length: int) -> bytes:
    """``s_0``, the table's published anchor."""
    return walk_chain(top_secret, chain_length)


def verify_link(secret: bytes, shoe_number: int, anchor: bytes) -> bool:
    """Does the revealed ``s_i`` lead to ``anchor`` in exactly ``i`` steps?"""
    if len(secret) != SECRET_BYTES or len(anchor) != SECRET_BYTES:
        return False
    if not 1 <= shoe_number <= MAX_CHAIN_LENGTH:
        return False
    return hmac.compare_digest(walk_chain(secret, shoe_number), anchor)


# --- per-shoe key and stream ----------------------------------------------------------------


def client_hash(client_seed: str) -> bytes:
    """``H(TAG ‖ "client" ‖ utf8(client_seed))``, the seed used exactly as received."""
    try:
        raw = client_seed.encode("utf-8")
    except UnicodeEncodeError:
        raise FairnessError("the client seed is not valid UTF-8 text") from None
    if len(raw) > MAX_CLIENT_SEED_BYTES:
        raise FairnessError(
            f"client seed is {len(raw)} UTF-8 bytes; at most {MAX_CLIENT_SEED_BYTES} allowed"
        )
    return _sha256(_CLIENT + raw)


def shoe_key(secret: bytes, c_hash: bytes, shoe_number: int, rules: ShoeRules) -> bytes:
    """``K = HMAC(s_i, TAG ‖ "shoe" ‖ client_hash ‖ u32(i) ‖ rules)``."""
    _check_secret(secret)
    msg = _SHOE + c_hash + shoe_number.to_bytes(4, "big") + rules.to_bytes()
    return hmac.new(secret, msg, hashlib.sha256).digest()


def stream_block(key: bytes, j: int) -> bytes:
    """``block_j = HMAC(K, TAG ‖ "stream" ‖ u32(j))``."""
    return hmac.new(key, _STREAM + j.to_bytes(4, "big"), hashlib.sha256).digest()


def stream_words(key: bytes) -> Iterator[int]:
    """The stream as consecutive big-endian u32 words, 8 per block, without end."""
    base = hmac.new(key, _STREAM, hashlib.sha256)
    j = 0
    unpack = _WORDS.unpack
    while True:
        h = base.copy()
        h.update(j.to_bytes(4, "big"))
        yield from unpack(h.digest())
        j += 1


def uniform(words: Iterator[int], m: int) -> int:
    """Unbiased draw in ``[0, m)``: words at or above ``2^32 − (2^32 mod m)`` are discarded."""
    if not 1 <= m <= _TWO32:
        raise FairnessError(f"uniform(m) needs 1 ≤ m ≤ 2^32, got {m}")
    limit = _TWO32 - (_TWO32 % m)
    for x in words:
        if x < limit:
            return x % m
    raise AssertionError("the stream never ends")  # pragma: no cover


# --- the shoe -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shoe:
    """A derived shoe: the shuffled cards, cut card, burn and every round it will deal."""

    rules: ShoeRules
    cards: tuple[int, ...]
    cut_index: int | None
    burn_exposed: int | None
    burn_count: int
    first_start: int
    rounds: tuple[Round, ...]
    words_used: int
    words_discarded: int

    @property
    def cards_used(self) -> int:
        return self.rounds[-1].end if self.rounds else self.first_start


def _limit(m: int) -> int:
    return _TWO32 - (_TWO32 % m)


#: ``uniform``'s rejection limit for every ``m`` a shuffle of up to 8 decks uses.
_LIMITS: tuple[int, ...] = (0, *(_limit(m) for m in range(1, 52 * 8 + 1)))


def _stream_words(key: bytes, first_block: int, blocks: int) -> list[int]:
    """``blocks`` consecutive stream blocks as u32 words, in one pass."""
    base = hmac.new(key, _STREAM, hashlib.sha256)
    digests = []
    for j in range(first_block, first_block + blocks):
        h = base.copy()
        h.update(j.to_bytes(4, "big"))
        digests.append(h.digest())
    return list(struct.unpack(f">{8 * blocks}I", b"".join(digests)))


def shuffle(key: bytes, rules: ShoeRules) -> tuple[list[int], int | None, int, int]:
    """Fisher–Yates then the cut card, from one stream.

    The words a shoe needs are computed up front (one word per swap plus one for the cut card;
    more blocks are added in the rare case words are discarded).
    Returns (cards, cut_index, words_used, words_discarded)."""
    n = rules.size
    cards = list(range(n))
    need = n  # n − 1 swaps + 1 cut card draw
    words = _stream_words(key, 0, (need + 7) // 8)
    limits = _LIMITS if n < len(_LIMITS) else tuple(_limit(m) if m else 0 for m in range(n + 1))
    i = 0
    for t in range(n - 1, 0, -1):
        m = t + 1
        while True:
            if i == len(words):  # only after a discarded word
                words += _stream_words(key, len(words) // 8, 1)
            x = words[i]
            i += 1
            if x < limits[m]:
                break
        j = x % m
        cards[t], cards[j] = cards[j], cards[t]
    cut_index: int | None = None
    if rules.cut_max > 0:
        m = rules.cut_max - rules.cut_min + 1
        while True:
            if i == len(words):
                words += _stream_words(key, len(words) // 8, 1)
            x = words[i]
            i += 1
            if x < _limit(m):
                break
        cut_index = n - (rules.cut_min + x % m)
    discarded = i - (n - 1) - (1 if cut_index is not None else 0)
    return cards, cut_index, i, discarded


def play_rounds(
    cards: list[int] | tuple[int, ...], start: int, rules: ShoeRules, cut_index: int | None
) -> tuple[Round, ...]:
    """Deal rounds from ``start`` until the round limit or the cut card ends the shoe."""
    rounds: list[Round] = []
    cursor = start
    last_due = False
    while True:
        rnd = deal_round(cards, cursor, len(rounds) + 1)
        rounds.append(rnd)
        if rules.round_limit and rnd.number == rules.round_limit:
            break
        if last_due:
            break
        if cut_index is not None and rnd.end > cut_index:
            if rnd.start >= cut_index:
                break
            last_due = True
        cursor = rnd.end
    return tuple(rounds)


def derive_shoe(secret: bytes, client_seed: str, shoe_number: int, rules: ShoeRules) -> Shoe:
    """The whole shoe ``shoe_number`` of a table, from ``s_i`` and the client seed."""
    rules.check()
    if shoe_number < 1 or shoe_number > 0xFFFFFFFF:
        raise FairnessError(f"shoe number must be 1 … 2^32−1, got {shoe_number}")
    key = shoe_key(secret, client_hash(client_seed), shoe_number, rules)
    return shoe_from_key(key, rules)


def shoe_from_key(key: bytes, rules: ShoeRules) -> Shoe:
    cards, cut_index, used, discarded = shuffle(key, rules)
    exposed: int | None = None
    burned = 0
    start = 0
    if rules.burn:
        exposed = cards[0]
        burned = burn_count(exposed)
        start = 1 + burned
    rounds = play_rounds(cards, start, rules, cut_index)
    return Shoe(
        rules=rules,
        cards=tuple(cards),
        cut_index=cut_index,
        burn_exposed=exposed,
        burn_count=burned,
        first_start=start,
        rounds=rounds,
        words_used=used,
        words_discarded=discarded,
    )
