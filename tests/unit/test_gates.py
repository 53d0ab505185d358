"""The gates of ``make lint`` that measure the code itself: the complexity gate
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
    assert complexity.violations(ok, frozenset()) == []
    bad = _measured(tmp_path, m=_function("twenty_one", 20) + filler)
    assert complexity.violations(bad, frozenset()) == [
        "pkg/m.py::twenty_one (line 1): D (21), over C"
    ]


def test_the_boolean_operators_and_comprehensions_count(tmp_path: Path) -> None:
    # One `if` in McCabe's graph; radon counts each `and` and each comprehension clause too.
    text = "def f(a, b, c, xs):\n    if a and b and c:\n        return [x for x in xs if x]\n"
    (block,) = _measured(tmp_path, m=text)["pkg/m.py"]
    assert block.complexity == 6


def test_module_and_overall_averages(tmp_path: Path) -> None:
    busy = _measured(tmp_path, m=_function("a", 11) + _function("b", 11))
    assert complexity.violations(busy, frozenset()) == [
        "all blocks: average C, over A",
        "pkg/m.py: average C, over B",
    ]
    spread = _measured(tmp_path, m=_function("a", 6), n=_function("b", 6))
    assert complexity.violations(spread, frozenset()) == ["all blocks: average B, over A"]


def test_the_temporary_list_only_shrinks(tmp_path: Path) -> None:
    filler = "".join(_function(f"small{i}", 0) for i in range(40))
    measured = _measured(tmp_path, m=_function("big", 25) + _function("fine", 3) + filler)
    assert complexity.violations(measured, frozenset({"pkg/m.py::big"})) == []
    assert complexity.violations(
        measured, frozenset({"pkg/m.py::big", "pkg/m.py::fine", "pkg/m.py::gone"})
    ) == [
        "pkg/m.py::fine: A (4) — drop it from TEMPORARY_EXEMPT",
        "pkg/m.py::gone: no such block — drop it from TEMPORARY_EXEMPT",
    ]


def test_the_code_passes_the_complexity_gate() -> None:
    assert complexity.violations(complexity.measure(REPO_ROOT)) == []
