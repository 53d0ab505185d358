"""The book store's races on DynamoDB Local, with real threads: slips confirmed while the lock
fires (the locked book is exactly the confirms that returned success — none lost, none
extra), one spectator joining from 8 threads at once (one item, the count moved once), and
joins racing leaves of one spectator (the count is 1 exactly when it is present; its epoch
only ever moves on).
The counts are printed; the confirm's and the lock's times are ``make bench``'s
(benchmarks/bet_behind.py), not a test's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from support.book import ref

from baccarat_api.adapters.dynamodb.book import DynamoBookStore
from baccarat_api.ports.book import (
    Line,
    Slip,
    Spectator,
    WindowClosed,
    slip_shard,
    whole_book,
)

OP, TABLE = "operator-a", "tbl_aaaaaaaaaaaaaaaa"
OPENED, CLOSES, NOW = (
    "2026-01-01T00:00:00.000Z",
    "2099-01-01T00:00:00.000Z",
    "2026-01-01T00:00:05.000Z",
)
THREADS = 8


def store(factory: Callable[..., Any], tables: dict[str, str]) -> DynamoBookStore:
    return DynamoBookStore(factory(), tables["StateTable"], tables["ConfigTable"])


def slip(bettor_id: str) -> Slip:
    return Slip(bettor_id, ref(bettor_id), (Line("player", 100), Line("tie", 10)), NOW, 1)


def join_all(book: DynamoBookStore, ids: list[str]) -> None:
    for b in ids:
        assert book.join_spectator(OP, TABLE, Spectator(b, ref(b), 50_000, OPENED))


def in_threads(work: list[Callable[[], None]]) -> None:
    threads = [threading.Thread(target=w) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def race_the_lock(
    factory: Callable[..., Any], tables: dict[str, str], ids: list[str], round_id: str
) -> tuple[list[Slip], list[str]]:
    """8 threads confirm the slips of ``ids`` (a share each) while a ninth locks the window
    once 100 have returned success: (the confirms that succeeded, the bettors refused)."""
    confirmed: list[Slip] = []
    refused: list[str] = []
    started = threading.Barrier(THREADS + 1)

    def confirmer(mine: list[str]) -> Callable[[], None]:
        book = store(factory, tables)

        def work() -> None:
            started.wait()
            for b in mine:
                try:
                    book.confirm_slip(OP, TABLE, round_id, OPENED, slip(b), NOW)
                except WindowClosed:
                    refused.append(b)
                else:
                    confirmed.append(slip(b))

        return work

    def locker() -> None:
        book = store(factory, tables)
        started.wait()
        while len(confirmed) < 100:
            time.sleep(0.002)
        book.lock(OP, round_id, OPENED)

    share = len(ids) // THREADS
    in_threads([*(confirmer(ids[t * share : (t + 1) * share]) for t in range(THREADS)), locker])
    return confirmed, refused


def test_the_locked_book_is_exactly_the_confirms_that_returned_success(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> None:
    book = store(dynamodb_local_client_factory, dynamodb_local_tables)
    ids = [f"race{n:03d}" for n in range(THREADS * 50)]
    join_all(book, ids)
    refusals = 0
    for attempt in range(2):
        round_id = f"{TABLE}_s1_r{attempt + 1}"
        book.open_window(OP, round_id, OPENED, CLOSES)
        confirmed, refused = race_the_lock(
            dynamodb_local_client_factory, dynamodb_local_tables, ids, round_id
        )
        locked = whole_book(book, OP, round_id)
        print(
            f"\nbook race {attempt + 1}: {len(confirmed)} confirmed, {len(refused)} refused, "
            f"locked book {len(locked)} slips over "
            f"{len({slip_shard(s.bettor_ref) for s in locked})} shards"
        )
        assert locked == sorted(confirmed, key=lambda s: s.bettor_ref)  # none lost, none extra
        assert len(confirmed) + len(refused) == len(ids)
        assert confirmed  # the lock fired once 100 had
        assert all(book.get_slip(OP, round_id, ref(b)) is None for b in refused)
        refusals += len(refused)
    assert refusals  # the lock fell inside the storm


def join_at_once(
    factory: Callable[..., Any], tables: dict[str, str], table_id: str, b: str
) -> list[bool]:
    """8 threads join the same spectator at once: each one's answer."""
    answers: list[bool] = []
    started = threading.Barrier(THREADS)

    def joiner() -> Callable[[], None]:
        book = store(factory, tables)

        def work() -> None:
            started.wait()
            answers.append(book.join_spectator(OP, table_id, Spectator(b, ref(b), 100, OPENED)))

        return work

    in_threads([joiner() for _ in range(THREADS)])
    return answers


def test_one_spectator_joining_from_8_threads_is_one_item_and_one_count(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> None:
    book = store(dynamodb_local_client_factory, dynamodb_local_tables)
    table_id = "tbl_bbbbbbbbbbbbbbbb"
    for attempt in range(2):
        answers = join_at_once(
            dynamodb_local_client_factory, dynamodb_local_tables, table_id, f"twice{attempt}"
        )
        names = book.spectators(OP, table_id, 10)
        print(
            f"\njoin race {attempt + 1}: {answers.count(True)} joined, "
            f"{answers.count(False)} already there, count {names.count}"
        )
        assert answers.count(True) == 1 and len(answers) == THREADS
        assert names.count == attempt + 1 and len(names.names) == attempt + 1


def test_joins_racing_leaves_keep_the_count_true_and_the_epoch_moving_on(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> None:
    book = store(dynamodb_local_client_factory, dynamodb_local_tables)
    table_id, b = "tbl_cccccccccccccccc", "flicker"
    joins: list[bool] = []
    leaves: list[bool] = []
    started = threading.Barrier(THREADS)

    def worker(n: int) -> Callable[[], None]:
        mine = store(dynamodb_local_client_factory, dynamodb_local_tables)

        def work() -> None:
            started.wait()
            for _ in range(10):
                if n % 2:
                    joins.append(mine.join_spectator(OP, table_id, Spectator(b, ref(b), 1, OPENED)))
                else:
                    leaves.append(mine.leave_spectator(OP, table_id, b))

        return work

    in_threads([worker(n) for n in range(THREADS)])
    there = book.get_spectator(OP, table_id, b)
    count = book.spectators(OP, table_id, 5).count
    print(
        f"\njoin/leave race: {joins.count(True)} joined, {leaves.count(True)} left, "
        f"present {there is not None}, count {count}"
    )
    assert joins.count(True) - leaves.count(True) == count == (1 if there else 0)
    moves = joins.count(True) + leaves.count(True)  # each moved the epoch once
    if there is None:
        assert book.join_spectator(OP, table_id, Spectator(b, ref(b), 1, OPENED))
        there, moves = book.get_spectator(OP, table_id, b), moves + 1
    assert there is not None and there.epoch == moves  # never back, never skipped
