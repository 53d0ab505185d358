"""Running tables (``"dealing": "auto"``) on ``make run``'s code, beside today's explicit flow
in the same run: lateness of every time-driven step, rounds per hour at the default timings, and
per round the requests, Lambda invocations, timer messages, DynamoDB write units and cost.

What runs is ``make run`` without uvicorn: the local engines (DynamoDB Local, moto's KMS) of
:func:`baccarat_dev.local.start_local_aws`, the table clock's thread (the table-clock job's
code), the feed indexer on the state table's stream, and the app answering in this process
(Starlette's test client: the same routes and use cases). Ten running tables (short timings,
two bettors confirming slips, alice squeezing, bob never) play a fixed number of rounds each,
driven by nobody but their bettors (``examples/auto_table.py``); then explicit tables play the
same rounds the operator's way (open betting, slips, deal from the book, alice's reveals,
settle once every card is shown).

Measured: each event's ``at`` minus its deadline; every DynamoDB call's consumed capacity as
DynamoDB Local reports it (``ReturnConsumedCapacity=TOTAL``, indexes included), attributed to
the API, the table clock or the feed indexer by the thread that made it; timer messages
(``schedule`` calls), timer deliveries, stream batches; each request's and tick's duration
(DynamoDB Local in this process: slower than DynamoDB in AWS, so an upper bound of Lambda time).
Assumed: the prices of :mod:`benchmarks.cost`, SQS at 0.40 USD per million requests and three
requests per timer message (send, receive, delete: batches of one on a quiet queue), one feed
indexer invocation per stream batch seen here (0.2 s polls)."""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cost import FEED_MS, PRICES, ROUNDS_PER_SHOE, memory_gb

TABLES = 10
ROUNDS = 6  # per running table
EXPLICIT_TABLES = 2
EXPLICIT_ROUNDS = 5  # per explicit table
TIMINGS = {"betting_seconds": 2, "squeeze_seconds": 1, "pause_seconds": 1}
SQS_REQUEST = 0.40 / 1e6  # USD, standard queue — ASSUMPTION (list price)
SQS_REQUESTS_PER_MESSAGE = 3
#: P(a round has third cards) — the draws step's countdown runs that often.
P_DRAWS = 0.621
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


class Failure(RuntimeError):
    def __init__(self, status: int, error: dict[str, Any]) -> None:
        self.status, self.error = status, error
        super().__init__(f"HTTP {status} {error.get('code')}: {error.get('message')}")


class Meter:
    """DynamoDB consumed capacity by phase and by who (api / clock / feed), from botocore's
    event hooks on the runtime's client; requests, ticks and their durations."""

    def __init__(self, clock_thread: Callable[[], threading.Thread | None]) -> None:
        self.phase = "setup"
        self.clock_thread = clock_thread
        self.units: dict[tuple[str, str, str], float] = {}
        self.counts: dict[tuple[str, str], int] = {}
        self.durations: dict[tuple[str, str], list[float]] = {}
        self.lock = threading.Lock()
        self.reading = False  # the API thread answers a GET: its units are not counted
        self.local = threading.local()  # .feed: this thread runs the feed indexer now

    def who(self) -> str:
        if getattr(self.local, "feed", False):
            return "feed"
        return "clock" if threading.current_thread() is self.clock_thread() else "api"

    def add(self, what: str, n: int = 1) -> None:
        with self.lock:
            key = (self.phase, what)
            self.counts[key] = self.counts.get(key, 0) + n

    def took(self, what: str, seconds: float) -> None:
        with self.lock:
            self.durations.setdefault((self.phase, what), []).append(seconds)

    def register(self, client: Any) -> None:
        def params(params: dict[str, Any], model: Any, **_: Any) -> None:
            if model.name not in ("DescribeTable", "ListTables", "DescribeTimeToLive"):
                params["ReturnConsumedCapacity"] = "INDEXES"

        def parsed(parsed: dict[str, Any], model: Any, **_: Any) -> None:
            consumed = parsed.get("ConsumedCapacity")
            if not consumed:
                return
            kind = "write" if model.name in WRITES else "read"
            table = index = 0.0
            for c in consumed if isinstance(consumed, list) else [consumed]:
                table += float((c.get("Table") or {}).get("CapacityUnits", 0))
                for gsi in (c.get("GlobalSecondaryIndexes") or {}).values():
                    index += float(gsi.get("CapacityUnits", 0))
            who = self.who()
            if who == "api" and self.reading:
                return
            with self.lock:
                for part, units in ((kind, table), (f"{kind}_index", index)):
                    key = (self.phase, who, part)
                    self.units[key] = self.units.get(key, 0.0) + units

        client.meta.events.register("before-parameter-build.dynamodb", params)
        client.meta.events.register("after-call.dynamodb", parsed)

    def of(self, phase: str, who: str, kind: str) -> float:
        return self.units.get((phase, who, kind), 0.0)


WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


class InProcess:
    """The app over Starlette's test client, with ``play_shoe.Client``'s surface (JSON in and
    out, errors raised with their envelope); write requests counted and timed."""

    def __init__(self, app: Any, key: str, meter: Meter) -> None:
        from fastapi.testclient import TestClient

        self.http = TestClient(app, headers={"authorization": f"Bearer {key}"})
        self.meter = meter

    def request(self, method: str, path: str, body: Any = None) -> Any:
        t0 = time.perf_counter()
        self.meter.reading = method == "GET"
        try:
            r = self.http.request(method, path, json=body)
        finally:
            self.meter.reading = False
        if method != "GET":
            self.meter.took("request", time.perf_counter() - t0)
        if r.status_code >= 400:
            raise Failure(r.status_code, r.json().get("error", {}))
        return r.json()

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, body)


def _auto_tables(api: Any, auto: Any, log: Callable[[str], None]) -> list[Any]:
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    seat = {"balance": auto.AUTO_BALANCE}
    tables = [
        auto.Running(
            api,
            f"auto-{i}",
            {**body, "dealing": "auto", **TIMINGS},
            [
                ("/seats/1", {"bettor_id": "alice", **seat}),
                ("/seats/2", {"bettor_id": "bob", **seat}),
            ],
            ROUNDS,
            log,
        )
        for i in range(TABLES)
    ]
    for i, t in enumerate(tables):
        t.close_then_next = True  # the shoe closed after its rounds: shoe 2 committed by it
        t.create([f"bench:{i}:1", f"bench:{i}:2"])
    for t in tables:
        t.seat()
    return tables


def _play_auto(api: Any, tables: list[Any], meter: Meter) -> None:
    meter.phase = api.phase = "auto"
    while not all(t.stopping for t in tables):
        for t in tables:
            if not t.stopping:
                t.step()
        time.sleep(0.1)
    time.sleep(1.0)  # the feed indexer catches up with the last writes
    meter.phase = api.phase = "end"
    for t in tables:
        t.finish()
    end = time.monotonic() + 15  # the windows in flight when paused: dealt, settled, quiet
    while time.monotonic() < end and any(
        (api.get(f"{t.path}/state").get("clock") or {}).get("next") for t in tables
    ):
        time.sleep(0.5)
    time.sleep(1.0)


def _explicit_round(api: Any, meter: Meter, table_id: str, shoe_id: str) -> None:
    """One round the operator's way: open betting, two slips, the deal from the book, alice's
    reveals, the settlement once every card is shown (the state says so)."""
    meter.add("operator")
    window = api.post(f"/v1/tables/{table_id}/betting")
    number = window["betting"]["round_number"]
    sys.path.insert(0, str(EXAMPLES))
    from auto_table import slips_for

    for bettor, bets in slips_for(number).items():  # as at the running tables
        meter.add("bettor")
        body = {"bets": [{"type": k, "amount": a} for k, a in bets], "round_number": number}
        api.request("PUT", f"/v1/tables/{table_id}/bets/{bettor}", body)
    meter.add("operator")
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"from_book": True})
    tried: set[str] = set()
    while True:
        state = api.get(f"/v1/tables/{table_id}/state")
        if state["phase"] != "squeeze":
            break
        for step, s in (state["round"]["squeeze"].get("steps") or {}).items():
            mine = any(h.get("squeezer") == "alice" for h in s["hands"].values())
            if s["status"] == "squeezing" and mine and step not in tried:
                tried.add(step)
                meter.add("bettor")
                with contextlib.suppress(Failure):  # out of order / past due: the system's
                    body = {"bettor_id": "alice", "step": step}
                    api.post(f"/v1/rounds/{dealt['round_id']}/reveal", body)
        time.sleep(0.1)
    meter.add("operator")
    api.post(f"/v1/rounds/{dealt['round_id']}/settlement")


def _play_explicit(api: Any, meter: Meter) -> int:
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house", **TIMINGS}
    del body["pause_seconds"]
    tables = []
    for i in range(EXPLICIT_TABLES):
        tid = api.post("/v1/tables", body)["table_id"]
        shoe = api.post(f"/v1/tables/{tid}/shoes", {"client_seed": f"bench:x{i}"})
        for seat, bettor in ((1, "alice"), (2, "bob")):
            api.request("PUT", f"/v1/tables/{tid}/seats/{seat}",
                        {"bettor_id": bettor, "balance": 5_000_000})  # fmt: skip
        tables.append((tid, shoe["shoe_id"]))
    meter.phase = "explicit"
    for _ in range(EXPLICIT_ROUNDS):
        for tid, shoe_id in tables:
            _explicit_round(api, meter, tid, shoe_id)
    time.sleep(1.0)  # the feed indexer catches up
    meter.phase = "done"
    return EXPLICIT_TABLES * EXPLICIT_ROUNDS


