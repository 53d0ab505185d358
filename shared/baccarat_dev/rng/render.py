"""``docs/rng-report.md`` from the results of :func:`.report.run`."""

from __future__ import annotations

import os
import platform
from importlib.metadata import version
from pathlib import Path

from baccarat.fairness import SPEC

from .markdown import SECTIONS, anchor, check_rows, checks_of, duration, table
from .render_stream import nist_section, stream_section
from .report import Control, Results
from .scaling import FULL_CELLS, rejection_probability
from .stats import ALPHA, fmt_p


def _groups(res: Results) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    for c in res.checks:
        if (c.section, c.group) not in seen:
            seen.append((c.section, c.group))
    return seen


def _summary(res: Results) -> str:
    rows = []
    for section, group in _groups(res):
        checks = checks_of(res, section, group)
        worst = min(checks, key=lambda c: c.p_value)
        failed = sum(not c.passed for c in checks)
        if section == "stream":
            battery = next(b for b in res.streams if b.name == group)
            ok = sum(lv.nist_ok for lv in battery.levels)
            key = f"SP 800-22 §4.2 criteria met by {ok}/{len(battery.levels)} tests"
        else:
            key = f"{worst.name}: {worst.statistic}"
        rows.append(
            [
                f"[{SECTIONS[section].split('. ', 1)[1]}](#{anchor(SECTIONS[section])})",
                group,
                str(len(checks)),
                worst.sample if section != "stream" else checks[0].sample,
                key,
                fmt_p(worst.p_value),
                fmt_p(min(c.adjusted or 1.0 for c in checks)),
                "**pass**" if not failed else f"**FAIL** ({failed})",
            ]
        )
    return table(
        [
            "Section",
            "Group",
            "Tests",
            "Sample",
            "Smallest p: test and statistic",
            "Smallest p",
            "Smallest Holm-adjusted p",
            "Verdict (α = 0.01)",
        ],
        rows,
    )


def _figure(path: Path, out_dir: Path, alt: str) -> str:
    return f"![{alt}]({os.path.relpath(path, out_dir)})"


def render(res: Results, figures: dict[str, Path], report_path: Path, seconds: float) -> str:
    """The report's Markdown, its figures linked relative to ``report_path``."""
    fig = {k: _figure(p, report_path.parent, k) for k, p in figures.items()}
    parts = [
        *_introduction(res, seconds),
        *_positions(res, fig),
        *_scaling(res, fig),
        *_serial(res, fig),
        *_outcomes(res, fig),
        *stream_section(res, fig),
        *nist_section(),
        *_v2_section(res, fig),
        *_controls_section(res),
        *_scope(res),
        *_reproduce(res),
        *_environment(res, seconds),
    ]
    return "\n".join(parts)


