"""NIST SP 800-22 rev. 1a: the frequency, block frequency, runs, longest run of ones, serial,
approximate entropy and cumulative sums tests, and the suite's second-level assessment of many
sequences (section 4.2: proportion of sequences passing, uniformity of their p-values).

Written on NumPy/SciPy from the document (no maintained Python implementation of the suite
exists; see the report), section by section, and checked against the document's worked
examples (section 2, "Example" subsections) in the tests. Input: a 1-D ``uint8`` array of 0/1.
Where the document and NIST's reference code (sts 2.1.2) settle a detail the formulas leave open,
the reference code's choice is taken and named."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray
from scipy import special

Bits = NDArray[np.uint8]

#: The suite's significance level for one sequence (section 1.1.5, 4.2).
ALPHA = 0.01

# Parameters for 10⁶-bit sequences: the reference code's defaults (sts 2.1.2), within the
# document's bounds — block frequency M ≥ 20; serial m < ⌊log₂ n⌋ − 2; approximate entropy
# m < ⌊log₂ n⌋ − 5.
BLOCK_FREQUENCY_M = 128
SERIAL_M = 16
APPROXIMATE_ENTROPY_M = 10


def bits_of(data: bytes) -> Bits:
    """The bits of ``data`` in order, most significant bit of each byte first (so the stream's
    big-endian u32 words, word after word, most significant bit first)."""
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8))


def from_string(text: str) -> Bits:
    return np.array([int(c) for c in text if c in "01"], dtype=np.uint8)


def igamc(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) (the document's ``igamc``)."""
    return float(special.gammaincc(a, x))


# --- 2.1 frequency (monobit) --------------------------------------------------------------


def frequency(bits: Bits) -> float:
    n = bits.size
    s = 2 * int(bits.sum(dtype=np.int64)) - n
    return math.erfc(abs(s) / math.sqrt(n) / math.sqrt(2))


# --- 2.2 frequency within a block ---------------------------------------------------------


def block_frequency(bits: Bits, m: int = BLOCK_FREQUENCY_M) -> float:
    n_blocks = bits.size // m
    ones = bits[: n_blocks * m].reshape(n_blocks, m).sum(axis=1, dtype=np.int64)
    pi = ones / m
    chi2 = 4 * m * float(((pi - 0.5) ** 2).sum())
    return igamc(n_blocks / 2, chi2 / 2)


# --- 2.3 runs -------------------------------------------------------------------------------


def runs(bits: Bits) -> float:
    n = bits.size
    pi = int(bits.sum(dtype=np.int64)) / n
    if abs(pi - 0.5) >= 2 / math.sqrt(n):  # the frequency prerequisite (2.3.4 step 2): P = 0
        return 0.0
    v = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    return math.erfc(abs(v - 2 * n * pi * (1 - pi)) / (2 * math.sqrt(2 * n) * pi * (1 - pi)))


# --- 2.4 longest run of ones in a block ---------------------------------------------------

# (minimum n, block length M, lowest class v₀ = "≤ low", number of classes K + 1), table 2.4.2.
_LONGEST_RUN = ((750_000, 10_000, 10, 7), (6_272, 128, 4, 6), (128, 8, 1, 4))
#: The class probabilities π_i as printed in section 3.4 (4 decimals).
LONGEST_RUN_PI_PRINTED: dict[int, tuple[float, ...]] = {
    8: (0.2148, 0.3672, 0.2305, 0.1875),
    128: (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124),
    10_000: (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727),
}


@cache
def _runs_at_most(m: int, k: int) -> int:
    """Binary strings of length ``m`` whose longest run of ones is at most ``k``."""
    if k < 0:
        return 0
    f = [1 << i for i in range(min(m, k) + 1)]
    for i in range(k + 1, m + 1):
        f.append(sum(f[i - k - 1 : i]))  # ends in exactly j ones (0 ≤ j ≤ k) after a 0
    return f[m]


@cache
def longest_run_pi(m: int) -> tuple[float, ...]:
    """The exact class probabilities of section 3.4 for block length ``m`` (the printed table
    rounds them to 4 decimals; the tests check the rounding)."""
    low, classes = next((lo, k) for _, mm, lo, k in _LONGEST_RUN if mm == m)
    total = 1 << m
    cdf = [Fraction(_runs_at_most(m, low + i), total) for i in range(classes - 1)]
    pi = [cdf[0], *(b - a for a, b in pairwise(cdf)), 1 - cdf[-1]]
    return tuple(float(p) for p in pi)


