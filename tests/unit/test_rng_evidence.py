"""The fixed-seed subset of the RNG evidence (docs/rng-report.md, ``make rng-report``).

The report's checks at small, fixed sample sizes on the production derivation must pass — and,
at the very same sizes, must reject deliberately broken generators fed by the same production
stream (an off-by-one Fisher–Yates, a single riffle, modulo-biased scaling, a stuck bit), so a
change that breaks uniformity fails here. Below them, the statistics the report relies on are
checked against exact enumeration, and the SP 800-22 code against the document's worked
examples."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from baccarat.fairness import stream_words, uniform
from baccarat.rules import STAR_CITY_RULES
from baccarat_dev.rng import broken, nist, subset
from baccarat_dev.rng.outcomes import exact_probabilities
from baccarat_dev.rng.positions import analyse_positions, position_counts
from baccarat_dev.rng.sample import ShoeSample
from baccarat_dev.rng.scaling import (
    draw,
    leading_bin_probabilities,
    rejection_p_value,
    residue_probabilities,
)
from baccarat_dev.rng.serial import expected_lag_correlation, lag_correlations
from baccarat_dev.rng.source import Table
from baccarat_dev.rng.stats import Check, chi_square, holm, runs_count, runs_moments
from baccarat_dev.rng.stream import check_words, long_stream_bits

#: Seconds of statistics: ``make test`` runs them, ``make unit`` does not (its extra has no NumPy:
#: tests/unit/conftest.py leaves this file out there).
pytestmark = pytest.mark.slow

# --- the fixed-seed subset: production passes, broken generators fail ------------------------


@pytest.fixture(scope="module")
def production() -> ShoeSample:
    return subset.shoe_sample()


def failing(checks: list[Check]) -> list[Check]:
    return [c for c in holm(checks) if not c.passed]


def named(checks: list[Check], section: str, text: str) -> Check:
    (found,) = [c for c in holm(checks) if c.section == section and text in c.name]
    return found


def test_the_production_shuffle_passes_every_shoe_check(production: ShoeSample) -> None:
    checks = subset.shoe_checks(production)
    assert {c.section for c in checks} == {"positions", "serial", "outcomes"}
    assert len(checks) == 3 + 3 + 15
    assert failing(checks) == []
    assert production.shoes == subset.SHOES


def test_an_off_by_one_fisher_yates_fails_card_by_position() -> None:
    """``j = uniform(t)`` (Sattolo): no card stays in place, which the same 5,000 shoes show."""
    checks = subset.shoe_checks(subset.shoe_sample(broken.off_by_one_shuffle))
    assert not named(checks, "positions", "whole card × position table").passed
    assert not named(checks, "positions", "KS of the").passed


def test_a_single_riffle_fails_serial_structure_and_outcomes() -> None:
    checks = subset.shoe_checks(subset.shoe_sample(broken.one_riffle))
    assert not named(checks, "serial", "lag-1 correlation").passed
    assert not named(checks, "outcomes", "result:").passed
    assert not named(checks, "positions", "whole card × position table").passed


def test_production_uniform_passes_and_modulo_scaling_fails() -> None:
    assert failing(subset.scaling_checks()) == []
    biased = subset.scaling_checks(broken.modulo_uniform)
    assert not named(biased, "scaling", "uniform(3·2³⁰): leading bins").passed
    assert not named(biased, "scaling", "uniform(2³¹ + 1): discarded words").passed


def test_the_stream_passes_sp800_22_and_a_stuck_bit_fails() -> None:
    assert failing(subset.stream_checks()) == []
    stuck = subset.stream_checks(broken.stuck_bit_bits)
    assert not named(stuck, "stream", "sequence 1: frequency").passed


def test_broken_generators_use_the_production_stream() -> None:
    """The controls differ from production in their one mistake only."""
    table = Table(subset.SEED, "t", STAR_CITY_RULES, 1)
    key = table.key(table.secrets()[1][0], 1)
    assert sorted(broken.off_by_one_shuffle(key, 208)) == list(range(208))
    assert sorted(broken.one_riffle(key, 208)) == list(range(208))
    words = list(itertools.islice(stream_words(key), 8))
    assert [broken.modulo_uniform(iter([w]), 1000) for w in words] == [w % 1000 for w in words]
    good, stuck = long_stream_bits(key, 512), broken.stuck_bit_bits(key, 512)
    assert (good != stuck).sum() == (good[31::32] == 0).sum()
    assert (stuck[31::32] == 1).all()


# --- the statistics, against exact enumeration ----------------------------------------------


def test_holm_adjusted_p_values() -> None:
    checks = [Check("s", "g", str(p), "", "", p) for p in (0.01, 0.04, 0.03, 0.005)]
    assert [c.adjusted for c in holm(checks)] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [c.passed for c in holm(checks)] == [True, True, True, True]
    assert not holm([Check("s", "g", "", "", "", 0.001)])[0].passed


def test_chi_square_refuses_what_it_cannot_judge() -> None:
    with pytest.raises(ValueError, match="sum"):
        chi_square([10, 10], [0.5, 0.4])
    with pytest.raises(ValueError, match="fewer than 5"):
        chi_square([100, 1], [0.99, 0.01])
    fit = chi_square([30, 10], [0.5, 0.5])
    assert fit.statistic == pytest.approx(10.0)
    assert fit.p_value == pytest.approx(0.0015654, rel=1e-4)


@pytest.mark.parametrize(("n1", "n2"), [(1, 1), (2, 3), (4, 4), (5, 2)])
def test_runs_moments_are_exact(n1: int, n2: int) -> None:
    arrangements = {p for p in itertools.permutations([1] * n1 + [0] * n2)}
    runs = [runs_count(list(a))[0] for a in arrangements]
    mean, var = runs_moments(n1, n2)
    assert mean == pytest.approx(np.mean(runs))
    assert var == pytest.approx(np.var(runs))


def test_serial_correlation_of_a_perfect_shuffle_is_minus_one_over_n_minus_one() -> None:
    values = [1, 1, 2, 0, 0, 7]  # a small "shoe" with repeated point values
    perms = np.array(list(itertools.permutations(values)), dtype=np.float64)
    r = lag_correlations(perms, (1, 2, 3))
    assert r.mean(axis=0) == pytest.approx([expected_lag_correlation(6)] * 3)


def test_card_by_position_covariance_is_d_over_n_minus_one_times_centring() -> None:
    """The whole-table statistic's scaling: Cov(vec Y) = D/(n−1) · C_n ⊗ C_k for one uniform
    shuffle of k identities × D copies (here k = 3, D = 2, all 720 orders)."""
    k, d = 3, 2
    n = k * d
    shoe = [c for c in range(k) for _ in range(d)]
    ys = np.array(
        [np.eye(k)[list(order)].ravel() for order in itertools.permutations(shoe)]
    )  # each row: the n × k indicator table of one order
    cov = np.cov(ys, rowvar=False, bias=True)

    def centring(m: int) -> np.ndarray:
        return np.eye(m) - np.ones((m, m)) / m

    assert cov == pytest.approx(d / (n - 1) * np.kron(centring(n), centring(k)))


def test_position_analysis_reads_the_table() -> None:
    cards = np.array([list(range(208)), list(reversed(range(208)))] * 60, dtype=np.int64)
    counts = position_counts(cards)
    assert counts.shape == (208, 52) and (counts.sum(axis=1) == 120).all()
    assert counts[0, 0] == 60 and counts[0, 207 % 52] == 60
    a = analyse_positions(counts, 4)
    assert a.table_p < 1e-100 and a.ks_p < 1e-100  # two orders only: as far from uniform as it gets
    with pytest.raises(ValueError):
        analyse_positions(counts[:100], 4)


@pytest.mark.parametrize("m", [64, 100, 1000, 12_345, (1 << 31) + 1])
def test_scaling_cell_probabilities_are_exact(m: int) -> None:
    lead, trail = leading_bin_probabilities(m), residue_probabilities(m)
    if m <= 12_345:
        v = np.arange(m)
        assert lead * m == pytest.approx(np.bincount(v * 64 // m, minlength=64))
        assert trail * m == pytest.approx(np.bincount(v % 64, minlength=64))
    assert lead.sum() == pytest.approx(1) and trail.sum() == pytest.approx(1)


def test_discards_are_counted_word_for_word() -> None:
    """The wrapped stream counts exactly the words ``uniform`` rejected."""
    table = Table(subset.SEED, "t", STAR_CITY_RULES, 1)
    key = table.key(table.secrets()[1][0], 1)
    m = (1 << 31) + 1
    limit = (1 << 32) - (1 << 32) % m
    d = draw(key, m, 500)
    words = list(itertools.islice(stream_words(key), d.words))
    assert sum(w < limit for w in words) == 500 and words[-1] < limit
    assert d.discarded == sum(w >= limit for w in words)
    assert list(d.values) == [w % m for w in words if w < limit]
    it = stream_words(key)
    assert list(d.values[:5]) == [uniform(it, m) for _ in range(5)]
    assert rejection_p_value(0, 500, 0.0) == 1.0 and rejection_p_value(1, 500, 0.0) == 0.0


def test_exact_outcome_probabilities_are_distributions() -> None:
    exact = exact_probabilities(8)
    assert {"result", "naturals", "banker", "lucky6", "player_dragon"} <= set(exact)
    for cats in exact.values():
        assert sum(cats.values()) == 1
    assert exact["lucky6"]["wins 20"] > 0 and exact["banker"]["wins 19/20"] > Fraction(4, 10)


def test_round_one_categories_cover_the_exact_ones(production: ShoeSample) -> None:
    seen = Counter(what for what, _ in production.categories.elements())
    assert set(seen.values()) == {production.shoes}


# --- SP 800-22 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("example", nist.worked_examples(), ids=lambda e: f"{e.section} {e.what}")
def test_sp800_22_worked_examples(example: nist.Example) -> None:
    assert example.agrees, (example.ours, example.document)


def test_longest_run_class_probabilities() -> None:
    for m in (8, 128):  # the printed table, to its 4 decimals
        exact = nist.longest_run_pi(m)
        assert (
            max(abs(a - b) for a, b in zip(exact, nist.LONGEST_RUN_PI_PRINTED[m], strict=True))
            < 1e-4
        )
    # brute force for a short block: strings of 16 bits whose longest run of ones is ≤ k
    longest = Counter(max(map(len, format(x, "016b").split("0"))) for x in range(1 << 16))
    for k in range(6):
        assert nist._runs_at_most(16, k) == sum(v for run, v in longest.items() if run <= k)
    # M = 10⁴ (the printed table is off by up to 0.0016): a Markov chain over the current run
    pi = nist.longest_run_pi(10_000)
    cdf = []
    for k in range(10, 16):
        state = np.zeros(k + 1)
        state[0] = 1.0
        for _ in range(10_000):
            state = np.concatenate(([state.sum() / 2], state[:-1] / 2))
        cdf.append(state.sum())
    assert np.cumsum(pi)[:6] == pytest.approx(cdf, abs=1e-12)
    assert abs(pi[0] - nist.LONGEST_RUN_PI_PRINTED[10_000][0]) > 1e-3


def test_pattern_counts_are_circular_overlapping_counts() -> None:
    bits = np.random.default_rng(7).integers(0, 2, 300, dtype=np.uint8)
    text = "".join(map(str, bits))
    ring = text + text[:5]
    for m in (1, 3, 6):
        expected = Counter(int(ring[i : i + m], 2) for i in range(300))
        counts = nist.pattern_counts(bits, m)
        assert {i: int(c) for i, c in enumerate(counts) if c} == dict(expected)
        if m > 1:
            assert (nist.shorter(counts) == nist.pattern_counts(bits, m - 1)).all()


def test_runs_test_fails_a_sequence_that_fails_its_prerequisite() -> None:
    assert nist.runs(np.array([1] * 80 + [0] * 20, dtype=np.uint8)) == 0.0


def test_second_level_assessment() -> None:
    """Section 4.2.1's own figure: 1,000 sequences → 0.99 ± 0.0094392."""
    p = np.linspace(0.0005, 1.0, 1000)  # uniform, p = 1 in the last bin
    level = nist.second_level("t", p)
    low, high = level.interval
    assert (low, high) == pytest.approx((0.9805608, 0.9994392), abs=1e-7)
    assert level.histogram == (100,) * 10
    assert level.uniformity_p == pytest.approx(1.0)
    assert level.passed == 990 and level.nist_ok
    skewed = nist.second_level("t", p**2)
    assert not skewed.uniformity_ok and not skewed.nist_ok


def test_stream_bits_are_the_spec_word_stream() -> None:
    table = Table(subset.SEED, "t", STAR_CITY_RULES, 1)
    key = table.key(table.secrets()[1][0], 1)
    bits = long_stream_bits(key, 64)
    first = next(stream_words(key))
    assert int("".join(map(str, bits[:32])), 2) == first
    with pytest.raises(AssertionError, match="differ"):
        check_words(key, b"\0" * 8)


def test_the_shipped_packages_never_import_the_evidence_tools() -> None:
    """NumPy, SciPy and Matplotlib are the ``rng``/``dev`` extras' only: nothing a Lambda layer
    ships (``baccarat``, ``baccarat_api``) imports them or ``baccarat_dev``."""
    import ast
    from pathlib import Path

    shared = Path(__file__).resolve().parents[2] / "shared"
    banned = {"numpy", "scipy", "matplotlib", "baccarat_dev"}
    sources = [p for pkg in ("baccarat", "baccarat_api") for p in (shared / pkg).rglob("*.py")]
    assert len(sources) > 20
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            assert not {n.split(".")[0] for n in names} & banned, (path, names)
