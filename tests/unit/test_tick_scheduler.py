"""Delivering ticks: the job's alignment and re-scheduling (a fake ``run_tick``), a message
body read as a tick or refused, the running table's place in the DueRounds index (shard
``TICK#k``, taking ``deal_by``'s slot), ``due_ticks`` of the in-memory repository, and the
sweep taking an overdue tick."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from support.clock import ManualClock

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.codec import to_item
from baccarat_api.adapters.dynamodb.writes import WriteRequests
from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.clock import ms_of
from baccarat_api.jobs import table_clock as job
from baccarat_api.ports.documents import TickDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.scheduler import Tick
from baccarat_api.ports.writes import Put, Update
from baccarat_api.service import auto_settle, table_clock

T0 = "2026-01-01T00:00:00.000Z"
DUE = "2026-01-01T00:00:10.000Z"


def tick(due: str = DUE, key: str = "k1", table_id: str = "tbl_a") -> Tick:
    return Tick(operator_id="op", table_id=table_id, step="close", key=key, due=due)


def doc(due: str = DUE, key: str = "k1") -> TickDoc:
    return TickDoc(step="close", key=key, due=due)


class Rt:
    """The job's wiring: a repository, no shoes or vault needed by the fake run_tick."""

    def __init__(self, repo: Any = None) -> None:
        self.repo, self.shoes, self.vault = repo, object(), object()
        self.scheduled: list[Tick] = []
        self.scheduler = self

    def schedule(self, t: Tick) -> None:
        self.scheduled.append(t)


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[Tick]:
    """``run_tick`` replaced: records each tick it is given, answers ``done``."""
    got: list[Tick] = []

    def fake(repo: Any, shoes: Any, vault: Any, t: Tick) -> table_clock.Outcome:
        got.append(t)
        return "done"

    monkeypatch.setattr(table_clock, "run_tick", fake)
    return got


# --- the job: deliver ----------------------------------------------------------------------


def at(iso: str) -> float:
    return ms_of(iso) / 1000


@pytest.mark.parametrize("now", ["2026-01-01T00:00:10.000Z", "2026-01-01T00:00:42.000Z"])
def test_a_tick_due_or_late_runs_at_once(runs: list[Tick], now: str) -> None:
    slept: list[float] = []
    rt = Rt()
    assert job.deliver(rt, tick(), now=lambda: at(now), sleep=slept.append) == "done"
    assert runs == [tick()] and slept == [] and rt.scheduled == []


def test_a_tick_less_than_the_alignment_ahead_waits_its_remainder_then_runs(
    runs: list[Tick],
) -> None:
    slept: list[float] = []
    rt = Rt()
    out = job.deliver(rt, tick(), now=lambda: at("2026-01-01T00:00:09.250Z"), sleep=slept.append)
    assert out == "done" and runs == [tick()] and rt.scheduled == []
    assert slept == [pytest.approx(0.75)]


def test_a_tick_further_ahead_is_scheduled_again_not_run(runs: list[Tick]) -> None:
    """A message that arrived early (a wait longer than SQS's 15 minutes, a skewed clock)."""
    rt = Rt()
    now = at(DUE) - job.ALIGN_SECONDS
    assert job.deliver(rt, tick(), now=lambda: now, sleep=lambda s: None) == "early"
    assert runs == [] and rt.scheduled == [tick()]


def test_a_tick_run_tick_finds_early_is_scheduled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_clock, "run_tick", lambda *a: "early")
    rt = Rt()
    assert job.deliver(rt, tick(), now=lambda: at(DUE), sleep=lambda s: None) == "early"
    assert rt.scheduled == [tick()]


def test_a_stale_tick_is_not_scheduled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_clock, "run_tick", lambda *a: "stale")
    rt = Rt()
    assert job.deliver(rt, tick(), now=lambda: at(DUE), sleep=lambda s: None) == "stale"
    assert rt.scheduled == []


# --- the message body ------------------------------------------------------------------------


