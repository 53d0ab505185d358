"""Scaling: ``uniform(m)`` of the production code, drawn from the production stream.

For each ``m``: ``draws`` values from one shoe key's stream, counted by value (``m ≤ 4096``: one
cell per value) or, for large ``m``, in 64 leading bins (``⌊64·v/m⌋``: where modulo bias shows,
the low values being the ones that would come up too often) and by the 64 trailing residues
(``v mod 64``), each with its exact expected count. Then the words ``uniform`` discarded, counted
by wrapping the stream, against the exact rejection probability ``q = (2³² mod m)/2³²``: the number
of discards before ``draws`` accepted words is negative binomial(draws, 1 − q).

Worst cases: ``m`` just above a power of two discards the most (``m = 2³¹ + 1``: ``q ≈ 1/2``);
``m = 3·2³⁰`` is where plain ``x mod m`` would be most biased (the lowest third of values twice as
likely as the rest). The shuffle itself only ever needs ``m ≤ 416``, where ``q < 10⁻⁷``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats as sps

from baccarat.fairness import uniform

from .source import CountingWords
from .stats import Check, ChiSquare, chi_square, poisson_two_sided

TWO32 = 1 << 32
#: ``m`` values the report draws from: what the shuffle and cut card use, then large ``m`` near
#: powers of two (and 3·2³⁰, the worst case for modulo bias).
M_VALUES: tuple[int, ...] = (
    2,
    3,
    13,
    52,
    207,
    208,
    311,
    312,
    415,
    416,
    (1 << 16) + 1,
    (1 << 30) + 1,
    (1 << 31) - 1,
    1 << 31,
    (1 << 31) + 1,
    3 << 30,
    TWO32 - 1,
    TWO32,
)
#: Up to this ``m`` every value is its own cell.
FULL_CELLS = 4096
BINS = 64


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def m_label(m: int) -> str:
    """``m`` as a power of two where it is one (or next to one): ``2³¹ + 1``, ``3·2³⁰``."""
    for k in range(16, 33):
        power = f"2{str(k).translate(_SUPERSCRIPT)}"
        for value, text in (
            (1 << k, power),
            ((1 << k) + 1, f"{power} + 1"),
            ((1 << k) - 1, f"{power} − 1"),
            (3 << (k - 2), f"3·2{str(k - 2).translate(_SUPERSCRIPT)}"),
        ):
            if m == value:
                return text
    return f"{m:,}"


def rejection_probability(m: int) -> float:
    return (TWO32 % m) / TWO32


def leading_bin_probabilities(m: int, bins: int = BINS) -> NDArray[np.float64]:
    """P(⌊bins·v/m⌋ = b) for v uniform on [0, m): exact counts ⌈(b+1)m/bins⌉ − ⌈b·m/bins⌉."""
    edges = np.array([-(-(b * m) // bins) for b in range(bins + 1)], dtype=np.float64)
    return np.diff(edges) / m


def residue_probabilities(m: int, bins: int = BINS) -> NDArray[np.float64]:
    """P(v mod bins = r) for v uniform on [0, m)."""
    return np.array([(m - r + bins - 1) // bins for r in range(bins)], dtype=np.float64) / m


@dataclass(frozen=True, slots=True)
class Draws:
    """``draws`` values of ``uniform(m)`` and the words the stream gave for them."""

    m: int
    values: NDArray[np.int64]
    words: int

    @property
    def draws(self) -> int:
        return int(self.values.size)

    @property
    def discarded(self) -> int:
        return self.words - self.draws


def draw(
    key: bytes, m: int, draws: int, draw_fn: Callable[[Iterator[int], int], int] = uniform
) -> Draws:
    """``draws`` values of ``draw_fn(words, m)`` (the production ``uniform``) from ``key``'s
    stream."""
    words = CountingWords(key)
    values = np.fromiter((draw_fn(words, m) for _ in range(draws)), dtype=np.int64, count=draws)
    return Draws(m, values, words.taken)


@dataclass(frozen=True, slots=True)
class ScalingAnalysis:
    m: int
    draws: int
    fits: tuple[tuple[str, ChiSquare], ...]
    discarded: int
    q: float
    rejection_p: float

    @property
    def expected_discards(self) -> float:
        return self.q * self.draws / (1 - self.q)

    @property
    def measured_rate(self) -> float:
        return self.discarded / (self.draws + self.discarded)

    def checks(self, section: str) -> list[Check]:
        group = "m ≤ 416 (shuffle, cut card)" if self.m <= 416 else "large m, near powers of 2"
        sample = f"{self.draws:,} draws"
        m = m_label(self.m)
        out = [
            Check(section, group, f"uniform({m}): {label}", sample, fit.text(), fit.p_value)
            for label, fit in self.fits
        ]
        out.append(
            Check(
                section,
                group,
                f"uniform({m}): discarded words against q = {self.q:.6g}",
                f"{self.draws + self.discarded:,} words",
                f"{self.discarded:,} discarded (expected {_count(self.expected_discards)})",
                self.rejection_p,
            )
        )
        return out


def _count(x: float) -> str:
    return f"{x:,.1f}" if x >= 10 else f"{x:.2g}"


def rejection_p_value(discarded: int, draws: int, q: float) -> float:
    """Two-sided p of ``discarded`` failures before ``draws`` successes of probability 1 − q."""
    if q == 0:
        return 1.0 if discarded == 0 else 0.0
    dist = sps.nbinom(draws, 1 - q)
    low, high = float(dist.cdf(discarded)), float(dist.sf(discarded - 1))
    return min(1.0, 2 * min(low, high))


def analyse_draws(d: Draws) -> ScalingAnalysis:
    m, v = d.m, d.values
    if v.min() < 0 or v.max() >= m:
        raise AssertionError(f"uniform({m}) returned a value outside [0, m)")
    fits: list[tuple[str, ChiSquare]]
    if m <= FULL_CELLS:
        counts = np.bincount(v, minlength=m)
        fits = [(f"every value ({m} cells)", chi_square(counts, np.full(m, 1 / m)))]
    else:
        lead = np.bincount((v * BINS) // m, minlength=BINS)  # v·64 < 2³⁸: no overflow
        trail = np.bincount(v % BINS, minlength=BINS)
        fits = [
            (f"leading bins ⌊{BINS}·v/m⌋", chi_square(lead, leading_bin_probabilities(m))),
            (f"trailing residues v mod {BINS}", chi_square(trail, residue_probabilities(m))),
        ]
    q = rejection_probability(m)
    return ScalingAnalysis(
        m, d.draws, tuple(fits), d.discarded, q, rejection_p_value(d.discarded, d.draws, q)
    )


def expected_shoe_discards(n: int, cut_window: int) -> float:
    """Expected words a whole shuffle of ``n`` cards (and a cut card draw from ``cut_window``
    values, 0 = none) discards: Σ q/(1 − q) over every ``m`` it draws from."""
    ms = list(range(2, n + 1)) + ([cut_window] if cut_window else [])
    return sum(rejection_probability(m) / (1 - rejection_probability(m)) for m in ms)


def shoe_discards_check(
    section: str, decks: int, shoes: int, discarded: int, cut_window: int
) -> Check:
    """The discards the real shuffles reported (``Shoe.words_discarded``) against expectation
    (a sum of independent geometric counts of tiny mean: Poisson)."""
    mean = shoes * expected_shoe_discards(52 * decks, cut_window)
    return Check(
        section,
        "whole shuffles",
        f"{decks} decks: words discarded (Shoe.words_discarded), Poisson",
        f"{shoes:,} shoes",
        f"{discarded} discarded (expected {_count(mean)})",
        poisson_two_sided(discarded, mean),
    )
