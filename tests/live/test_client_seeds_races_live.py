"""A running table's client seeds and automatic commit, raced for real: the local server on
DynamoDB Local, commit steps run in threads of this process against the same tables and KMS
(moto's server), seeds given over HTTP.

* Many commit steps at once (timers delivered twice, the sweep): one shoe is committed, with
  the oldest seed; the next seed stays queued for the next shoe.
* Seeds given at once: at most three are queued, each for its own shoe, in the order of their
  events; every refusal is the full queue or a retryable race.
* Commit steps racing a seed given while the table waits: the wait is reported once, the shoe
  is committed once, with that seed.

Bounded: every thread joins within the deadline; loopback only."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.local_server import local_server

from baccarat.fairness import client_hash
from baccarat_api.ids import ShoeRef
from baccarat_api.ports.documents import ClockDoc
from baccarat_api.service import client_seeds
from baccarat_api.service.errors import DomainError
from baccarat_api.service.events import emit
from live.test_idle_close_races_live import Local
from live.test_races_live import in_parallel

OPERATOR = "demo-operator"  # the local server's operator (baccarat_dev.local)
STEPS = 8


@pytest.fixture(scope="module")
def local(shared_dynamodb: Any) -> Iterator[Local]:
    # the server's own table clock off: the test's threads deliver the ticks, racing
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_TABLE_CLOCK": "0", "RATE_LIMIT_PER_SECOND": "0"}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        yield Local(server)


def running_table(local: Local, http: httpx.Client) -> str:
    """A table made running as its create option leaves it: the clock's document on its live
    state (no event)."""
    body = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house"}
    table = http.post("/v1/tables", json=body)
    assert table.status_code == 201, table.text
    table_id = str(table.json()["table_id"])
    repo = local.repo()
    doc = ClockDoc(dealing="auto", pause_seconds=5, paused=False, needs_banker=False, waiting=None)
    repo.table_change("live", emit(None, OPERATOR, table_id, repo.clock(), [], clock=doc))
    return table_id


def events(http: httpx.Client, table_id: str) -> list[dict[str, Any]]:
    page = http.get(f"/v1/tables/{table_id}/events?limit=100").json()
    assert not page["more"]
    return list(page["events"])


def commit_steps(local: Local, table_id: str, n: int) -> list[str | None]:
    """``n`` commit steps at once; what each returned (a shoe id, or ``None``)."""
    results: list[str | None] = []
    lock = threading.Lock()

    def step() -> None:
        try:
            out = client_seeds.commit_next(local.repo(), local.vault(), OPERATOR, table_id)
        except DomainError as exc:  # a step that lost every retry: the timer tries again
            assert exc.code == "concurrent_update" and exc.retryable, exc
            out = "lost"
        with lock:
            results.append(out)

    in_parallel([step for _ in range(n)])
    return results


def test_many_commit_steps_commit_one_shoe_with_the_oldest_seed(local: Local) -> None:
    with local.client() as http:
        table_id = running_table(local, http)
        for seed in ("oldest", "next"):
            assert http.post(f"/v1/tables/{table_id}/client-seeds", json={"client_seed": seed})
    results = commit_steps(local, table_id, STEPS)
    print(f"\n{STEPS} commit steps at once: {results}")
    shoe_id = f"{table_id}_s1"
    assert shoe_id in results and set(results) <= {shoe_id, None, "lost"}
    repo = local.repo()
    shoe = repo.get_shoe(OPERATOR, ShoeRef(table_id, 1))
    assert shoe is not None and shoe.client_seed == "oldest" and shoe.client_seed_given_at
    assert repo.get_shoe(OPERATOR, ShoeRef(table_id, 2)) is None
    live = repo.load(OPERATOR, live=table_id).live
    assert live is not None
    assert [(q["client_seed"], q["for_shoe_number"]) for q in live.client_seeds or []] == [
        ("next", 2)
    ]
    with local.client() as http:
        committed = [e for e in events(http, table_id) if e["type"] == "shoe_committed"]
    assert [e["data"]["shoe_id"] for e in committed] == [shoe_id]


def test_seeds_given_at_once_queue_at_most_three_each_for_its_shoe(local: Local) -> None:
    with local.client() as http:
        table_id = running_table(local, http)
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def giver(seed: str) -> Any:
        def give() -> None:
            with local.client() as http:
                for _ in range(5):  # a retryable race is retried, as a client does
                    r = http.post(f"/v1/tables/{table_id}/client-seeds", json={"client_seed": seed})
                    if r.status_code != 409 or not r.json()["error"]["retryable"]:
                        break
            with lock:
                answers.append(r)

        return give

    in_parallel([giver(f"seed-{i}") for i in range(6)])
    taken = [r.json() for r in answers if r.status_code == 201]
    refused = [r.json()["error"]["code"] for r in answers if r.status_code != 201]
    print(f"\n6 seeds at once: {len(taken)} queued, refused {refused}")
    assert sorted(t["for_shoe_number"] for t in taken) == [1, 2, 3]
    assert set(refused) <= {"client_seed_queue_full", "concurrent_update"}
    assert refused.count("client_seed_queue_full") >= 1
    with local.client() as http:
        given = [e for e in events(http, table_id) if e["type"] == "client_seed_given"]
    by_number = {t["for_shoe_number"]: t["client_hash"] for t in taken}
    assert [(e["data"]["for_shoe_number"], e["data"]["client_hash"]) for e in given] == sorted(
        by_number.items()
    )


def test_commit_steps_racing_a_seed_given_while_waiting_commit_once(local: Local) -> None:
    with local.client() as http:
        table_id = running_table(local, http)
    assert client_seeds.commit_next(local.repo(), local.vault(), OPERATOR, table_id) is None
    results: list[str | None] = []

    def give() -> None:
        with local.client() as http:
            r = http.post(f"/v1/tables/{table_id}/client-seeds", json={"client_seed": "late"})
            assert r.status_code == 201, r.text

    def step() -> None:
        results.extend(commit_steps(local, table_id, 1))

    in_parallel([give, step, step, step])
    # the timer the seed's change schedules: here, one more step
    results.extend(commit_steps(local, table_id, 1))
    print(f"\ncommit steps racing a seed given: {results}")
    shoe = local.repo().get_shoe(OPERATOR, ShoeRef(table_id, 1))
    assert shoe is not None and shoe.client_seed == "late"
    assert shoe.client_hash == client_hash("late").hex()
    with local.client() as http:
        kinds = [e["type"] for e in events(http, table_id)]
    assert kinds.count("table_waiting") == 1 and kinds.count("shoe_committed") == 1
    assert kinds.index("client_seed_given") < kinds.index("shoe_committed")
