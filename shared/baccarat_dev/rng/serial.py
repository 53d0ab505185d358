"""Serial structure: correlation between the points of cards ``k`` apart in a shoe, and runs of
Banker / Player results.

A shoe is a permutation of a fixed multiset of point values, so consecutive cards are *not*
uncorrelated: the serial correlation ``r_k`` of a uniform permutation of ``n`` cards has
expectation exactly ``−1/(n−1)``, and that is what the mean over independent shoes is tested
against (testing against 0 would fail a perfect shuffle at this sample size). Runs: the
Wald–Wolfowitz test on each shoe's Banker/Player results (ties left out), summed over shoes, and
on the round-1 results of consecutive shoes of a table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from baccarat.cards import CARDS_PER_DECK, DECK_POINTS
from baccarat.outcome import Result, Round

from .stats import Check, Runs, normal_two_sided, runs_of

#: Lags shown in the plot; lag 1 is the test.
LAGS = tuple(range(1, 11))
_POINTS = np.array(DECK_POINTS, dtype=np.float64)


def points_of(cards: NDArray[np.int64]) -> NDArray[np.float64]:
    return _POINTS[cards % CARDS_PER_DECK]


def expected_lag_correlation(n: int) -> float:
    """``E[r_k]`` for a uniform permutation of any ``n`` values (not all equal)."""
    return -1 / (n - 1)


def lag_correlations(
    points: NDArray[np.float64], lags: tuple[int, ...] = LAGS
) -> NDArray[np.float64]:
    """``r_k`` of every shoe (rows) at every lag (columns), centred and scaled by the shoe's own
    (fixed) multiset mean and variance."""
    mu = points.mean(axis=1, keepdims=True)
    x = points - mu
    var = (x**2).mean(axis=1)
    out = np.empty((points.shape[0], len(lags)))
    for j, k in enumerate(lags):
        out[:, j] = (x[:, :-k] * x[:, k:]).mean(axis=1) / var
    return out


def bp_sequence(rounds: tuple[Round, ...]) -> list[int]:
    """1 for Banker, 0 for Player, ties left out."""
    return [1 if r.result is Result.BANKER else 0 for r in rounds if r.result is not Result.TIE]


def shoe_runs(rounds: tuple[Round, ...]) -> Runs:
    return runs_of(bp_sequence(rounds))


@dataclass(frozen=True, slots=True)
class SerialAnalysis:
    decks: int
    shoes: int
    positions: int
    mean_r: NDArray[np.float64]  # per lag
    se_r: NDArray[np.float64]  # per lag
    within: Runs  # runs within shoes
    across: Runs  # runs of round-1 results across consecutive shoes

    @property
    def expected_r(self) -> float:
        return expected_lag_correlation(self.positions)

    @property
    def z_lag1(self) -> float:
        return float((self.mean_r[0] - self.expected_r) / self.se_r[0])

    def checks(self, section: str) -> list[Check]:
        group = f"{self.decks} decks"
        w, a = self.within, self.across
        return [
            Check(
                section,
                group,
                "lag-1 correlation of consecutive cards' points, against −1/(n−1)",
                f"{self.shoes:,} shoes × {self.positions - 1} pairs",
                f"r̄ = {self.mean_r[0]:+.6f} (expected {self.expected_r:+.6f}), "
                f"z = {self.z_lag1:+.2f}",
                normal_two_sided(self.z_lag1),
            ),
            Check(
                section,
                group,
                "runs of Banker/Player within each shoe (ties left out)",
                f"{w.sequences:,} shoes, {w.items:,} results",
                f"runs = {w.runs:,} (expected {w.expected:,.1f}), z = {w.z:+.2f}",
                w.p_value,
            ),
            Check(
                section,
                group,
                "runs of round-1 Banker/Player results across consecutive shoes",
                f"{a.items:,} shoes (ties left out)",
                f"runs = {a.runs:,} (expected {a.expected:,.1f}), z = {a.z:+.2f}",
                a.p_value,
            ),
        ]


def analyse_serial(
    decks: int, r: NDArray[np.float64], within: Runs, across_sequence: list[int]
) -> SerialAnalysis:
    shoes = r.shape[0]
    return SerialAnalysis(
        decks=decks,
        shoes=shoes,
        positions=CARDS_PER_DECK * decks,
        mean_r=r.mean(axis=0),
        se_r=r.std(axis=0, ddof=1) / np.sqrt(shoes),
        within=within,
        across=runs_of(across_sequence),
    )
