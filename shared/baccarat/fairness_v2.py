"""bacc-pf-v2: each round's cards drawn, from the cards remaining in the shoe, by a key that
mixes the shoe's committed key with the round's number, its locked book and a public beacon.

v1 fixes the whole shoe at the commit, so whoever holds the shoe's secret knows every card
before any bet. v2 keeps v1's seed chain, shoe key ``K``, stream and unbiased ``uniform`` (all
imported from :mod:`baccarat.fairness`, never restated) but draws a round's cards only with
``K_r = HMAC(K, "bacc-pf-v2/round" ‖ u32(r) ‖ book_root ‖ chain_hash ‖ u64(beacon_round) ‖
u16(len(sig)) ‖ sig)``: nobody knows them before the beacon round, fixed by the lock, exists.
The normative text, byte by byte, is ``docs/bacc-pf-v2.md``."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import booktree
from .cards import burn_count, points
from .fairness import (
    SECRET_BYTES,
    FairnessError,
    client_hash,
    shoe_key,
    stream_words,
    uniform,
)
from .outcome import Round
from .rules import ShoeRules, banker_draws, player_draws

SPEC = "bacc-pf-v2"
TAG = b"bacc-pf-v2/"
_ROUND = TAG + b"round"
HASH_BYTES = 32
#: The root of a ``bacc-book-v1`` tree without leaves: ``SHA-256("")``.
EMPTY_ROOT = booktree.root([])
MAX_BEACON_ROUND = (1 << 64) - 1
MAX_SIGNATURE_BYTES = 0xFFFF
MAX_ROUND_NUMBER = 0xFFFFFFFF


def locked_root(seated_root: bytes, spectators_root: bytes) -> bytes:
    """A round's ``book_root`` in v2: every slip locked at the lock, as one 32-byte value —
    ``SHA-256(0x01 ‖ seated_root ‖ spectators_root)``, the ``bacc-book-v1`` interior node over the
    seated bettors' tree and the spectators' (v1.1's ``book.root``; the empty tree's root at a
    table without a book). The seated bets are public in the proof, so anyone recomputes it from
    the proof alone."""
    if len(seated_root) != HASH_BYTES or len(spectators_root) != HASH_BYTES:
        raise FairnessError(f"a tree root is {HASH_BYTES} bytes")
    return booktree.node_hash(seated_root, spectators_root)


def seated_root(round_id: str, bets: Iterable[Mapping[str, Any]]) -> bytes:
    """The ``bacc-book-v1`` root over the seated bettors' slips of a round, from its bets as the
    proof lists them (``{bettor_ref, role, seat, type, amount}``, in accepted order): one leaf per
    seated bettor, its lines' ``order`` their place among that bettor's bets; spectators' bets
    are not in it."""
    slips: dict[str, tuple[int, list[dict[str, Any]]]] = {}
    for bet in bets:
        if bet.get("role") != booktree.SEATED:
            continue
        seat, lines = slips.setdefault(bet["bettor_ref"], (bet["seat"], []))
        if bet["seat"] != seat:
            raise FairnessError(f"{bet['bettor_ref']} bets from two seats")
        lines.append({"type": bet["type"], "amount": bet["amount"], "order": len(lines)})
    refs = booktree.in_book_order(slips, lambda ref: ref)
    leaves = [
        booktree.leaf_bytes(round_id, ref, booktree.SEATED, slips[ref][1], slips[ref][0])
        for ref in refs
    ]
    return booktree.root(leaves)


#: The ``book_root`` of a round nobody bet on: both trees empty.
NO_BETS_ROOT = locked_root(EMPTY_ROOT, EMPTY_ROOT)


@dataclass(frozen=True, slots=True)
class BeaconDraw:
    """A verified beacon as the draw uses it: its chain's hash, its round, its signature.

    Verifying it (BLS against the chain's key, the round fixed by the lock) is the caller's job;
    the draw only mixes the bytes in."""

    chain_hash: bytes
    round: int
    signature: bytes

    def check(self) -> BeaconDraw:
        if len(self.chain_hash) != HASH_BYTES:
            raise FairnessError(f"a beacon chain hash is {HASH_BYTES} bytes")
        if not 0 <= self.round <= MAX_BEACON_ROUND:
            raise FairnessError("a beacon round is a u64")
        if not 1 <= len(self.signature) <= MAX_SIGNATURE_BYTES:
            raise FairnessError(f"a beacon signature is 1 … {MAX_SIGNATURE_BYTES} bytes")
        return self


@dataclass(frozen=True, slots=True)
class RoundInput:
    """What a round's key mixes in besides ``K`` and the round number: the root of every slip
    locked at its lock (:func:`locked_root`) and the beacon round the lock fixed.
    ``beacon`` is ``None`` for a round voided ``beacon_unavailable``: it draws no card."""

    book_root: bytes
    beacon: BeaconDraw | None


def round_key(key: bytes, number: int, book_root: bytes, beacon: BeaconDraw) -> bytes:
    """``K_r = HMAC(K, TAG ‖ "round" ‖ u32(r) ‖ book_root ‖ chain_hash ‖ u64(beacon_round) ‖
    u16(len(signature)) ‖ signature)``."""
    if len(key) != SECRET_BYTES:
        raise FairnessError(f"a shoe key is {SECRET_BYTES} bytes")
    if not 1 <= number <= MAX_ROUND_NUMBER:
        raise FairnessError(f"a round number is 1 … 2^32−1, got {number}")
    if len(book_root) != HASH_BYTES:
        raise FairnessError(f"a book root is {HASH_BYTES} bytes")
    beacon.check()
    msg = b"".join(
        (
            _ROUND,
            number.to_bytes(4, "big"),
            book_root,
            beacon.chain_hash,
            beacon.round.to_bytes(8, "big"),
            len(beacon.signature).to_bytes(2, "big"),
            beacon.signature,
        )
    )
    return hmac.new(key, msg, hashlib.sha256).digest()


def cut_index_of(key: bytes, rules: ShoeRules) -> int | None:
    """The cut card from ``K`` at the commit: ``52·D − (cut_min + uniform(cut_max − cut_min +
    1))``, the first draw of ``K``'s stream (nothing else reads it). A position, not a card."""
    if not rules.has_cut_card:
        return None
    return rules.size - (
        rules.cut_min + uniform(stream_words(key), rules.cut_max - rules.cut_min + 1)
    )


def draw_card(words: Iterator[int], remaining: list[int]) -> int:
    """One card without replacement: ``remaining`` (ascending card ids) loses the one at
    ``uniform(len(remaining))``."""
    return remaining.pop(uniform(words, len(remaining)))


@dataclass(frozen=True, slots=True)
class RoundDraw:
    """One round's draw: its key, the burn (round 1 of a shoe with a burn only) and its cards."""

    key: bytes
    burn_exposed: int | None
    burned: tuple[int, ...]
    round: Round


def draw_round(
    key: bytes, remaining: list[int], number: int, start: int, burn: bool = False
) -> RoundDraw:
    """Draw round ``number`` with its key ``K_r`` from ``remaining`` (ascending, changed in
    place), its first card at shoe position ``start``; with ``burn`` (round 1 of a shoe with a
    burn) the exposed card and the ``v`` burned cards come first, and the round starts after them.

    Deal order, one card at a time: Player, Banker, Player, Banker, then Player's third card and
    Banker's as the drawing rules (:mod:`baccarat.rules`) ask."""
    words = stream_words(key)
    exposed: int | None = None
    burned: tuple[int, ...] = ()
    if burn:
        exposed = draw_card(words, remaining)
        burned = tuple(draw_card(words, remaining) for _ in range(burn_count(exposed)))
        start += 1 + len(burned)
    p1, b1, p2, b2 = (draw_card(words, remaining) for _ in range(4))
    pt = (points(p1) + points(p2)) % 10
    bt = (points(b1) + points(b2)) % 10
    player: tuple[int, ...] = (p1, p2)
    banker: tuple[int, ...] = (b1, b2)
    third: int | None = None
    if player_draws(pt, bt):
        p3 = draw_card(words, remaining)
        player, third = (p1, p2, p3), points(p3)
    if banker_draws(pt, bt, third):
        banker = (b1, b2, draw_card(words, remaining))
    rnd = Round(number=number, start=start, player=player, banker=banker)
    return RoundDraw(key=key, burn_exposed=exposed, burned=burned, round=rnd)


@dataclass(slots=True)
class ShoeEnd:
    """v1's end of the shoe (round limit, cut card, one more round), counted over the rounds
    that drew cards: ``after(rnd)`` says whether the shoe ends after that dealt round."""

    rules: ShoeRules
    cut_index: int | None
    dealt: int = 0
    last_due: bool = False
    ended: bool = False

    def after(self, rnd: Round) -> bool:
        self.dealt += 1
        if self.dealt == self.rules.round_limit or self.last_due:
            self.ended = True
        elif self.cut_index is not None and rnd.end > self.cut_index:
            # This round dealt the card at cut_index or later: it is the last if it began
            # behind the cut card, else exactly one more round is dealt.
            self.ended = rnd.start >= self.cut_index
            self.last_due = not self.ended
        return self.ended


@dataclass(frozen=True, slots=True)
class ShoeV2:
    """A v2 shoe as far as its rounds' inputs go: the cut card, the burn, every round drawn
    (``None`` for a round voided ``beacon_unavailable``), whether the rules ended it, and the
    shoe as one permutation (the cards in deal order, then the undrawn ones ascending)."""

    rules: ShoeRules
    key: bytes
    cut_index: int | None
    burn_exposed: int | None
    burned: tuple[int, ...]
    first_start: int | None
    draws: tuple[RoundDraw | None, ...]
    ended_by_rules: bool
    cards: tuple[int, ...]
    cards_drawn: int

    @property
    def rounds(self) -> tuple[Round, ...]:
        return tuple(d.round for d in self.draws if d is not None)


def shoe_from_key_v2(
    key: bytes, rules: ShoeRules, inputs: Iterable[RoundInput], until_end: bool = False
) -> ShoeV2:
    """Draw rounds 1, 2, … with the ``inputs`` in order until the rules end the shoe or the
    inputs run out (a shoe closed early, or still open). An input past the shoe's end is refused
    (a proof with a round too many), or, with ``until_end``, left unread."""
    rules.check()
    cut = cut_index_of(key, rules)
    end = ShoeEnd(rules, cut)
    remaining = list(range(rules.size))
    drawn: list[int] = []
    draws: list[RoundDraw | None] = []
    first = burn = None
    for number, item in enumerate(inputs, start=1):
        if end.ended:
            if until_end:
                break
            raise FairnessError(f"round {number}: the shoe ended after round {number - 1}")
        if item.beacon is None:
            draws.append(None)
            continue
        k_r = round_key(key, number, item.book_root, item.beacon)
        d = draw_round(k_r, remaining, number, len(drawn), burn=bool(rules.burn) and not drawn)
        if first is None:
            first, burn = d.round.start, d
        if d.burn_exposed is not None:
            drawn += (d.burn_exposed, *d.burned)
        drawn += _deal_order(d.round)
        draws.append(d)
        end.after(d.round)
    return ShoeV2(
        rules=rules,
        key=key,
        cut_index=cut,
        burn_exposed=burn.burn_exposed if burn else None,
        burned=burn.burned if burn else (),
        first_start=first,
        draws=tuple(draws),
        ended_by_rules=end.ended,
        cards=(*drawn, *remaining),
        cards_drawn=len(drawn),
    )


def _deal_order(rnd: Round) -> list[int]:
    """A round's cards by shoe position: P, B, P, B, Player's third, Banker's third."""
    p, b = rnd.player, rnd.banker
    return [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]


def derive_shoe_v2(
    secret: bytes,
    client_seed: str,
    shoe_number: int,
    rules: ShoeRules,
    inputs: Sequence[RoundInput],
) -> ShoeV2:
    """A v2 shoe from the revealed ``s_i``, the client seed and each round's book root and
    beacon: ``K`` exactly as v1's, then :func:`shoe_from_key_v2`."""
    rules.check()
    if not 1 <= shoe_number <= 0xFFFFFFFF:
        raise FairnessError(f"shoe number must be 1 … 2^32−1, got {shoe_number}")
    return shoe_from_key_v2(
        shoe_key(secret, client_hash(client_seed), shoe_number, rules), rules, inputs
    )