def _introduction(res: Results, seconds: float) -> list[str]:
    """The title, the summary table and verdict, how the report was made, and how the verdicts
    account for multiple testing."""
    out: list[str] = []
    w = out.append
    cfg = res.config
    fails = [c for c in res.checks if not c.passed]
    sequences = sum(b.sequences for b in res.streams)
    positions = sum(p.positions for p in res.positions)
    total = len(res.checks)
    verdict = (
        f"**All {total} tests pass** at α = 0.01, family-wise (Holm–Bonferroni over all {total})."
        if not fails
        else f"**{len(fails)} of {total} tests FAIL** at α = 0.01, family-wise "
        f"(Holm–Bonferroni over all {total}): "
        + "; ".join(f"{c.section} / {c.group}: {c.name}" for c in fails)
    )
    raw_below = sum(c.p_value < ALPHA for c in res.checks)
    w("# RNG and shuffle evidence for bacc-pf-v1 and bacc-pf-v2\n")
    w(
        f"Fresh, seeded shoes of the production `{SPEC}` derivation and of `bacc-pf-v2`'s "
        f"round-by-round draw, tested the way a test lab "
        f"tests a shuffler and an RNG ([what this shows, and what it does not]"
        f"(#what-this-shows-and-what-it-does-not)).\n"
    )
    w("## Summary\n")
    w(_summary(res) + "\n")
    w(verdict + "\n")
    w(
        f"- **Command:** `make rng-report` (= `python -m baccarat_dev.rng --seed "
        f"'{cfg.seed}' --shoes {cfg.shoes} --draws {cfg.draws} --sequences {cfg.sequences} "
        f"--workers {cfg.workers} --v2-shoes {cfg.v2_shoes}`); it took "
        f"**{duration(seconds)}** on this machine "
        f"({os.cpu_count()} cores shared with other work, {cfg.workers} worker processes; CPU "
        f"time per part in [Environment](#environment)).\n"
        f"- **Seed:** `{cfg.seed}`: the whole report follows from it ([Reproduce](#reproduce)).\n"
        f"- **Code path:** every figure is computed on `baccarat.fairness` as the service runs it "
        f"(seed chain → client hash → shoe key → HMAC-SHA-256 stream → `uniform` → Fisher–Yates "
        f"→ cut card, burn and rounds; for `bacc-pf-v2`, `baccarat.fairness_v2`'s round keys and "
        f"draws from the remaining cards), outcomes graded by `baccarat.paytables`, exact "
        f"probabilities from `baccarat.rtp`; nothing is re-implemented for the report "
        f"(`shared/baccarat_dev/rng/`).\n"
    )
    w("### How the verdicts account for multiple testing\n")
    w(
        f"The report makes {total} tests. At α = 0.01 each, a perfect generator would fail about "
        f"{0.01 * total:.1f} of them by chance alone, so a per-test verdict would be meaningless. "
        f"Two rules keep the error rate at 1% for the report as a whole:\n\n"
        f"1. **Many sub-tests are judged by a second-level test, as NIST does.** The "
        f"{positions:,} per-position χ² tests enter only through the Kolmogorov–Smirnov "
        f"test of their p-values "
        f"(plus the whole-table χ² and the Šidák-adjusted smallest p); the "
        f"{sequences:,} SP 800-22 sequences enter only through the "
        f"uniformity of their p-values and the number that fail (section 4.2 of SP 800-22).\n"
        f"2. **Every remaining test belongs to one family,** and its verdict is *pass* when its "
        f"Holm–Bonferroni adjusted p-value is at least 0.01. Holm's procedure is valid whatever "
        f"the dependence between the tests (many are computed on the same shoes), and it bounds "
        f"the probability that a correct generator fails *any* line of this report by 1%.\n\n"
        f"Raw p-values are shown next to the adjusted ones; raw p-values below 0.01: "
        f"{raw_below} of {total} ({0.01 * total:.1f} expected by chance). The seed is fixed in "
        f"the code (`DEFAULT_SEED`) and was not chosen by looking at results; another seed gives "
        f"other numbers and, with probability at least 99%, the same verdicts.\n"
    )
    return out


def _positions(res: Results, fig: dict[str, str]) -> list[str]:
    """Section 1: every card identity at every position."""
    out: list[str] = []
    w = out.append
    w(f"## {SECTIONS['positions']}\n")
    w(
        "**Test.** For every deck count, every shoe position and every one of the 52 card "
        "identities (a card id mod 52: each appears D times in a shoe), how often that identity "
        "lands at that position. A uniform shuffle makes the identity at one position uniform "
        "over the 52, so each position's counts over independent shoes are tested against "
        "uniform with Pearson's χ² (51 df). The shuffler rules' question, *is every card equally "
        "likely at every position?*, is then answered three ways:\n\n"
        "- the p-values of all positions must look uniform: **Kolmogorov–Smirnov** against "
        "U(0, 1) (the positions of one shoe are dependent — each identity appears exactly D "
        "times — but only weakly: see the next line);\n"
        "- the **whole table** at once: the covariance of the n × 52 counts of a uniform "
        "permutation is exactly N·D/(n−1) · C_n ⊗ C_52 (C_k the centring matrix), so "
        "T = Σ (O − E)²/E over all cells is n/(n−1) times a χ² with (n−1)·51 df, and T·(n−1)/n is "
        "tested against that;\n"
        "- the **smallest** per-position p, Šidák-adjusted over the n positions (a bias confined "
        "to a few positions, such as the first cards dealt).\n"
    )
    w(
        "The heatmaps show the standardised deviation (O − E)/√(E(1 − 1/52)) of every cell: "
        "white noise with no pattern, and the histogram of all cells follows N(0, 1).\n"
    )
    w(check_rows(checks_of(res, "positions"), with_group=True) + "\n")
    w(fig["position_p"] + "\n")
    for p in res.positions:
        w(fig[f"heatmap_{p.decks}"] + "\n")
    return out


