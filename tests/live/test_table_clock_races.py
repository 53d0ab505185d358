"""A running table's ticks raced for real: the local server on DynamoDB Local, ticks delivered by
threads of this process (``table_clock.run_tick`` over the same tables and KMS) at the tick's
due time (a clock of their own: no test waits for a window to close).

* The same ``close`` tick twice at once: one ``betting_closed``, one ``round_dealt``.
* The same ``settle`` tick twice at once: one ``round_settled``; the same ``reveal``: one
  system ``squeeze_revealed``, one ``round_settled``.
* A ``close`` tick racing the last seated bettor leaving: dealt then left, or left then the
  window cancelled (``company_required``) — never both, never neither.
* An ``open`` tick racing a pause: the window opens before the pause, or not at all.

Every change is one event: the feed stays gap-free. Bounded: every thread joins within the
deadline; loopback only."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from support.clock import ManualClock
from support.local_server import local_server, table_feed

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.ports.scheduler import Tick
from baccarat_api.service import table_clock, ticks
from baccarat_dev.local import DEMO_OPERATOR
from live.test_idle_close_races_live import Local as IdleLocal
from live.test_races_live import in_parallel


class Local(IdleLocal):
    def deliver(self, tick: Tick) -> str:
        """Deliver ``tick`` at its due time, over a repository of this thread's own."""
        repo = self.repo()
        repo.clock = ManualClock(tick["due"])
        vault = self.vault()
        return table_clock.run_tick(repo, ShoeCache(vault), vault, tick)

    def tick(self, table_id: str, step: str) -> Tick:
        """The table's stored next step (it must be ``step``)."""
        live = _live(self.repo(), table_id)
        tick = ticks.tick_of(live)
        assert tick is not None and tick["step"] == step, (step, tick)
        return tick


def _live(repo: DynamoRepository, table_id: str) -> Any:
    live = repo.load(DEMO_OPERATOR, live=table_id).live
    assert live is not None
    return live


@pytest.fixture(scope="module")
def local(shared_dynamodb: Any) -> Iterator[Local]:
    # the server's own table clock off: the test's threads deliver the ticks, racing
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_TABLE_CLOCK": "0", "RATE_LIMIT_PER_SECOND": "0"}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        yield Local(server)


def running(http: httpx.Client, *, squeeze_seconds: int = 0) -> str:
    """A running house table (betting 30 s), alice seated, its shoe committed."""
    body = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
            "dealing": "auto", "betting_seconds": 30,
            "squeeze_seconds": squeeze_seconds}  # fmt: skip
    table = http.post("/v1/tables", json=body)
    assert table.status_code == 201, table.text
    table_id = str(table.json()["table_id"])
    seat = {"bettor_id": "alice", "balance": 50_000, "level": 3}
    assert http.put(f"/v1/tables/{table_id}/seats/1", json=seat).status_code == 200
    shoe = http.post(f"/v1/tables/{table_id}/shoes", json={"client_seed": str(uuid.uuid4())})
    assert shoe.status_code == 201, shoe.text
    return table_id


def kinds(http: httpx.Client, table_id: str) -> Counter[str]:
    return Counter(e["type"] for e in table_feed(http, table_id))


def opened_with_slip(local: Local, http: httpx.Client, table_id: str) -> None:
    assert local.deliver(local.tick(table_id, "open")) == "done"
    slip = {"bets": [{"type": "banker", "amount": 1000}]}
    r = http.put(f"/v1/tables/{table_id}/bets/alice", json=slip)
    assert r.status_code == 200, r.text


def twice(local: Local, tick: Tick) -> list[str]:
    outcomes: list[str] = []

    def work() -> None:
        outcomes.append(local.deliver(tick))

    in_parallel([work, work])
    return outcomes


def test_the_same_close_and_settle_ticks_at_once_act_once(local: Local) -> None:
    with local.client() as http:
        table_id = running(http)
        opened_with_slip(local, http, table_id)
        closes = twice(local, local.tick(table_id, "close"))
        assert "done" in closes, closes
        # no squeeze: every card shown at the deal, settled at once by the next tick
        settles = twice(local, local.tick(table_id, "settle"))
        assert "done" in settles, settles
        seen = kinds(http, table_id)
    print(f"\nclose twice: {closes}; settle twice: {settles}")
    assert seen["betting_closed"] == 1 and seen["round_dealt"] == 1
    assert seen["round_settled"] == 1


def test_the_same_reveal_tick_at_once_reveals_and_settles_once(local: Local) -> None:
    with local.client() as http:
        table_id = running(http, squeeze_seconds=5)
        opened_with_slip(local, http, table_id)
        assert local.deliver(local.tick(table_id, "close")) == "done"
        outcomes: list[str] = []
        for _ in range(2):  # the initial step, then the draws if any
            tick = ticks.tick_of(_live(local.repo(), table_id))
            assert tick is not None
            if tick["step"] != "reveal":
                break
            outcomes += twice(local, tick)
        seen = kinds(http, table_id)
        events = table_feed(http, table_id)
    print(f"\nreveal twice: {outcomes}")
    steps = Counter(e["data"]["step"] for e in events if e["type"] == "squeeze_revealed")
    assert steps and all(n == 1 for n in steps.values()), steps
    assert seen["round_settled"] == 1


def test_a_close_racing_the_last_bettor_leaving_deals_or_cancels_once(local: Local) -> None:
    with local.client() as http:
        table_id = running(http)
        opened_with_slip(local, http, table_id)
        close = local.tick(table_id, "close")

        def leave() -> None:
            with local.client() as h:
                assert h.delete(f"/v1/tables/{table_id}/seats/1").status_code == 200

        outcomes: list[str] = []
        in_parallel([lambda: outcomes.append(local.deliver(close)), leave])
        seen = kinds(http, table_id)
    print(f"\nclose racing leave: {outcomes}, {dict(seen)}")
    assert seen["seat_vacated"] == 1
    assert seen["round_dealt"] + seen["betting_cancelled"] == 1
    assert outcomes == ["done"]


def test_an_open_racing_a_pause_opens_before_it_or_not_at_all(local: Local) -> None:
    with local.client() as http:
        table_id = running(http)
        tick = local.tick(table_id, "open")
        outcomes: list[str] = []
        pause: Callable[[], None] = lambda: _pause(local, table_id)  # noqa: E731
        in_parallel([lambda: outcomes.append(local.deliver(tick)), pause])
        events = table_feed(http, table_id)
    order = [e["type"] for e in events if e["type"] in ("betting_opened", "table_paused")]
    print(f"\nopen racing pause: {outcomes}, {order}")
    assert order in (["table_paused"], ["betting_opened", "table_paused"]), order
    assert (outcomes == ["done"]) == ("betting_opened" in order)


def _pause(local: Local, table_id: str) -> None:
    with local.client() as http:
        r = http.post(f"/v1/tables/{table_id}/pause")
        assert r.status_code == 200, r.text