def longest_run_of_ones(bits: Bits, pi: tuple[float, ...] | None = None) -> float:
    n = bits.size
    spec = next((s for s in _LONGEST_RUN if n >= s[0]), None)
    if spec is None:
        raise ValueError("the longest-run test needs at least 128 bits")
    _, m, low, classes = spec
    probs = np.asarray(pi if pi is not None else longest_run_pi(m))
    n_blocks = n // m
    # Each block framed by zeros, so that no run crosses a block boundary.
    framed = np.zeros((n_blocks, m + 2), dtype=np.int8)
    framed[:, 1:-1] = bits[: n_blocks * m].reshape(n_blocks, m)
    edges = np.diff(framed.ravel())
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    longest = np.zeros(n_blocks, dtype=np.int64)
    np.maximum.at(longest, starts // (m + 2), ends - starts)
    v = np.bincount(np.clip(longest - low, 0, classes - 1), minlength=classes)
    expected = n_blocks * probs
    chi2 = float(((v - expected) ** 2 / expected).sum())
    return igamc((classes - 1) / 2, chi2 / 2)


# --- 2.11 serial and 2.12 approximate entropy: circular pattern counts --------------------


def pattern_counts(bits: Bits, m: int) -> NDArray[np.int64]:
    """Counts of the ``2^m`` overlapping ``m``-bit patterns of the sequence extended by its own
    first ``m − 1`` bits (the augmentation both tests prescribe): pattern ``i`` starts at bit
    ``i`` for ``i = 0 … n−1``."""
    n = bits.size
    ext = np.concatenate((bits, bits[: m - 1])).astype(np.uint32)
    v = np.zeros(n, dtype=np.uint32)
    for j in range(m):
        v <<= np.uint32(1)
        v |= ext[j : j + n]
    return np.bincount(v, minlength=1 << m).astype(np.int64)


def shorter(counts: NDArray[np.int64], by: int = 1) -> NDArray[np.int64]:
    """Counts of the patterns ``by`` bits shorter, from the longer ones: in the circular
    sequence, a shorter pattern at ``i`` is the prefix of the longer one at ``i``."""
    out: NDArray[np.int64] = counts.reshape(-1, 1 << by).sum(axis=1)
    return out


def _psi2(counts: NDArray[np.int64], n: int) -> float:
    if counts.size == 1:  # m = 0
        return 0.0
    return float(counts.size) / n * float((counts.astype(np.float64) ** 2).sum()) - n


def serial(
    bits: Bits, m: int = SERIAL_M, counts: NDArray[np.int64] | None = None
) -> tuple[float, float]:
    """(P-value₁, P-value₂). ``counts``: the ``m``-bit pattern counts, if already made."""
    n = bits.size
    c_m = pattern_counts(bits, m) if counts is None else counts
    c_m1 = shorter(c_m)
    psi_m, psi_m1 = _psi2(c_m, n), _psi2(c_m1, n)
    psi_m2 = _psi2(shorter(c_m1), n) if m >= 2 else 0.0
    d1 = psi_m - psi_m1
    d2 = psi_m - 2 * psi_m1 + psi_m2
    return igamc(2 ** (m - 2), d1 / 2), igamc(2 ** (m - 3), d2 / 2)


def _phi(counts: NDArray[np.int64], n: int) -> float:
    c = counts[counts > 0] / n
    return float((c * np.log(c)).sum())


def approximate_entropy(
    bits: Bits, m: int = APPROXIMATE_ENTROPY_M, counts: NDArray[np.int64] | None = None
) -> float:
    """``counts``: the ``(m+1)``-bit pattern counts, if already made."""
    n = bits.size
    c_m1 = pattern_counts(bits, m + 1) if counts is None else counts
    apen = _phi(shorter(c_m1), n) - _phi(c_m1, n)
    chi2 = 2 * n * (math.log(2) - apen)
    return igamc(2 ** (m - 1), chi2 / 2)


# --- 2.13 cumulative sums -----------------------------------------------------------------


def _cdiv(a: int, b: int) -> int:
    """C's integer division (truncation toward zero), as the reference code sums with."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _phi_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def cumulative_sums(bits: Bits, reverse: bool = False) -> float:
    n = bits.size
    x = 2 * bits.astype(np.int64) - 1
    s = np.cumsum(x[::-1] if reverse else x)
    z = int(np.abs(s).max())
    root = math.sqrt(n)
    sum1 = sum(
        _phi_cdf((4 * k + 1) * z / root) - _phi_cdf((4 * k - 1) * z / root)
        for k in range(_cdiv(_cdiv(-n, z) + 1, 4), _cdiv(_cdiv(n, z) - 1, 4) + 1)
    )
    sum2 = sum(
        _phi_cdf((4 * k + 3) * z / root) - _phi_cdf((4 * k + 1) * z / root)
        for k in range(_cdiv(_cdiv(-n, z) - 3, 4), _cdiv(_cdiv(n, z) - 1, 4) + 1)
    )
    return 1.0 - sum1 + sum2


# --- the battery on one sequence ----------------------------------------------------------

#: The p-values one sequence yields, in report order.
TESTS: tuple[str, ...] = (
    "frequency",
    "block frequency",
    "runs",
    "longest run",
    "serial (P₁)",
    "serial (P₂)",
    "approximate entropy",
    "cumulative sums (forward)",
    "cumulative sums (reverse)",
)


def battery(bits: Bits) -> tuple[float, ...]:
    """Every test's p-value on one sequence, in the order of :data:`TESTS`."""
    counts = pattern_counts(bits, SERIAL_M)
    apen_counts = shorter(counts, SERIAL_M - APPROXIMATE_ENTROPY_M - 1)
    return (
        frequency(bits),
        block_frequency(bits),
        runs(bits),
        longest_run_of_ones(bits),
        *serial(bits, SERIAL_M, counts),
        approximate_entropy(bits, APPROXIMATE_ENTROPY_M, apen_counts),
        cumulative_sums(bits),
        cumulative_sums(bits, reverse=True),
    )


# --- section 4.2: many sequences ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SecondLevel:
    """Section 4.2 for one test over ``sequences`` p-values."""

    test: str
    sequences: int
    passed: int
    histogram: tuple[int, ...]  # 10 bins of width 0.1 (4.2.2)
    uniformity_chi2: float
    uniformity_p: float  # P-value_T

    @property
    def proportion(self) -> float:
        return self.passed / self.sequences

    @property
    def interval(self) -> tuple[float, float]:
        """The confidence interval of 4.2.1: p̂ ± 3·√(p̂(1 − p̂)/m), p̂ = 1 − α."""
        p = 1 - ALPHA
        half = 3 * math.sqrt(p * (1 - p) / self.sequences)
        return p - half, p + half

    @property
    def proportion_ok(self) -> bool:
        low, high = self.interval
        return low <= self.proportion <= high

    @property
    def uniformity_ok(self) -> bool:
        """4.2.2: uniform when P-value_T ≥ 0.0001."""
        return self.uniformity_p >= 0.0001

    @property
    def nist_ok(self) -> bool:
        return self.proportion_ok and self.uniformity_ok


def second_level(test: str, p_values: NDArray[np.float64]) -> SecondLevel:
    s = int(p_values.size)
    # p = 1 falls in the last bin (as the reference code does)
    hist = np.bincount(np.minimum((p_values * 10).astype(np.int64), 9), minlength=10)
    expected = s / 10
    chi2 = float(((hist - expected) ** 2 / expected).sum())
    return SecondLevel(
        test=test,
        sequences=s,
        passed=int((p_values >= ALPHA).sum()),
        histogram=tuple(int(h) for h in hist),
        uniformity_chi2=chi2,
        uniformity_p=igamc(9 / 2, chi2 / 2),
    )


# --- the document's worked examples ---------------------------------------------------------

#: ε of the n = 100 examples (the first 100 binary digits of the expansion the document uses).
EPSILON_100 = (
    "11001001000011111101101010100010001000010110100011"
    "00001000110100110001001100011001100010100010111000"
)
#: ε of the longest-run example (n = 128).
EPSILON_128 = (
    "11001100000101010110110001001100111000000000001001"
    "00110101010001000100111101011010000000110101111100"
    "1100111001101101100010110010"
)


@dataclass(frozen=True, slots=True)
class Example:
    section: str
    what: str
    document: str  # as printed
    ours: float

    @property
    def agrees(self) -> bool:
        """Equal to the document's P-value to 6 decimals (it prints 6, once 7)."""
        return abs(self.ours - float(self.document)) < 1e-6


def worked_examples() -> list[Example]:
    """Every worked example of section 2 for the tests implemented here, recomputed."""
    e100, e128 = from_string(EPSILON_100), from_string(EPSILON_128)
    serial_p = serial(from_string("0011011101"), 3)
    return [
        Example(
            "2.1.4", "frequency, ε = 1011010101", "0.527089", frequency(from_string("1011010101"))
        ),
        Example("2.1.8", "frequency, n = 100", "0.109599", frequency(e100)),
        Example(
            "2.2.4",
            "block frequency, ε = 0110011010, M = 3",
            "0.801252",
            block_frequency(from_string("0110011010"), 3),
        ),
        Example("2.2.8", "block frequency, n = 100, M = 10", "0.706438", block_frequency(e100, 10)),
        Example("2.3.4", "runs, ε = 1001101011", "0.147232", runs(from_string("1001101011"))),
        Example("2.3.8", "runs, n = 100", "0.500798", runs(e100)),
        Example("2.4.8", "longest run, n = 128, M = 8", "0.180609", longest_run_of_ones(e128)),
        Example("2.11.4", "serial P₁, ε = 0011011101, m = 3", "0.808792", serial_p[0]),
        Example("2.11.4", "serial P₂, ε = 0011011101, m = 3", "0.670320", serial_p[1]),
        Example(
            "2.12.4",
            "approximate entropy, ε = 0100110101, m = 3",
            "0.261961",
            approximate_entropy(from_string("0100110101"), 3),
        ),
        Example(
            "2.12.8",
            "approximate entropy, n = 100, m = 2",
            "0.235301",
            approximate_entropy(e100, 2),
        ),
        Example(
            "2.13.4",
            "cumulative sums forward, ε = 1011010111",
            "0.4116588",
            cumulative_sums(from_string("1011010111")),
        ),
        Example("2.13.8", "cumulative sums forward, n = 100", "0.219194", cumulative_sums(e100)),
        Example(
            "2.13.8",
            "cumulative sums reverse, n = 100",
            "0.114866",
            cumulative_sums(e100, reverse=True),
        ),
    ]
