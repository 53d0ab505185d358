"""Presence at a book table raced for real through the service (its use cases over the DynamoDB
repository on DynamoDB Local, a repository per thread): one spectator joining from 8 threads at
once is one item and the count moved once; joins racing leaves of one spectator leave the count
true (1 exactly when present, the names page agreeing); 500 spectators joining one table from
8 threads (the book store's join, the service's costs ~10 round trips each — the printed
figure of the service's joins is per join) are counted 500, paged in full (3 pages) by
``GET …/spectators``' use case, and the table's state stays within its presence budget. Times
are printed (figures, not asserted)."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.jobs.seed import tier_docs
from baccarat_api.limits import FIRST_NAMES, MAX_NAMES_PAGE, PRESENCE_BUDGET_BYTES
from baccarat_api.ports.book import Spectator
from baccarat_api.service import book_presence, presence, presence_reads, tables
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import CreateTableRequest
from baccarat_api.service.table_state import table_state

OP = "operator-a"
THREADS = 8
#: The crowd of the paging test: more than two full names pages (the 1,000 of issue 26's "done
#: when" join through HTTP in tests/live/test_bet_behind_1000.py).
CROWD = 500
#: How many of the crowd stay after the others leave (their first names read past the absent).
STAY = 104
TIERS = Path(__file__).resolve().parents[2] / "infra" / "tiers.json"
BOOK = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
        "bet_behind": "book", "squeeze_seconds": 0}  # fmt: skip


class World:
    """The tables on DynamoDB Local, a repository per caller, one vault (the tables' keys)."""

    def __init__(self, factory: Callable[..., Any], names: dict[str, str]) -> None:
        self.factory, self.names, self.vault = factory, names, MemoryVault()
        self.repo().put_tiers(tier_docs(TIERS))

    def repo(self) -> DynamoRepository:
        return DynamoRepository(self.factory(), self.names["StateTable"], self.names["ConfigTable"])

    def book_table(self) -> str:
        repo = self.repo()
        t = tables.create_table(repo, self.vault, OP, CreateTableRequest.model_validate(BOOK))
        presence.take_seat(repo, OP, t.table_id, 1, "alice", 50_000, 5)
        return t.table_id

    def join(self, repo: DynamoRepository, t: str, b: str, balance: int = 10_000) -> Any:
        return presence.join_spectators(repo, OP, t, b, balance, None, self.vault)


@pytest.fixture(scope="module")
def world(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> World:
    return World(dynamodb_local_client_factory, dynamodb_local_tables)


def in_threads(work: list[Callable[[], None]]) -> None:
    threads = [threading.Thread(target=w) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_a_spectator_joining_from_8_threads_at_once_is_one_item_and_one_count(
    world: World,
) -> None:
    t = world.book_table()
    repos = [world.repo() for _ in range(THREADS)]
    for attempt in range(3):
        b = f"twice{attempt}"
        answers: list[Any] = []
        started = threading.Barrier(THREADS)

        def joiner(
            repo: DynamoRepository, b: str, answers: list[Any], started: threading.Barrier
        ) -> Callable[[], None]:
            def work() -> None:
                started.wait()
                answers.append(world.join(repo, t, b))

            return work

        in_threads([joiner(r, b, answers, started) for r in repos])
        stored = repos[0].book.get_spectator(OP, t, b)
        count = repos[0].book.spectators(OP, t, 10).count
        print(f"\nservice join race {attempt + 1}: {len(answers)} answered 200, count {count}")
        assert len(answers) == THREADS  # every one answered (a no-op or the join)
        assert stored is not None and stored.epoch == 1  # one join wrote it
        assert count == attempt + 1  # the count moved once
        assert answers[-1].crowd.spectators.count == attempt + 1


def test_joins_racing_leaves_through_the_service_keep_the_count_true(world: World) -> None:
    t = world.book_table()
    b = "flicker"
    outcomes: list[str] = []
    started = threading.Barrier(THREADS)

    def worker(n: int) -> Callable[[], None]:
        repo = world.repo()

        def work() -> None:
            started.wait()
            for _ in range(8):
                try:
                    if n % 2:
                        world.join(repo, t, b)
                        outcomes.append("joined")
                    else:
                        presence.leave_spectators(repo, OP, t, b)
                        outcomes.append("left")
                except DomainError as exc:
                    outcomes.append(exc.code)

        return work

    in_threads([worker(n) for n in range(THREADS)])
    repo = world.repo()
    there = repo.book.get_spectator(OP, t, b)
    page = repo.book.spectators(OP, t, 5)
    print(
        f"\nservice join/leave race: {outcomes.count('joined')} joins answered, "
        f"{outcomes.count('left')} leaves, {outcomes.count('not_found')} not_found, "
        f"present {there is not None}, count {page.count}"
    )
    assert set(outcomes) <= {"joined", "left", "not_found"}
    assert page.count == (1 if there is not None else 0)
    assert list(page.names) == ([b] if there is not None else [])


def test_500_spectators_join_one_table_counted_paged_and_within_budget(world: World) -> None:
    t = world.book_table()
    ids = [f"crowd{n:04d}" for n in range(CROWD)]
    table = world.repo().load(OP, table_id=t).table
    assert table is not None

    def in_parallel(do: Callable[[DynamoRepository, str], object]) -> Callable[[list[str]], None]:
        def run(mine: list[str]) -> None:
            repo = world.repo()
            for b in mine:
                do(repo, b)

        return run

    def join(repo: DynamoRepository, b: str) -> object:
        ref = book_presence.ref_of(world.vault, table, b)
        return repo.book.join_spectator(OP, t, Spectator(b, ref, 10_000, "2026-01-01"))

    def split(run: Callable[[list[str]], None], who: list[str]) -> None:
        in_threads([functools.partial(run, who[k::THREADS]) for k in range(THREADS)])

    repo = world.repo()
    t0 = time.perf_counter()
    for b in ids[:20]:  # through the service: its figure per join
        world.join(repo, t, b)
    service = (time.perf_counter() - t0) / 20
    t0 = time.perf_counter()
    split(in_parallel(join), ids[20:])
    joined = time.perf_counter() - t0
    t0 = time.perf_counter()
    seen: list[str] = []
    after: str | None = None
    while True:
        page = presence_reads.spectators_page(repo, OP, t, MAX_NAMES_PAGE, after)
        assert page.count == CROWD
        seen += [e.bettor_id for e in page.spectators]
        if page.next is None:
            break
        after = page.next
    paged = time.perf_counter() - t0
    assert seen == ids
    t0 = time.perf_counter()
    state, _ = table_state(repo, OP, t)
    stated = time.perf_counter() - t0
    size = len(state.model_dump_json().encode())
    assert state.crowd is not None and state.crowd.spectators.count == CROWD
    assert state.crowd.spectators.first == ids[:FIRST_NAMES]
    assert size <= PRESENCE_BUDGET_BYTES

    def leave(repo: DynamoRepository, b: str) -> object:
        return repo.book.leave_spectator(OP, t, b)

    split(in_parallel(leave), ids[: CROWD - STAY])
    t0 = time.perf_counter()
    first = repo.book.spectators(OP, t, FIRST_NAMES)
    past = time.perf_counter() - t0
    gone = CROWD - STAY
    assert (first.count, first.names) == (STAY, tuple(ids[gone : gone + FIRST_NAMES]))
    print(
        f"\na join through the service (one thread): {service * 1000:.0f} ms"
        f"\n{CROWD - 20} joins in the book store, {THREADS} threads: {joined:.2f} s"
        f"\nevery name in pages of {MAX_NAMES_PAGE}: {paged * 1000:.0f} ms"
        f"\nGET …/state at {CROWD} spectators: {size} bytes, {stated * 1000:.0f} ms"
        f"\ncount + first 20 names past {gone} who left: {past * 1000:.1f} ms"
    )