def _scaling(res: Results, fig: dict[str, str]) -> list[str]:
    """Section 2: ``uniform(m)`` and the words it discards."""
    cfg = res.config
    out: list[str] = []
    w = out.append
    w(f"## {SECTIONS['scaling']}\n")
    shuffle_q = max(rejection_probability(m) for m in range(2, 417))
    w(
        f"**Test.** The production `uniform(m)` draws {cfg.draws:,} values for each m below, "
        f"each m from its own shoe key's stream. Up to m = {FULL_CELLS:,} every value is a "
        f"χ² cell; above, the values are counted in 64 leading bins ⌊64·v/m⌋ (modulo bias "
        f"would show there: it favours the low values) and by their 64 trailing residues v mod 64, "
        f"each cell with its exact expected count. The stream is wrapped to count the words "
        f"`uniform` takes: the discarded ones are tested against the exact rejection probability "
        f"q = (2³² mod m)/2³² (the number of discards before {cfg.draws:,} accepted words is "
        f"negative binomial). Worst cases: m = 2³¹ + 1 discards almost half the words; "
        f"m = 3·2³⁰ is where `x mod m` without rejection would be most biased (the lowest third of "
        f"the values twice as likely as the rest); powers of two discard nothing. The shuffle "
        f"itself only draws with m ≤ 416, where q ≤ {shuffle_q:.2e}: the last rows count the "
        f"words whole shuffles discarded (`Shoe.words_discarded`) against that expectation.\n"
    )
    w(check_rows(checks_of(res, "scaling"), with_group=True) + "\n")
    w(fig["scaling"] + "\n")
    return out


def _serial(res: Results, fig: dict[str, str]) -> list[str]:
    """Section 3: serial correlation and runs."""
    out: list[str] = []
    w = out.append
    w(f"## {SECTIONS['serial']}\n")
    w(
        "**Tests.** (a) **Serial correlation** between the points of consecutive cards of a "
        "shoe. A shoe is a permutation of a fixed multiset, so consecutive cards of a *perfect* "
        "shuffle are slightly negatively correlated: for any two positions "
        "E[(x_p − μ)(x_q − μ)] = −σ²/(n−1), so each shoe's lag-k correlation r_k (centred and "
        "scaled by the shoe's own μ and σ²) has expectation exactly −1/(n−1). The mean of r₁ "
        "over the shoes is z-tested against that value with the variance measured over the "
        "shoes (testing against 0 would fail a perfect shuffle at this sample size). The plot "
        "shows lags 1–10. (b) **Runs** of Banker / Player results (Wald–Wolfowitz, ties left "
        "out) within each shoe, each shoe conditioned on its own counts of B and P and the "
        "shoes summed; the null hypothesis is that a shoe's results are exchangeable, which card "
        "removal breaks only far below this sample's resolution. (c) The same runs test on the "
        "round-1 results of consecutive shoes of a table, which are independent by "
        "construction.\n"
    )
    w(check_rows(checks_of(res, "serial"), with_group=True) + "\n")
    w(fig["serial"] + "\n")
    return out


def _outcomes(res: Results, fig: dict[str, str]) -> list[str]:
    """Section 4: round-1 outcomes against the exact probabilities."""
    out: list[str] = []
    w = out.append
    w(f"## {SECTIONS['outcomes']}\n")
    w(
        "**Test.** The exact probabilities of `baccarat rtp` hold for a round dealt from a fresh "
        "shoe. Round 1 of every shoe is exactly that: a uniform shuffle puts a uniform ordered "
        "sample of the shoe at any fixed positions, and with a burn, the cards after the exposed "
        "card are a uniform shuffle of the rest whatever it is, so the round after the burn is a "
        "fresh-shoe round again on average over the exposed card. Later rounds depend on what "
        "earlier rounds used, so only round 1 of each shoe is counted: one independent round per "
        "shoe. Every bet of the vocabulary (as the bid-squeeze pay table pays it) is graded by "
        "`baccarat.paytables.grade`; its categories are every distinct winning multiplier, push "
        "and lose, each against the exact probability `compute_rtp` gives, plus Banker / Player / "
        "Tie and the naturals (by side) from `outcome_distribution`. One Pearson χ² per bet: the "
        "simulation and the exact enumeration check each other.\n"
    )
    w(check_rows(checks_of(res, "outcomes"), with_group=True) + "\n")
    w(
        "Standardised residual of every category (the grey band is ±2.576, the two-sided 99% "
        "range of one category on its own):\n"
    )
    w(fig["outcomes"] + "\n")
    return out