def test_a_body_is_read_back_as_the_tick_it_holds() -> None:
    from baccarat_api.adapters.sqs_scheduler import tick_body

    assert job.parse_tick(tick_body(tick())) == tick()


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[]",
        json.dumps({"operator_id": "op", "table_id": "t", "step": "close", "key": "k"}),
        json.dumps({**tick(), "step": "dance"}),
        json.dumps({**tick(), "due": "tomorrow"}),
        json.dumps({**tick(), "table_id": 7}),
    ],
)
def test_a_body_that_is_no_tick_is_refused(body: str) -> None:
    with pytest.raises(job.BadTick):
        job.parse_tick(body)


# --- the DueRounds slot --------------------------------------------------------------------


def live(**changes: Any) -> LiveRecord:
    return dataclasses.replace(LiveRecord("op", "tbl_a", seq=3, updated_at=T0), **changes)


def test_a_running_table_with_a_tick_is_in_the_tick_shard_at_its_due() -> None:
    item = to_item(live(tick=doc(), deal_by="2026-01-01T00:00:25.000Z"))
    assert item["due_shard"] == {"S": keys.tick_shard("tbl_a")}
    assert item["due_shard"]["S"].startswith("TICK#")
    assert item["due_at"] == {"S": DUE}


def test_a_table_without_a_tick_keeps_its_book_slot_or_none() -> None:
    book = to_item(live(deal_by="2026-01-01T00:00:25.000Z"))
    assert book["due_shard"] == {"S": keys.book_shard("tbl_a")}
    assert "due_shard" not in to_item(live())


