"""The operator feed on DynamoDB Local (Amazon's engine, its own Streams): many tables write
events at once while the indexer reads the state table's stream (the same handler as
FeedIndexerFunction, two pollers racing on the same shards) and a reader pages the feed; at the
end the reader has every event exactly once, each table's in order — no skip, no repeat."""

from __future__ import annotations

import random
import threading
from typing import Any

import boto3

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.jobs.feed_indexer import on_records
from baccarat_api.ports.repository import ConditionFailed, StoreUnavailable
from baccarat_api.service import events, feed
from baccarat_dev.streams import StreamPoller

OP = "feed-op"
TABLES = [f"tbl_{i:016x}" for i in range(40)]
WRITERS = 8
EVENTS_PER_WRITER = 40


def repo_of(engine: Any, names: dict[str, str]) -> DynamoRepository:
    client = boto3.client("dynamodb", **engine.client_kwargs())
    return DynamoRepository(client, names["StateTable"], names["ConfigTable"])


def write_events(repo: DynamoRepository, rnd: random.Random, count: int) -> int:
    written = 0
    while written < count:
        table = rnd.choice(TABLES)
        n = rnd.randint(1, 3)
        snap = repo.load(OP, live=table)
        ev = events.emit(
            snap.live, OP, table, "2026-01-01T00:00:00.000Z",
            [("watcher_joined", {"bettor_id": f"w{written + i}"}) for i in range(n)],
        )  # fmt: skip
        try:
            repo.emitting("test events", [], ev)
        except (ConditionFailed, StoreUnavailable):
            continue  # another writer moved the table: read again
        written += n
    return written


def test_many_tables_writing_while_a_reader_pages_never_skip_or_repeat(
    dynamodb_local: Any, dynamodb_local_tables: dict[str, str]
) -> None:
    names = dynamodb_local_tables
    pollers = []
    for _ in range(2):  # two indexers on the same stream: appends race, conditions decide
        repo = repo_of(dynamodb_local, names)
        client = boto3.client("dynamodb", **dynamodb_local.client_kwargs())
        streams = boto3.client("dynamodbstreams", **dynamodb_local.client_kwargs())
        pollers.append(
            StreamPoller(
                client, streams, names["StateTable"],
                lambda records, repo=repo: on_records(repo, records), every=0.05,
            )
        )  # fmt: skip
    stops = [p.start() for p in pollers]
    writing = threading.Event()
    writing.set()
    got: list[str] = []
    pages = 0
    during = 0  # events read while the tables were still writing

    def read() -> None:
        nonlocal pages, during
        repo, cursor, rnd = repo_of(dynamodb_local, names), None, random.Random(7)
        while True:
            still_writing = writing.is_set()
            page = feed.operator_events(repo, OP, cursor, rnd.randint(1, 40))
            pages += 1
            got.extend(e.event_id for e in page.events)
            during += len(page.events) if still_writing else 0
            cursor = page.next_after
            if not still_writing and not page.more and done.is_set():
                return

    done = threading.Event()
    reader = threading.Thread(target=read)
    reader.start()
    totals: list[int] = []
    writers = [
        threading.Thread(
            target=lambda k=k: totals.append(
                write_events(repo_of(dynamodb_local, names), random.Random(k), EVENTS_PER_WRITER)
            )
        )
        for k in range(WRITERS)
    ]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    writing.clear()
    for stop in stops:
        stop.set()
    pollers[0].drain()  # what the racing pollers had not appended yet
    done.set()
    reader.join(timeout=120)
    assert not reader.is_alive()

    repo = repo_of(dynamodb_local, names)
    expected = set()
    for t in TABLES:
        live = repo.load(OP, live=t).live
        expected |= {f"{t}:{n}" for n in range(1, (live.seq if live else 0) + 1)}
    assert sum(totals) == len(expected) >= WRITERS * EVENTS_PER_WRITER
    assert len(got) == len(set(got)), "an event was served twice"
    assert set(got) == expected, "an event was skipped"
    for t in TABLES:
        mine = [int(g.rsplit(":", 1)[1]) for g in got if g.startswith(t + ":")]
        assert mine == sorted(mine), t
    assert during > 0 and pages > 5  # the reader paged while the tables wrote
