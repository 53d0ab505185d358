"""A bacc-pf-v2 round's draw raced for real: the local server on DynamoDB Local and its test
beacon (500 ms), the server's own table clock off; threads of this process deliver the ``draw``
tick (``table_clock.run_tick`` over the same tables and KMS, each with its own beacon client)
at once — as a timer and the sweep, or a timer delivered twice, would.

* The same ``draw`` twice at once, the beacon there: one ``round_dealt``, one round item.
* A ``draw`` racing an operator's settle of the locked round: the settle is ``409
  round_locked`` or settles the dealt round — never a settlement without cards.

The feed stays gap-free; bounded: every thread joins within the deadline; loopback only."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.local_server import local_server, table_feed

from baccarat_api.adapters.drand_http import DrandHttp
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.service import table_clock, ticks
from baccarat_dev.local import DEMO_OPERATOR
from live.test_idle_close_races_live import Local as IdleLocal
from live.test_races_live import in_parallel

pytestmark = pytest.mark.live


class Local(IdleLocal):
    @property
    def beacon_url(self) -> str:
        found = re.search(r"^  beacon\s+(\S+)", self.server.banner, re.MULTILINE)
        assert found, self.server.banner
        return found[1]

    def draw(self, table_id: str) -> str:
        """The table's stored ``draw`` step, delivered once its beacon round exists, over a
        repository, shoe cache and beacon client of this thread's own."""
        repo: DynamoRepository = self.repo()
        tick = ticks.tick_of(repo.load(DEMO_OPERATOR, live=table_id).live)
        assert tick is not None and tick["step"] == "draw", tick
        vault = self.vault()
        return table_clock.run_tick(
            repo, ShoeCache(vault), vault, tick, DrandHttp.of_test_beacon(self.beacon_url)
        )


@pytest.fixture(scope="module")
def local(shared_dynamodb: Any) -> Iterator[Local]:
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_TABLE_CLOCK": "0",
           "RATE_LIMIT_PER_SECOND": "0", "BACCARAT_BEACON_PERIOD_MS": "500"}  # fmt: skip
    with local_server(env, dynamodb=shared_dynamodb) as server:
        yield Local(server)


def locked_round(http: httpx.Client) -> tuple[str, dict[str, Any]]:
    """An operator v2 table (no squeeze), alice seated, a round locked; waits until its beacon
    round is due (about 3.5 s)."""
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
            "squeeze_seconds": 0, "fairness": "bacc-pf-v2", "chain_length": 2}  # fmt: skip
    table_id = str(http.post("/v1/tables", json=body).json()["table_id"])
    seat = {"bettor_id": "alice", "balance": 50_000}
    assert http.put(f"/v1/tables/{table_id}/seats/1", json=seat).status_code == 200
    shoe = http.post(f"/v1/tables/{table_id}/shoes", json={"client_seed": "race"}).json()
    bet = {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker", "amount": 2000,
           "balance": 50_000}  # fmt: skip
    r = http.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", json={"bets": [bet]})
    assert r.status_code == 202, r.text
    locked = r.json()
    deadline = time.monotonic() + 15
    while http.get(f"/v1/rounds/{locked['round_id']}").headers.get("retry-after") != "1":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    time.sleep(1.2)  # past expected_at (Retry-After is at least 1)
    return table_id, locked


def test_the_same_draw_twice_at_once_deals_once(local: Local) -> None:
    with local.client() as http:
        table_id, locked = locked_round(http)
        outcomes: list[str] = []
        in_parallel([lambda: outcomes.append(local.draw(table_id)) for _ in range(2)])
        assert "done" in outcomes and set(outcomes) <= {"done", "stale"}
        feed = table_feed(http, table_id)
        assert [e["type"] for e in feed].count("round_dealt") == 1
        dealt = http.get(f"/v1/rounds/{locked['round_id']}").json()
        assert dealt["beacon"]["round"] == locked["beacon"]["round"]


def test_a_draw_racing_a_settle_never_settles_a_round_without_cards(local: Local) -> None:
    with local.client() as http:
        table_id, locked = locked_round(http)
        settle: list[httpx.Response] = []
        path = f"/v1/rounds/{locked['round_id']}/settlement"
        in_parallel([lambda: local.draw(table_id) and None, lambda: settle.append(http.post(path))])
        (answer,) = settle
        if answer.status_code == 409:
            assert answer.json()["error"]["code"] in ("round_locked", "concurrent_update")
            answer = http.post(path)
        assert answer.status_code == 200, answer.text
        assert answer.json()["round_id"] == locked["round_id"]
        kinds = [e["type"] for e in table_feed(http, table_id)]
        assert kinds.index("round_dealt") < kinds.index("round_settled")
