"""The report's figures (Matplotlib, Agg backend, PNG without a timestamp)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats as sps

from baccarat.cards import SUITS

from . import nist
from .outcomes import OutcomeAnalysis
from .positions import PositionAnalysis
from .scaling import ScalingAnalysis, m_label
from .serial import LAGS, SerialAnalysis
from .stats import ALPHA
from .stream import Battery

Z99 = float(sps.norm.isf(ALPHA / 2))  # 2.576
_SAVE: dict[str, Any] = {"dpi": 110, "metadata": {"Software": None}}


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, **_SAVE)
    plt.close(fig)
    return path


def heatmap(a: PositionAnalysis, path: Path, spec: str = "") -> Path:
    """Standardised deviation of every card identity at every position, and their histogram."""
    fig, (ax, hx) = plt.subplots(
        1, 2, figsize=(13, 4.6), gridspec_kw={"width_ratios": [5, 1]}, layout="constrained"
    )
    im = ax.imshow(a.z.T, aspect="auto", cmap="RdBu_r", vmin=-4, vmax=4, interpolation="nearest")
    ax.set_title(
        f"{spec}{a.decks} decks, {a.shoes:,} shoes: (observed − expected) / sd per card × position"
    )
    ax.set_xlabel("shoe position")
    ax.set_ylabel("card identity")
    ax.set_yticks([6 + 13 * s for s in range(4)], [f"{SUITS[s]}  (A…K)" for s in range(4)])
    for s in range(1, 4):
        ax.axhline(13 * s - 0.5, color="k", lw=0.4)
    ax.set_xticks(range(0, a.positions + 1, 52))
    fig.colorbar(im, ax=ax, label="z", shrink=0.9)
    z = a.z.ravel()
    grid = np.linspace(-5, 5, 201)
    hx.hist(z, bins=60, range=(-5, 5), density=True, color="0.6", label=f"{z.size:,} cells")
    hx.plot(grid, sps.norm.pdf(grid), "k", lw=1, label="N(0, 1)")
    hx.set_yscale("log")
    hx.set_ylim(1e-5, 1)
    hx.set_xlabel("z")
    hx.set_title("all cells")
    hx.legend(fontsize=8, loc="lower center")
    return _save(fig, path)


def position_p_values(analyses: list[PositionAnalysis], path: Path) -> Path:
    fig, axes = plt.subplots(2, len(analyses), figsize=(13, 6.5), layout="constrained")
    for col, a in enumerate(analyses):
        p = np.sort(a.p_values)
        n = p.size
        top, bottom = axes[0, col], axes[1, col]
        top.hist(p, bins=20, range=(0, 1), color="0.6", edgecolor="w")
        top.axhline(n / 20, color="k", lw=1, ls="--", label="uniform")
        top.set_title(f"{a.decks} decks: {n} per-position χ² p-values")
        top.set_xlabel("p-value")
        top.legend(fontsize=8)
        crit = float(sps.kstwo.isf(ALPHA, n))
        grid = np.linspace(0, 1, 101)
        bottom.fill_between(
            grid, grid - crit, grid + crit, color="0.85", label=f"KS 99% band (±{crit:.3f})"
        )
        bottom.step(p, np.arange(1, n + 1) / n, where="post", color="C0", label="empirical CDF")
        bottom.plot([0, 1], [0, 1], "k", lw=0.8)
        bottom.set_xlim(0, 1)
        bottom.set_ylim(0, 1)
        bottom.set_xlabel("p-value")
        bottom.set_title(f"KS D = {a.ks_d:.4f}, p = {a.ks_p:.3f}")
        bottom.legend(fontsize=8, loc="upper left")
    return _save(fig, path)


def scaling(analyses: list[ScalingAnalysis], path: Path) -> Path:
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), layout="constrained")
    labels = [m_label(a.m) for a in analyses]
    for k, a in enumerate(analyses):
        for label, fit in a.fits:
            marker = "o" if "every" in label else "s" if "leading" in label else "^"
            left.scatter(fit.p_value, k, marker=marker, color="C0", s=28)
    left.scatter([], [], marker="o", color="C0", label="every value")
    left.scatter([], [], marker="s", color="C0", label="leading 64 bins")
    left.scatter([], [], marker="^", color="C0", label="trailing residues mod 64")
    left.axvline(ALPHA, color="C3", lw=1, ls="--", label="α = 0.01")
    left.set_yticks(range(len(labels)), labels)
    left.set_xlim(0, 1)
    left.invert_yaxis()
    left.set_xlabel("χ² p-value")
    left.set_ylabel("m")
    left.set_title(f"uniform(m): goodness of fit, {analyses[0].draws:,} draws each")
    left.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    big = [a for a in analyses if a.q > 1e-6]
    y = np.arange(len(big))
    q = np.array([a.q for a in big])
    words = np.array([a.draws + a.discarded for a in big], dtype=np.float64)
    measured = np.array([a.measured_rate for a in big])
    z = (measured - q) / np.sqrt(q * (1 - q) / words)
    right.axvspan(-Z99, Z99, color="0.9", label="99% range")
    right.axvline(0, color="k", lw=0.6)
    right.scatter(z, y, color="C0", zorder=3)
    for yi, zi, a in zip(y, z, big, strict=True):
        right.annotate(
            f"measured {a.measured_rate:.5f}, expected {a.q:.5f}",
            (zi, yi),
            xytext=(0, 9),
            textcoords="offset points",
            ha="center",
            fontsize=8,
        )
    right.set_yticks(y, [m_label(a.m) for a in big])
    right.set_ylim(-0.7, len(big) - 0.3)
    right.set_xlim(-4, 4)
    right.invert_yaxis()
    right.set_xlabel("(measured − expected rejection rate) / standard error")
    right.set_title("words discarded, where measurable (q > 10⁻⁶)")
    right.legend(fontsize=8, loc="lower right")
    return _save(fig, path)


def serial(analyses: list[SerialAnalysis], path: Path) -> Path:
    fig, axes = plt.subplots(1, len(analyses), figsize=(13, 4), layout="constrained")
    lags = np.array(LAGS)
    for ax, a in zip(axes, analyses, strict=True):
        band = Z99 * a.se_r
        ax.fill_between(
            lags, a.expected_r - band, a.expected_r + band, color="0.85", label="99% band"
        )
        ax.axhline(a.expected_r, color="k", lw=1, label="−1/(n−1)")
        ax.axhline(0, color="0.5", lw=0.6, ls=":")
        ax.plot(lags, a.mean_r, "o-", color="C0", label="mean over shoes")
        ax.set_title(f"{a.decks} decks, {a.shoes:,} shoes")
        ax.set_xlabel("lag k (cards apart)")
        ax.set_xticks(lags)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))
        ax.legend(fontsize=8)
    axes[0].set_ylabel("serial correlation of points r_k")
    return _save(fig, path)


def outcomes(analyses: list[OutcomeAnalysis], path: Path) -> Path:
    rows = [(t.what, c) for t in analyses[0].tests for c in t.categories]
    fig, axes = plt.subplots(
        1, len(analyses), figsize=(13, 0.2 * len(rows) + 1.5), sharey=True, layout="constrained"
    )
    for ax, a in zip(axes, analyses, strict=True):
        z: dict[tuple[str, str], float] = {}
        for t in a.tests:
            for c, r in zip(t.categories, t.result.residuals, strict=True):
                z[t.what, c] = float(r)
        y = np.arange(len(rows))
        values = [z.get(r, np.nan) for r in rows]
        ax.axvspan(-Z99, Z99, color="0.9")
        ax.axvline(0, color="k", lw=0.6)
        ax.scatter(values, y, s=14, color="C0")
        ax.set_xlim(-4.5, 4.5)
        ax.set_title(f"{a.decks} decks, {a.rounds:,} rounds (grey: ±{Z99:.3f})")
        ax.set_xlabel("(observed − expected) / √expected")
    axes[0].set_yticks(np.arange(len(rows)), [f"{w}: {c}" for w, c in rows], fontsize=7)
    axes[0].invert_yaxis()
    return _save(fig, path)


def stream_p_values(battery: Battery, path: Path) -> Path:
    levels = battery.levels
    fig, axes = plt.subplots(3, 3, figsize=(12, 8.5), layout="constrained")
    for ax, level in zip(axes.ravel(), levels, strict=True):
        ax.bar(np.arange(10) / 10 + 0.05, level.histogram, width=0.1, color="0.6", edgecolor="w")
        ax.axhline(level.sequences / 10, color="k", lw=1, ls="--")
        ax.set_xlim(0, 1)
        ax.set_title(
            f"{level.test}\nP_T = {level.uniformity_p:.4f}, {level.passed}/{level.sequences}"
        )
        ax.set_xlabel("p-value", fontsize=8)
    fig.suptitle(f"SP 800-22 p-values, {battery.name}: {battery.sequences:,} sequences of 10⁶ bits")
    return _save(fig, path)


def stream_proportions(batteries: list[Battery], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(12, 4.2), layout="constrained")
    x = np.arange(len(nist.TESTS))
    for k, b in enumerate(batteries):
        levels = b.levels
        low, high = levels[0].interval
        ax.scatter(
            x + (k - 0.5) * 0.25,
            [lv.proportion for lv in levels],
            color=f"C{k}",
            label=f"{b.name} ({b.sequences:,} sequences)",
            zorder=3,
        )
        ax.hlines(
            [low, high],
            -0.5,
            len(x) - 0.5,
            colors="0.4",
            linestyles="--",
            lw=0.8,
            label=f"NIST interval for {b.sequences:,} sequences" if k == 0 else "_",
        )
    ax.axhline(1 - nist.ALPHA, color="k", lw=0.6)
    ax.set_xticks(x, nist.TESTS, rotation=15, fontsize=8)
    ax.set_ylabel("proportion of sequences with p ≥ 0.01")
    ax.set_title("SP 800-22 §4.2.1: proportion passing, with the interval p̂ ± 3√(p̂(1−p̂)/m)")
    ax.legend(fontsize=8, loc="upper left", ncols=3)
    ax.set_ylim(ax.get_ylim()[0], ax.get_ylim()[1] + 0.003)
    return _save(fig, path)


def all_figures(res: Any, out: Path) -> dict[str, Path]:
    """Every figure of the report under ``out`` (name → path)."""
    figs = {
        f"heatmap_{a.decks}": heatmap(a, out / f"positions-{a.decks}-decks.png")
        for a in res.positions
    }
    for a in res.v2_positions:
        path = out / f"v2-positions-{a.decks}-decks.png"
        figs[f"v2_heatmap_{a.decks}"] = heatmap(a, path, "bacc-pf-v2, ")
    figs["position_p"] = position_p_values(res.positions, out / "positions-p-values.png")
    figs["scaling"] = scaling(res.scaling, out / "scaling.png")
    figs["serial"] = serial(res.serial, out / "serial.png")
    figs["outcomes"] = outcomes(res.outcomes, out / "outcomes.png")
    for b in res.streams:
        slug = b.name.replace(" ", "-")
        figs[f"stream_{slug}"] = stream_p_values(b, out / f"stream-{slug}.png")
    figs["stream_proportions"] = stream_proportions(res.streams, out / "stream-proportions.png")
    return figs
