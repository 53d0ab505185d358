"""The push channel at a running table (``dealing: auto``) on ``make run``: how late the
time-driven events reach a subscriber, and what a round costs the channel.

One bid-squeeze table runs itself with short timings and two seated bettors; each window gets
one slip (alice, Banker) sent when the subscriber sees ``betting_opened``; nobody opens a
squeeze, so every reveal is the system's at its ``reveal_by``. One WebSocket subscriber keeps
every message with its wall-clock arrival. Printed:

- ``push_time_driven``: arrival − ``closes_at`` of each ``betting_closed``, arrival −
  ``revealed_at`` (the step's ``reveal_by``) of each system ``squeeze_revealed``: p50 / p99 / max
  — the scheduler's lateness plus the stream poll plus the broadcast;
- ``push_fanout``: messages per round (``events`` messages and the events in them), bytes per
  message p50 / max, deliveries per round at 1,000 watchers, and $ per table-hour at
  :data:`ROUNDS_PER_HOUR` for AppSync Events and API Gateway WebSocket (prices in
  :mod:`.cost`), recomputed from these counts (docs/architecture.md's table assumed 20 messages
  a round).

Figures only: nothing is asserted (tests/live/test_push_live.py and the table-clock tests do)."""

from __future__ import annotations

import asyncio
import math
import time
from contextlib import suppress
from datetime import datetime
from typing import Any

from ._lambda import percentile
from .cost import PRICES
from .push import Subscriber, call

ROUNDS = 6
TIMINGS = {"betting_seconds": 2, "squeeze_seconds": 2, "pause_seconds": 1}
#: Rounds per table-hour the $ figures assume (the design's: docs/design/browsers.md §2).
ROUNDS_PER_HOUR = 100
WATCHERS = 1000
#: API Gateway WebSocket bills a message per 32 KB started.
WS_BILLED_BYTES = 32 * 1024


def _epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


async def _play(port: int, key: str) -> dict[str, Any]:
    """The running table played for :data:`ROUNDS` rounds: every message kept."""
    table = call(port, key, "POST", "/v1/tables", {
        "profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
        "dealing": "auto", **TIMINGS,
    })  # fmt: skip
    path = f"/v1/tables/{table['table_id']}"
    call(port, key, "POST", f"{path}/client-seeds", {"client_seed": "bench-push-clock"})
    state = call(port, key, "GET", f"{path}/state")
    sub = Subscriber(keep=True)
    ready = asyncio.Event()
    task = asyncio.create_task(sub.run(state["push_url"], key, state["push_channel"], ready))
    await asyncio.wait_for(ready.wait(), 30)
    for n, bettor in enumerate(("alice", "bob"), start=1):
        body = {"bettor_id": bettor, "level": 3, "balance": 10_000_000}
        call(port, key, "PUT", f"{path}/seats/{n}", body)
    started, slipped = time.time(), 0
    deadline = started + ROUNDS * 15 + 30
    while time.time() < deadline:
        events = [e for _, msg, _ in sub.kept for e in msg.get("events", [])]
        opened = [e for e in events if e["type"] == "betting_opened"]
        for e in opened[slipped:]:
            slip = {"bets": [{"type": "banker", "amount": 2000}],
                    "round_number": e["data"]["round_number"]}  # fmt: skip
            with suppress(RuntimeError):  # the window closed first: the round goes on
                await asyncio.to_thread(call, port, key, "PUT", f"{path}/bets/alice", slip)
        slipped = len(opened)
        if sum(e["type"] == "round_settled" for e in events) >= ROUNDS:
            break
        await asyncio.sleep(0.05)
    call(port, key, "POST", f"{path}/pause")
    await asyncio.sleep(0.5)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return {"kept": sub.kept, "seconds": time.time() - started}


def _lateness(kept: list[tuple[float, dict[str, Any], int]]) -> dict[str, list[float]]:
    """Milliseconds from each time-driven event's deadline to its arrival."""
    out: dict[str, list[float]] = {"betting_closed": [], "squeeze_revealed": []}
    closes_at = None
    for arrived, msg, _ in kept:
        for e in msg.get("events", []):
            if e["type"] == "betting_opened":
                closes_at = _epoch(e["data"]["closes_at"])
            elif e["type"] == "betting_closed" and closes_at is not None:
                out["betting_closed"].append((arrived - closes_at) * 1000)
            elif e["type"] == "squeeze_revealed" and e["data"]["by"] == "system":
                out["squeeze_revealed"].append((arrived - _epoch(e["data"]["revealed_at"])) * 1000)
    return out


def _fanout(kept: list[tuple[float, dict[str, Any], int]]) -> list[str]:
    events = [e for _, msg, _ in kept for e in msg.get("events", [])]
    rounds = max(1, sum(e["type"] == "round_settled" for e in events))
    messages = len(kept) / rounds
    sizes = [float(size) for _, _, size in kept] or [0.0]
    deliveries = messages * WATCHERS
    hour = deliveries * ROUNDS_PER_HOUR
    minutes = WATCHERS * 60
    appsync = (hour + messages * ROUNDS_PER_HOUR) * PRICES["appsync_events_operation"]
    appsync += minutes * PRICES["appsync_connection_minute"]
    billed = sum(math.ceil(max(1, s) / WS_BILLED_BYTES) for s in sizes) / len(sizes)
    websocket = hour * billed * PRICES["apigw_websocket_message"]
    websocket += minutes * PRICES["apigw_websocket_connection_minute"]
    kinds: dict[str, int] = {}
    for e in events:
        kinds[e["type"]] = kinds.get(e["type"], 0) + 1
    by_kind = ", ".join(f"{k} {v / rounds:.1f}" for k, v in sorted(kinds.items()))
    return [
        f"push_fanout: {messages:.1f} messages per round ({len(events) / rounds:.1f} events: "
        f"{by_kind}; 2 seated bettors, 1 slip a round, no chat), bytes per message p50 "
        f"{percentile(sizes, 50):.0f}, max {max(sizes):.0f}",
        f"push_fanout at {WATCHERS:,} watchers, {ROUNDS_PER_HOUR} rounds/h: "
        f"{deliveries:,.0f} deliveries per round; per table-hour AppSync Events "
        f"${appsync:.3f}, API Gateway WebSocket ${websocket:.3f} (connection minutes included; "
        f"prices: benchmarks/cost.py)",
    ]


def lines(port: int, key: str) -> list[str]:
    """The push_time_driven and push_fanout lines, from one running table on the server."""
    got = asyncio.run(_play(port, key))
    late = _lateness(got["kept"])
    out = []
    for kind, values in late.items():
        v = values or [float("nan")]
        out.append(
            f"push_time_driven {kind}: arrival − deadline p50 {percentile(v, 50):.0f} ms, "
            f"p99 {percentile(v, 99):.0f} ms, max {max(v):.0f} ms (n={len(values)})"
        )
    return out + _fanout(got["kept"])