def _counting(meter: Meter) -> Any:
    """The table clock's thread, its messages and deliveries counted and timed."""
    from baccarat_api.jobs import table_clock as job
    from baccarat_api.runtime import get_runtime
    from baccarat_api.service import table_clock

    run_tick = table_clock.run_tick

    def counted_run_tick(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        out = run_tick(*args, **kwargs)
        meter.took("tick", time.perf_counter() - t0)
        meter.add(f"tick_{out}")
        return out

    table_clock.run_tick = counted_run_tick  # type: ignore[assignment]
    scheduler = job.start_background(get_runtime())
    schedule = scheduler.schedule

    def counted_schedule(tick: Any) -> None:
        meter.add("message")
        schedule(tick)

    scheduler.schedule = counted_schedule  # type: ignore[method-assign]
    return scheduler


def run() -> list[str]:
    import os

    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    from baccarat_api.http.app import create_app
    from baccarat_api.http.routers import all_routers
    from baccarat_api.jobs.feed_indexer import on_records
    from baccarat_api.runtime import get_runtime
    from baccarat_dev.local import start_local_aws
    from baccarat_dev.streams import state_stream_poller

    sys.path.insert(0, str(EXAMPLES))
    import auto_table as auto

    started = time.perf_counter()
    aws, key = start_local_aws()
    scheduler: Any = None
    meter = Meter(lambda: getattr(scheduler, "_thread", None))
    stop_feed: Any = None
    try:
        rt = get_runtime()
        meter.register(rt.dynamodb)
        scheduler = _counting(meter)

        def feed(records: Any) -> None:
            if records:
                meter.add("feed_batch")
            meter.local.feed = True
            try:
                on_records(rt.repo, records)
            finally:
                meter.local.feed = False

        stop_feed = state_stream_poller(feed, 0.2).start()
        api_client = InProcess(create_app(*all_routers()), key, meter)
        api = auto.Counted(api_client)
        tables = _auto_tables(api, auto, lambda line: None)
        _play_auto(api, tables, meter)
        auto_rounds = sum(t.rounds_dealt for t in tables)
        events = [e for t in tables for e in t.events]
        late: dict[str, list[float]] = {s: [] for s in auto.STEPS}
        for t in tables:
            for s, v in auto.lateness(t.events, TIMINGS["pause_seconds"]).items():
                late[s] += v
        explicit_rounds = _play_explicit(api_client, meter)
    finally:
        if scheduler is not None:
            scheduler.stop()
        if stop_feed is not None:
            stop_feed.set()
        aws.stop()
    return _report(
        meter, api.counts, late, auto_rounds, explicit_rounds, len(events),
        time.perf_counter() - started, auto,
    )  # fmt: skip


def _ms(values: list[float], p: float, auto: Any) -> float:
    return 1000 * auto.percentile(values, p)


def _report(
    meter: Meter,
    counts: dict[str, dict[str, int]],
    late: dict[str, list[float]],
    auto_rounds: int,
    explicit_rounds: int,
    events: int,
    seconds: float,
    auto: Any,
) -> list[str]:
    lines = [
        f"## Running tables on make run's code: {TABLES} tables x {ROUNDS} rounds "
        f"(betting {TIMINGS['betting_seconds']} s, squeeze {TIMINGS['squeeze_seconds']} s, "
        f"pause {TIMINGS['pause_seconds']} s; alice squeezes, bob never), {events} events, "
        f"{seconds:.0f} s",
        "# lateness = event at - its deadline (target p99 <= 1000 ms)",
    ]
    for step in auto.STEPS:
        v = late[step]
        lines.append(
            f"{step:<8} n={len(v):<4} p50 {_ms(v, 50, auto):6.0f} ms  p99 "
            f"{_ms(v, 99, auto):6.0f} ms  max {1000 * max(v, default=0):6.0f} ms"
        )
    from baccarat_api.limits import (
        DEFAULT_BETTING_SECONDS,
        DEFAULT_PAUSE_SECONDS,
        DEFAULT_SQUEEZE_SECONDS,
    )

    p50 = {s: auto.percentile(late[s], 50) for s in auto.STEPS}
    cycle = (
        DEFAULT_BETTING_SECONDS
        + DEFAULT_SQUEEZE_SECONDS * (1 + P_DRAWS)
        + DEFAULT_PAUSE_SECONDS
        + p50["close"] + p50["reveal"] * (1 + P_DRAWS) + p50["settle"] + p50["open"]
    )  # fmt: skip
    lines.append(
        f"rounds per hour per table at the default timings (betting {DEFAULT_BETTING_SECONDS} s, "
        f"squeeze {DEFAULT_SQUEEZE_SECONDS} s x (1 + {P_DRAWS} draws), pause "
        f"{DEFAULT_PAUSE_SECONDS} s, nobody squeezing, measured p50 step latencies): "
        f"{3600 / cycle:.1f}"
    )
    lines += _per_round(meter, counts, auto_rounds, explicit_rounds)
    return lines


def _per_round(
    meter: Meter, counts: dict[str, dict[str, int]], auto_rounds: int, explicit_rounds: int
) -> list[str]:
    gb = memory_gb()
    play = counts.get("auto", {})
    c = meter.counts

    def dur(phase: str, what: str) -> float:
        v = meter.durations.get((phase, what), [])
        return sum(v) / len(v) if v else 0.0

    rows: dict[str, dict[str, float]] = {}
    for name, phase, rounds, operator, bettor in (
        ("auto", "auto", auto_rounds, play.get("operator", 0), play.get("bettor", 0)),
        ("explicit", "explicit", explicit_rounds, c.get(("explicit", "operator"), 0),
         c.get(("explicit", "bettor"), 0)),
    ):  # fmt: skip
        n = max(1, rounds)
        ticks = sum(v for (p, w), v in c.items() if p == phase and w.startswith("tick_"))
        api_calls = operator + bettor
        feed = c.get((phase, "feed_batch"), 0)
        write = sum(meter.of(phase, who, "write") for who in ("api", "clock", "feed"))
        read = sum(meter.of(phase, who, "read") for who in ("api", "clock", "feed"))
        index_w = sum(meter.of(phase, who, "write_index") for who in ("api", "clock", "feed"))
        messages = c.get((phase, "message"), 0)
        lam_s = (
            api_calls * math.ceil(1000 * dur(phase, "request")) / 1000
            + ticks * math.ceil(1000 * dur(phase, "tick")) / 1000
            + feed * FEED_MS / 1000
        )
        cost = (
            (api_calls + ticks + feed) * PRICES["lambda_request"]
            + lam_s * gb * PRICES["lambda_gb_second_arm64"]
            + api_calls * PRICES["http_api_request"]
            + (write + index_w) * PRICES["dynamodb_write_request_unit"]
            + read * PRICES["dynamodb_read_request_unit"]
            + messages * SQS_REQUESTS_PER_MESSAGE * SQS_REQUEST
        )
        rows[name] = {
            "rounds": rounds,
            "operator requests": operator / n,
            "bettor requests": bettor / n,
            "Lambda: API": api_calls / n,
            "Lambda: timer": ticks / n,
            "Lambda: feed": feed / n,
            "timer messages": messages / n,
            "DynamoDB WRU (api)": meter.of(phase, "api", "write") / n,
            "DynamoDB WRU (timer)": meter.of(phase, "clock", "write") / n,
            "DynamoDB WRU (feed)": meter.of(phase, "feed", "write") / n,
            "DynamoDB WRU (table)": write / n,
            "  + index WRU": index_w / n,
            "DynamoDB RRU total": read / n,
            "USD per million rounds": cost / n * 1e6,
        }
    lines = [
        f"## Per round, running vs explicit (same run; {ROUNDS_PER_SHOE}-round shoes: the "
        "operator's commit / client seed, 1 per shoe, not included; prices of benchmarks/cost.py "
        f"+ SQS {SQS_REQUEST * 1e6:.2f} USD/M requests x {SQS_REQUESTS_PER_MESSAGE} per message "
        "(assumptions); WRU as DynamoDB Local reports them, indexes included)",
        f"{'':<26}{'auto':>10}{'explicit':>10}{'ratio':>8}",
    ]
    for key in rows["auto"]:
        a, e = rows["auto"][key], rows["explicit"][key]
        ratio = f"{a / e:8.2f}" if e else f"{'-':>8}"
        lines.append(f"{key:<26}{a:10.2f}{e:10.2f}{ratio}")

    def mean_ms(what: str) -> float:
        v = meter.durations.get(("auto", what), [])
        return 1000 * sum(v) / len(v) if v else 0.0

    lines.append(
        f"# ticks: {c.get(('auto', 'tick_done'), 0)} done, "
        f"{c.get(('auto', 'tick_stale'), 0)} stale, {c.get(('auto', 'tick_early'), 0)} early; "
        f"mean tick {mean_ms('tick'):.0f} ms, mean write request {mean_ms('request'):.0f} ms "
        "(DynamoDB Local in process: upper bounds of Lambda time)"
    )
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
