"""Races, proven with real concurrency.

The local server as a user runs it (``python -m baccarat_dev.local``: uvicorn in front, DynamoDB
Local behind — Amazon's own engine, with no lock of ours anywhere) on loopback, and 16 client
threads at once:

* deal on one shoe until it ends (some with Idempotency-Keys, some sharing one, some none):
  afterwards every round exists once, the rounds' card positions tile the shoe from the first
  round's start (none used twice, none skipped), and the proof verifies;
* settle one round (distinct keys, a shared key, none), while auto-settlement sweeps run too:
  exactly one settlement exists and every caller got it or a retryable 409;
* settle and void one round at once: it ends settled or voided, once.

Bounded: 16 threads, a few hundred requests, every call with a timeout, every loop with a
deadline; loopback only. DynamoDB Local applies each request atomically and serves them
concurrently, as DynamoDB does; the API's own reads and writes interleave freely between
requests, which is where the races under test are. (With ``BACKEND=moto`` the same tests run on
moto's server, which only a global lock makes atomic: :mod:`baccarat_dev.localaws`.)"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import httpx
import pytest
from support.local_server import LocalServer, local_server
from support.stack import star_city_bets

from baccarat.verify import verify_proof
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.ids import parse_round_id
from baccarat_api.jobs.sweep import run_sweep
from baccarat_api.service.money import settlement_out
from baccarat_dev.local import DEMO_OPERATOR

THREADS = 16
DEADLINE_SECONDS = 90
RETRYABLE = {"concurrent_update", "idempotency_in_progress", "unavailable"}


@dataclass
class Local:
    server: LocalServer

    @property
    def state_table(self) -> str:
        return self.server.tables["StateTable"]

    def client(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.server.url,
            headers={"authorization": f"Bearer {self.server.key}"},
            timeout=15,
        )

    def repo(self) -> DynamoRepository:
        client = boto3.client(
            "dynamodb",
            endpoint_url=self.server.dynamodb_url,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        return DynamoRepository(client, self.state_table, self.server.tables["ConfigTable"])


@pytest.fixture(scope="module")
def local(shared_dynamodb: Any) -> Iterator[Local]:
    env = {
        "BACCARAT_SWEEP_SECONDS": "0",  # the tests run their own sweeps
        "RATE_LIMIT_PER_SECOND": "0",  # one operator's burst is the point here, not a 429
    }
    with local_server(env, dynamodb=shared_dynamodb) as server:
        print(f"\nlocal server on {server.engine} at {server.dynamodb_url}")
        yield Local(server)


def open_shoe(
    http: httpx.Client, profile: str = "star-city", *, seated: bool = False
) -> tuple[str, str]:
    tier = {"star-city": "star-city-fun", "bid-squeeze": "bid-squeeze-standard"}[profile]
    # no squeeze: every card shown at the deal, so a round may be settled at once
    body = {"profile": profile, "tier": tier, "banking": "house", "squeeze_seconds": 0}
    table = http.post("/v1/tables", json=body)
    assert table.status_code == 201, table.text
    table_id = table.json()["table_id"]
    shoe = http.post(f"/v1/tables/{table_id}/shoes", json={"client_seed": str(uuid.uuid4())})
    assert shoe.status_code == 201, shoe.text
    if seated:
        sit_down(http, table_id)
    return table_id, shoe.json()["shoe_id"]


def sit_down(http: httpx.Client, table_id: str) -> None:
    """alice and bob (star_city_bets' seated bettors) take seats 1 and 2: a round is dealt only
    with its company present (seed 000 兩人成局)."""
    for seat, bettor in ((1, "alice"), (2, "bob")):
        sit = {"bettor_id": bettor, "balance": 50_000, "level": 5}
        r = http.put(f"/v1/tables/{table_id}/seats/{seat}", json=sit)
        assert r.status_code == 200, r.text


def in_parallel(workers: list[Callable[[], None]]) -> None:
    """Start every worker at the same moment; wait (bounded) for all; re-raise a failure."""
    barrier = threading.Barrier(len(workers))
    errors: list[BaseException] = []

    def run(work: Callable[[], None]) -> None:
        try:
            barrier.wait(timeout=30)
            work()
        except BaseException as exc:  # collected, re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=DEADLINE_SECONDS)
    assert not any(t.is_alive() for t in threads), "a worker did not finish in time"
    if errors:
        raise errors[0]


def test_parallel_deals_on_one_shoe(local: Local) -> None:
    with local.client() as http:
        # bid-squeeze: no idle rule, so the seated company stays through rounds nobody bets on
        _, shoe_id = open_shoe(http, "bid-squeeze", seated=True)
    dealt: list[dict[str, Any]] = []
    by_key: dict[str, list[dict[str, Any]]] = {}
    statuses: Counter[str] = Counter()
    lock = threading.Lock()
    stop = time.monotonic() + DEADLINE_SECONDS

    def dealer(n: int) -> Callable[[], None]:
        def work() -> None:
            with local.client() as http:
                while time.monotonic() < stop:
                    # thread pairs 0/1, 2/3 share their keys; odd threads ≥ 4 use none
                    key = None if n >= 4 and n % 2 else f"deal-{n // 2 if n < 4 else n}"
                    key = f"{key}-{len(dealt)}" if key else None
                    headers = {"Idempotency-Key": key} if key else {}
                    for _attempt in range(50):
                        r = http.post(
                            f"/v1/shoes/{shoe_id}/rounds", json={"bets": []}, headers=headers
                        )
                        code = r.json().get("error", {}).get("code") if r.status_code >= 400 else ""
                        with lock:
                            statuses[str(r.status_code) + (f" {code}" if code else "")] += 1
                        if r.status_code == 201:
                            with lock:
                                dealt.append(r.json())
                                if key:
                                    by_key.setdefault(key, []).append(r.json())
                            break
                        if code == "shoe_ended":
                            return
                        assert r.json()["error"]["retryable"] is True, r.text
                        assert code in RETRYABLE, r.text

        return work

    in_parallel([dealer(n) for n in range(THREADS)])
    print(f"\n{len(dealt)} responses 201 from {THREADS} threads: {dict(statuses)}")
    with local.client() as http:
        shoe = http.get(f"/v1/shoes/{shoe_id}").json()
        # (a bid-squeeze shoe ends one round after the cut card: its own number of rounds)
        assert shoe["status"] == "ended" and shoe["rounds_dealt"] > 30
        proof = http.get(f"/v1/shoes/{shoe_id}/proof").json()
    # every round exists once (a replayed key may answer the same round to two callers);
    # responses arrive in any order, so compare by round number
    rounds = {r["round_number"]: r for r in dealt}
    assert sorted(rounds) == list(range(1, shoe["rounds_dealt"] + 1))
    for r in dealt:
        assert r == rounds[r["round_number"]], "two different rounds with one number"
    for same_key in by_key.values():
        assert len({r["round_number"] for r in same_key}) == 1, "one key dealt two rounds"
    # card positions tile the shoe from the first round's start: none twice, none skipped
    assert rounds[1]["start"] == proof["first_round_start"]
    for n in range(1, 30):
        assert rounds[n + 1]["start"] == rounds[n]["start"] + rounds[n]["cards_dealt"]
        used = rounds[n]["player"]["positions"] + rounds[n]["banker"]["positions"]
        assert sorted(used) == list(range(rounds[n]["start"], rounds[n + 1]["start"]))
    # and they are the shoe's cards: the published proof re-derives to exactly these rounds
    assert verify_proof(proof).ok
    assert [r["player"] for r in proof["rounds"]] == [
        rounds[n]["player"]["cards"] for n in sorted(rounds)
    ]
    assert statuses["201"] >= 30 and sum(statuses.values()) > 30  # there was contention


def test_parallel_settlements_of_one_round_with_sweeps(local: Local) -> None:
    with local.client() as http:
        _, shoe_id = open_shoe(http, seated=True)
        dealt = http.post(f"/v1/shoes/{shoe_id}/rounds", json={"bets": star_city_bets()}).json()
    round_id = dealt["round_id"]
    answers: list[tuple[int, dict[str, Any]]] = []
    lock = threading.Lock()
    far = "2999-01-01T00:00:00.000Z"  # every locked round is past its deadline then

    def settler(n: int) -> Callable[[], None]:
        key = None if n % 3 == 0 else f"settle-{n % 5}"  # none, or keys shared by a few

        def work() -> None:
            headers = {"Idempotency-Key": key} if key else {}
            with local.client() as http:
                r = http.post(f"/v1/rounds/{round_id}/settlement", headers=headers)
            with lock:
                answers.append((r.status_code, r.json()))

        return work

    sweeps: list[Any] = []

    def sweeper() -> None:
        sweeps.append(run_sweep(local.repo(), at=far))

    in_parallel([settler(n) for n in range(THREADS - 2)] + [sweeper, sweeper])
    with local.client() as http:
        stored = http.get(f"/v1/rounds/{round_id}").json()["settlement"]
    assert stored is not None
    for status, body in answers:
        if status == 200:
            assert body == stored
        else:
            assert status == 409 and body["error"]["retryable"] is True, body
            assert body["error"]["code"] in RETRYABLE
    assert any(status == 200 for status, _ in answers) or stored["auto_settled"]
    # exactly one settlement: the round holds it, as every caller was answered
    ref = parse_round_id(round_id)
    assert ref is not None
    held = local.repo().get_round(DEMO_OPERATOR, ref)
    assert held is not None and held.settled_at == stored["settled_at"]
    assert settlement_out(held).model_dump(mode="json") == stored
    settled_by_sweeps = sum(len(s.settled) for s in sweeps)
    assert (settled_by_sweeps > 0) == stored["auto_settled"]
    print(
        f"\nsettle race: {Counter(s for s, _ in answers)}; "
        f"won by {'a sweep' if stored['auto_settled'] else 'an operator call'}"
    )


def test_settle_and_void_racing_on_one_round(local: Local) -> None:
    with local.client() as http:
        _, shoe_id = open_shoe(http, seated=True)
        round_id = http.post(f"/v1/shoes/{shoe_id}/rounds", json={"bets": star_city_bets()}).json()[
            "round_id"
        ]
    answers: list[tuple[str, int, dict[str, Any]]] = []
    lock = threading.Lock()

    def call(kind: str) -> Callable[[], None]:
        def work() -> None:
            with local.client() as http:
                if kind == "void":
                    r = http.post(f"/v1/rounds/{round_id}/void", json={"reason": "misdeal"})
                else:
                    r = http.post(f"/v1/rounds/{round_id}/settlement")
            with lock:
                answers.append((kind, r.status_code, r.json()))

        return work

    in_parallel([call("void" if n % 2 else "settle") for n in range(THREADS)])
    with local.client() as http:
        stored = http.get(f"/v1/rounds/{round_id}").json()["settlement"]
    won = "void" if stored["voided"] else "settle"
    for kind, status, body in answers:
        if status == 200:
            assert kind == won and body == stored
        else:
            expected = {"void": "round_voided", "settle": "round_settled"}[won]
            assert status == 409, body
            assert body["error"]["code"] in {expected, *RETRYABLE}, body
            if body["error"]["code"] == expected:
                assert kind != won


def _until_decided(call: Callable[[], httpx.Response]) -> httpx.Response:
    """The call again while it answers a retryable error (bounded by the deadline)."""
    stop = time.monotonic() + DEADLINE_SECONDS
    while True:
        r = call()
        if r.status_code < 400 or r.json()["error"]["code"] not in RETRYABLE:
            return r
        assert time.monotonic() < stop, "still retryable at the deadline"


def test_many_people_racing_for_one_seat_and_the_observer_list(local: Local) -> None:
    """16 bettors take seat 4 at once: exactly one sits, every other is told seat_occupied; then
    16 join the watchers at once: all 16 are listed. Every change is one event: the table's
    feed is gap-free, each seat and watcher change reported exactly once."""
    with local.client() as http:
        table_id, _ = open_shoe(http)
    answers: dict[str, httpx.Response] = {}

    def sitter(n: int) -> Callable[[], None]:
        def work() -> None:
            with local.client() as http:
                answers[f"p{n}"] = _until_decided(
                    lambda: http.put(
                        f"/v1/tables/{table_id}/seats/4",
                        json={"bettor_id": f"p{n}", "balance": 10_000},
                    )
                )

        return work

    in_parallel([sitter(n) for n in range(THREADS)])
    seated = [b for b, r in answers.items() if r.status_code == 200]
    assert len(seated) == 1, {b: r.text for b, r in answers.items()}
    refused = {r.json()["error"]["code"] for b, r in answers.items() if b not in seated}
    assert refused == {"seat_occupied"}

    def watcher(n: int) -> Callable[[], None]:
        def work() -> None:
            with local.client() as http:
                r = _until_decided(lambda: http.put(f"/v1/tables/{table_id}/watchers/w{n}"))
                assert r.status_code == 200, r.text

        return work

    in_parallel([watcher(n) for n in range(THREADS)])
    with local.client() as http:
        page = http.get(f"/v1/tables/{table_id}/events", params={"limit": 100}).json()
    got = page["events"]
    assert [e["seq"] for e in got] == list(range(1, len(got) + 1))  # gap-free, in order
    assert [e["type"] for e in got].count("seat_taken") == 1
    assert got[[e["type"] for e in got].index("seat_taken")]["data"]["bettor_id"] == seated[0]
    joined = sorted(e["data"]["bettor_id"] for e in got if e["type"] == "watcher_joined")
    assert joined == sorted(f"w{n}" for n in range(THREADS))
