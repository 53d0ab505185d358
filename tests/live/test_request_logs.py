"""Per-request logging context under concurrency: ``make run`` serves requests concurrently
(uvicorn's event loop, handlers in worker threads), and every log line of a request carries ITS
correlation id (the ``x-request-id`` it answered) and ITS operator id — never another request's.
(They used to be process-global powertools keys: under load a line named the operator and
correlation id of whichever request had set them last.)

Two operators, 16 client threads at once, each creating tables (one ``table created`` line per
request, naming the table); afterwards every line of the server's log that names a request is
checked against who made that request."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import httpx
import pytest
from support.local_server import LocalServer, local_server

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.jobs.seed import add_operator_key

THREADS = 16
TABLES_PER_THREAD = 8
TABLE = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}


@dataclass(frozen=True)
class Made:
    request_id: str
    operator_id: str
    table_id: str


@pytest.fixture(scope="module")
def server(shared_dynamodb: Any) -> Iterator[LocalServer]:
    env = {"RATE_LIMIT_PER_SECOND": "0", "BACCARAT_SWEEP_SECONDS": "0"}
    with local_server(env, dynamodb=shared_dynamodb) as served:
        yield served


def second_operator(server: LocalServer, operator_id: str) -> str:
    client = boto3.client(
        "dynamodb",
        endpoint_url=server.dynamodb_url,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    repo = DynamoRepository(client, server.tables["StateTable"], server.tables["ConfigTable"])
    return add_operator_key(repo, operator_id)


def test_log_lines_carry_their_own_requests_operator_and_correlation_id(
    server: LocalServer,
) -> None:
    keys = {"demo-operator": server.key, "casino-b": second_operator(server, "casino-b")}
    made: list[Made] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    barrier = threading.Barrier(THREADS)

    def work(operator_id: str, k: int) -> None:
        try:
            headers = {"authorization": f"Bearer {keys[operator_id]}"}
            with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
                barrier.wait(timeout=30)
                for i in range(TABLES_PER_THREAD):
                    # numbered by the client: this test is about the logs, not about 128
                    # creations assigned numbers at once (tests/live/test_table_numbers_races.py)
                    r = http.post("/v1/tables", json={**TABLE, "number": 100 * k + i + 1})
                    assert r.status_code == 201, r.text
                    got = Made(r.headers["x-request-id"], operator_id, r.json()["table_id"])
                    with lock:
                        made.append(got)
        except BaseException as exc:  # re-raised in the test thread
            errors.append(exc)

    threads = [
        threading.Thread(target=work, args=(op, k), daemon=True)
        for k, op in enumerate([*keys] * (THREADS // 2))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[0]
    assert len(made) == THREADS * TABLES_PER_THREAD

    by_request = {m.request_id: m for m in made}
    by_table = {m.table_id: m for m in made}
    deadline = time.monotonic() + 15  # the server's pipe is drained by a thread
    while True:
        lines = [json.loads(line) for line in list(server.output) if line.startswith("{")]
        created = [line for line in lines if line.get("message") == "table created"]
        if len(created) >= len(made) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert {line["table_id"] for line in created} == set(by_table), "one line per table"
    for line in created:
        request = by_table[line["table_id"]]
        assert line.get("correlation_id") == request.request_id, line
        assert line.get("operator_id") == request.operator_id, line
    named = [line for line in lines if line.get("correlation_id") in by_request]
    for line in named:  # any other line a request wrote: still its own operator
        assert line.get("operator_id") in (None, by_request[line["correlation_id"]].operator_id)
    print(f"\n{len(made)} requests from {THREADS} threads, {len(named)} log lines checked")
