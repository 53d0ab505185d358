"""The sweep's idle close, raced for real: the local server on DynamoDB Local,
sweeps run in threads of this process against the same tables and KMS (moto's server).

* Many sweeps at once on one idle shoe: it is closed exactly once — one ``shoe_ended`` event,
  one end — and its proof verifies.
* Sweeps racing dealers on one shoe: whatever the interleaving, the shoe ends once, every
  round dealt is in its proof (a deal after the close answers 409 ``shoe_ended``, none is lost
  or dealt after the end) and the proof verifies.

The sweeps run "an hour later" (``at``): no test waits for the idle time. Bounded: every
thread joins within the deadline; loopback only."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import httpx
import pytest
from support.local_server import local_server

from baccarat.verify import verify_proof
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.kms import KmsVault
from baccarat_api.clock import seconds_after
from baccarat_api.service import auto_settle
from live.test_races_live import in_parallel

DEADLINE_SECONDS = 60
LATER = "2999-01-01T00:00:00.000Z"


class Local:
    def __init__(self, server: Any) -> None:
        self.server = server

    def client(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.server.url,
            headers={"authorization": f"Bearer {self.server.key}"},
            timeout=15,
        )

    def _aws(self, service: str, url: str) -> Any:
        return boto3.client(
            service,
            endpoint_url=url,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )

    def repo(self) -> DynamoRepository:
        return DynamoRepository(
            self._aws("dynamodb", self.server.dynamodb_url),
            self.server.tables["StateTable"],
            self.server.tables["ConfigTable"],
        )

    def vault(self) -> KmsVault:
        """The server's secrets key on moto's KMS (the only symmetric key there)."""
        kms = self._aws("kms", self.server.moto_url)
        keys = [k["KeyArn"] for k in kms.list_keys()["Keys"]]
        secrets = [
            arn
            for arn in keys
            if kms.describe_key(KeyId=arn)["KeyMetadata"]["KeySpec"] == "SYMMETRIC_DEFAULT"
        ]
        assert len(secrets) == 1, secrets
        return KmsVault(kms, secrets[0])

    def sweep(self, at: str) -> auto_settle.SweepReport:
        return auto_settle.sweep(self.repo(), at=at, unseal=self.vault())


@pytest.fixture(scope="module")
def local(shared_dynamodb: Any) -> Iterator[Local]:
    env = {"BACCARAT_SWEEP_SECONDS": "0", "RATE_LIMIT_PER_SECOND": "0"}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        yield Local(server)


def open_shoe(http: httpx.Client) -> tuple[str, str]:
    """A table without a squeeze (its rounds shown, so its shoe closable, at the deal) with a
    bettor seated (a round is dealt only in company; bid-squeeze: no idle removal, so rounds
    nobody bets on go on) and its shoe."""
    body = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
            "squeeze_seconds": 0}  # fmt: skip
    table = http.post("/v1/tables", json=body)
    assert table.status_code == 201, table.text
    table_id = table.json()["table_id"]
    seat = {"bettor_id": "alice", "balance": 50_000, "level": 3}
    assert http.put(f"/v1/tables/{table_id}/seats/1", json=seat).status_code == 200
    shoe = http.post(f"/v1/tables/{table_id}/shoes", json={"client_seed": str(uuid.uuid4())})
    assert shoe.status_code == 201, shoe.text
    return table_id, shoe.json()["shoe_id"]


def ended_events(http: httpx.Client, table_id: str) -> list[dict[str, Any]]:
    """Every ``shoe_ended`` event of the table's feed (all pages)."""
    found: list[dict[str, Any]] = []
    after = 0
    for _ in range(100):
        page = http.get(f"/v1/tables/{table_id}/events?after={after}&limit=100").json()
        found += [e for e in page["events"] if e["type"] == "shoe_ended"]
        after = page["next_after"]
        if not page["more"]:
            return found
    raise AssertionError("the feed did not end")


def test_many_sweeps_close_an_idle_shoe_once(local: Local) -> None:
    with local.client() as http:
        table_id, shoe_id = open_shoe(http)
        for _ in range(3):
            assert http.post(f"/v1/shoes/{shoe_id}/rounds", json={"bets": []}).status_code == 201
        close_by = http.get(f"/v1/shoes/{shoe_id}").json()["close_by"]
    reports: list[auto_settle.SweepReport] = []
    lock = threading.Lock()

    def sweeper() -> None:
        report = local.sweep(seconds_after(close_by, 1))
        with lock:
            reports.append(report)

    in_parallel([sweeper for _ in range(8)])
    closed = Counter(s for r in reports for s in r.closed)
    failed = [f for r in reports for f in r.failed if f.startswith(shoe_id)]
    print(f"\nidle close by 8 sweeps: closed {dict(closed)}, failed {failed}")
    # closed once: one end, one event (the sweeps' closes share one write id: a sweep whose
    # write lost to another's finds its own write id on the shoe and reports that one close)
    assert closed[shoe_id] >= 1 and failed == []
    with local.client() as http:
        shoe = http.get(f"/v1/shoes/{shoe_id}").json()
        assert (shoe["status"], shoe["end_reason"], shoe["rounds_dealt"]) == ("ended", "closed", 3)
        assert len(ended_events(http, table_id)) == 1
        proof = http.get(f"/v1/shoes/{shoe_id}/proof").json()
    assert verify_proof(proof).ok and len(proof["rounds"]) == 3
    assert local.sweep(LATER).closed.count(shoe_id) == 0


def test_sweeps_racing_dealers_end_the_shoe_once_and_lose_no_round(local: Local) -> None:
    with local.client() as http:
        table_id, shoe_id = open_shoe(http)
    dealt: list[dict[str, Any]] = []
    refused: Counter[str] = Counter()
    lock = threading.Lock()
    stop = time.monotonic() + DEADLINE_SECONDS / 2

    def dealer() -> None:
        with local.client() as http:
            while time.monotonic() < stop:
                r = http.post(f"/v1/shoes/{shoe_id}/rounds", json={"bets": []})
                if r.status_code == 201:
                    with lock:
                        dealt.append(r.json())
                    continue
                code = r.json()["error"]["code"]
                with lock:
                    refused[code] += 1
                if code == "shoe_ended":
                    return
                assert r.json()["error"]["retryable"] is True, r.text

    def sweeper() -> None:
        while time.monotonic() < stop:
            if shoe_id in local.sweep(LATER).closed:
                return

    in_parallel([dealer, dealer, dealer, sweeper, sweeper])
    print(f"\nidle close vs deals: {len(dealt)} dealt, refused {dict(refused)}")
    with local.client() as http:
        shoe = http.get(f"/v1/shoes/{shoe_id}").json()
        assert shoe["status"] == "ended"
        assert len(ended_events(http, table_id)) == 1
        proof = http.get(f"/v1/shoes/{shoe_id}/proof").json()
    assert verify_proof(proof).ok
    # every round dealt (answered 201) is in the proof, and nothing else (two identical
    # requests racing at one state are one write: both may be answered the same round)
    rounds = {r["round_number"]: r for r in dealt}
    assert all(r == rounds[r["round_number"]] for r in dealt)
    assert sorted(rounds) == list(range(1, len(rounds) + 1))
    assert [r["round_number"] for r in proof["rounds"]] == sorted(rounds)
    assert shoe["rounds_dealt"] == len(rounds)
    assert all(r["dealt_at"] <= proof["ended_at"] for r in dealt)
