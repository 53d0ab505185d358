"""The time is passed in: every use case reads its repository's clock, so a test sets the time
on the repository it builds instead of patching modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support.clock import ManualClock

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.clock import ms_of, system_clock
from baccarat_api.service import reading

from .conftest import Game
from .test_service import OP, new_table

pytestmark = pytest.mark.unit

SHARED = Path(__file__).resolve().parents[2] / "shared"
T0 = "2026-03-01T12:00:00.000Z"


def test_a_manual_clock_reads_the_system_time_until_set_then_moves_only_when_moved() -> None:
    clock = ManualClock()
    assert abs(ms_of(clock()) - ms_of(system_clock())) < 60_000
    clock.set(T0)
    assert clock() == clock() == T0
    assert clock.advance(1.5) == "2026-03-01T12:00:01.500Z" == clock()


def test_both_adapters_carry_the_clock_they_are_given() -> None:
    clock = ManualClock(T0)
    assert MemoryRepository(clock).clock is clock
    assert DynamoRepository(None, "state", "config", clock).clock is clock  # type: ignore[arg-type]
    assert MemoryRepository().clock is system_clock
    assert DynamoRepository(None, "s", "c").clock is system_clock  # type: ignore[arg-type]


def test_a_use_case_writes_the_time_its_repository_reads(game: Game) -> None:
    game.clock.set(T0)
    table_id = new_table(game)
    assert reading.get_table(game.repo, OP, table_id).created_at == T0


def _reads_the_system_time(path: Path) -> list[str]:
    """Where ``path`` imports ``now`` from the clock module or calls ``clock.now``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "baccarat_api.clock":
            found += [f"imports {a.name}" for a in node.names if a.name == "now"]
        elif isinstance(node, ast.Attribute) and node.attr == "now" and _named(node.value):
            found.append(f"line {node.lineno}: clock.now")
        elif isinstance(node, ast.Attribute) and (
            (node.attr == "time" and _named(node.value, "time"))
            or (node.attr == "now" and _named(node.value, "datetime"))
        ):
            found.append(f"line {node.lineno}: the system's time")
    return found


def _named(node: ast.expr, name: str = "clock") -> bool:
    return isinstance(node, ast.Name) and node.id == name


def test_no_shipped_module_but_the_clock_reads_the_system_time() -> None:
    shipped = sorted((SHARED / "baccarat_api").rglob("*.py"))
    offenders = {
        p.relative_to(SHARED).as_posix(): hits
        for p in shipped
        if p.name != "clock.py" and (hits := _reads_the_system_time(p))
    }
    # the use cases read their repository's clock; only the idempotency records' TTL (DynamoDB's
    # own sweeper compares it with the real time) and the wiring outside the service may not
    in_service = {p: h for p, h in offenders.items() if p.startswith("baccarat_api/service/")}
    assert set(in_service) == {"baccarat_api/service/idempotency.py"}, in_service
    assert {p: h for p, h in offenders.items() if "clock.now" in " ".join(h)} == {}
