"""Section 5 of ``docs/rng-report.md``: the stream through NIST SP 800-22, and why the tests are
our own code."""

from __future__ import annotations

from . import nist
from .markdown import SECTIONS, checks_of, table
from .report import Results
from .stats import fmt_p
from .stream import DEALT_BLOCKS, SHOES_PER_DEALT_SEQUENCE


def stream_section(res: Results, fig: dict[str, str]) -> list[str]:
    """Section 5: the stream through SP 800-22, both views."""
    out: list[str] = []
    w = out.append
    w(f"## {SECTIONS['stream']}\n")
    bits = sum(b.bits for b in res.streams)
    w(
        f"**Test.** {bits:,} bits of the HMAC-SHA-256 stream words, in sequences of 10⁶ bits, "
        f"through the SP 800-22 rev. 1a tests the issue lists — frequency, block frequency "
        f"(M = {nist.BLOCK_FREQUENCY_M}), runs, longest run of ones (M = 10⁴), serial "
        f"(m = {nist.SERIAL_M}, two p-values), approximate entropy "
        f"(m = {nist.APPROXIMATE_ENTROPY_M}) and cumulative sums (forward and reverse) — at "
        f"α = 0.01 per sequence, then assessed as NIST's section 4.2 prescribes: the proportion of "
        f"sequences passing must lie in p̂ ± 3√(p̂(1 − p̂)/m) (p̂ = 0.99), and the p-values must be "
        f"uniform (10 bins, χ² with 9 df: P-value_T ≥ 0.0001). Parameters are those of NIST's "
        f"reference code (sts 2.1.2) for 10⁶-bit sequences. Two views of the stream:\n\n"
        f"- **long streams**: sequence s is the first 10⁶ bits of one shoe key's stream "
        f"(block_0 ‖ block_1 ‖ …; keys of shoes 1…{res.streams[0].sequences:,} of the stream "
        f"table): HMAC in counter mode under one key, far past the 52 blocks a shoe uses;\n"
        f"- **as dealt**: the {DEALT_BLOCKS} blocks (416 words) that each 8-deck shoe of "
        f"section 1 consumes, shoe after shoe: sequence j is the first 10⁶ bits of shoes "
        f"{SHOES_PER_DEALT_SEQUENCE}j + 1 … {SHOES_PER_DEALT_SEQUENCE}j + "
        f"{SHOES_PER_DEALT_SEQUENCE} — what crosses from key to key.\n\n"
        f"Bits are the stream's bytes in order, most significant bit first (the spec's big-endian "
        f"u32 words), checked against `stream_words` in every task. For the report's family, each "
        f"test's uniformity P-value_T and an exact binomial p-value of its number of failing "
        f"sequences (against 1%) are Holm-adjusted with everything else; NIST's own criteria are "
        f"shown beside them.\n"
    )
    for b in res.streams:
        w(f"### {b.name.capitalize()}: {b.sequences:,} sequences × 10⁶ bits\n")
        rows = []
        checks = checks_of(res, "stream", b.name)
        for lv, (cu, cp) in zip(b.levels, zip(checks[::2], checks[1::2], strict=True), strict=True):
            low, high = lv.interval
            rows.append(
                [
                    lv.test,
                    f"{lv.passed}/{lv.sequences}",
                    f"[{low:.4f}, {high:.4f}]: {'yes' if lv.proportion_ok else 'NO'}",
                    f"{lv.uniformity_p:.4f}: {'yes' if lv.uniformity_ok else 'NO'}",
                    f"{fmt_p(cp.p_value)} / {fmt_p(cu.p_value)}",
                    f"{fmt_p(cp.adjusted or 1.0)} / {fmt_p(cu.adjusted or 1.0)}",
                    f"**{'pass' if cp.passed and cu.passed else 'FAIL'}**",
                ]
            )
        w(
            table(
                [
                    "Test",
                    "Passing",
                    "NIST 4.2.1 interval",
                    "NIST 4.2.2 P-value_T ≥ 0.0001",
                    "p: proportion / uniformity",
                    "Holm-adjusted",
                    "Verdict",
                ],
                rows,
            )
            + "\n"
        )
        w(fig[f"stream_{b.name.replace(' ', '-')}"] + "\n")
    w(fig["stream_proportions"] + "\n")
    return out


def nist_section() -> list[str]:
    """Why the SP 800-22 tests are our own code, and the document's worked examples recomputed."""
    out: list[str] = []
    w = out.append
    w("### Why our own SP 800-22 code, and how it is checked\n")
    w(
        "No maintained Python implementation of the suite exists: the PyPI candidates (`nistrng` "
        "1.2.3, 2021; `nist80022` 0.2.0, 2021; `sp80022suite` 0.0.8, 2019; `sts-pylib` 0.0.5, "
        "2020; `coinflip` 0.1.5, 2020; `prngtest` 0.0.1, 2021) have had no release for three to "
        "six years, and the best known of them, `nistrng`, counts the serial test's patterns with "
        "nested Python loops (hours for one 10⁶-bit sequence at m = 16) and skips the runs test "
        "instead of reporting P = 0 when its frequency prerequisite fails. The seven tests are "
        "therefore written on NumPy/SciPy (`baccarat_dev/rng/nist.py`) from the document, and "
        "every worked example of its section 2 for these tests is recomputed here (and in "
        "`make test`):\n"
    )
    w(
        table(
            ["SP 800-22 §", "Example", "Document", "Ours", "Agrees (6 decimals)"],
            (
                [e.section, e.what, e.document, f"{e.ours:.7f}", "yes" if e.agrees else "**NO**"]
                for e in nist.worked_examples()
            ),
        )
        + "\n"
    )
    w(
        "One table of the document is not exact: the longest-run class probabilities for "
        "M = 10⁴ printed in section 3.4 (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727) "
        "differ from the exact ones by up to 0.0016 (exactly: "
        + ", ".join(f"{p:.4f}" for p in nist.longest_run_pi(10_000))
        + "). The code computes the class probabilities exactly (an integer recurrence, checked "
        "in the tests against brute-force enumeration and a Markov chain); for M = 8 and M = 128 "
        "they agree with the printed table to its 4 decimals, and the M = 8 worked example "
        "(2.4.8) reproduces the document's P-value only with the exact values.\n"
    )
    return out
