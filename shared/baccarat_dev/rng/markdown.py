"""The Markdown pieces of ``docs/rng-report.md``: its sections' titles, tables, and the checks
of a section."""

from __future__ import annotations

from collections.abc import Iterable

from .report import Results
from .stats import Check, fmt_p

SECTIONS = {
    "positions": "1. Card × position",
    "scaling": "2. Scaling: uniform(m)",
    "serial": "3. Serial structure",
    "outcomes": "4. Game outcomes against exact probabilities",
    "stream": "5. The stream: NIST SP 800-22",
    "v2": "6. bacc-pf-v2: cards drawn round by round",
}


def anchor(title: str) -> str:
    keep = "".join(c if c.isalnum() or c in " -" else "" for c in title.lower())
    return "-".join(keep.split())


def duration(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def table(header: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def check_rows(checks: Iterable[Check], with_group: bool = False) -> str:
    header = ["Test", "Sample", "Statistic", "p-value", "Holm-adjusted", "Verdict"]
    rows = []
    for c in checks:
        adj = "" if c.adjusted is None else fmt_p(c.adjusted)
        row = [c.name, c.sample, c.statistic, fmt_p(c.p_value), adj, f"**{c.verdict}**"]
        rows.append([c.group, *row] if with_group else row)
    return table(["Group", *header] if with_group else header, rows)


def checks_of(res: Results, section: str, group: str | None = None) -> list[Check]:
    return [c for c in res.checks if c.section == section and (group is None or c.group == group)]
