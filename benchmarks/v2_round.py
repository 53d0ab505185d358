"""``v2_round_cost``: what a bacc-pf-v2 round costs against a bacc-pf-v1 round, measured in one
run (issue 28's evidence; ratios, never asserted by a test).

* **Server work per round** on a warm container (moto in this process, every request an HTTP API
  v2 event through its function's Lambda handler, as :mod:`benchmarks.api`): a v1 round is one
  deal (201, the cards); a v2 round is the lock (the deal answering 202 ``locked``) plus the draw
  (``service.drawing.draw``, what the table clock's timer runs when the beacon round is due),
  whose beacon source verifies the BLS signature of the beacon it hands over, as the drand
  adapter does (the beacons are signed by a test beacon's key beforehand, outside the timing;
  the HTTPS fetch from a drand relay is not in it). A whole shoe of each, to the cut card, each
  round settled; DynamoDB and KMS round trips counted on the service's own clients.
* **The wait a player sees**: a lock fixes the first beacon round at least ``BEACON_MARGIN_MS``
  after it; at quicknet's 3-s period, lock → beacon round due is margin + U(0, period). The due
  times of many uniformly spread lock instants are computed exactly by the core
  (``baccarat.beacon``), then measured over loopback with the local beacon (``make run``'s) and
  its real client: lock → round served (:func:`benchmarks.beacon.beacon_waits_ms`) and lock →
  drawn (that wait plus the draw measured above); in seconds and as a ratio to the default
  betting window.
* **BLS verification of one beacon** in Python (``baccarat_bls.verify_beacon``), in node and in
  headless Chromium (``web/drand.js``, the browser verifier's bundle, in a page).
* **Verifying a whole proof**: ``baccarat verify``'s code path (``baccarat_verify.cli``) on each
  shoe's signed final proof, in this process: v2 over v1, and per round."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from baccarat.beacon import BEACON_MARGIN_MS, QUICKNET, Beacon, lock_round, round_time
from baccarat_api.clock import at_ms
from baccarat_api.limits import BEACON_WAIT_SECONDS, DEFAULT_BETTING_SECONDS
from baccarat_bls import verify_beacon

from . import beacon as beacon_bench
from ._lambda import moto_in_memory, percentile

ROOT = Path(__file__).resolve().parents[1]
BROWSER_N = 40
VERIFY_REPEATS = 3
LOCK_INSTANTS = 3_000  # spread evenly over one period, for the exact wait distribution
_PAGE = """<!doctype html><meta charset="utf-8"><title>bench</title><pre id="out">running</pre>
<script src="{drand}"></script>
<script>
const [key, round, sig, n] = {args};
const D = BaccaratDrand;
for (let i = 0; i < 3; i++) D.verifySignature(key, round, sig);
const ms = [];
for (let i = 0; i < n; i++) {{
  const t = performance.now();
  if (!D.verifySignature(key, round, sig)) throw new Error('did not verify');
  ms.push(performance.now() - t);
}}
ms.sort((a, b) => a - b);
document.getElementById('out').textContent = 'p50=' + ms[Math.floor(ms.length / 2)];
</script>
"""


class JumpClock:
    """The service's clock (the repository's): the system clock plus an offset that only grows,
    so the bench jumps to a beacon round's time instead of waiting for it (the proof's order —
    lock, then beacon round, then the draw — holds as in production)."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def ms(self) -> int:
        return int(time.time() * 1000) + self.offset_ms

    def __call__(self) -> str:
        return at_ms(self.ms())

    def reach(self, ms: int) -> None:
        self.offset_ms += max(0, ms - self.ms())


class PresignedBeacon:
    """A BeaconSource for the bench: a test beacon at quicknet's period on the service's clock,
    each beacon signed by :meth:`prepare` outside the timing and BLS-verified by :meth:`get`
    inside it, as ``DrandHttp`` verifies every beacon it fetches."""

    def __init__(self, clock: JumpClock) -> None:
        from baccarat_dev.beacon_local import LocalBeacon

        self._signer = LocalBeacon(
            secret=0xBE7C4, period_ms=QUICKNET.period_ms, genesis_ms=0, clock=clock.ms
        )
        self.chain = self._signer.chain
        self._ready: dict[int, Beacon] = {}
        self.verified = 0

    def prepare(self, round_: int) -> None:
        self._ready[round_] = self._signer.sign(round_)

    def get(self, round_: int) -> Beacon | None:
        got = self._ready.get(round_)
        if (
            got is None
            or round_ > self._signer.latest_round()
            or not verify_beacon(self.chain, got)
        ):
            return None
        self.verified += 1
        return got

    def latest(self) -> Beacon | None:
        return self.get(max(self._ready)) if self._ready else None