def update_expression(**kw: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The UpdateItem one live update becomes: its expression with the names and values put
    back in."""
    writer = WriteRequests(None, "state", "config")  # type: ignore[arg-type]
    kw.setdefault("set", {})
    req = writer._update(Update(LiveRecord, ("op", "tbl_a"), expect={"seq": 3}, **kw))
    return (
        req["UpdateExpression"],
        req["ExpressionAttributeNames"],
        req.get("ExpressionAttributeValues", {}),
    )


def index_moves(**kw: Any) -> dict[str, Any]:
    """due_shard / due_at → the value set, or None: removed."""
    expression, names, values = update_expression(**kw)
    clauses = dict(re.findall(r"(SET|ADD|REMOVE) (.*?)(?= (?:SET|ADD|REMOVE) |$)", expression))
    named = [n for n in names.values() if n in ("due_shard", "due_at")]
    assert len(named) == len(set(named)), expression  # DynamoDB refuses overlapping paths
    out: dict[str, Any] = {}
    for clause in clauses.get("SET", "").split(", "):
        name, _, value = clause.partition(" = ")
        if names.get(name) in ("due_shard", "due_at"):
            out[names[name]] = values[value]["S"]
    for name in clauses.get("REMOVE", "").split(", "):
        if names.get(name) in ("due_shard", "due_at"):
            out[names[name]] = None
    return out


TICK_SHARD = keys.tick_shard("tbl_a")
BOOK_SHARD = keys.book_shard("tbl_a")
LATER = "2026-01-01T00:00:25.000Z"
AT_TICK = {"due_shard": TICK_SHARD, "due_at": DUE}
AT_BOOK = {"due_shard": BOOK_SHARD, "due_at": LATER}


@pytest.mark.parametrize(
    ("write", "moves"),
    [
        ({"set": {"tick": doc()}}, {"due_shard": TICK_SHARD, "due_at": DUE}),
        # a window opens at a running table: both move, the tick keeps the slot
        ({"set": {"deal_by": LATER, "tick": doc()}}, {"due_shard": TICK_SHARD, "due_at": DUE}),
        ({"set": {"tick": doc(), "deal_by": LATER}}, {"due_shard": TICK_SHARD, "due_at": DUE}),
        # dealt: deal_by removed, the next tick set
        ({"set": {"tick": doc()}, "remove": ("deal_by",)}, AT_TICK),
        # the tick gone (paused, waiting) while a window was set: the book takes the slot
        ({"set": {"deal_by": LATER}, "remove": ("tick",)}, AT_BOOK),
        ({"remove": ("tick", "deal_by")}, {"due_shard": None, "due_at": None}),
        ({"remove": ("tick",)}, {"due_shard": None, "due_at": None}),
        # an operator table: as before
        ({"set": {"deal_by": LATER}}, {"due_shard": BOOK_SHARD, "due_at": LATER}),
        ({"remove": ("deal_by",)}, {"due_shard": None, "due_at": None}),
        ({"set": {"seq": 4}}, {}),
    ],
)  # fmt: skip
def test_an_update_moves_the_slot_once_the_tick_winning(
    write: dict[str, Any], moves: dict[str, Any]
) -> None:
    assert index_moves(**write) == moves


# --- due_ticks in memory, and the sweep ----------------------------------------------------


def with_lives(*lives: LiveRecord) -> MemoryRepository:
    repo = MemoryRepository(ManualClock(T0))
    for one in lives:
        repo.transact("test", [Put(one)])
    return repo


def test_due_ticks_lists_the_tables_whose_tick_is_due_oldest_first() -> None:
    repo = with_lives(
        live(table_id="tbl_late", tick=doc("2026-01-01T00:00:30.000Z")),
        live(table_id="tbl_b", tick=doc("2026-01-01T00:00:20.000Z")),
        live(table_id="tbl_a", tick=doc("2026-01-01T00:00:10.000Z")),
        live(table_id="tbl_op", deal_by="2026-01-01T00:00:05.000Z"),
    )
    assert repo.due_ticks("2026-01-01T00:00:20.000Z", 10) == [("op", "tbl_a"), ("op", "tbl_b")]
    assert repo.due_ticks("2026-01-01T00:00:20.000Z", 1) == [("op", "tbl_a")]
    assert repo.due_ticks("2026-01-01T00:00:09.999Z", 10) == []


def test_a_running_tables_window_is_found_by_its_tick_not_its_book() -> None:
    """As in DynamoDB, where the live item's one DueRounds slot is the tick's."""
    repo = with_lives(
        live(table_id="tbl_auto", tick=doc(), deal_by=LATER),
        live(table_id="tbl_op", deal_by=LATER),
    )
    assert repo.due_books("2026-01-01T01:00:00.000Z", 10) == [("op", "tbl_op")]
    assert repo.due_ticks("2026-01-01T01:00:00.000Z", 10) == [("op", "tbl_auto")]


def test_the_sweep_takes_a_tick_overdue_by_its_grace_and_no_sooner(runs: list[Tick]) -> None:
    repo = with_lives(
        live(table_id="tbl_a", tick=doc("2026-01-01T00:00:10.000Z")),
        live(table_id="tbl_b", tick=doc("2026-01-01T00:00:13.000Z", key="k2")),
    )
    now = "2026-01-01T00:00:16.000Z"  # tbl_a 6 s overdue, tbl_b 3 s: its timer's still
    report = auto_settle.sweep(repo, at=now, shoes=object(), unseal=object())  # type: ignore[arg-type]
    assert runs == [tick("2026-01-01T00:00:10.000Z")]
    assert report.ticked == ["tbl_a:close"]
    assert report.as_dict()["ticked"] == ["tbl_a:close"]
    assert "1 overdue table steps taken" in report.line()


def test_the_sweep_reports_a_failing_tick_and_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(repo: Any, shoes: Any, vault: Any, t: Tick) -> table_clock.Outcome:
        if t["table_id"] == "tbl_a":
            raise RuntimeError("boom")
        return "done"

    monkeypatch.setattr(table_clock, "run_tick", fake)
    repo = with_lives(
        live(table_id="tbl_a", tick=doc("2026-01-01T00:00:01.000Z")),
        live(table_id="tbl_b", tick=doc("2026-01-01T00:00:02.000Z")),
    )
    report = auto_settle.sweep(repo, at="2026-01-01T00:01:00.000Z", shoes=object(), unseal=object())  # type: ignore[arg-type]
    assert report.failed == {"tbl_a:tick": "RuntimeError"}
    assert report.ticked == ["tbl_b:close"]


def test_a_stale_outcome_is_not_reported_as_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_clock, "run_tick", lambda *a: "stale")
    repo = with_lives(live(tick=doc("2026-01-01T00:00:01.000Z")))
    report = auto_settle.sweep(repo, at="2026-01-01T00:01:00.000Z", shoes=object(), unseal=object())  # type: ignore[arg-type]
    assert report.ticked == [] and report.failed == {}
