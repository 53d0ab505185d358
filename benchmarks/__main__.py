"""`make bench`: every benchmark, figures printed (never asserted by tests), in one run.

Sections: the pure core (engine, money, exact RTP), the API in process (round trips, warm
latency, item sizes, request units), cost per million rounds, the service's own overhead (the
same session with DynamoDB and KMS answered instantly), the built artifacts (sam build),
cold start of every function (on the built artifacts, moto's server on loopback), the API
over HTTP under a bounded load with a consistency check, and running tables (``dealing: auto``)
on make run's code beside the explicit flow: lateness per step, rounds per hour, per-round
requests, invocations, timer messages, write units and cost; betting behind at scale (a round's
book of 10 to 10,000 spectators' slips: confirm, lock, deal, pages, units, cost, the API's RSS;
benchmarks/out/bet_behind.svg); the push channel on make run (action → message at 1, 100, 1,000
subscribers, messages lost); the beacon (a BLS verification in Python and in node, the wait from a
lock to its beacon round); v2_round_cost (a bacc-pf-v2 round against a v1 round: server time
and round trips of lock + draw vs a deal, the beacon wait against the betting window, BLS
verification in Python, node and headless Chromium, a whole proof verified). A section that
cannot run here says so and the others still run; the exit status is then 1. (The DynamoDB
engines — DynamoDB Local vs moto, and ``make run``'s memory under load — are ``make
bench-engines``: minutes, gigabytes.)"""

from __future__ import annotations

import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path


def main() -> int:
    from . import (
        api,
        artifacts,
        beacon,
        bet_behind,
        coldstart,
        cost,
        engine,
        http,
        money,
        overhead,
        push,
        rtp,
        table_clock,
        v2_round,
    )
    from ._lambda import moto_server

    started = time.perf_counter()
    print(f"# make bench — {time.strftime('%Y-%m-%d %H:%M')} — Python {platform.python_version()}")
    print(
        f"# {platform.machine()}, {platform.processor() or 'cpu'}; shared and noisy: compare the "
        "ratios measured in this run, not absolute times across runs",
        flush=True,
    )
    failed: list[str] = []

    def section(name: str, fn: Callable[[], list[str]]) -> None:
        t0 = time.perf_counter()
        try:
            lines = fn()
        except Exception:
            failed.append(name)
            lines = [f"## {name}: FAILED", traceback.format_exc(limit=6)]
        print()
        print("\n".join(lines))
        print(f"[{name}: {time.perf_counter() - t0:.0f} s]", flush=True)

    for name, mod in (("engine", engine), ("money", money), ("rtp", rtp), ("beacon", beacon)):
        section(name, mod.run)

    measured: list[api.Measured] = []

    def api_section() -> list[str]:
        lines, m = api.run()
        measured.append(m)
        return lines

    section("api", api_section)
    ours: list[dict[str, float]] = []

    def overhead_section() -> list[str]:
        lines, p50 = overhead.measure(measured[0].p50 if measured else None)
        ours.append(p50)
        return lines

    section("overhead", overhead_section)
    if measured:
        section("cost", lambda: cost.run(measured[0], ours[0] if ours else None))

    with tempfile.TemporaryDirectory(prefix="bacc-bench-build-") as tmp:
        builds: list[Path | None] = []

        def artifacts_section() -> list[str]:
            lines, slim = artifacts.run(Path(tmp))
            builds.append(slim)
            return lines

        section("artifacts", artifacts_section)
        slim = builds[0] if builds else None
        as_built = Path(tmp) / "built" if slim else None

        def cold_section() -> list[str]:
            with moto_server() as aws:  # started once for every cold start
                lines, imported = coldstart.run(aws, slim, as_built)
            if slim is not None:
                lines += coldstart.unused(imported, slim)
            return lines

        section("cold start", cold_section)

    section("http", http.run)
    section("table clock", table_clock.run)
    section("bet behind", bet_behind.run)
    section("push", push.run)
    section("v2 round cost", v2_round.run)
    print(
        f"\n# make bench: {time.perf_counter() - started:.0f} s"
        + (f"; FAILED sections: {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
