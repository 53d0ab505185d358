"""The gates that measure the code itself: the complexity gate ``make lint`` runs
(:mod:`baccarat_dev.complexity`) and the size of shipped modules."""

from __future__ import annotations

from pathlib import Path

import pytest

from baccarat_dev import complexity
from baccarat_dev.template import REPO_ROOT

pytestmark = pytest.mark.unit


def _function(name: str, conditions: int) -> str:
    """A function of complexity ``conditions + 1``: one ``if`` per condition."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(conditions))
    return f"def {name}(x):\n{body}    return -1\n"


def _measured(tmp_path: Path, **files: str) -> dict[str, list[complexity.Block]]:
    for name, text in files.items():
        (tmp_path / "pkg").mkdir(exist_ok=True)
        (tmp_path / "pkg" / f"{name}.py").write_text(text)
    return complexity.measure(tmp_path, ["pkg"])


def test_a_block_above_c_fails_and_c_passes(tmp_path: Path) -> None:
    filler = "".join(_function(f"small{i}", 0) for i in range(40))  # keeps the averages low
    ok = _measured(tmp_path, m=_function("at_twenty", 19) + filler)
    assert complexity.violations(ok) == []
    bad = _measured(tmp_path, m=_function("twenty_one", 20) + filler)
    assert complexity.violations(bad) == ["pkg/m.py::twenty_one (line 1): D (21), over C"]


def test_the_boolean_operators_and_comprehensions_count(tmp_path: Path) -> None:
    # One `if` in McCabe's graph; radon counts each `and` and each comprehension clause too.
    text = "def f(a, b, c, xs):\n    if a and b and c:\n        return [x for x in xs if x]\n"
    (block,) = _measured(tmp_path, m=text)["pkg/m.py"]
    assert block.complexity == 6


def test_module_and_overall_averages(tmp_path: Path) -> None:
    busy = _measured(tmp_path, m=_function("a", 11) + _function("b", 11))
    assert complexity.violations(busy) == [
        "all blocks: average C, over A",
        "pkg/m.py: average C, over B",
    ]
    spread = _measured(tmp_path, m=_function("a", 6), n=_function("b", 6))
    assert complexity.violations(spread) == ["all blocks: average B, over A"]


def test_the_code_passes_the_complexity_gate() -> None:
    assert complexity.violations(complexity.measure(REPO_ROOT)) == []


# --- module size ----------------------------------------------------------------------------------

#: A shipped module (shared/, functions/) is at most this many lines: one thing, read in one go.
MAX_LINES = 500


def module_lines(root: Path) -> dict[str, int]:
    """Lines of every shipped Python module, by path from ``root``."""
    return {
        p.relative_to(root).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for top in ("shared", "functions")
        for p in sorted((root / top).rglob("*.py"))
    }


def test_no_shipped_module_is_over_500_lines() -> None:
    lines = module_lines(REPO_ROOT)
    long = {path: n for path, n in lines.items() if n > MAX_LINES}
    assert long == {}


def test_the_size_check_sees_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "functions" / "f").mkdir(parents=True)
    (tmp_path / "shared" / "short.py").write_text("x = 1\n" * MAX_LINES)
    (tmp_path / "functions" / "f" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert module_lines(tmp_path) == {"functions/f/long.py": 501, "shared/short.py": 500}