def _v2_section(res: Results, fig: dict[str, str]) -> list[str]:
    """Section 6: bacc-pf-v2's draw under the tests of sections 1, 3 and 4."""
    cfg = res.config
    checks = checks_of(res, "v2")
    worst = min(checks, key=lambda c: c.p_value)
    return [
        f"## {SECTIONS['v2']}\n",
        f"**Test.** A `bacc-pf-v2` shoe is not shuffled at its commit: each round's cards are "
        f"drawn from the cards remaining by a key mixing the shoe key, the round number, the "
        f"round's book root and a beacon signature ([bacc-pf-v2](bacc-pf-v2.md)). "
        f"{cfg.v2_shoes:,} shoes per deck count (the two profiles' rules) are dealt to their "
        f"end by the production draw (`baccarat.fairness_v2`) with seeded, random book roots and "
        f"beacon signatures (`baccarat_dev/rng/v2.py`); the cards no round drew are then drawn "
        f"by the next round's key, so that every position is tested. The same statistics as "
        f"sections 1 (card × position: Kolmogorov–Smirnov of the per-position p-values, the "
        f"whole table, the smallest Šidák-adjusted p), 3 (serial correlation and runs) and 4 "
        f"(round-1 outcomes against the exact probabilities), with the same expectations, in the "
        f"same Holm-adjusted family.\n",
        f"**Result.** {sum(c.passed for c in checks)} of {len(checks)} tests pass; the smallest "
        f"p is {fmt_p(worst.p_value)} ({worst.group}: {worst.name}), "
        f"Holm-adjusted {fmt_p(worst.adjusted or 1.0)}. What the draw adds to v1 — nobody knows "
        f"a round's cards before its lock and its beacon round — is not a statistical property: "
        f"it rests on the beacon's unpredictability and on the lock being public first, which "
        f"the verifiers check; this section shows that the round-by-round draw deals every card "
        f"at every position as uniformly as v1's shuffle. Its resolution: at {cfg.v2_shoes:,} "
        f"shoes one card × position count has a standard deviation of "
        f"{((52 - 1) / cfg.v2_shoes) ** 0.5:.1%} of its expectation (section 1's {cfg.shoes:,}: "
        f"{((52 - 1) / cfg.shoes) ** 0.5:.1%}).\n",
        check_rows(checks, with_group=True) + "\n",
        *(fig[f"v2_heatmap_{a.decks}"] + "\n" for a in res.v2_positions),
    ]


def _controls_section(res: Results) -> list[str]:
    """Section 7: the fixed-seed checks on production and on broken generators."""
    out: list[str] = []
    w = out.append
    w("## 7. Controls: the same checks on broken generators\n")
    w(
        "A test that cannot fail proves nothing. The fixed-seed subset below runs in `make test` "
        "(`tests/unit/test_rng_evidence.py`, a few seconds): the same checks at small sample "
        "sizes, on the production derivation and, at the same sizes, on deliberately broken "
        "generators fed by the same production stream. Each family is Holm-adjusted on its own. "
        "Sizes: 5,000 four-deck shoes; 20,000 draws for each of m = 416, 2³¹ + 1, 3·2³⁰; "
        "8 sequences of 10⁶ stream bits.\n"
    )
    w(_controls(res.controls) + "\n")
    return out


