"""A running table attacked end to end: ``make run`` restarted with running tables (the thread
scheduler's heap is lost with the process: its start-up pass must take up every stored tick at
once, not leave the tables still until the sweep's minute), and a frontend integrating from
docs/api.md alone, over the HTTP handlers (every state, event and field of a running table as
documented)."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.stack import Stack

from baccarat_api import runtime
from baccarat_api.jobs import table_clock as job
from baccarat_api.ports.documents import TickDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.scheduler import Tick
from baccarat_api.ports.writes import Put
from baccarat_api.service import table_clock

PAST = "2026-01-01T00:00:10.000Z"
FAR = "2999-01-01T00:00:00.000Z"


@pytest.fixture
def delivered(monkeypatch: pytest.MonkeyPatch) -> list[Tick]:
    """``run_tick`` recorded (what a step does is the table clock's own tests')."""
    got: list[Tick] = []
    lock = threading.Lock()

    def fake(repo: Any, shoes: Any, vault: Any, t: Tick, beacon: Any = None) -> table_clock.Outcome:
        with lock:
            got.append(t)
        return "done"

    monkeypatch.setattr(table_clock, "run_tick", fake)
    return got


@pytest.fixture
def fresh_runtime(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TABLE_CLOCK_QUEUE_URL", raising=False)
    runtime.reset()
    yield
    runtime.reset()


def stored(table_id: str, due: str | None, step: str = "close") -> LiveRecord:
    t = None if due is None else TickDoc(step=step, key=f"{table_id}:k", due=due)  # type: ignore[typeddict-item]
    return dataclasses.replace(LiveRecord("operator-a", table_id, seq=1, updated_at=PAST), tick=t)


def wait_for(cond: Any, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return bool(cond())


def test_a_restarted_make_run_takes_up_every_stored_tick_at_once(
    stack: Stack, fresh_runtime: None, delivered: list[Tick]
) -> None:
    """The tables outlive the process (a shared DynamoDB Local, a stack): the new process's
    thread has an empty heap. Each running table's stored next step is scheduled again at
    start-up: an overdue one is taken at once (not ≥ 5 s later by the sweep, whose first run is
    a minute after start), a future one waits for its due; a table with no tick (paused,
    waiting) is left alone."""
    stack.repo.transact("t", [Put(stored("tbl_overdue", PAST))])
    stack.repo.transact("t", [Put(stored("tbl_future", FAR, step="open"))])
    stack.repo.transact("t", [Put(stored("tbl_paused", None))])
    rt = runtime.get_runtime()
    thread = job.start_background(rt)
    try:
        assert wait_for(lambda: len(delivered) >= 1)
        assert [(t["table_id"], t["step"], t["due"]) for t in delivered] == [
            ("tbl_overdue", "close", PAST)
        ]
        assert thread.pending() == 1  # tbl_future's open, at its due
    finally:
        thread.stop()


def test_a_batch_of_ticks_is_taken_in_due_order_not_in_arrival_order(
    stack: Stack, delivered: list[Tick]
) -> None:
    """SQS rounds each delay down to the second, so a batch (up to 10) holds ticks due within
    the next second and a half, which the function waits for one after another: taken in the
    order they arrived, a tick due now waits behind one due 1.2 s later (late by that much).
    Taken in due order, each waits only for its own due."""
    from support.stack import LambdaContext, function_module

    from baccarat_api.adapters.sqs_scheduler import tick_body

    from .test_table_clock_job import record

    now = time.time()

    def at(seconds: float) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now + seconds)) + (
            f".{int(((now + seconds) % 1) * 1000):03d}Z"
        )

    later = Tick(operator_id="operator-a", table_id="tbl_later", step="close", key="k", due=at(1.2))
    first = Tick(operator_id="operator-a", table_id="tbl_first", step="open", key="k", due=at(0.1))
    handler = function_module("functions/table_clock/").handler
    event = {"Records": [record("m1", tick_body(later)), record("m2", tick_body(first))]}
    assert handler(event, LambdaContext("TableClockFunction")) == {"batchItemFailures": []}
    assert [t["table_id"] for t in delivered] == ["tbl_first", "tbl_later"]


# --- the live item of a running table at its largest, on DynamoDB Local -------------------


def test_a_running_tables_live_item_at_its_largest_fits_its_budget(
    dynamodb_local_stack: Stack, dynamodb_local_api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live item every change at a running table rewrites, at its largest, through the real
    handlers on DynamoDB Local (Amazon's engine enforces the 400 KB item limit): 7 seats,
    every spectator and watcher the limits allow (64-character ids), a book of slips on every
    bet type they may take, the table's ``clock`` and next ``tick``, a full queue of client
    seeds of 256 bytes each — then dealt (the squeeze, the round's spectators). Measured, and
    held under the live item's budget and well under DynamoDB's item limit."""
    from support.worst_case import ALL_TYPES, MAX_LEVEL, bettor

    from baccarat_api import limits
    from baccarat_api.adapters.dynamodb.codec import item_size
    from baccarat_api.adapters.dynamodb.keys import LIVE_SK
    from baccarat_api.clock import seconds_after
    from baccarat_api.service import ticks

    api, stack = dynamodb_local_api, dynamodb_local_stack
    created = api.post("/v1/tables", {"profile": "bid-squeeze", "tier": "bid-squeeze-high",
                                      "banking": "house", "dealing": "auto",
                                      "pause_seconds": limits.MAX_PAUSE_SECONDS,
                                      "betting_seconds": limits.MAX_BETTING_SECONDS})  # fmt: skip
    assert created.status == 201, created.body
    t = created.body["table_id"]
    assert api.post(f"/v1/tables/{t}/shoes", {"client_seed": "é" * 128}).status == 201
    for n in range(limits.MAX_QUEUED_CLIENT_SEEDS):  # 256 bytes each, none alike
        given = api.post(f"/v1/tables/{t}/client-seeds", {"client_seed": f"{n:02d}" + "ß" * 127})
        assert given.status == 201, given.body
    full = api.post(f"/v1/tables/{t}/client-seeds", {"client_seed": "one too many"})
    assert full.status == 409 and full.error["code"] == "client_seed_queue_full"
    money = limits.MAX_MONEY
    for seat in range(1, 8):
        sit = {"bettor_id": bettor(seat, "s"), "balance": money, "level": MAX_LEVEL}
        assert api.call("PUT", f"/v1/tables/{t}/seats/{seat}", sit).status == 200
    from integration.test_byte_budgets import _tier

    areas = _tier("bid-squeeze-high")["limits"]
    personal = {k: {"min": v["min"], "max": v["max"]} for k, v in areas.items()}
    for n in range(limits.MAX_SPECTATORS):
        body = {"balance": money, "personal_limits": personal}
        r = api.call("PUT", f"/v1/tables/{t}/spectators/{bettor(n, 'sp')}", body)
        assert r.status == 200, r.body
    for n in range(limits.MAX_WATCHERS):
        assert api.call("PUT", f"/v1/tables/{t}/watchers/{bettor(n, 'w')}").status == 200

    rt = runtime.get_runtime()
    live = rt.repo.load("operator-a", live=t).live
    tick = ticks.tick_of(live)
    assert tick is not None and tick["step"] == "open"
    assert table_clock.run_tick(rt.repo, rt.shoes, rt.vault, tick) == "done"
    tier = {k: v["max"] for k, v in areas.items()}
    bettors = [bettor(s, "s") for s in range(1, 8)]
    bettors += [bettor(n, "sp") for n in range(limits.MAX_SPECTATORS)]
    bets_total = 0
    for who in bettors:  # every bet type the table takes from each, at its area's maximum
        kept: list[dict[str, Any]] = []
        for kind in ALL_TYPES:
            if kind not in tier or bets_total + len(kept) >= limits.MAX_BETS_PER_ROUND:
                continue
            trial = [*kept, {"type": kind, "amount": tier[kind]}]
            if api.call("PUT", f"/v1/tables/{t}/bets/{who}", {"bets": trial}).status == 200:
                kept = trial
        bets_total += len(kept)
    assert bets_total >= 150, bets_total

    def live_item() -> int:
        (item,) = [
            i for i in stack.dynamodb.scan(TableName=os.environ["STATE_TABLE"],
                                           ConsistentRead=True)["Items"]
            if i["sk"]["S"] == LIVE_SK and t in i["pk"]["S"]
        ]  # fmt: skip
        return item_size(item)

    window = live_item()
    live = rt.repo.load("operator-a", live=t).live
    assert live is not None and live.clock is not None and live.tick is not None
    assert live.client_seeds is not None and len(live.client_seeds) == 3
    close = ticks.tick_of(live)
    assert close is not None and close["step"] == "close"
    monkeypatch.setattr(rt.repo, "clock", lambda: seconds_after(close["due"], 0.001))
    assert table_clock.run_tick(rt.repo, rt.shoes, rt.vault, close) == "done"
    dealt = live_item()
    after = rt.repo.load("operator-a", live=t).live
    assert after is not None and after.squeeze is not None and after.tick is not None
    print(f"\nrunning table's live item: {bets_total} bets in the window {window} B, "
          f"dealt {dealt} B; budget {limits.LIVE_ITEM_BUDGET_BYTES} B")  # fmt: skip
    for size in (window, dealt):
        assert size <= limits.LIVE_ITEM_BUDGET_BYTES < limits.DYNAMODB_ITEM_BYTES


