"""``make run`` under load: the RSS of the API process (uvicorn + the app + moto's KMS thread) and
of DynamoDB Local's java, before and after REQUESTS requests, and along the way.
``python -m benchmarks.make_run_memory [REQUESTS]`` (default 6,000) runs the real ``make run``
(``BACKEND=moto`` for the all-moto setup, whose engine lives in the API process: keep REQUESTS
small there, it grows by megabytes per write).

Four client threads, each with a table of its own, as an integration plays: open a shoe, deal
every round with three bets and settle it, fetch the proof when the shoe ends, next shoe.
Loopback only; every call with a timeout; the run stops after REQUESTS requests or once a
process passes 4 GiB. Figures only, nothing asserted (this machine is shared: compare the
figures of one run)."""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx

from .dynamodb_engines import rss_mib

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = 6_000
THREADS = 4
CAP_MIB = 4096
EVERY_SECONDS = 15


class Load:
    """The client side: THREADS threads playing shoes until ``requests`` requests were made."""

    def __init__(self, url: str, key: str, requests: int, bets: list[dict[str, object]]) -> None:
        self.url, self.key, self.requests, self.bets = url, key, requests, bets
        self.done: Counter[str] = Counter()
        self.failures: list[str] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        return sum(self.done.values())

    def call(
        self, http: httpx.Client, method: str, path: str, body: object = None
    ) -> httpx.Response:
        r = http.request(method, path, json=body)
        code = r.json().get("error", {}).get("code", "") if r.status_code >= 400 else ""
        with self._lock:
            self.done[f"{r.status_code} {code}".strip()] += 1
            if self.total >= self.requests:
                self.stop.set()
        return r

    def play(self, http: httpx.Client, table: str) -> None:
        """One shoe: commit, deal and settle every round, fetch the proof."""
        seed = {"client_seed": str(uuid.uuid4())}
        shoe = self.call(http, "POST", f"/v1/tables/{table}/shoes", seed).json()["shoe_id"]
        while not self.stop.is_set():
            dealt = self.call(http, "POST", f"/v1/shoes/{shoe}/rounds", {"bets": self.bets})
            if dealt.status_code != 201:
                break  # shoe_ended
            self.call(http, "POST", f"/v1/rounds/{dealt.json()['round_id']}/settlement")
        if not self.stop.is_set():
            self.call(http, "GET", f"/v1/shoes/{shoe}/proof")

    def worker(self) -> None:
        headers = {"authorization": f"Bearer {self.key}"}
        try:
            with httpx.Client(base_url=self.url, headers=headers, timeout=60) as http:
                body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
                table = self.call(http, "POST", "/v1/tables", body).json()["table_id"]
                while not self.stop.is_set():
                    self.play(http, table)
        except Exception as exc:  # reported with the figures
            self.failures.append(repr(exc))
            self.stop.set()


def run(requests: int = REQUESTS) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from tests.support.local_server import descendants, free_port, is_java, local_server
    from tests.support.stack import star_city_bets

    env = {"PORT": str(free_port()), "RATE_LIMIT_PER_SECOND": "0"}
    if os.environ.get("BACKEND"):
        env["BACKEND"] = os.environ["BACKEND"]
    with local_server(env, command=["make", "-s", "--no-print-directory", "run"]) as server:
        below = descendants(server.proc.pid)
        api = next(pid for pid, args in below.items() if "baccarat_dev.local" in args)
        java = next((pid for pid, args in below.items() if is_java(args)), None)

        def rss() -> tuple[float, float]:
            return rss_mib(api), rss_mib(java) if java else 0.0

        def snapshot() -> str:
            engine = f", java (DynamoDB Local) {rss()[1]:.0f} MiB" if java else ""
            return f"API process {rss()[0]:.0f} MiB{engine}"

        lines = [f"## make run on {server.engine}: RSS over {requests} requests"]
        before = rss()
        lines.append(f"before: {snapshot()}")
        load = Load(server.url, server.key, requests, star_city_bets())
        began = time.monotonic()
        threads = [threading.Thread(target=load.worker, daemon=True) for _ in range(THREADS)]
        for t in threads:
            t.start()
        next_line = began + EVERY_SECONDS
        while any(t.is_alive() for t in threads):
            time.sleep(0.5)
            if time.monotonic() >= next_line:
                lines.append(f"  after {load.total} requests: {snapshot()}")
                next_line += EVERY_SECONDS
            if max(rss()) > CAP_MIB:
                lines.append(f"  stopped: over {CAP_MIB} MiB")
                load.stop.set()
        for t in threads:
            t.join(timeout=120)
        seconds = time.monotonic() - began
        after = rss()
        lines.append(
            f"after: {snapshot()} — {load.total} requests in {seconds:.0f} s "
            f"({load.total / seconds:.0f}/s), statuses {dict(sorted(load.done.items()))}"
        )
        growth = [f"API ×{after[0] / before[0]:.2f}"]
        if java:
            growth.append(f"java ×{after[1] / before[1]:.2f}")
        per = (sum(after) - sum(before)) * 1024 / max(load.total, 1)
        lines.append(f"growth after/before: {', '.join(growth)}; {per:.1f} KiB per request overall")
        lines += [f"client failure: {f}" for f in load.failures]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print("\n".join(run(int(args[0]) if args else REQUESTS)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
