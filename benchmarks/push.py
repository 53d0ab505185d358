"""The push channel on ``make run`` (its AppSync Events stand-in, docs/api.md "Push"): a table
action (``PUT …/watchers/{b}``, then its ``DELETE``: one event each) → the ``events`` message
received by every subscriber of the table's channel, with 1, 100 and 1,000 subscribers.

One process of asyncio ``websockets`` clients subscribed to one table; the actions sent one at a
time from a thread (the next once every subscriber has the last, or after a timeout), so each
figure is one action's way: the request, its transaction, DynamoDB Local's stream read by the
push poller (every 50 ms), the hub's broadcast, the client. Latency = receive time − the
request's send time. Lost = subscribers × actions − events received (each ``seq`` counted
once; a repeat is counted apart). Figures only: nothing is asserted (the live tests do)."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import secrets
import subprocess
import sys
import time
from typing import Any

from ._lambda import percentile
from .http import free_port, wait_ready
from .http import start_server as http_server

SUBSCRIBERS = (1, 100, 1000)
ACTIONS = 20
WAIT_SECONDS = 5.0  # the longest an action's message may take before it counts as lost
CONNECT_AT_ONCE = 50


def start_server(port: int, key: str) -> subprocess.Popen[str]:
    return http_server(
        port,
        key,
        RATE_LIMIT_PER_SECOND="0",
        BACCARAT_SWEEP_SECONDS="0",
        BACCARAT_PUSH_KA_SECONDS="30",
    )


def call(port: int, key: str, method: str, path: str, body: Any = None) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    answer = conn.getresponse()
    doc: dict[str, Any] = json.loads(answer.read() or b"{}")
    if answer.status >= 300:
        raise RuntimeError(f"{method} {path}: HTTP {answer.status} {doc}")
    return doc


class Subscriber:
    """One socket subscribed to the table's channel: when each seq first arrived (and with
    ``keep``, every message: wall-clock arrival, its JSON, its bytes)."""

    def __init__(self, keep: bool = False) -> None:
        self.first: dict[int, float] = {}
        self.repeats = 0
        self.sizes: list[int] = []  # bytes of each message (the AppSync event: its JSON text)
        self.keep = keep
        self.kept: list[tuple[float, dict[str, Any], int]] = []

    async def run(self, url: str, key: str, channel: str, ready: asyncio.Event) -> None:
        from websockets.asyncio.client import connect
        from websockets.typing import Subprotocol

        auth = json.dumps({"host": "127.0.0.1", "Authorization": f"Bearer {key}"}).encode()
        header = "header-" + base64.urlsafe_b64encode(auth).decode().rstrip("=")
        protocols = [Subprotocol("aws-appsync-event-ws"), Subprotocol(header)]
        async with connect(url, subprotocols=protocols, max_queue=None) as ws:
            await ws.send(json.dumps({"type": "connection_init"}))
            assert json.loads(await ws.recv())["type"] == "connection_ack"
            await ws.send(json.dumps({"type": "subscribe", "id": "s", "channel": channel}))
            while (msg := json.loads(await ws.recv()))["type"] == "ka":
                pass
            assert msg["type"] == "subscribe_success", msg
            ready.set()
            async for raw in ws:
                at = time.perf_counter()
                msg = json.loads(raw)
                if msg.get("type") != "data":
                    continue
                self.sizes.append(len(msg["event"].encode()))
                payload = json.loads(msg["event"])
                if self.keep:
                    self.kept.append((time.time(), payload, self.sizes[-1]))
                for event in payload.get("events", []):
                    if event["seq"] in self.first:
                        self.repeats += 1
                    else:
                        self.first[event["seq"]] = at


async def measure(port: int, key: str, count: int) -> dict[str, Any]:
    table = call(port, key, "POST", "/v1/tables",
                 {"profile": "star-city", "tier": "star-city-fun", "banking": "house"})  # fmt: skip
    table_id = table["table_id"]
    state = call(port, key, "GET", f"/v1/tables/{table_id}/state")
    subs = [Subscriber() for _ in range(count)]
    readies = [asyncio.Event() for _ in subs]
    tasks = []
    for start in range(0, count, CONNECT_AT_ONCE):  # connect in waves, as browsers trickle in
        for sub, ready in zip(subs[start : start + CONNECT_AT_ONCE], readies[start:], strict=False):
            tasks.append(
                asyncio.create_task(sub.run(state["push_url"], key, state["push_channel"], ready))
            )
        await asyncio.wait_for(
            asyncio.gather(*(r.wait() for r in readies[start : start + CONNECT_AT_ONCE])), 60
        )
    sent: dict[int, float] = {}
    for n in range(ACTIONS):
        seq = n + 1
        method = "PUT" if n % 2 == 0 else "DELETE"
        sent[seq] = time.perf_counter()
        await asyncio.to_thread(call, port, key, method, f"/v1/tables/{table_id}/watchers/bench-w")
        deadline = time.perf_counter() + WAIT_SECONDS
        while time.perf_counter() < deadline and any(seq not in s.first for s in subs):
            await asyncio.sleep(0.002)
    await asyncio.sleep(0.3)  # late repeats
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    latencies = [(s.first[q] - at) * 1000 for s in subs for q, at in sent.items() if q in s.first]
    return {
        "subscribers": count,
        "latencies": latencies,
        "lost": count * ACTIONS - len(latencies),
        "repeats": sum(s.repeats for s in subs),
        "sizes": subs[0].sizes,
    }


def run(counts: tuple[int, ...] = SUBSCRIBERS, clock: bool = True) -> list[str]:
    """The push_latency lines, then (``clock``) :mod:`.push_clock`'s on the same server."""
    from . import push_clock

    port = free_port()
    key = "bk_bench_" + secrets.token_urlsafe(24)
    proc = start_server(port, key)
    lines = [
        f"## Push: make run's channel (AppSync Events stand-in), action → message, {ACTIONS} "
        "actions one at a time, subscribers in one asyncio process, loopback"
    ]
    try:
        wait_ready(port, key, proc)
        for count in counts:
            got = asyncio.run(measure(port, key, count))
            lat = got["latencies"] or [float("nan")]
            lines.append(
                f"push_latency subscribers={count}: p50 {percentile(lat, 50):.1f} ms, "
                f"p99 {percentile(lat, 99):.1f} ms, max {max(lat):.1f} ms; "
                f"lost {got['lost']} of {count * ACTIONS}, repeated {got['repeats']}; "
                f"message bytes p50 {percentile(got['sizes'] or [0], 50):.0f}, "
                f"max {max(got['sizes'] or [0])}"
            )
        if clock:
            lines += push_clock.lines(port, key)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    return lines


if __name__ == "__main__":
    print("\n".join(run(tuple(int(a) for a in sys.argv[1:]) or SUBSCRIBERS)))