class CallTime:
    """Seconds spent inside the service's DynamoDB and KMS calls (botocore's before-call and
    after-call events): moto's in-process work, which a real DynamoDB does elsewhere."""

    def __init__(self, clients: list[Any]) -> None:
        self.seconds = 0.0
        self._t0 = 0.0
        for client in clients:
            name = client.meta.service_model.service_name
            client.meta.events.register(f"before-call.{name}", self._before)
            client.meta.events.register(f"after-call.{name}", self._after)

    def _before(self, **_: Any) -> None:
        self._t0 = time.perf_counter()

    def _after(self, **_: Any) -> None:
        self.seconds += time.perf_counter() - self._t0


class Shoe:
    """One shoe played round by round to its end: per round the server's seconds (all, and
    without the time inside DynamoDB/KMS calls), the lock's share (v2) and the round trips."""

    def __init__(self, fairness: str, ctx: Any) -> None:
        from tests.support.stack import new_shoe, new_table

        self.fairness, self.ctx = fairness, ctx
        self.seconds: list[float] = []
        self.own: list[float] = []  # without the calls' time
        self.lock: list[float] = []  # v2: the lock's share of ``seconds``
        self.dynamodb: list[int] = []
        self.kms: list[int] = []
        self.requests: list[int] = []
        self.shoe_id = new_shoe(ctx.api, new_table(ctx.api, fairness=fairness), fairness)
        self.status = "open"

    def per_round(self) -> tuple[float, float, float, float]:
        """p50 seconds, p50 own seconds, mean DynamoDB and KMS calls of the rounds after the
        first (a warm container)."""
        d, k = self.dynamodb[1:], self.kms[1:]
        own = statistics.median(self.own[1:])
        return statistics.median(self.seconds[1:]), own, sum(d) / len(d), sum(k) / len(k)

    def play_round(self) -> None:
        """Deal (v1) or lock, jump to the beacon round's time and draw (v2); then settle."""
        from baccarat_api.service import drawing
        from tests.support.stack import star_city_bets

        c = self.ctx
        c.calls.clear()
        in_calls = c.timer.seconds
        t0 = time.perf_counter()
        dealt = c.api.post(f"/v1/shoes/{self.shoe_id}/rounds", {"bets": star_city_bets()})
        took = time.perf_counter() - t0
        round_id, requests = dealt.body["round_id"], 1
        if dealt.status == 202:  # v2: locked; the draw when its beacon round is due
            self.lock.append(took)
            wanted = dealt.body["beacon"]["round"]
            c.source.prepare(wanted)
            c.clock.reach(round_time(c.source.chain, wanted))
            t0 = time.perf_counter()
            drawn = drawing.draw(c.rt.repo, c.rt.shoes, c.rt.beacon, c.operator, round_id)
            took += time.perf_counter() - t0
            assert drawn == "done", drawn
            requests += 1  # the timer's invocation
        else:
            assert dealt.status == 201, dealt.body
        self.seconds.append(took)
        self.own.append(took - (c.timer.seconds - in_calls))
        self.dynamodb.append(sum(c.calls.dynamodb.values()))
        self.kms.append(sum(c.calls.kms.values()))
        self.requests.append(requests)
        self.status = c.api.get(f"/v1/rounds/{round_id}").body["shoe_status"]
        settled = c.api.post(f"/v1/rounds/{round_id}/settlement")
        assert settled.status == 200, settled.body


