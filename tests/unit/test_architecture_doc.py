"""docs/architecture.md stays true to the code: every path it names exists, every module of
``baccarat_api`` (found on disk, not listed here) is named in it, and every test its "where each
change goes" table names exists — so a moved module or a renamed test fails here until the page
follows."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
API = ROOT / "shared" / "baccarat_api"
#: Where a path written on the page is looked for: the repository, ``shared/`` (``baccarat/…``),
#: ``shared/baccarat_api/`` (``service/dealing.py``).
BASES = (ROOT, ROOT / "shared", API)
#: A path in backticks: a file with an extension or a folder ending in ``/``, maybe a test id.
PATH = re.compile(r"`([\w.-]+(?:/[\w.<>-]+)*(?:\.(?:py|md|json|yaml|js|html|toml)|/))(::\w+)?`")
TEST_ID = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
CHANGES = ("a side bet", "a payout", "a round field", "a route with a use case", "a default")


def text() -> str:
    return PAGE.read_text(encoding="utf-8")


def named_paths(page: str) -> set[str]:
    return {m.group(1) for m in PATH.finditer(page)}


def resolves(path: str) -> bool:
    if "<" in path:  # a pattern: functions/<name>/app.py
        return (ROOT / path.split("<", 1)[0]).is_dir()
    return any((base / path).exists() for base in BASES)


@cache
def defined_tests(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    )


def modules() -> list[str]:
    """Every module of ``baccarat_api`` as the page writes it (``service/dealing.py``)."""
    return sorted(
        p.relative_to(API).as_posix() for p in API.rglob("*.py") if p.name != "__init__.py"
    )


def section(page: str, title: str) -> str:
    start = page.index(f"## {title}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end != -1 else len(page)]


def test_every_path_the_page_names_exists() -> None:
    missing = sorted(p for p in named_paths(text()) if not resolves(p))
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_module_of_the_service_package_is_named() -> None:
    named = named_paths(text())
    assert len(modules()) > 60  # the walk finds the package
    missing = [m for m in modules() if m not in named]
    assert not missing, f"docs/architecture.md does not name: {missing}"


def test_each_typical_change_names_its_files_and_the_tests_that_lead_there() -> None:
    table = section(text(), "Where each change goes")
    rows = {
        cells[0]: cells[1:]
        for line in table.splitlines()
        if line.startswith("| ")
        and len(cells := [c.strip() for c in line.strip("|").split("|")]) == 3
    }
    for change in CHANGES:
        row = next((cells for name, cells in rows.items() if name.startswith(change)), None)
        assert row is not None, f"no row for {change!r}"
        files, tests = row
        assert named_paths(files), change
        ids = TEST_ID.findall(tests)
        assert ids, f"{change!r} names no test"
        for path, name in ids:
            assert (ROOT / path).is_file(), f"{change!r}: {path} does not exist"
            assert name in defined_tests(path), f"{change!r}: {path} has no {name}"


def test_the_checks_see_what_is_wrong() -> None:
    """The checks above fail on a page that is wrong: a missing module, a test that does not
    exist, a path that does not."""
    assert not resolves("service/no_such_module.py")
    assert resolves("service/dealing.py") and resolves("baccarat/paytables.py")
    assert resolves("functions/<name>/app.py") and not resolves("nowhere/<name>/app.py")
    assert "test_every_route_is_documented" in defined_tests("tests/integration/test_docs_api.py")
    assert "test_nothing" not in defined_tests("tests/integration/test_docs_api.py")
    assert named_paths("see `service/dealing.py` and `tests/x.py::test_y`, not `make openapi`") == {
        "service/dealing.py",
        "tests/x.py",
    }
    page = text().replace("`service/dealing.py`", "dealing")
    assert "service/dealing.py" not in named_paths(page)
