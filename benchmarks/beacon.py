"""The beacon's costs: one BLS verification of a real drand quicknet round in Python
(``baccarat_bls``, py-arkworks-bls12381) and in node with the browser's bundle (``web/drand.js``,
@noble/curves), p50 of N each and their ratio; and the local test beacon's wait from a lock to
its beacon round being served (``BEACON_MARGIN_MS`` and the 3 s period, as ``make run`` has them),
polled through the real client (``DrandHttp``) over loopback, several locks at once."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from baccarat import beacon
from baccarat.beacon import BEACON_MARGIN_MS, QUICKNET
from baccarat_api.adapters.drand_http import DrandHttp
from baccarat_bls import verify_signature
from baccarat_dev.beacon_local import BeaconServer, LocalBeacon

ROOT = Path(__file__).resolve().parents[1]
VECTOR = json.loads((ROOT / "tests" / "vectors" / "quicknet.json").read_text(encoding="utf-8"))[
    "rounds"
][1]
N = 40
LOCKS = 6
_NODE = """
const D = require(process.argv[1]);
const [key, round, sig, n] = process.argv.slice(2);
for (let i = 0; i < 3; i++) D.verifySignature(key, Number(round), sig);
const ms = [];
for (let i = 0; i < Number(n); i++) {
  const t = process.hrtime.bigint();
  if (!D.verifySignature(key, Number(round), sig)) throw new Error('did not verify');
  ms.push(Number(process.hrtime.bigint() - t) / 1e6);
}
ms.sort((a, b) => a - b);
console.log(ms[Math.floor(ms.length / 2)]);
"""


def python_p50_ms() -> float:
    key, r, sig = QUICKNET.public_key, VECTOR["round"], bytes.fromhex(VECTOR["signature"])
    assert verify_signature(key, r, sig)
    times = []
    for _ in range(N):
        t0 = time.perf_counter()
        verify_signature(key, r, sig)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def node_p50_ms() -> float | None:
    node = shutil.which("node")
    if node is None:
        return None
    args = [QUICKNET.public_key.hex(), str(VECTOR["round"]), VECTOR["signature"], str(N)]
    out = subprocess.run(
        [node, "-e", _NODE, str(ROOT / "web" / "drand.js"), *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return float(out.stdout.strip())


def beacon_waits_ms(locks: int = LOCKS) -> list[float]:
    """Locks at spread moments of a period; each waits for its beacon round through DrandHttp."""
    server = BeaconServer(LocalBeacon())
    source = DrandHttp.of_test_beacon(server.url)
    waits: list[float] = []
    chain = server.beacon.chain

    def one(delay_s: float) -> None:
        time.sleep(delay_s)
        lock_ms = time.time_ns() // 1_000_000
        wanted = beacon.lock_round(chain, lock_ms)
        while source.get(wanted) is None:
            time.sleep(0.02)
        waits.append(time.time_ns() / 1e6 - lock_ms)

    with ThreadPoolExecutor(locks) as pool:
        list(pool.map(one, [i * chain.period_ms / locks / 1000 for i in range(locks)]))
    server.stop()
    return sorted(waits)


def run() -> list[str]:
    py = python_p50_ms()
    js = node_p50_ms()
    waits = beacon_waits_ms()
    period = QUICKNET.period_ms
    lines = [
        "## The beacon: BLS verification of a quicknet round, the wait for a lock's round",
        f"verify, Python (py-arkworks-bls12381), p50 of {N}   {py:8.2f} ms",
        (
            f"verify, node (web/drand.js, @noble/curves), p50 of {N}   {js:8.2f} ms"
            f"   ratio node/Python {js / py:5.1f}x"
            if js is not None
            else "verify, node: node not installed"
        ),
        f"lock → beacon round served (local beacon, margin {BEACON_MARGIN_MS} ms, period "
        f"{period} ms, {len(waits)} locks over a period): min {waits[0]:.0f} ms, "
        f"p50 {statistics.median(waits):.0f} ms, max {waits[-1]:.0f} ms "
        f"(due: {BEACON_MARGIN_MS}–{BEACON_MARGIN_MS + period} ms)",
    ]
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
