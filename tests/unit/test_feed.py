"""The operator feed over the in-memory repository: the indexer appends every table's events to
the operator's sharded feed once, in each table's order, however its hints arrive (repeated,
out of order, lost then caught up); pages of any size, read between any writes, hand out every
event exactly once; money events carry their round's full money."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.ports.records import FEED_SHARDS, FeedHead, feed_shard
from baccarat_api.service import events, feed
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round

from .conftest import Game, star_city_bets
from .test_service import OP, deal, new_shoe

TABLES = [f"tbl_{i:016x}" for i in range(12)]


def write_event(repo: MemoryRepository, table_id: str, n: int = 1) -> int:
    """``n`` events at the table (watchers joining), through the one event writer; its seq."""
    snap = repo.load(OP, live=table_id)
    ev = events.emit(
        snap.live, OP, table_id, "2026-01-01T00:00:00.000Z",
        [("watcher_joined", {"bettor_id": f"w{i}"}) for i in range(n)],
    )  # fmt: skip
    repo.emitting("test events", [], ev)
    return ev.after.seq


def read_all(repo: MemoryRepository, limit: int, cursor: str | None = None) -> list[str]:
    got: list[str] = []
    while True:
        page = feed.operator_events(repo, OP, cursor, limit)
        got += [e.event_id for e in page.events]
        cursor = page.next_after
        if not page.more:
            return got


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 7))
def test_any_interleaving_of_writes_hints_and_pages_yields_each_event_once(
    rnd: random.Random, limit: int
) -> None:
    repo = MemoryRepository()
    hints: list[tuple[str, str, int]] = []
    got: list[str] = []
    cursor: str | None = None
    for _ in range(60):
        action = rnd.random()
        if action < 0.5:
            table = rnd.choice(TABLES)
            seq = write_event(repo, table, rnd.randint(1, 3))
            hints.append((OP, table, seq))
        elif action < 0.75 and hints:  # some hints delivered, repeated, reordered; some lost
            batch = rnd.sample(hints, rnd.randint(1, len(hints)))
            feed.index(repo, batch)
            hints = [h for h in hints if rnd.random() < 0.3]
        else:
            page = feed.operator_events(repo, OP, cursor, limit)
            got += [e.event_id for e in page.events]
            cursor = page.next_after
    feed.index(repo, [(OP, t, _seq(repo, t)) for t in TABLES])  # the trigger caught up
    got += read_all(repo, limit, cursor)
    everything = sorted({f"{t}:{n}" for t in TABLES for n in range(1, _seq(repo, t) + 1)})
    assert sorted(got) == everything  # no skip, no repeat
    for t in TABLES:  # each table's events in its order
        mine = [int(g.rsplit(":", 1)[1]) for g in got if g.startswith(t + ":")]
        assert mine == sorted(mine)


def _seq(repo: MemoryRepository, table_id: str) -> int:
    live = repo.load(OP, live=table_id).live
    return 0 if live is None else live.seq


def test_positions_are_gap_free_and_an_event_is_appended_once() -> None:
    repo = MemoryRepository()
    for t in TABLES:
        write_event(repo, t, 2)
    hints = [(OP, t, 2) for t in TABLES]
    assert feed.index(repo, hints) == 2 * len(TABLES)
    assert feed.index(repo, [*hints, (OP, TABLES[0], 1)]) == 0  # repeated and stale hints
    total = 0
    for shard in range(FEED_SHARDS):
        entries = repo.feed_entries(OP, shard, 0, 100)
        assert [e.pos for e in entries] == list(range(1, len(entries) + 1))
        assert all(feed_shard(e.table_id) == shard for e in entries)
        head, _, _ = repo.feed_state(OP, shard, [])
        assert head == FeedHead(OP, shard, len(entries))
        total += sum(e.last - e.first + 1 for e in entries)
    assert total == 2 * len(TABLES)


def test_an_append_that_lost_to_another_indexer_reads_again() -> None:
    repo = MemoryRepository()
    table = TABLES[0]
    write_event(repo, table, 1)
    shard = feed_shard(table)
    stale_head, stale_marks, _ = repo.feed_state(OP, shard, [table])
    assert feed.index(repo, [(OP, table, 1)]) == 1
    with pytest.raises(Exception, match="condition"):
        repo.append_feed(stale_head, [(stale_marks[table], 1)])  # the loser's append
    write_event(repo, table, 1)
    assert feed.index(repo, [(OP, table, 2)]) == 1
    assert [(e.first, e.last) for e in repo.feed_entries(OP, shard, 0, 9)] == [(1, 1), (2, 2)]


def test_money_events_carry_the_rounds_full_money(game: Game) -> None:
    shoe_id = new_shoe(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    settled = deal(game, shoe_id, star_city_bets()).round_id
    answer = settle_round(game.repo, OP, settled)
    voided = deal(game, shoe_id, star_city_bets()).round_id
    void_answer = void_round(game.repo, OP, voided, reason="misdeal")
    seq = _seq(game.repo, table_id)  # type: ignore[arg-type]
    feed.index(game.repo, [(OP, table_id, seq)])
    page = feed.operator_events(game.repo, OP, None, 100)
    by_type = {e.type: e for e in page.events}
    assert [e.seq for e in page.events] == list(range(1, seq + 1))
    assert by_type["round_settled"].settlement == answer
    assert by_type["round_voided"].settlement == void_answer
    assert by_type["round_dealt"].settlement is None
    assert by_type["round_settled"].event_id == f"{table_id}:{by_type['round_settled'].seq}"


@pytest.mark.parametrize("cursor", ["x", "f1.!!", "f1." + "YQ", "f1.LA"])
def test_a_malformed_cursor_is_refused(cursor: str) -> None:
    with pytest.raises(DomainError) as err:
        feed.operator_events(MemoryRepository(), OP, cursor, 10)
    assert err.value.code == "invalid_cursor"


def test_the_cursor_round_trips() -> None:
    positions = [(0, 0)] * FEED_SHARDS
    positions[3] = (12, 2)
    assert feed.decode_cursor(feed.encode_cursor(positions)) == positions


def test_a_hint_beyond_the_tables_events_appends_only_what_exists() -> None:
    repo = MemoryRepository()
    write_event(repo, TABLES[0], 2)
    assert feed.index(repo, [(OP, TABLES[0], 9), (OP, TABLES[1], 3)]) == 2  # TABLES[1]: none
    assert read_all(repo, 10) == [f"{TABLES[0]}:1", f"{TABLES[0]}:2"]
