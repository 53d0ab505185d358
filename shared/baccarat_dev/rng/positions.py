"""Card × position: how often each of the 52 card identities lands at each shoe position.

For one position, the identity there is uniform over the 52 (each appears ``D`` times in a shoe of
``n = 52·D`` cards), so its counts over ``N`` independent shoes are multinomial(N, 1/52): one
Pearson χ² with 51 degrees of freedom per position. The ``n`` p-values must look uniform
(Kolmogorov–Smirnov). The positions of one shoe are not independent (each identity appears
exactly ``D`` times), but only weakly: the covariance of the ``n × 52`` table of counts is exactly
``N·D/(n−1) · C_n ⊗ C_52`` (``C_k = I − J/k``), so the whole-table statistic
``T = Σ (O − E)²/E`` is ``n/(n−1)`` times a χ² with ``(n−1)·51`` degrees of freedom:
``T·(n−1)/n`` is tested against that. The smallest per-position p-value is tested too
(Šidák over the ``n`` positions), which catches a bias confined to a few positions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats as sps

from baccarat.cards import CARDS_PER_DECK

from .stats import Check, ks_uniform


def position_counts(cards: NDArray[np.int64]) -> NDArray[np.int64]:
    """``counts[p, c]``: shoes (rows of ``cards``) with identity ``c`` (id mod 52) at ``p``."""
    n = cards.shape[1]
    cells = np.arange(n, dtype=np.int64)[None, :] * CARDS_PER_DECK + cards % CARDS_PER_DECK
    return np.bincount(cells.ravel(), minlength=n * CARDS_PER_DECK).reshape(n, CARDS_PER_DECK)


@dataclass(frozen=True, slots=True)
class PositionAnalysis:
    decks: int
    shoes: int
    chi2: NDArray[np.float64]  # per position, df 51
    p_values: NDArray[np.float64]  # per position
    ks_d: float
    ks_p: float
    table_t: float  # Σ (O − E)² / E over the whole table
    table_df: int
    table_p: float
    min_position: int
    min_p_adjusted: float  # Šidák over the positions
    z: NDArray[np.float64]  # standardised deviations (O − E)/√(E(1 − 1/52)), positions × 52

    @property
    def positions(self) -> int:
        return int(self.chi2.size)

    def checks(self, section: str) -> list[Check]:
        n, group = self.positions, f"{self.decks} decks"
        sample = f"{self.shoes:,} shoes × {n} positions"
        below = int((self.p_values < 0.01).sum())
        return [
            Check(
                section,
                group,
                f"KS of the {n} per-position χ²(51) p-values against U(0,1) "
                f"({below} below 0.01, {0.01 * n:.1f} expected)",
                sample,
                f"D = {self.ks_d:.4f}",
                self.ks_p,
            ),
            Check(
                section,
                group,
                "whole card × position table, T·(n−1)/n against χ²((n−1)·51)",
                sample,
                f"T = {self.table_t:,.1f}, df = {self.table_df:,}",
                self.table_p,
            ),
            Check(
                section,
                group,
                f"smallest per-position p (position {self.min_position}), Šidák over {n}",
                sample,
                f"p_min = {self.p_values.min():.3g}",
                self.min_p_adjusted,
            ),
        ]


def analyse_positions(counts: NDArray[np.int64], decks: int) -> PositionAnalysis:
    n, k = counts.shape
    shoes = int(counts[0].sum())
    if k != CARDS_PER_DECK or n != CARDS_PER_DECK * decks or not (counts.sum(1) == shoes).all():
        raise ValueError("not a card × position table of whole shoes")
    expected = shoes / k
    dev = counts - expected
    chi2 = (dev**2 / expected).sum(1)
    p = sps.chi2.sf(chi2, k - 1)
    ks_d, ks_p = ks_uniform(p)
    table_t = float(chi2.sum())
    table_df = (n - 1) * (k - 1)
    table_p = float(sps.chi2.sf(table_t * (n - 1) / n, table_df))
    worst = int(np.argmin(p))
    # 1 − (1 − p)^n without cancellation for small p
    min_adj = float(-np.expm1(n * np.log1p(-p[worst])))
    z = dev / np.sqrt(expected * (1 - 1 / k))
    return PositionAnalysis(
        decks, shoes, chi2, p, ks_d, ks_p, table_t, table_df, table_p, worst, min_adj, z
    )
