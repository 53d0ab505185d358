"""The statistics every section shares: a test's result, the report's multiple-testing rule
(Holm–Bonferroni over every verdict), goodness of fit against exact probabilities and the
Wald–Wolfowitz runs test."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats as sps

#: Significance level of every verdict (the 99% confidence the gaming rules name), applied
#: family-wise: see :func:`holm`.
ALPHA = 0.01


@dataclass(frozen=True, slots=True)
class Check:
    """One test with a verdict: what was tested, on how much, the statistic and its p-value.

    ``adjusted`` is the Holm–Bonferroni p-value over the whole report's family of checks (set by
    :func:`holm`); the verdict is *pass* when it is at least :data:`ALPHA`."""

    section: str
    group: str
    name: str
    sample: str
    statistic: str
    p_value: float
    adjusted: float | None = None

    @property
    def passed(self) -> bool:
        p = self.p_value if self.adjusted is None else self.adjusted
        return p >= ALPHA

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "FAIL"


def holm(checks: Sequence[Check]) -> list[Check]:
    """Holm–Bonferroni adjusted p-values, family-wise over ``checks`` (valid under any
    dependence between them): a correct generator fails any of them with probability ≤ α."""
    k = len(checks)
    order = sorted(range(k), key=lambda i: checks[i].p_value)
    adjusted = [1.0] * k
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * checks[i].p_value))
        adjusted[i] = running
    return [replace(c, adjusted=a) for c, a in zip(checks, adjusted, strict=True)]


# --- goodness of fit ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChiSquare:
    statistic: float
    df: int
    p_value: float
    observed: NDArray[np.float64]
    expected: NDArray[np.float64]

    @property
    def residuals(self) -> NDArray[np.float64]:
        """Pearson residuals ``(O − E) / √E`` per cell."""
        return (self.observed - self.expected) / np.sqrt(self.expected)

    def text(self) -> str:
        return f"χ² = {self.statistic:,.2f}, df = {self.df}"


def chi_square(observed: ArrayLike, probabilities: ArrayLike) -> ChiSquare:
    """Pearson's χ² of ``observed`` counts against exact cell ``probabilities`` (which sum to 1),
    df = cells − 1. Every cell must expect at least 5 (merge cells before calling)."""
    obs = np.asarray(observed, dtype=np.float64)
    prob = np.asarray(probabilities, dtype=np.float64)
    if obs.shape != prob.shape or obs.ndim != 1 or obs.size < 2:
        raise ValueError("observed and probabilities must be 1-D of the same length ≥ 2")
    if not math.isclose(float(prob.sum()), 1.0, rel_tol=0, abs_tol=1e-12):
        raise ValueError(f"cell probabilities sum to {prob.sum()!r}, not 1")
    expected = obs.sum() * prob
    if expected.min() < 5:
        raise ValueError("a cell expects fewer than 5: merge cells first")
    stat = float(((obs - expected) ** 2 / expected).sum())
    df = obs.size - 1
    return ChiSquare(stat, df, float(sps.chi2.sf(stat, df)), obs, expected)


def ks_uniform(p_values: ArrayLike) -> tuple[float, float]:
    """Kolmogorov–Smirnov of ``p_values`` against U(0, 1): (D, p)."""
    res = sps.kstest(np.asarray(p_values, dtype=np.float64), "uniform")
    return float(res.statistic), float(res.pvalue)


def normal_two_sided(z: float) -> float:
    return float(2 * sps.norm.sf(abs(z)))


def binomial_two_sided(successes: int, trials: int, p: float) -> float:
    """Exact two-sided binomial test of ``successes`` in ``trials`` against probability ``p``."""
    return float(sps.binomtest(successes, trials, p).pvalue)


def poisson_two_sided(count: int, mean: float) -> float:
    """Two-sided p of ``count`` under Poisson(``mean``): twice the smaller tail, at most 1."""
    if mean == 0:
        return 1.0 if count == 0 else 0.0
    low = float(sps.poisson.cdf(count, mean))
    high = float(sps.poisson.sf(count - 1, mean))
    return min(1.0, 2 * min(low, high))


# --- runs -----------------------------------------------------------------------------------


def runs_count(sequence: Sequence[int]) -> tuple[int, int, int]:
    """(runs, number of 1s, number of 0s) of a sequence of 0s and 1s."""
    if not sequence:
        return 0, 0, 0
    runs = 1 + sum(a != b for a, b in pairwise(sequence))
    ones = sum(sequence)
    return runs, ones, len(sequence) - ones


def runs_moments(n1: int, n2: int) -> tuple[float, float]:
    """Mean and variance of the number of runs of an exchangeable sequence of ``n1`` of one kind
    and ``n2`` of the other (Wald–Wolfowitz)."""
    n = n1 + n2
    if n1 == 0 or n2 == 0:
        return float(min(n, 1)), 0.0
    two = 2 * n1 * n2
    return 1 + two / n, two * (two - n) / (n * n * (n - 1))


@dataclass(frozen=True, slots=True)
class Runs:
    """The runs test summed over independent sequences: Σ runs against Σ of their exact means,
    with Σ of their variances (each sequence conditioned on its own counts)."""

    sequences: int
    items: int
    runs: int
    expected: float
    variance: float

    @property
    def z(self) -> float:
        return (self.runs - self.expected) / math.sqrt(self.variance)

    @property
    def p_value(self) -> float:
        return normal_two_sided(self.z)

    def __add__(self, other: Runs) -> Runs:
        return Runs(
            self.sequences + other.sequences,
            self.items + other.items,
            self.runs + other.runs,
            self.expected + other.expected,
            self.variance + other.variance,
        )


NO_RUNS = Runs(0, 0, 0, 0.0, 0.0)


def runs_of(sequence: Sequence[int]) -> Runs:
    runs, n1, n2 = runs_count(sequence)
    mean, var = runs_moments(n1, n2)
    return Runs(1, n1 + n2, runs, mean, var)


def fmt_p(p: float) -> str:
    """A p-value for a table: 4 significant digits, scientific below 10⁻⁴."""
    if p == 0:
        return "< 1e-300"
    return f"{p:.3e}" if p < 1e-4 else f"{p:.4f}"
