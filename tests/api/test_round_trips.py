"""DynamoDB round trips per request, counted with botocore's event hooks on the service's own
client, on a warm container (operator key and derived shoe already cached). Pinned: a change
that adds a round trip fails here. Budgets: deal ≤ 2, settle ≤ 2, commit ≤ 3, reads ≤ 1.
docs/quick-tour.md quotes these numbers; the last test keeps it honest."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from baccarat_api import runtime
from baccarat_api.template import REPO_ROOT

from .conftest import Api, Response, star_city_bets

#: route → (DynamoDB calls, KMS calls) on a warm container.
EXPECTED: dict[str, tuple[int, int]] = {
    "GET /v1/tiers": (1, 0),
    "POST /v1/tables": (2, 1),
    "GET /v1/tables/{table_id}": (1, 0),
    "POST /v1/tables/{table_id}/shoes": (2, 2),
    "POST /v1/shoes/{shoe_id}/rounds": (2, 0),
    "POST /v1/rounds/{round_id}/settlement": (2, 0),
    "POST /v1/rounds/{round_id}/settlement (again)": (1, 0),
    "GET /v1/rounds/{round_id}": (1, 0),
    "GET /v1/shoes/{shoe_id}": (1, 0),
    "POST /v1/shoes/{shoe_id}/close": (2, 1),
    "GET /v1/shoes/{shoe_id}/proof": (1, 0),
}
BUDGET = {"rounds": 2, "settlement": 2, "shoes": 3, "GET": 1}


class Calls:
    def __init__(self) -> None:
        self.dynamodb: Counter[str] = Counter()
        self.kms: Counter[str] = Counter()

    def hook(self, service: str) -> Callable[..., None]:
        def count(event_name: str, **_: Any) -> None:
            getattr(self, service)[event_name.rsplit(".", 1)[-1]] += 1

        return count


@pytest.fixture
def calls(api: Api) -> Calls:
    c = Calls()
    rt = runtime.get_runtime()
    rt.dynamodb.meta.events.register("before-call.dynamodb", c.hook("dynamodb"))
    rt.kms.meta.events.register("before-call.kms", c.hook("kms"))
    return c


def measure(calls: Calls, fn: Callable[[], Response]) -> tuple[Response, int, int, Counter[str]]:
    calls.dynamodb.clear()
    calls.kms.clear()
    r = fn()
    assert r.status < 300, r.body
    return r, sum(calls.dynamodb.values()), sum(calls.kms.values()), Counter(calls.dynamodb)


def test_round_trips_per_route_on_a_warm_container(api: Api, calls: Calls) -> None:
    measured: dict[str, tuple[int, int]] = {}
    detail: dict[str, Counter[str]] = {}

    def run(name: str, fn: Callable[[], Response]) -> Response:
        r, ddb, kms, ops = measure(calls, fn)
        measured[name], detail[name] = (ddb, kms), ops
        return r

    api.get("/v1/tiers")  # warm: the operator key is now cached
    run("GET /v1/tiers", lambda: api.get("/v1/tiers"))
    table = run(
        "POST /v1/tables",
        lambda: api.post(
            "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
        ),
    ).body
    run("GET /v1/tables/{table_id}", lambda: api.get(f"/v1/tables/{table['table_id']}"))
    shoe = run(
        "POST /v1/tables/{table_id}/shoes",
        lambda: api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "rt"}),
    ).body
    api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds")  # warm: the shoe is now derived
    rnd = run(
        "POST /v1/shoes/{shoe_id}/rounds",
        lambda: api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"bets": star_city_bets()}),
    ).body
    settle = f"/v1/rounds/{rnd['round_id']}/settlement"
    run("POST /v1/rounds/{round_id}/settlement", lambda: api.post(settle))
    run("POST /v1/rounds/{round_id}/settlement (again)", lambda: api.post(settle))
    run("GET /v1/rounds/{round_id}", lambda: api.get(f"/v1/rounds/{rnd['round_id']}"))
    run("GET /v1/shoes/{shoe_id}", lambda: api.get(f"/v1/shoes/{shoe['shoe_id']}"))
    run("POST /v1/shoes/{shoe_id}/close", lambda: api.post(f"/v1/shoes/{shoe['shoe_id']}/close"))
    run(
        "GET /v1/shoes/{shoe_id}/proof",
        lambda: api.get(f"/v1/shoes/{shoe['shoe_id']}/proof", key=None),
    )

    print("\nround trips (DynamoDB, KMS) per route, warm:")
    for name, (ddb, kms) in measured.items():
        print(f"  {name:48} {ddb}  {kms}   {dict(detail[name])}")
    assert measured == EXPECTED
    assert detail["POST /v1/shoes/{shoe_id}/rounds"] == {"GetItem": 1, "TransactWriteItems": 1}
    for name, (ddb, _) in measured.items():
        for marker, budget in BUDGET.items():
            if marker in name:
                assert ddb <= budget, (name, ddb, budget)


def test_the_last_round_of_a_shoe_is_still_one_transaction(api: Api, calls: Calls) -> None:
    """The round that ends the shoe also frees the table and publishes the proof — in the same
    TransactWriteItems."""
    table = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body
    shoe_id = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "x"}).body[
        "shoe_id"
    ]
    for _ in range(29):
        api.post(f"/v1/shoes/{shoe_id}/rounds")
    r, ddb, kms, ops = measure(calls, lambda: api.post(f"/v1/shoes/{shoe_id}/rounds"))
    assert r.body["shoe_status"] == "ended"
    assert (ddb, kms) == (2, 0) and ops == {"GetItem": 1, "TransactWriteItems": 1}


def test_cold_paths_cost_what_they_should(api: Api, calls: Calls) -> None:
    """A cold container looks the key up once (+1 GetItem) and decrypts a shoe once (+1 KMS)."""
    shoe_id = api.post(
        "/v1/tables/" + api.post(
            "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
        ).body["table_id"] + "/shoes",
        {"client_seed": "cold"},
    ).body["shoe_id"]  # fmt: skip
    rt = runtime.get_runtime()
    rt.key_cache.clear()
    rt.shoes.clear()
    _, ddb, kms, ops = measure(calls, lambda: api.post(f"/v1/shoes/{shoe_id}/rounds"))
    assert (ddb, kms) == (3, 1) and ops["GetItem"] == 2
    _, ddb, kms, _ = measure(calls, lambda: api.post(f"/v1/shoes/{shoe_id}/rounds"))
    assert (ddb, kms) == (2, 0)


def test_quick_tour_quotes_the_measured_counts() -> None:
    text = (REPO_ROOT / "docs" / "quick-tour.md").read_text(encoding="utf-8")
    for name, (ddb, kms) in EXPECTED.items():
        row = re.search(rf"^\| `{re.escape(name)}` \| (\d+) \| (\d+) \|", text, re.MULTILINE)
        assert row, f"docs/quick-tour.md has no row for {name}"
        assert (int(row[1]), int(row[2])) == (ddb, kms), name
