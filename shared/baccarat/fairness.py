"""bacc-pf-v1: seed chain, client hash, shoe key, random stream, unbiased ``uniform``,
Fisher–Yates, cut card, burn, rounds and end of shoe — byte for byte as the spec says."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from operator import mod
from typing import Any

from .cards import CARDS_PER_DECK, DECK_POINTS, burn_count, codes
from .outcome import Round
from .rules import MAX_DECKS, ShoeRules, banker_draws, player_draws

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

    def rounds_json(self) -> list[dict[str, Any]]:
        """Every round as JSON (the ``rounds`` of ``baccarat shoe`` and of the API's proof)."""
        return [round_json(r) for r in self.rounds]


def _limit(m: int) -> int:
    return _TWO32 - (_TWO32 % m)


#: ``uniform``'s rejection limit for every ``m`` a shuffle of up to 8 decks uses.
_LIMITS: tuple[int, ...] = (0, *(_limit(m) for m in range(1, 52 * 8 + 1)))


#: HMAC's key pads (RFC 2104), as ``bytes.translate`` tables: ``hmac`` does the same internally.
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_SHA256_BLOCK = 64
#: ``u32(j)`` of the first blocks (a shoe of 8 decks needs 52).
_BLOCK_INDEX = tuple(j.to_bytes(4, "big") for j in range(64))


def _stream_words(key: bytes, first_block: int, blocks: int) -> list[int]:
    """``blocks`` consecutive stream blocks as u32 words, in one pass.

    Exactly ``stream_block``'s ``HMAC(K, TAG ‖ "stream" ‖ u32(j))``, with HMAC spelled out
    (RFC 2104: ``H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ m))``) so that the inner hash of the common prefix
    ``TAG ‖ "stream"`` and the outer pad are computed once per shoe, not once per block: two
    ``sha256`` copies per block instead of an ``hmac`` object (half the time)."""
    sha256 = hashlib.sha256
    k = sha256(key).digest() if len(key) > _SHA256_BLOCK else key
    k = k.ljust(_SHA256_BLOCK, b"\0")
    inner = sha256(k.translate(_IPAD))
    inner.update(_STREAM)
    outer = sha256(k.translate(_OPAD))
    digests: list[bytes] = []
    append = digests.append
    for j in range(first_block, first_block + blocks):
        h = inner.copy()
        h.update(_BLOCK_INDEX[j] if j < len(_BLOCK_INDEX) else j.to_bytes(4, "big"))
        o = outer.copy()
        o.update(h.digest())
        append(o.digest())
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
    swaps = words[: n - 1]
    # Every limit is above 2^32 − n (2^32 mod m < m ≤ n): when no swap word reaches that (all but
    # about one 8-deck shoe in 25,000), nothing is discarded and j = x mod m, computed in C.
    if n > 1 and max(swaps) < _TWO32 - n:
        t = n - 1
        for j in map(mod, swaps, range(n, 1, -1)):
            cards[t], cards[j] = cards[j], cards[t]
            t -= 1
        i = n - 1
    else:  # the exact rejection loop (uniform's, inlined)
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


# Drawing decisions tabulated once from ``rules.player_draws`` / ``rules.banker_draws`` (the one
# statement of the rules): by ``pt·10 + bt``, who draws after the first four cards — nobody (0),
# Player (1; Banker then by ``_BANKER_ON_THIRD``) or Banker alone (2) — and, by
# ``(pt·10 + bt)·10 + p3``, whether Banker draws after Player's third card worth ``p3``.
_WHO_DRAWS: tuple[int, ...] = tuple(
    1 if player_draws(p, b) else 2 if banker_draws(p, b, None) else 0
    for p in range(10)
    for b in range(10)
)
_BANKER_ON_THIRD: tuple[bool, ...] = tuple(
    banker_draws(p, b, t) for p in range(10) for b in range(10) for t in range(10)
)
#: Point value by card id, for every id a shoe of up to 8 decks holds.
_POINTS: tuple[int, ...] = tuple(
    DECK_POINTS[c % CARDS_PER_DECK] for c in range(CARDS_PER_DECK * MAX_DECKS)
)
# A Round is a frozen dataclass; its generated __init__ sets each field through
# ``object.__setattr__``. Setting the slots directly builds the very same object in half the time.
_new = object.__new__
_SET_NUMBER, _SET_START, _SET_PLAYER, _SET_BANKER = (
    vars(Round)[name].__set__ for name in ("number", "start", "player", "banker")
)


def play_rounds(
    cards: list[int] | tuple[int, ...], start: int, rules: ShoeRules, cut_index: int | None
) -> tuple[Round, ...]:
    """Deal rounds from ``start`` until the round limit or the cut card ends the shoe.

    The same rounds as ``outcome.deal_round`` from each cursor in turn, computed on the cards'
    point values with integer arithmetic and the tabulated drawing rules."""
    try:
        pts = list(map(_POINTS.__getitem__, cards))
    except IndexError:  # ids beyond 8 decks
        pts = [DECK_POINTS[c % CARDS_PER_DECK] for c in cards]
    who, on_third = _WHO_DRAWS, _BANKER_ON_THIRD
    set_number, set_start = _SET_NUMBER, _SET_START
    set_player, set_banker = _SET_PLAYER, _SET_BANKER
    limit = rules.round_limit
    rounds: list[Round] = []
    append = rounds.append
    number = 0
    s = start
    last_due = False
    while True:
        totals = (pts[s] + pts[s + 2]) % 10 * 10 + (pts[s + 1] + pts[s + 3]) % 10
        w = who[totals]
        player: tuple[int, ...]
        banker: tuple[int, ...]
        if w == 0:
            player, banker, end = (cards[s], cards[s + 2]), (cards[s + 1], cards[s + 3]), s + 4
        elif w == 1:
            player = (cards[s], cards[s + 2], cards[s + 4])
            if on_third[totals * 10 + pts[s + 4]]:
                banker, end = (cards[s + 1], cards[s + 3], cards[s + 5]), s + 6
            else:
                banker, end = (cards[s + 1], cards[s + 3]), s + 5
        else:
            player = (cards[s], cards[s + 2])
            banker, end = (cards[s + 1], cards[s + 3], cards[s + 4]), s + 5
        number += 1
        rnd = _new(Round)
        set_number(rnd, number)
        set_start(rnd, s)
        set_player(rnd, player)
        set_banker(rnd, banker)
        append(rnd)
        if number == limit:  # a limit of 0 (none) never matches
            break
        if last_due:
            break
        if cut_index is not None and end > cut_index:
            if s >= cut_index:
                break
            last_due = True
        s = end
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


def round_json(r: Round) -> dict[str, Any]:
    """A round as JSON: its number, start, cards (codes), totals and result."""
    return {
        "round_number": r.number,
        "start": r.start,
        "player": codes(r.player),
        "banker": codes(r.banker),
        "player_total": r.player_total,
        "banker_total": r.banker_total,
        "result": r.result.value,
    }