def play_shoes() -> tuple[Shoe, Shoe, dict[str, Any], dict[str, list[dict[str, Any]]], int]:
    """A v1 and a v2 shoe on the same warm container, their rounds interleaved (moto's costs
    grow with the table: both see the same); the signing keys, each shoe's final proof and the
    number of beacons the service verified."""
    from types import SimpleNamespace

    from baccarat_api import runtime
    from tests.support.roundtrips import count_calls
    from tests.support.stack import Api, proof_pages, signing_keys

    with moto_in_memory() as aws, contextlib.redirect_stdout(io.StringIO()):
        api = Api(aws.key)
        rt = runtime.get_runtime()
        clock = JumpClock()
        for part in (rt.repo, *vars(rt.repo).values()):
            if hasattr(part, "clock"):
                part.clock = clock
        source = PresignedBeacon(clock)
        rt.__dict__["beacon"] = source
        ctx = SimpleNamespace(api=api, rt=rt, clock=clock, source=source,
                              operator=aws.operator_id, calls=count_calls(),
                              timer=CallTime([rt.dynamodb, rt.kms]))  # fmt: skip
        try:
            v1, v2 = Shoe("bacc-pf-v1", ctx), Shoe("bacc-pf-v2", ctx)
            while v1.status == "open" or v2.status == "open":
                for shoe in (v1, v2):
                    if shoe.status == "open":
                        shoe.play_round()
            keys = signing_keys(api)
            proofs = {s.fairness: proof_pages(api, s.shoe_id) for s in (v1, v2)}
        finally:
            rt.__dict__.pop("beacon", None)
    return v1, v2, keys, proofs, source.verified


def verify_seconds(pages: list[dict[str, Any]], keys: dict[str, Any]) -> float:
    """Median seconds of ``baccarat verify FILE --keys KEYS`` (in process) on a proof."""
    from baccarat_verify.cli import main

    with tempfile.TemporaryDirectory(prefix="bacc-bench-verify-") as tmp:
        proof, key_file = Path(tmp) / "proof.json", Path(tmp) / "keys.json"
        proof.write_text(json.dumps({"pages": pages}), encoding="utf-8")
        key_file.write_text(json.dumps(keys), encoding="utf-8")
        times = []
        for _ in range(VERIFY_REPEATS):
            out = io.StringIO()
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = main(["verify", str(proof), "--keys", str(key_file)])
            times.append(time.perf_counter() - t0)
            if code != 0:
                raise RuntimeError(f"the bench's proof did not verify: {out.getvalue()[:400]}")
    return statistics.median(times)


