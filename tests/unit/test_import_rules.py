"""What may import what: the import contracts of pyproject.toml (``[tool.importlinter]``, run by
``make lint``) hold, and each one bites — one forbidden import added to the real import graph
breaks it. What import-linter cannot say is checked here: the core imports only the standard
library (a contract can forbid named packages, not "anything outside the standard library")."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from copy import deepcopy
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter import configuration
from importlinter.application import use_cases
from importlinter.application.user_options import UserOptions
from importlinter.domain.contract import Contract, registry

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared"

#: For each contract (by name), an import that breaks it: (importer, imported).
BAD_IMPORTS: dict[str, list[tuple[str, str]]] = {
    "No import cycle: in every package, its modules and subpackages import each other one way": [
        ("baccarat_api.service.views", "baccarat_api.service.squeezing"),  # the old cycle
        ("baccarat.cards", "baccarat.settlement"),
    ],
    "The packages: the dev tools over the service and the verifier, both over the core": [
        ("baccarat.cards", "baccarat_api.ids"),
        ("baccarat_verify.cli", "baccarat_api.ids"),
        ("baccarat_bls.verify", "baccarat_api.ids"),
        ("baccarat.beacon", "baccarat_bls.verify"),
    ],
    "The service's rooms: entry points, wiring, use cases and adapters, ports": [
        ("baccarat_api.runtime", "baccarat_api.http.errors"),  # jobs → runtime → http
        ("baccarat_api.service.views", "baccarat_api.adapters.memory"),
        ("baccarat_api.adapters.memory", "baccarat_api.service.views"),
        ("baccarat_api.ports.records", "baccarat_api.service.errors"),
        ("baccarat_api.jobs.sweep", "baccarat_api.http.errors"),
    ],
    "The shared kernel imports no room": [("baccarat_api.limits", "baccarat_api.service.views")],
    "The ports are plain: the core, the ids, the limits and the clock only": [
        ("baccarat_api.ports.records", "pydantic"),
        ("baccarat_api.ports.records", "baccarat_api.settings"),
    ],
    "The core and the use cases know no web framework and no AWS SDK": [
        ("baccarat_api.service.views", "fastapi"),
        ("baccarat.cards", "boto3"),
    ],
    "The core imports no service framework (it imports only the standard library: a test)": [
        ("baccarat.cards", "pydantic"),
    ],
    "Only the adapters and the jobs' wiring import the AWS SDK": [
        ("baccarat_api.http.errors", "botocore"),
        ("baccarat_api.runtime", "boto3"),
    ],
    "The adapters know no web framework": [("baccarat_api.adapters.memory", "starlette")],
    "Nothing shipped imports the development tools": [
        ("baccarat_api.service.views", "baccarat_dev.cli"),
    ],
}


@pytest.fixture(scope="module")
def options() -> UserOptions:
    configuration.configure()
    opts = use_cases.read_user_options(str(ROOT / "pyproject.toml"))
    use_cases._register_contract_types(opts)
    return opts


@pytest.fixture(scope="module")
def graph(options: UserOptions) -> grimp.ImportGraph:
    session = options.session_options
    return grimp.build_graph(
        *session["root_packages"],
        include_external_packages=True,
        exclude_type_checking_imports=True,
        cache_dir=None,
    )


def _contract(options: UserOptions, name: str) -> Contract:
    found: list[dict[str, Any]] = [c for c in options.contracts_options if c["name"] == name]
    assert len(found) == 1, name
    cls = registry.get_contract_class(found[0]["type"])
    return cls(name=name, session_options=options.session_options, contract_options=found[0])


def test_every_contract_has_a_bad_import_that_breaks_it(options: UserOptions) -> None:
    assert sorted(c["name"] for c in options.contracts_options) == sorted(BAD_IMPORTS)


@pytest.mark.parametrize("name", sorted(BAD_IMPORTS))
def test_the_code_keeps_the_contract(
    options: UserOptions, graph: grimp.ImportGraph, name: str
) -> None:
    assert _contract(options, name).check(deepcopy(graph), verbose=False).kept


@pytest.mark.parametrize(
    ("name", "importer", "imported"),
    [(name, a, b) for name, bad in sorted(BAD_IMPORTS.items()) for a, b in bad],
)
def test_a_bad_import_breaks_the_contract(
    options: UserOptions, graph: grimp.ImportGraph, name: str, importer: str, imported: str
) -> None:
    bad = deepcopy(graph)
    assert importer in bad.modules  # a real module: the contract bites on the code as it is
    bad.add_import(importer=importer, imported=imported, line_number=1, line_contents="import")
    assert not _contract(options, name).check(bad, verbose=False).kept


def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports (absolute names), also inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module


@pytest.mark.parametrize("path", sorted((SHARED / "baccarat").rglob("*.py")), ids=lambda p: p.name)
def test_the_core_imports_only_the_standard_library(path: Path) -> None:
    tops = {m.split(".")[0] for m in _imports(path)}
    foreign = tops - set(sys.stdlib_module_names) - {"baccarat", "__future__"}
    assert not foreign, f"{path.name} imports {foreign}"
