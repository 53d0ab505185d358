"""What may import what (docs/architecture.md), enforced on every import statement of shared/ —
also the lazy ones inside functions; imports under ``if TYPE_CHECKING:`` are types only and not
counted.

* the pure core (``baccarat``) imports only the standard library (and itself);
* ``service/`` imports no web framework, no AWS SDK, no adapter, no HTTP room;
* ``ports/`` imports only the standard library, the core and the shared kernel (ids, limits,
  clock);
* ``adapters/`` import no use case, no HTTP, no job;
* only ``adapters/`` (and the development package, and the jobs' and the runtime's wiring)
  import boto3 or botocore; ``http/`` never does;
* nothing shipped imports ``baccarat_dev``."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
STDLIB = sys.stdlib_module_names
WEB = {"fastapi", "starlette", "mangum", "uvicorn"}
AWS = {"boto3", "botocore"}
#: The shared kernel every room may use (the ports only these three).
KERNEL = {"baccarat_api.ids", "baccarat_api.limits", "baccarat_api.clock"}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports at run time (absolute names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(SHARED).with_suffix("").parts[:-1])
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            skipped |= {id(n) for child in node.body for n in ast.walk(child)}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                yield ".".join([*base, node.module] if node.module else base)
            elif node.module and node.module != "__future__":
                yield node.module


def modules(room: str) -> list[Path]:
    return sorted((SHARED / room).rglob("*.py"))


def top(name: str) -> str:
    return name.split(".")[0]


def in_room(name: str, *rooms: str) -> bool:
    return any(name == r or name.startswith(r + ".") for r in rooms)


def test_the_rooms_exist_and_hold_code() -> None:
    for room in ("baccarat", "baccarat_api/service", "baccarat_api/ports", "baccarat_api/http",
                 "baccarat_api/adapters", "baccarat_api/jobs", "baccarat_dev"):  # fmt: skip
        assert len(modules(room)) >= 2, room


@pytest.mark.parametrize("path", modules("baccarat"), ids=lambda p: p.name)
def test_the_core_imports_only_the_standard_library(path: Path) -> None:
    foreign = {m for m in imports(path) if top(m) not in STDLIB and top(m) != "baccarat"}
    assert not foreign, f"{path.name} imports {foreign}"


@pytest.mark.parametrize("path", modules("baccarat_api/service"), ids=lambda p: p.name)
def test_the_service_knows_no_http_no_aws_and_no_adapter(path: Path) -> None:
    found = set(imports(path))
    assert not {m for m in found if top(m) in WEB | AWS}, path.name
    banned = ("baccarat_api.http", "baccarat_api.adapters", "baccarat_api.jobs", "baccarat_dev")
    assert not {m for m in found if in_room(m, *banned)}, path.name


@pytest.mark.parametrize("path", modules("baccarat_api/ports"), ids=lambda p: p.name)
def test_the_ports_are_plain(path: Path) -> None:
    foreign = {
        m
        for m in imports(path)
        if top(m) not in STDLIB
        and top(m) != "baccarat"
        and not in_room(m, "baccarat_api.ports", *KERNEL)
    }
    assert not foreign, f"{path.name} imports {foreign}"


def test_only_adapters_and_wiring_import_the_aws_sdk() -> None:
    allowed = ("baccarat_api/adapters/", "baccarat_api/jobs/", "baccarat_dev/")
    offenders = []
    for path in sorted(SHARED.rglob("*.py")):
        rel = path.relative_to(SHARED).as_posix()
        if any(top(m) in AWS for m in imports(path)) and not rel.startswith(allowed):
            offenders.append(rel)
    assert offenders == []


@pytest.mark.parametrize("path", modules("baccarat_api/adapters"), ids=lambda p: p.name)
def test_adapters_implement_ports_and_know_no_use_case_nor_http(path: Path) -> None:
    found = set(imports(path))
    banned = ("baccarat_api.service", "baccarat_api.http", "baccarat_api.jobs", "baccarat_dev")
    assert not {m for m in found if in_room(m, *banned)}, path.name
    assert not {m for m in found if top(m) in WEB}, path.name


@pytest.mark.parametrize("path", modules("baccarat_api/http"), ids=lambda p: p.name)
def test_http_never_imports_the_aws_sdk_nor_an_adapter(path: Path) -> None:
    found = set(imports(path))
    assert not {m for m in found if top(m) in AWS}, path.name
    assert not {m for m in found if in_room(m, "baccarat_api.adapters")}, path.name


def test_nothing_shipped_imports_the_development_package() -> None:
    offenders = [
        path.relative_to(SHARED).as_posix()
        for path in sorted((SHARED / "baccarat_api").rglob("*.py"))
        if any(top(m) == "baccarat_dev" for m in imports(path))
    ]
    assert offenders == []
    init = (SHARED / "baccarat_dev" / "__init__.py").read_text(encoding="utf-8")
    assert init == '"""Development-only tools: never shipped in a Lambda layer."""\n'


def test_the_checker_sees_lazy_imports_and_skips_type_only_ones(tmp_path: Path) -> None:
    sample = SHARED / "baccarat_api" / "adapters" / "dynamodb" / "errors.py"
    found = set(imports(sample))
    assert "botocore.exceptions" in found  # imported inside a function
    repository = SHARED / "baccarat_api" / "adapters" / "dynamodb" / "repository.py"
    assert "mypy_boto3_dynamodb" not in set(imports(repository))  # under TYPE_CHECKING