def chromium_p50_ms() -> float | None:
    """p50 ms of web/drand.js's verifySignature of a quicknet round in headless Chromium."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None
    vector = beacon_bench.VECTOR
    args = [QUICKNET.public_key.hex(), vector["round"], vector["signature"], BROWSER_N]
    with tempfile.TemporaryDirectory(prefix="bacc-bench-chromium-") as tmp:
        page = Path(tmp) / "bench.html"
        drand = (ROOT / "web" / "drand.js").as_uri()
        page.write_text(_PAGE.format(drand=drand, args=json.dumps(args)), encoding="utf-8")
        out = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--allow-file-access-from-files", f"--user-data-dir={tmp}/profile", "--dump-dom",
             page.as_uri()],
            check=True, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    marker = out.stdout.split("p50=", 1)
    if len(marker) != 2:
        raise RuntimeError(f"the page did not finish: {out.stdout[-300:]} {out.stderr[-300:]}")
    return float(marker[1].split("<", 1)[0])


def due_waits_s() -> list[float]:
    """Lock → beacon round due, in seconds, for lock instants spread evenly over a period."""
    chain = QUICKNET
    base = round_time(chain, 10_000)
    waits = []
    for i in range(LOCK_INSTANTS):
        lock_ms = base + i * chain.period_ms // LOCK_INSTANTS
        waits.append((round_time(chain, lock_round(chain, lock_ms)) - lock_ms) / 1000)
    return sorted(waits)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    return fn(), time.perf_counter() - t0


def run() -> list[str]:
    (v1, v2, keys, proofs, verified), played_s = _timed(play_shoes)
    s1, own1, d1, k1 = v1.per_round()
    s2, own2, d2, k2 = v2.per_round()
    lock_p50 = statistics.median(v2.lock[1:])
    draw_p50 = statistics.median(t - k for t, k in zip(v2.seconds[1:], v2.lock[1:], strict=True))
    r1, r2 = len(v1.seconds), len(v2.seconds)
    p99_1, p99_2 = percentile(v1.seconds[1:], 99), percentile(v2.seconds[1:], 99)
    py_ms = beacon_bench.python_p50_ms()
    node_ms = beacon_bench.node_p50_ms()
    verifiers = [
        ("Python (baccarat_bls, py-arkworks-bls12381)", py_ms),
        ("node (web/drand.js)", node_ms),
        ("headless Chromium (web/drand.js, a page)", chromium_p50_ms()),
    ]
    due = due_waits_s()
    served = [w / 1000 for w in beacon_bench.beacon_waits_ms()]
    window = DEFAULT_BETTING_SECONDS
    due_p50 = statistics.median(due)
    drawn_p50 = statistics.median(served) + s2
    ver1, ver2 = (verify_seconds(proofs[s.fairness], keys) for s in (v1, v2))
    return [
        "## v2_round_cost: a bacc-pf-v2 round against a bacc-pf-v1 round, one run",
        f"(a star-city shoe of each played to its end on moto in process, warm container: {r1} "
        f"v1 and {r2} v2 rounds, 3 bets each, each settled; {played_s:.0f} s; the first round "
        f"of each left out)",
        f"server time per round, p50: v1 deal {_ms(s1)}; v2 lock + draw {_ms(s2)} (lock "
        f"{_ms(lock_p50)}, draw incl. one BLS verify "
        f"{_ms(draw_p50)})"
        f"   ratio v2/v1 {s2 / s1:.2f}x   (p99 {_ms(p99_1)} vs {_ms(p99_2)})",
        f"  without the time inside the DynamoDB calls (moto's in-process work; its "
        f"transactions copy the table): v1 {_ms(own1)}, v2 {_ms(own2)}   ratio v2/v1 "
        f"{own2 / own1:.2f}x (the service's own code: handler, models, the draw, the BLS check)",
        f"round trips per round: v1 {v1.requests[1]} request, DynamoDB {d1:.1f}, KMS {k1:.1f}; "
        f"v2 {v2.requests[1]} invocations (the lock, the timer's draw), DynamoDB {d2:.1f}, "
        f"KMS {k2:.1f}   ratio DynamoDB v2/v1 {d2 / d1:.2f}x; beacons BLS-verified by the "
        f"service: {verified} (plus, in AWS, one HTTPS GET to a drand relay per round)",
        f"beacon wait (quicknet period {QUICKNET.period_ms / 1000:g} s, margin "
        f"{BEACON_MARGIN_MS / 1000:g} s): lock → round due min {due[0]:.2f} s, p50 "
        f"{due_p50:.2f} s, max {due[-1]:.2f} s (exact, {LOCK_INSTANTS:,} lock instants); "
        f"measured on the local beacon lock → served p50 {statistics.median(served):.2f} s "
        f"(max {served[-1]:.2f} s, {len(served)} locks); lock → drawn p50 {drawn_p50:.2f} s",
        f"  as a share of the default betting window ({window} s): p50 {due_p50 / window:.2f}x, "
        f"worst {due[-1] / window:.2f}x; a v1 round's cards come with the deal "
        f"({_ms(s1)}): the v2 wait is {drawn_p50 / s1:,.0f}x that; outage void after "
        f"{BEACON_WAIT_SECONDS} s",
        "BLS verify of one beacon, p50: "
        + "; ".join(
            f"{name} {ms:.2f} ms ({ms / py_ms:.1f}x Python)"
            for name, ms in verifiers
            if ms is not None
        ),
        f"verify a whole proof (baccarat verify, in process, median of {VERIFY_REPEATS}): v1 "
        f"{r1} rounds {_ms(ver1)} ({_ms(ver1 / r1)}/round); v2 {r2} rounds {_ms(ver2)} "
        f"({_ms(ver2 / r2)}/round)   ratio per round v2/v1 {(ver2 / r2) / (ver1 / r1):.1f}x "
        f"(v2's extra {_ms((ver2 / r2) - (ver1 / r1))}/round: a BLS verify is {py_ms:.2f} ms)",
    ]


if __name__ == "__main__":  # this section alone: python -m benchmarks.v2_round
    for line in run():
        print(line)
