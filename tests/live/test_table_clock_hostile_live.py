"""A running table's window closing under a storm of slips, raced for real: the local server on
DynamoDB Local (its own table clock off), seven seated bettors confirming slips over HTTP in a
loop across ``closes_at`` while a thread of this process delivers the close tick at
``closes_at`` on the real clock, twice (a duplicate timer and the sweep).

What must hold: every slip answered 200 was confirmed before ``closes_at`` (its ``placed_at``),
every refusal after it is ``betting_closed`` (or a retryable race); the round locks, per
bettor, exactly the last slip answered 200 — none taken after the deal, none lost; one
``betting_closed``, one ``round_dealt``; the feed gap-free. Bounded: every thread joins within
the deadline; loopback only."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from datetime import datetime
from typing import Any

import pytest
from support.local_server import local_server, table_feed

from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.service import table_clock, ticks
from baccarat_dev.local import DEMO_OPERATOR
from live.test_idle_close_races_live import Local
from live.test_races_live import in_parallel

SEATS = 7


@pytest.fixture(scope="module")
def local(shared_dynamodb: Any) -> Any:
    # the server's own table clock off: this test's threads deliver the ticks, racing
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_TABLE_CLOCK": "0", "RATE_LIMIT_PER_SECOND": "0"}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        yield Local(server)


def _epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def test_a_storm_of_slips_across_closes_at_locks_exactly_the_slips_taken_before(
    local: Any,
) -> None:
    with local.client() as http:
        body = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
                "dealing": "auto", "betting_seconds": 2, "squeeze_seconds": 0}  # fmt: skip
        t = http.post("/v1/tables", json=body).json()["table_id"]
        for seat in range(1, SEATS + 1):
            sit = {"bettor_id": f"b{seat}", "balance": 10_000_000, "level": 3}
            assert http.put(f"/v1/tables/{t}/seats/{seat}", json=sit).status_code == 200
        shoe = http.post(f"/v1/tables/{t}/shoes", json={"client_seed": str(uuid.uuid4())})
        assert shoe.status_code == 201, shoe.text
    repo, vault = local.repo(), local.vault()
    opening = ticks.tick_of(repo.load(DEMO_OPERATOR, live=t).live)
    assert opening is not None and opening["step"] == "open"
    assert table_clock.run_tick(repo, ShoeCache(vault), vault, opening) == "done"
    close = ticks.tick_of(repo.load(DEMO_OPERATOR, live=t).live)
    assert close is not None and close["step"] == "close"
    closes_at = close["due"]

    taken: dict[str, list[tuple[int, int, str]]] = {}  # bettor → (order, amount, placed_at)
    refused: list[str] = []
    outcomes: list[str] = []
    lock = threading.Lock()

    def storm(bettor: str) -> Any:
        def work() -> None:
            with local.client() as h:
                n = 0
                while time.time() < _epoch(closes_at) + 1.0:
                    n += 1
                    amount = 1000 * (n % 50 + 1)
                    r = h.put(f"/v1/tables/{t}/bets/{bettor}",
                              json={"bets": [{"type": "banker", "amount": amount}]})  # fmt: skip
                    with lock:
                        if r.status_code == 200:
                            slip = next(s for s in [*r.json()["seats"].values()]
                                        if s["bettor_id"] == bettor)  # fmt: skip
                            taken.setdefault(bettor, []).append(
                                (slip["order"], amount, slip["placed_at"])
                            )
                        else:
                            refused.append(r.json()["error"]["code"])

        return work

    def closer() -> None:
        time.sleep(max(0.0, _epoch(closes_at) - time.time()))
        r = local.repo()
        out = table_clock.run_tick(r, ShoeCache(vault), vault, close)
        with lock:
            outcomes.append(out)

    in_parallel([storm(f"b{s}") for s in range(1, SEATS + 1)] + [closer, closer])

    with local.client() as http:
        events = table_feed(http, t)
        kinds = [e["type"] for e in events]
        assert kinds.count("betting_closed") == 1 and kinds.count("round_dealt") == 1, kinds
        dealt = next(e for e in events if e["type"] == "round_dealt")
        rnd = http.get(f"/v1/rounds/{dealt['data']['round_id']}").json()
    print(f"\nslips taken {sum(len(v) for v in taken.values())}, refused "
          f"{dict(Counter(refused))}, close ticks {outcomes}")  # fmt: skip
    assert sorted(outcomes) in (["done", "stale"], ["done", "done"]), outcomes
    assert set(refused) <= {"betting_closed", "concurrent_update"}, set(refused)
    assert "betting_closed" in refused
    for bettor, answers in taken.items():
        assert all(placed < closes_at for _, _, placed in answers), (bettor, answers, closes_at)
    locked = {b["bettor_id"]: b["amount"] for b in rnd["bets"]}
    last = {b: answers[-1][1] for b, answers in taken.items()}  # each bettor's own thread
    assert locked == last, (locked, last)
    placed = [e for e in events if e["type"] == "bet_placed"]
    assert all(e["seq"] < dealt["seq"] for e in placed)
