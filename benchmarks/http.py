"""Warm latency over HTTP against ``make run`` itself (``python -m baccarat_dev.local``: the
whole API under uvicorn, DynamoDB Local behind it — or moto's server without Java, or with
``BACKEND=moto``), started on a free loopback port.

A bounded load generator: ``CLIENTS`` threads, each with one keep-alive connection, for
``SECONDS`` seconds, then every client stops by itself. Clients work in pairs on one table, so
two clients race to deal the same shoe (the loser's 409 ``concurrent_update`` is the API's
answer to the race, retryable: counted, not an error). Each client settles the rounds it dealt
(and settles one again: the same settlement must come back), reads rounds and shoes, and commits
a new shoe when one ends. Errors = any 5xx or any other answer than those expected: must be 0.

Afterwards, the consistency check: every shoe is closed and its public proof is verified by
``baccarat.verify`` (the shoe re-derived from the revealed seed: every dealt round's cards and
positions); round numbers are 1…n with none missing or twice, each round starts where the
previous ended (no card dealt twice or skipped); every round a client was told it dealt is in the
proof with the same cards; every settled round reads back with its settlement."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ._lambda import percentile

CLIENTS = 6
SECONDS = 8.0
#: A settlement answered 409 concurrent_update (its table changed under it 4 times: the pair's
#: other client deals and settles the same table) is sent again, as a client should.
SETTLE_ATTEMPTS = 5
STARTUP_TIMEOUT = 90.0


@dataclass
class Tally:
    samples: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    conflicts: int = 0
    dealt: list[dict[str, Any]] = field(default_factory=list)  # every 201 deal answer
    settled: dict[str, dict[str, Any]] = field(default_factory=dict)
    shoes: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    rotate: threading.Lock = field(default_factory=threading.Lock)  # one new shoe at a time


class Client:
    def __init__(self, port: int, key: str, tally: Tally) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.key = key
        self.tally = tally

    def request(
        self, label: str, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200, 201)
    ) -> tuple[int, Any]:
        headers = {"authorization": f"Bearer {self.key}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        t0 = time.perf_counter()
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        raw = resp.read()
        dt = time.perf_counter() - t0
        parsed = json.loads(raw) if raw else None
        with self.tally.lock:
            self.tally.samples.setdefault(label, []).append(dt)
            self.tally.statuses[str(resp.status)] = self.tally.statuses.get(str(resp.status), 0) + 1
            code = parsed.get("error", {}).get("code") if isinstance(parsed, dict) else None
            if resp.status == 409 and code == "concurrent_update":
                self.tally.conflicts += 1
            elif resp.status not in ok:
                self.tally.errors.append(f"{method} {path}: {resp.status} {raw[:200]!r}")
        return resp.status, parsed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, key: str, **settings: str) -> subprocess.Popen[str]:
    """``make run``'s server (``baccarat_dev.local``) on ``port`` with ``key`` seeded, quiet, with
    ``settings`` (environment variables) on top."""
    env = {
        **os.environ,
        "BACCARAT_DEMO_KEY": key,
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "POWERTOOLS_METRICS_DISABLED": "true",
        **settings,
    }
    env.pop("BACCARAT_STACK", None)
    env.pop("AWS_ENDPOINT_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "baccarat_dev.local", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_ready(port: int, key: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"make run exited: {proc.stderr.read()[-2000:] if proc.stderr else ''}"
            )
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/v1/tiers", headers={"authorization": f"Bearer {key}"})
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("make run did not answer in time")


def worker(client: Client, table_id: str, shoe: list[str], stop: float, me: int) -> None:
    """Deal, settle (and settle again), read; commit the next shoe when one ends."""
    from tests.support.stack import star_city_bets

    bets = star_city_bets()
    n = 0
    while time.perf_counter() < stop:
        shoe_id = shoe[0]
        status, body = client.request(
            "POST /v1/shoes/{shoe_id}/rounds",
            "POST",
            f"/v1/shoes/{shoe_id}/rounds",
            {"bets": bets},
            ok=(201, 409),
        )
        if status == 409 and body["error"]["code"] == "shoe_ended":
            with client.tally.rotate:
                if shoe[0] == shoe_id:  # the first to notice commits the next shoe
                    s, new = client.request(
                        "POST /v1/tables/{table_id}/shoes",
                        "POST",
                        f"/v1/tables/{table_id}/shoes",
                        {"client_seed": f"load-{me}-{n}"},
                        ok=(201, 409),
                    )
                    if s == 201:
                        shoe[0] = new["shoe_id"]
                        with client.tally.lock:
                            client.tally.shoes.add(new["shoe_id"])
            continue
        if status != 201:
            continue
        n += 1
        rid = body["round_id"]
        with client.tally.lock:
            client.tally.dealt.append(body)
        path = f"/v1/rounds/{rid}/settlement"
        for _ in range(SETTLE_ATTEMPTS):  # a lost race (409 concurrent_update) is retryable
            s, settled = client.request("POST /v1/rounds/{round_id}/settlement", "POST", path)
            if s != 409 or settled["error"]["code"] != "concurrent_update":
                break
        if s == 200:
            with client.tally.lock:
                client.tally.settled[rid] = settled
        if n % 3 == 0:
            s, again = client.request("POST /v1/rounds/{round_id}/settlement (again)", "POST", path)
            if s == 200 and again != settled:
                with client.tally.lock:
                    client.tally.errors.append(f"{rid}: settling again gave another settlement")
            client.request("GET /v1/rounds/{round_id}", "GET", f"/v1/rounds/{rid}")
            client.request("GET /v1/shoes/{shoe_id}", "GET", f"/v1/shoes/{shoe_id}")


def _distinct_deals(
    dealt: list[dict[str, Any]], problems: list[str]
) -> tuple[list[dict[str, Any]], int]:
    """Every round answered, once. Two clients of a pair send byte-identical deals; when both
    reach one shoe version, the API cannot tell the second from a retry of the first (same
    bets, same shoe state: the same write) and answers both with the one round it dealt:
    counted (returned second), not a second deal. A round answered twice with different content
    is a problem."""
    answered: dict[str, dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    replays = 0
    for body in dealt:
        first = answered.setdefault(body["round_id"], body)
        if first is not body:
            if first == body:
                replays += 1
                continue
            problems.append(f"{body['round_id']}: answered twice with different rounds")
        out.append(body)
    return out, replays


def consistency(port: int, key: str, tally: Tally) -> list[str]:
    from baccarat.verify import verify_proof

    c = Client(port, key, Tally())
    problems: list[str] = []
    by_shoe: dict[str, list[dict[str, Any]]] = {}
    distinct, replays = _distinct_deals(tally.dealt, problems)
    for body in distinct:
        by_shoe.setdefault(body["round_id"].rsplit("_r", 1)[0], []).append(body)
    if set(by_shoe) - tally.shoes:
        problems.append(f"deals on unknown shoes: {sorted(set(by_shoe) - tally.shoes)}")
    checked = 0
    for shoe_id in sorted(tally.shoes):
        status, state = c.request("check", "GET", f"/v1/shoes/{shoe_id}")
        if status == 200 and state["status"] != "ended":
            c.request("check", "POST", f"/v1/shoes/{shoe_id}/close")
        status, proof = c.request("check", "GET", f"/v1/shoes/{shoe_id}/proof")
        if status != 200:
            problems.append(f"{shoe_id}: no proof ({status})")
            continue
        verdict = verify_proof(proof)  # the shoe re-derived from the revealed seed
        if not verdict.ok:
            problems.append(f"{shoe_id}: {verdict.line()}")
        mine = sorted(by_shoe.get(shoe_id, []), key=lambda b: b["round_number"])
        numbers = [b["round_number"] for b in mine]
        if numbers != list(range(1, len(proof["rounds"]) + 1)):
            problems.append(f"{shoe_id}: rounds answered {numbers}, {len(proof['rounds'])} dealt")
        cursor = proof["first_round_start"]
        for b, r in zip(mine, proof["rounds"], strict=False):
            if (b["player"]["cards"], b["banker"]["cards"]) != (r["player"], r["banker"]):
                problems.append(f"{b['round_id']}: the cards answered differ from the proof")
            if b["start"] != cursor:  # each round starts where the previous one ended
                problems.append(f"{b['round_id']}: starts at {b['start']}, expected {cursor}")
            positions = b["player"]["positions"] + b["banker"]["positions"]
            if sorted(positions) != list(range(b["start"], b["start"] + len(positions))):
                problems.append(f"{b['round_id']}: card positions {positions}")
            cursor = b["start"] + len(positions)
        checked += len(mine)
    for rid, settlement in list(tally.settled.items())[:50]:
        status, rnd = c.request("check", "GET", f"/v1/rounds/{rid}")
        if status != 200 or rnd.get("settlement") != settlement:
            problems.append(f"{rid}: the stored settlement differs")
    return [
        f"consistency: {len(tally.shoes)} shoes closed and verified from their proofs; "
        f"{checked} rounds answered 201, each exactly once and contiguous; "
        f"{len(tally.settled)} settlements read back; {replays} identical racing deals answered "
        "with the one round dealt: "
        + ("OK — no card dealt twice, every round once" if not problems else "PROBLEMS:"),
        *problems[:10],
    ]


def run(clients: int = CLIENTS, seconds: float = SECONDS) -> list[str]:
    import secrets

    port = free_port()
    key = "bk_bench_" + secrets.token_urlsafe(24)
    proc = start_server(port, key)
    try:
        wait_ready(port, key, proc)
        tally = Tally()
        setup = Client(port, key, tally)
        pairs = []
        for _ in range((clients + 1) // 2):
            _, table = setup.request(
                "POST /v1/tables",
                "POST",
                "/v1/tables",
                {"profile": "star-city", "tier": "star-city-fun", "banking": "house"},
            )
            _, shoe = setup.request(
                "POST /v1/tables/{table_id}/shoes",
                "POST",
                f"/v1/tables/{table['table_id']}/shoes",
                {"client_seed": "load"},
            )
            tally.shoes.add(shoe["shoe_id"])
            pairs.append((table["table_id"], [shoe["shoe_id"]]))
        tally.samples.clear()
        stop = time.perf_counter() + seconds
        threads = [
            threading.Thread(
                target=worker,
                args=(Client(port, key, tally), *pairs[i // 2], stop, i),
                daemon=True,
            )
            for i in range(clients)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=seconds + 60)
        elapsed = time.perf_counter() - t0
        total = sum(len(x) for x in tally.samples.values())
        lines = [
            f"## Over HTTP: `make run` (uvicorn + DynamoDB Local), {clients} clients in pairs per "
            f"table, {seconds:.0f} s, loopback",
            f"throughput {total / elapsed:,.0f} requests/s ({total} requests in {elapsed:.1f} s); "
            f"errors {len(tally.errors)}; races lost (409 concurrent_update, retried) "
            f"{tally.conflicts}",
            f"{'route':<50}{'n':>6}{'p50':>10}{'p99':>10}",
        ]
        for label, xs in tally.samples.items():
            lines.append(
                f"{label:<50}{len(xs):>6}{percentile(xs, 50) * 1e3:7.1f} ms"
                f"{percentile(xs, 99) * 1e3:7.1f} ms"
            )
        lines += tally.errors[:5]
        lines += consistency(port, key, tally)
        return lines
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    print("\n".join(run()))
