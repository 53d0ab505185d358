"""Exact return to player of every bet: full combinatorial enumeration of one round dealt from a
fresh shoe of ``D`` decks, in exact fractions (no simulation).

The calculator never says what a bet pays or when a hand draws: every distinct class of rounds is
described by a :class:`Facts` object (it satisfies :class:`baccarat.paytables.RoundFacts`) and
graded by :func:`baccarat.paytables.grade`; the third cards follow
:func:`baccarat.rules.player_draws` and :func:`baccarat.rules.banker_draws`.

:func:`rtp_naive` is the deliberately plain reference: every card by rank, suits of the first four
cards enumerated wherever a pair makes them matter. The two agree exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product

from .cards import CARDS_PER_DECK, RANK_POINTS
from .outcome import Result
from .paytables import PayTable
from .rtp_report import ROUND_CARDS, BetRtp, RtpReport, falling, format_table, report
from .rules import NATURAL_TOTALS, banker_draws, player_draws

__all__ = [
    "BetRtp",
    "Facts",
    "RtpReport",
    "clear_cache",
    "compute_rtp",
    "format_table",
    "outcome_distribution",
    "rtp_naive",
]

_SUITS = 4
_VALUES = 10
_RANK_COUNT = len(RANK_POINTS)
#: Number of ranks worth each point value (1 for A–9, 4 for T/J/Q/K).
_RANKS_PER_VALUE: tuple[int, ...] = tuple(RANK_POINTS.count(v) for v in range(_VALUES))

# A hand's pair state: its first two cards are no pair, a pair of different suits, a perfect pair.
_NO_PAIR, _PAIR, _PERFECT = 0, 1, 2
_PAIR_STATES = 3
#: Pair key = Player state · 3 + Banker state.
_PAIR_KEYS = _PAIR_STATES**2

# Round shapes: (cards dealt, Banker's card count).
_SHAPES: tuple[tuple[int, int], ...] = ((4, 2), (5, 2), (5, 3), (6, 3))
_STAND_STAND, _PLAYER_DREW, _BANKER_DREW, _BOTH_DREW = range(4)

PairSplit = dict[tuple[int, int], int]


# --- the facts of a class of rounds ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Facts:
    """What :func:`~baccarat.paytables.grade` reads, for one class of equivalent rounds."""

    player_total: int
    banker_total: int
    player_natural: bool
    banker_natural: bool
    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool
    cards_dealt: int
    banker_card_count: int

    @property
    def result(self) -> Result:
        p, b = self.player_total, self.banker_total
        return Result.PLAYER if p > b else Result.BANKER if b > p else Result.TIE


def _facts(
    player_total: int, banker_total: int, shape: int, player_state: int, banker_state: int
) -> Facts:
    cards, banker_cards = _SHAPES[shape]
    # Nobody draws after a natural, so a natural is a four-card round with an 8 or 9 in it.
    four = shape == _STAND_STAND
    return Facts(
        player_total=player_total,
        banker_total=banker_total,
        player_natural=four and player_total in NATURAL_TOTALS,
        banker_natural=four and banker_total in NATURAL_TOTALS,
        player_pair=player_state != _NO_PAIR,
        banker_pair=banker_state != _NO_PAIR,
        player_perfect_pair=player_state == _PERFECT,
        banker_perfect_pair=banker_state == _PERFECT,
        cards_dealt=cards,
        banker_card_count=banker_cards,
    )


# --- exact counts ---------------------------------------------------------------------------------


def _check_decks(decks: int) -> None:
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise ValueError(f"decks must be an integer ≥ 1, got {decks!r}")


def _merge(a: PairSplit, b: PairSplit) -> PairSplit:
    """Combine the pair splits of two disjoint groups of cards (a hand's pair lies in one group)."""
    out: PairSplit = {}
    for (pa, ba), wa in a.items():
        for (pb, bb), wb in b.items():
            key = (max(pa, pb), max(ba, bb))
            out[key] = out.get(key, 0) + wa * wb
    return out


def _pair_state(suits: tuple[int, ...]) -> int:
    """A hand's pair state from the suits of its cards of one rank (a pair needs both)."""
    if len(suits) < 2:
        return _NO_PAIR
    return _PERFECT if suits[0] == suits[1] else _PAIR


@lru_cache(maxsize=256)
def _suit_split(decks: int, n_player: int, n_banker: int) -> PairSplit:
    """Ordered ways to deal ``n_player`` Player and ``n_banker`` Banker cards, all of one rank
    (``decks`` cards of each suit), by (Player pair state, Banker pair state). A hand is a pair
    here only when both its first two cards are among these cards."""
    out: PairSplit = {}
    n = n_player + n_banker
    for suits in product(range(_SUITS), repeat=n):
        left = [decks] * _SUITS
        w = 1
        for s in suits:
            w *= left[s]
            left[s] -= 1
        if not w:
            continue
        ps = _pair_state(suits[:n_player])
        bs = _pair_state(suits[n_player:])
        out[ps, bs] = out.get((ps, bs), 0) + w
    return out


@lru_cache(maxsize=1024)
def _value_split(decks: int, ranks: int, n_player: int, n_banker: int) -> PairSplit:
    """Like :func:`_suit_split` for cards of one *point value* shared by ``ranks`` ranks: the
    ranks of the cards are enumerated too (K + Q is no pair)."""
    out: PairSplit = {}
    roles = (0,) * n_player + (1,) * n_banker
    for assignment in product(range(ranks), repeat=len(roles)):
        split: PairSplit = {(_NO_PAIR, _NO_PAIR): 1}
        for r in range(ranks):
            np_ = sum(1 for a, role in zip(assignment, roles, strict=True) if a == r and role == 0)
            nb_ = sum(1 for a, role in zip(assignment, roles, strict=True) if a == r and role == 1)
            if np_ or nb_:
                split = _merge(split, _suit_split(decks, np_, nb_))
        for key, w in split.items():
            if w:
                out[key] = out.get(key, 0) + w
    return out


# --- the fast enumeration -------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _class_weights(decks: int) -> tuple[tuple[Facts, int], ...]:
    """Every distinct class of rounds with its weight: an integer, the number of ordered card
    sequences, every round completed to six cards so that all share the denominator
    ``52D·(52D−1)···(52D−5)``; divided only at the end.

    1. :func:`_first_four`: the first four cards at point level, each hand an unordered pair of
       point values (55 × 55). The ten-valued ranks are pooled, but the pair facts are counted
       exactly: for every point value, the ordered ways to pick its cards by the pair state
       each hand ends with (:func:`_value_split` enumerates the ranks and suits of just those
       cards). Pair facts depend on the first four cards only, so this is exact.
    2. :func:`_third_cards`: combinations that leave the same two-card totals and remove the
       same point values share everything that follows; each such key is expanded once, the
       third cards by point value, weighted by what the shoe still holds.
    3. :func:`_classes`: each joint index with a weight as a :class:`Facts`, graded once per
       offered bet by :func:`baccarat.rtp_report.report`.
    """
    return _classes(_third_cards(decks, _first_four(decks)))


# A joint index is ((Player total · 10 + Banker total) · 4 + shape) · 9 + pair key.
_PER_TOTALS = len(_SHAPES) * _PAIR_KEYS

#: Key of the first four cards: (Player's two-card total, Banker's, the point values removed).
_Key = tuple[int, int, tuple[int, ...]]
#: Per key, pair key → weight.
_Keyed = dict[_Key, dict[int, int]]


def _cell(player_total: int, banker_total: int, shape: int) -> int:
    """Where a class's pair keys start in the joint index."""
    return (player_total * 10 + banker_total) * _PER_TOTALS + shape * _PAIR_KEYS


@lru_cache(maxsize=1)
def _draw_tables() -> tuple[list[list[bool]], list[list[bool]], list[list[list[bool]]]]:
    """The drawing decisions, tabulated once from the rules by two-card totals: whether the round
    stands as dealt (a natural, or neither hand draws), whether Player draws, and whether Banker
    draws given Player's third card."""
    stands = [
        [
            p in NATURAL_TOTALS
            or b in NATURAL_TOTALS
            or not (player_draws(p, b) or banker_draws(p, b, None))
            for b in range(10)
        ]
        for p in range(10)
    ]
    p_draws = [[player_draws(p, b) for b in range(10)] for p in range(10)]
    b_draws = [[[banker_draws(p, b, t) for t in range(10)] for b in range(10)] for p in range(10)]
    return stands, p_draws, b_draws


def _first_four(decks: int) -> _Keyed:
    """Step 1, the first four cards (Player, Banker, Player, Banker) at point level: by key, the
    weight of each pair key."""
    splits = {
        (v, n_p, n_b): [
            (ps * _PAIR_STATES + bs, w)
            for (ps, bs), w in sorted(_value_split(decks, _RANKS_PER_VALUE[v], n_p, n_b).items())
        ]
        for v in range(_VALUES)
        for n_p in range(3)
        for n_b in range(3)
    }
    hands = [(a, b) for a in range(_VALUES) for b in range(a, _VALUES)]
    keyed: _Keyed = {}
    for player in hands:
        _add_banker_hands(keyed, splits, player, hands)
    return keyed


def _add_banker_hands(
    keyed: _Keyed,
    splits: dict[tuple[int, int, int], list[tuple[int, int]]],
    player: tuple[int, int],
    hands: list[tuple[int, int]],
) -> None:
    """Player's point values ``a ≤ b`` with every Banker hand ``c ≤ d``: the ordered ways to deal
    the four cards, by pair key, added under their key."""
    a, b = player
    for c, d in hands:
        scale = (1 if a == b else 2) * (1 if c == d else 2)
        split = [(0, 1)]
        for v in {a, b, c, d}:
            part = splits[v, (a == v) + (b == v), (c == v) + (d == v)]
            if len(part) == 1 and part[0][0] == 0:  # no pair here: a plain count
                scale *= part[0][1]
            else:  # a hand's two cards are both of this value
                # A hand's pair lies within one value, so the pair keys of values just add.
                split = [(k1 + k2, w1 * w2) for k1, w1 in split for k2, w2 in part]
        if not scale:
            continue
        into = keyed.setdefault(((a + b) % 10, (c + d) % 10, tuple(sorted((a, b, c, d)))), {})
        for k, w in split:
            into[k] = into.get(k, 0) + w * scale


def _third_cards(decks: int, keyed: _Keyed) -> list[int]:
    """Step 2, the third cards, once per key: the weight of every joint index.

    Where Banker draws, its ten possible final totals are handled at once: a vector over
    Banker's final total is one Python int of ten wide lanes (lane ``f`` = the weight of final
    total ``f``), so "every Banker third card" is one big-int multiply-add instead of a loop. No
    lane can carry into the next: every term is non-negative and every lane sums to at most the
    number of ordered six-card sequences, which fits the lane width."""
    shoe = CARDS_PER_DECK * decks
    pool = [_SUITS * decks * k for k in _RANKS_PER_VALUE]
    after4 = (shoe - 4) * (shoe - 5)  # completions of a four-card round to six cards
    after5 = shoe - 5
    stands, p_draws, b_draws = _draw_tables()
    joint = [0] * (100 * _PER_TOTALS)
    lane = max(64, falling(shoe, ROUND_CARDS).bit_length())
    # one[b][u]: a 1 in the lane of Banker's final total when Banker holds b and draws u;
    # pool_after[b]: the pool (every third card value) with the same lanes.
    one = [[1 << lane * ((b + u) % 10) for u in range(10)] for b in range(10)]
    pool_after = [sum(pool[u] * one[b][u] for u in range(10)) for b in range(10)]
    # Accumulators by (Player's final total · 9 + pair key): Banker drew after Player drew
    # (both drew), or Banker drew after Player stood.
    both = [0] * (10 * _PAIR_KEYS)
    banker_only = [0] * (10 * _PAIR_KEYS)
    for (pt, bt, removed), split_w in keyed.items():
        pairs = split_w.items()
        if stands[pt][bt]:
            cell = _cell(pt, bt, _STAND_STAND)
            for k, wp in pairs:
                joint[cell + k] += wp * after4
            continue
        ob = one[bt]
        rem_lanes = pool_after[bt]  # the pool after the four cards, in Banker-total lanes
        rem = pool.copy()
        for v in removed:
            rem[v] -= 1
            rem_lanes -= ob[v]
        if p_draws[pt][bt]:
            _player_draws(joint, both, (pt, bt), pairs, rem, rem_lanes, ob, b_draws[pt][bt], after5)
        else:  # Player stood, Banker draws
            x = rem_lanes * after5
            row = pt * _PAIR_KEYS
            for k, wp in pairs:
                banker_only[row + k] += wp * x
    _add_lanes(joint, both, _BOTH_DREW, lane)
    _add_lanes(joint, banker_only, _BANKER_DREW, lane)
    return joint


def _player_draws(
    joint: list[int],
    both: list[int],
    totals: tuple[int, int],
    pairs: Iterable[tuple[int, int]],
    rem: list[int],
    rem_lanes: int,
    ob: list[int],
    banker_draws_after: list[bool],
    after5: int,
) -> None:
    """One key where Player draws: each third card ``t`` the shoe still holds, then Banker draws
    (into ``both``, in lanes) or stands (into ``joint``)."""
    pt, bt = totals
    for t in range(10):
        rt = rem[t]
        if not rt:
            continue
        pf = (pt + t) % 10
        if banker_draws_after[t]:  # Banker draws from what is left after Player's t
            x = rt * (rem_lanes - ob[t])
            row = pf * _PAIR_KEYS
            for k, wp in pairs:
                both[row + k] += wp * x
        else:
            cell = _cell(pf, bt, _PLAYER_DREW)
            w = rt * after5
            for k, wp in pairs:
                joint[cell + k] += wp * w


def _add_lanes(joint: list[int], acc: list[int], shape: int, lane: int) -> None:
    """Unpack lane vectors by (Player's final total · 9 + pair key) into the joint weights."""
    mask = (1 << lane) - 1
    for index, vector in enumerate(acc):
        if not vector:
            continue
        pf, k = divmod(index, _PAIR_KEYS)
        cell = _cell(pf, 0, shape) + k
        for bf in range(10):
            w = (vector >> lane * bf) & mask
            if w:
                joint[cell + bf * _PER_TOTALS] += w


def _classes(joint: list[int]) -> tuple[tuple[Facts, int], ...]:
    """Step 3: each joint index with a weight as the facts of its class of rounds."""
    out: list[tuple[Facts, int]] = []
    for index, w in enumerate(joint):
        if w:
            cell, k = divmod(index, _PAIR_KEYS)
            totals, shape = divmod(cell, len(_SHAPES))
            pt, bt = divmod(totals, 10)
            out.append((_facts(pt, bt, shape, *divmod(k, _PAIR_STATES)), w))
    return tuple(out)


def clear_cache() -> None:
    """Forget memoised enumerations (for benchmarks that time a cold start)."""
    _class_weights.cache_clear()
    _draw_tables.cache_clear()
    _value_split.cache_clear()
    _suit_split.cache_clear()


def outcome_distribution(decks: int) -> dict[Facts, Fraction]:
    """Exact probability of every distinct class of rounds from a fresh ``decks``-deck shoe."""
    _check_decks(decks)
    total = falling(CARDS_PER_DECK * decks, ROUND_CARDS)
    return {f: Fraction(w, total) for f, w in _class_weights(decks)}


def compute_rtp(table: PayTable, decks: int) -> RtpReport:
    """Exact win/push/lose probabilities, multiplier distribution and house edge of every bet
    ``table`` offers, for a round dealt from a fresh shoe of ``decks`` decks (any ``decks`` ≥ 1)."""
    _check_decks(decks)
    return report(table, decks, _class_weights(decks))


# --- the plain reference --------------------------------------------------------------------------


def rtp_naive(table: PayTable, decks: int) -> RtpReport:
    """The same figures as :func:`compute_rtp` by the most direct enumeration: every card by
    rank (13 ways each), the suits of the first four cards enumerated outright wherever a hand
    pair makes them matter. Slow (seconds), shares none of the fast path's bookkeeping, and is
    kept as the reference the fast path is tested and benchmarked against."""
    _check_decks(decks)
    return report(table, decks, _naive_class_weights(decks))


def _naive_class_weights(decks: int) -> list[tuple[Facts, int]]:
    shoe = CARDS_PER_DECK * decks
    left = [_SUITS * decks] * _RANK_COUNT
    pts = RANK_POINTS
    classes: dict[tuple[int, int, int, int, int], int] = {}

    def suits_of(ranks: tuple[int, int, int, int]) -> dict[tuple[int, int], int]:
        """(Player pair state, Banker pair state) → ordered ways to pick the four cards."""
        out: dict[tuple[int, int], int] = {}
        p1, b1, p2, b2 = ranks
        for suits in product(range(_SUITS), repeat=4):
            w = 1
            taken: list[tuple[int, int]] = []
            for card in zip(ranks, suits, strict=True):
                w *= decks - taken.count(card)
                taken.append(card)
            if not w:
                continue
            ps = _NO_PAIR if p1 != p2 else _PERFECT if suits[0] == suits[2] else _PAIR
            bs = _NO_PAIR if b1 != b2 else _PERFECT if suits[1] == suits[3] else _PAIR
            out[ps, bs] = out.get((ps, bs), 0) + w
        return out

    def leaf(pt: int, bt: int, shape: int, pairs: dict[tuple[int, int], int], w: int) -> None:
        for (ps, bs), wp in pairs.items():
            key = (pt, bt, shape, ps, bs)
            classes[key] = classes.get(key, 0) + wp * w

    for p1 in range(_RANK_COUNT):
        w1 = left[p1]
        left[p1] -= 1
        for b1 in range(_RANK_COUNT):
            w2 = w1 * left[b1]
            left[b1] -= 1
            for p2 in range(_RANK_COUNT):
                w3 = w2 * left[p2]
                left[p2] -= 1
                for b2 in range(_RANK_COUNT):
                    w4 = w3 * left[b2]
                    if not w4:
                        continue
                    left[b2] -= 1
                    if p1 == p2 or b1 == b2:
                        pairs = suits_of((p1, b1, p2, b2))
                    else:
                        pairs = {(_NO_PAIR, _NO_PAIR): w4}
                    pt = (pts[p1] + pts[p2]) % 10
                    bt = (pts[b1] + pts[b2]) % 10
                    if player_draws(pt, bt):
                        for p3 in range(_RANK_COUNT):
                            w5 = left[p3]
                            if not w5:
                                continue
                            left[p3] -= 1
                            pf = (pt + pts[p3]) % 10
                            if banker_draws(pt, bt, pts[p3]):
                                for b3 in range(_RANK_COUNT):
                                    if left[b3]:
                                        bf = (bt + pts[b3]) % 10
                                        leaf(pf, bf, _BOTH_DREW, pairs, w5 * left[b3])
                            else:
                                leaf(pf, bt, _PLAYER_DREW, pairs, w5 * (shoe - 5))
                            left[p3] += 1
                    elif banker_draws(pt, bt, None):
                        for b3 in range(_RANK_COUNT):
                            if left[b3]:
                                bf = (bt + pts[b3]) % 10
                                leaf(pt, bf, _BANKER_DREW, pairs, left[b3] * (shoe - 5))
                    else:
                        leaf(pt, bt, _STAND_STAND, pairs, (shoe - 4) * (shoe - 5))
                    left[b2] += 1
                left[p2] += 1
            left[b1] += 1
        left[p1] += 1

    return [(_facts(*key), w) for key, w in sorted(classes.items())]