# --- a frontend that knows docs/api.md alone -----------------------------------------------


def test_a_running_tables_life_over_http_is_what_docs_api_md_says(
    stack: Stack, api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every state, event, field and timing of a running table a frontend reads, as documented:
    the state's ``clock`` (its six fields; ``next`` still names the round in flight's steps
    while paused, null once nothing is in flight), ``phase`` and ``deadline`` at each step, the
    pause/resume answer (the clock), the client-seed answer, and each event's ``data`` keys
    and ``at``."""
    from support.clock import service_clock
    from support.stack import new_table

    from baccarat_api.service import ticks

    clock = service_clock(monkeypatch)
    clock.set("2026-06-01T10:00:00.000Z")
    rt = runtime.get_runtime()

    def step(expected: str) -> Tick:
        tick = ticks.tick_of(rt.repo.load("operator-a", live=t).live)
        assert tick is not None and tick["step"] == expected, tick
        if tick["due"] > clock():
            clock.set(tick["due"])
        assert table_clock.run_tick(rt.repo, rt.shoes, rt.vault, tick) == "done"
        return tick

    def state() -> dict[str, Any]:
        r = api.get(f"/v1/tables/{t}/state")
        assert r.status == 200, r.body
        return dict(r.body)

    t = new_table(api, dealing="auto", pause_seconds=4, betting_seconds=10)
    seat = {"bettor_id": "alice", "balance": 50_000, "level": 3}
    assert api.call("PUT", f"/v1/tables/{t}/seats/1", seat).status == 200
    committed = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "s1"})
    assert committed.status == 201
    s = state()
    keys = {"dealing", "pause_seconds", "paused", "waiting", "next", "client_seeds_queued"}
    assert set(s["clock"]) == keys
    assert s["clock"]["next"] == {"step": "open", "due": clock()}  # at its commit
    step("open")
    s = state()
    closes_at = s["book"]["betting"]["closes_at"]
    assert (s["phase"], s["deadline"]) == ("betting", closes_at)
    assert s["clock"]["next"] == {"step": "close", "due": closes_at}
    # paused mid-window: the round in flight goes on, and the clock still says its next step
    paused = api.post(f"/v1/tables/{t}/pause")
    assert paused.status == 200 and set(paused.body) == keys
    assert paused.body["paused"] is True
    assert paused.body["next"] == {"step": "close", "due": closes_at}
    slip = {"bets": [{"type": "banker", "amount": 2000}]}
    assert api.call("PUT", f"/v1/tables/{t}/bets/alice", slip).status == 200
    step("close")  # squeeze_seconds 0: every card shown at the deal
    step("settle")
    s = state()
    assert s["phase"] == "settled" and s["clock"]["paused"] is True
    assert s["clock"]["next"] is None  # nothing in flight, paused: no new window
    given = api.post(f"/v1/tables/{t}/client-seeds", {"client_seed": "for shoe 2"})
    assert given.status == 201
    assert set(given.body) == {"table_id", "client_hash", "for_shoe_number", "given_at",
                               "queued", "seq"}  # fmt: skip
    assert (given.body["for_shoe_number"], given.body["queued"]) == (2, 1)
    assert state()["clock"]["client_seeds_queued"] == 1
    clock.advance(60)
    resumed = api.post(f"/v1/tables/{t}/resume")
    assert resumed.status == 200 and resumed.body["paused"] is False
    nxt = resumed.body["next"]
    assert nxt["step"] == "open" and nxt["due"] < clock()  # due during the pause: at once
    step("open")
    events = api.get(f"/v1/tables/{t}/events").body["events"]
    documented = {
        "betting_opened": {"shoe_id", "round_number", "closes_at"},
        "bet_placed": {"round_number", "bettor_id", "bets", "total", "lines"},
        "betting_closed": {"shoe_id", "round_number"},
        "round_dealt": {"round_id", "shoe_id", "round_number", "bettors", "bets", "round", "shoe"},
        "round_settled": {"round_id", "nets", "house_take", "lines", "auto_settled"},
        "table_paused": set(),
        "table_resumed": set(),
        "client_seed_given": {"client_hash", "for_shoe_number"},
    }
    seen = [e["type"] for e in events]
    assert seen[-9:] == ["betting_opened", "table_paused", "bet_placed", "betting_closed",
                         "round_dealt", "round_settled", "client_seed_given", "table_resumed",
                         "betting_opened"], seen  # fmt: skip
    for e in events:
        if e["type"] in documented:
            assert set(e["data"]) == documented[e["type"]], e
    by_type = {e["type"]: e for e in events}
    assert by_type["betting_closed"]["at"] == by_type["round_dealt"]["at"] == closes_at
    assert by_type["round_settled"]["at"] == closes_at  # the moment its last card is shown