def _scope(res: Results) -> list[str]:
    """What the report shows and what it does not, with the resolution of its samples."""
    cfg = res.config
    out: list[str] = []
    w = out.append
    cell_sd = ((52 - 1) / cfg.shoes) ** 0.5  # √(E(1 − 1/52)) / E with E = shoes / 52
    # an even relative bias δ adds δ²·shoes·n to T; 5 standard deviations of χ²((n−1)·51)
    spread = (5 * (2 * 415 * 51) ** 0.5 / (cfg.shoes * 416)) ** 0.5
    p_b = float(res.outcomes[0].tests[0].probabilities[0])
    banker_se = (p_b * (1 - p_b) / cfg.shoes) ** 0.5
    w("## What this shows, and what it does not\n")
    w(
        "- **Shows:** at these sample sizes, the production derivation puts every card identity "
        "at every position equally often for 4, 6 and 8 decks; `uniform(m)` is uniform and "
        "discards exactly the words it should; consecutive cards and results show no structure "
        "beyond what a perfect shuffle of a finite shoe has; simulated rounds match the exact "
        "probabilities of every bet; and the HMAC-SHA-256 stream passes the SP 800-22 subset with "
        "NIST's own second-level assessment; `bacc-pf-v2`'s round-by-round draw, fed random "
        "book roots and beacon signatures, passes the same card × position, serial and outcome "
        "checks for 4 and 8 decks. The checks demonstrably reject a classic "
        "off-by-one Fisher–Yates, a one-riffle shuffle, modulo-biased scaling and a stuck bit.\n"
        "- **Does not show:** that the generator is unpredictable. Statistical tests cannot "
        "certify a cryptographic generator (SP 800-22 says so itself); unpredictability rests on "
        "HMAC-SHA-256 and on keeping the shoe secret until the shoe ends. Nor can it see a bias "
        f"smaller than its samples resolve: at {cfg.shoes:,} shoes one card × position count "
        f"has a standard deviation of {cell_sd:.1%} of its expectation, so a bias of a few "
        f"percent confined to a few cells, or of about {spread:.2%} spread evenly over the whole "
        f"8-deck table, would pass; a bet's win probability is resolved to about "
        f"±{3 * banker_se:.2%} (3 standard errors, Banker). Nor does it check the deployed "
        "service: it checks the derivation that the service and every verifier run, which is "
        "what the proofs let anyone re-derive. Nor does it replace an accredited lab's "
        "certification; it is the evidence such a lab asks for, reproducible by anyone from the "
        "seed.\n"
    )
    return out


def _reproduce(res: Results) -> list[str]:
    """How to reproduce: the seed chains and their anchors."""
    out: list[str] = []
    w = out.append
    w("## Reproduce\n")
    w(
        "Every table of the report is a seed chain, exactly as an operator's table: its top "
        'secret is s_N = SHA-256("bacc-rng-report/" ‖ seed ‖ "/" ‖ label) (instead of KMS '
        'randomness), shoe i is dealt from s_i with the client seed "<label> shoe <i>", and '
        "the anchor s_0 below is what the chain walks down to. `baccarat shoe` prints any of "
        "these shoes from its s_i. `make rng-report` regenerates this page and every figure "
        "from scratch; the statistics do not depend on the number of workers.\n"
    )
    w(
        table(
            ["Table", "Rules (decks, burn, cut min/max, round limit)", "Shoes", "Anchor s_0"],
            (
                [
                    label,
                    f"{t.rules.decks}, {t.rules.burn}, {t.rules.cut_min}/{t.rules.cut_max}, "
                    f"{t.rules.round_limit}",
                    f"{t.length:,}",
                    f"`{anchor.hex()}`",
                ]
                for label, (t, anchor) in res.anchors.items()
            ),
        )
        + "\n"
    )
    return out


def _environment(res: Results, seconds: float) -> list[str]:
    """The machine, the libraries and the time each part took."""
    out: list[str] = []
    w = out.append
    w("## Environment\n")
    cpu = _cpu_model()
    libs = ", ".join(f"{name} {version(name)}" for name in ("numpy", "scipy", "matplotlib"))
    w(
        f"Python {platform.python_version()}, {libs}; {cpu}, {os.cpu_count()} cores. "
        f"Wall time {duration(seconds)} (computation {duration(res.wall_seconds)}, the rest "
        f"figures and this page). CPU time per part: "
        + ", ".join(
            f"{k.replace('shoes ', 'shoes, ')} {duration(v)}" for k, v in res.cpu_seconds.items()
        )
        + ".\n"
    )
    return out


def _controls(controls: list[Control]) -> str:
    rows = []
    for c in controls:
        worst = min(c.broken, key=lambda x: x.p_value)
        rows.append(
            [
                c.what,
                f"{sum(x.passed for x in c.production)}/{len(c.production)} pass",
                c.broken_by,
                f"{sum(not x.passed for x in c.broken)}/{len(c.broken)} fail",
                f"{worst.section}: {worst.name} — p {_p_text(worst.p_value)}",
            ]
        )
    return table(
        ["Checks", "Production", "Broken generator", "Broken", "Its strongest rejection"], rows
    )


def _p_text(p: float) -> str:
    text = fmt_p(p)
    return text if text.startswith("<") else f"= {text}"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
