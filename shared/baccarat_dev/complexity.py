"""The complexity gate of ``make lint``: radon's cyclomatic complexity (the measure xenon
applies) over the shipped code, with xenon's three thresholds.

* no block (function, method, class) worse than C (complexity above 20 is D);
* no module whose blocks average worse than B (above 10);
* the blocks of all the code together average A (at most 5).

Radon counts every decision a reader has to follow — each ``and``/``or``, each ``for`` and
``if`` of a comprehension, each ``elif``, ``except`` and ``assert`` — where McCabe's graph
(ruff's C90) counts only the branches of the control flow, so a function full of conditions
scores twice as high here. ``python -m baccarat_dev.complexity [PATH ...]`` prints every block
over the limit and exits 1.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

#: What ``make lint`` measures: everything that ships or runs, not the tests.
PATHS = ("shared", "functions", "benchmarks", "scripts")
MAX_BLOCK = "C"
MAX_MODULE = "B"
MAX_AVERAGE = "A"


@dataclass(frozen=True, slots=True)
class Block:
    """One function, method or class: ``where`` is ``path::qualified name``."""

    where: str
    line: int
    complexity: int

    @property
    def rank(self) -> str:
        return str(cc_rank(self.complexity))


def blocks_of(path: Path, root: Path) -> list[Block]:
    """Every block radon grades in one source file."""
    name = path.relative_to(root).as_posix()
    return [
        Block(f"{name}::{b.fullname}", b.lineno, b.complexity)
        for b in cc_visit(path.read_text(encoding="utf-8"))
    ]


def sources(root: Path, paths: Iterable[str]) -> list[Path]:
    return sorted(p for top in paths for p in (root / top).rglob("*.py") if ".venv" not in p.parts)


def _over(rank: str, limit: str) -> bool:
    return rank > limit  # A < B < … < F


def violations(by_module: dict[str, list[Block]]) -> list[str]:
    """What breaks the thresholds, one line each (empty: the gate passes)."""
    found: list[str] = []
    every = [b for blocks in by_module.values() for b in blocks]
    found += [
        f"{b.where} (line {b.line}): {b.rank} ({b.complexity}), over {MAX_BLOCK}"
        for b in every
        if _over(b.rank, MAX_BLOCK)
    ]
    for module, blocks in by_module.items():
        rank = _average_rank(blocks)
        if blocks and _over(rank, MAX_MODULE):
            found.append(f"{module}: average {rank}, over {MAX_MODULE}")
    if every and _over(_average_rank(every), MAX_AVERAGE):
        found.append(f"all blocks: average {_average_rank(every)}, over {MAX_AVERAGE}")
    return sorted(found)


def _average_rank(blocks: Sequence[Block]) -> str:
    return str(cc_rank(sum(b.complexity for b in blocks) / max(len(blocks), 1)))


def measure(root: Path, paths: Iterable[str] = PATHS) -> dict[str, list[Block]]:
    """Module path → its blocks, for every source file under ``paths``."""
    return {p.relative_to(root).as_posix(): blocks_of(p, root) for p in sources(root, paths)}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path.cwd()
    by_module = measure(root, args or PATHS)
    every = [b for blocks in by_module.values() for b in blocks]
    worst = max(every, key=lambda b: b.complexity, default=None)
    found = violations(by_module)
    for line in found:
        print(line)
    average = sum(b.complexity for b in every) / max(len(every), 1)
    print(
        f"complexity: {len(every)} blocks, average {average:.2f} ({_average_rank(every)}), "
        f"worst {worst.where if worst else '-'} {worst.rank if worst else ''}"
        f" ({worst.complexity if worst else 0})"
    )
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
