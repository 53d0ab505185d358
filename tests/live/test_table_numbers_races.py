"""Table numbers under real concurrency (issue 27): on DynamoDB Local (Amazon's engine, no lock
of ours), 8 threads create tables of one operator at once — all with one number: exactly one
table gets it, the others are refused 409 ``table_number_taken`` and leave nothing behind;
without a number: 8 tables, 8 different numbers. And the lobby lists them in number order."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.jobs.seed import seed_tiers
from baccarat_api.ports.records import TableNumber
from baccarat_api.service import tables
from baccarat_api.service.errors import DomainError
from baccarat_api.service.lobby import list_tables
from baccarat_api.service.models import CreateTableRequest

THREADS = 8
OP = "operator-race"
OP_AUTO = "operator-race-auto"  # (the module's tables are shared: an operator per test)
TIERS = Path(__file__).resolve().parents[2] / "infra" / "tiers.json"


def _race(create: Callable[[], Any]) -> list[Any]:
    """``create()`` on THREADS threads released at once: each one's answer or error."""
    gate = threading.Barrier(THREADS)
    out: list[Any] = [None] * THREADS

    def run(i: int) -> None:
        gate.wait(timeout=30)
        try:
            out[i] = create()
        except DomainError as exc:
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return out


def _repo(factory: Callable[..., Any], names: dict[str, str]) -> DynamoRepository:
    return DynamoRepository(factory(), names["StateTable"], names["ConfigTable"])


def _request(**fields: Any) -> CreateTableRequest:
    return CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house", **fields}
    )


def test_eight_creations_racing_for_one_number_give_it_to_one_table(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> None:
    repo = _repo(dynamodb_local_client_factory, dynamodb_local_tables)
    seed_tiers(repo, TIERS)
    vault = MemoryVault()
    answers = _race(lambda: tables.create_table(repo, vault, OP, _request(number=77)))
    won = [a for a in answers if not isinstance(a, DomainError)]
    refused = [a for a in answers if isinstance(a, DomainError)]
    assert len(won) == 1 and won[0].number == 77
    assert {e.code for e in refused} == {"table_number_taken"} and len(refused) == THREADS - 1
    assert repo.table_number(OP, 77) == TableNumber(OP, 77, won[0].table_id)
    assert repo.taken_table_numbers(OP, 1, 100) == [77]
    page, _ = list_tables(repo, OP, 50, None)
    assert [t.table_id for t in page.tables] == [won[0].table_id]  # the losers left no table


def test_eight_creations_without_a_number_get_eight_numbers(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> None:
    repo = _repo(dynamodb_local_client_factory, dynamodb_local_tables)
    seed_tiers(repo, TIERS)
    vault = MemoryVault()
    tables.create_table(repo, vault, OP_AUTO, _request(number=3))  # taken ahead of the counter
    answers = _race(lambda: tables.create_table(repo, vault, OP_AUTO, _request()))
    assert not [a for a in answers if isinstance(a, DomainError)]
    numbers = sorted(a.number for a in answers)
    assert len(set(numbers)) == THREADS and 3 not in numbers
    assert numbers == [n for n in range(1, THREADS + 2) if n != 3]
    page, _ = list_tables(repo, OP_AUTO, 50, None)
    assert [t.number for t in page.tables] == sorted([*numbers, 3])


def test_a_storm_of_creations_draws_distinct_numbers_without_retrying(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> None:
    """8 threads × 8 creations at once (the storm that once ran a counter under a condition into
    30-s timeouts, each loser re-reading): 64 tables, numbers 1–64 each once, and no creation
    refused — the atomic draw gives each its own number at the first try."""
    repo = _repo(dynamodb_local_client_factory, dynamodb_local_tables)
    seed_tiers(repo, TIERS)
    vault = MemoryVault()
    storm = "operator-race-storm"

    def eight() -> list[int]:
        return [tables.create_table(repo, vault, storm, _request()).number for _ in range(8)]

    answers = _race(eight)
    assert not [a for a in answers if isinstance(a, DomainError)]
    numbers = sorted(n for batch in answers for n in batch)
    assert numbers == list(range(1, THREADS * 8 + 1))
    for batch in answers:  # each client's own creations in its order: increasing numbers
        assert batch == sorted(batch)
