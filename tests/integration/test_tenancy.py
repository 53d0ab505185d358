"""Tenant isolation: the operator id is part of every key, so another operator's table, shoe or
round answers 404 exactly like a missing one, on EVERY route (the walk below takes the routes
from template.yaml, so a route added later is walked too, or the walk fails until it is taught
the route's body), through the FastAPI dependency (make run) and behind the Lambda authorizer
(AWS). Nothing the other operator sends changes anything. The proof and a table's fairness
summary are public."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from support.gateway import GatewayApi
from support.stack import TABLE_NAMES, Api, Response, Stack, star_city_bets

from baccarat_dev.template import routes

#: A valid body for every route that takes one, so the request gets as far as the ownership
#: check (a schema error would answer 400 for any id). A new route with a body must be added.
BODIES: dict[str, Callable[[], Any]] = {
    "POST /v1/tables/{table_id}/shoes": lambda: {"client_seed": "theirs"},
    "POST /v1/shoes/{shoe_id}/rounds": lambda: {"bets": star_city_bets()},
    "POST /v1/shoes/{shoe_id}/close": lambda: None,
    "POST /v1/rounds/{round_id}/settlement": lambda: None,
    "POST /v1/rounds/{round_id}/void": lambda: {"reason": "misdeal"},
    "PUT /v1/tables/{table_id}/seats/{seat}": lambda: {"bettor_id": "theirs", "balance": 50_000},
    "PUT /v1/tables/{table_id}/banker": lambda: {"bettor_id": "theirs", "balance": 10**6},
    "PUT /v1/tables/{table_id}/spectators/{bettor_id}": lambda: {"balance": 50_000},
    "PUT /v1/tables/{table_id}/watchers/{bettor_id}": lambda: None,
    "POST /v1/tables/{table_id}/betting": lambda: None,
    "PUT /v1/tables/{table_id}/bets/{bettor_id}": lambda: {
        "bets": [{"type": "banker", "amount": 1000}]
    },
    "POST /v1/rounds/{round_id}/reveal": lambda: {"bettor_id": "alice", "step": "initial"},
    "POST /v1/tables/{table_id}/urge": lambda: {"bettor_id": "theirs"},
    "POST /v1/tables/{table_id}/pause": lambda: None,
    "POST /v1/tables/{table_id}/resume": lambda: None,
    "POST /v1/tables/{table_id}/client-seeds": lambda: {"client_seed": "theirs"},
    "POST /v1/tables/{table_id}/chat": lambda: {"text": "hi", "bettor_id": "theirs"},
    "PUT /v1/tables/{table_id}/chat/mutes/{bettor_id}": lambda: {"seconds": 60},
    "POST /v1/tables/{table_id}/tokens": lambda: {"bettor_id": "theirs", "role": "seat"},
}
#: A valid query for every route that needs one.
QUERIES = {"DELETE /v1/tables/{table_id}/tokens": "bettor_id=theirs"}
#: Routes that name no operator resource (nothing to walk).
NO_ID = {"GET /v1/tiers", "POST /v1/tables", "GET /verify", "GET /v1/signing-keys",
         "POST /v1/lobby-tokens", "GET /lobby", "GET /table"}  # fmt: skip
#: Routes that list the caller's own resources (their isolation: the test below the walk).
LISTINGS = {"GET /v1/rounds", "GET /v1/reports/daily"}
#: The operator's own feed and webhook (no id of a table, shoe or round in the path; each read
#: under the caller's own partitions: tests/integration/test_feed_http.py and
#: test_webhooks_http.py show another operator sees none of them).
LISTINGS |= {
    "GET /v1/events", "PUT /v1/webhook", "DELETE /v1/webhook", "GET /v1/webhook/failures",
    "POST /v1/webhook/failures/{event_id}/retry",
}  # fmt: skip
#: The lobby: the caller's own numbered tables (tests/integration/test_lobby_http.py shows
#: another operator's are not listed).
LISTINGS |= {"GET /v1/tables"}
PARAMS = ("table_id", "shoe_id", "round_id")
#: Path parameters that name no resource: the same value for the owner's ids and nobody's.
FIXED = {
    "seat": "1", "bettor_id": "someone", "round_number": "1", "jti": "tk_" + "a" * 26,
    "message_id": "ch_2222222222aaaaaa",
}  # fmt: skip


def walked_routes() -> list[str]:
    keys = sorted({r.route_key for r in routes()})
    for key in keys:
        if key in NO_ID or key in LISTINGS:
            continue
        names = set(re.findall(r"{(\w+)}", key))
        assert names & set(PARAMS) and names <= set(PARAMS) | set(FIXED), (
            f"teach the tenancy walk {key!r}"
        )
        if key.startswith(("POST ", "PUT ")):
            assert key in BODIES, f"teach the tenancy walk a valid body for {key!r}"
    return [k for k in keys if k not in NO_ID and k not in LISTINGS]


def operator_items(stack: Stack, operator_id: str) -> list[Any]:
    items = stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
    mine = [i for i in items if json.dumps(i, default=str).find(f"OP#{operator_id}#") >= 0]
    return sorted(mine, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))


def a_world(api: Api, finished: bool) -> dict[str, str]:
    """Operator A's table, shoe and round: open with an unsettled round holding locked bets,
    or settled and closed."""
    table_id = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"]
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
    assert dealt.status == 201, dealt.body
    round_id = dealt.body["round_id"]
    if finished:
        assert api.post(f"/v1/rounds/{round_id}/settlement").status == 200
        assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
    return {"table_id": table_id, "shoe_id": shoe_id, "round_id": round_id}


def nobodys(ids: dict[str, str]) -> dict[str, str]:
    """Ids of the same shape and length that exist for nobody."""
    table_id = ids["table_id"]
    other = "tbl_" + ("a" if table_id[4] != "a" else "b") * 16
    return {k: v.replace(table_id, other) for k, v in ids.items()}


def normalised(r: Response, ids: dict[str, str]) -> tuple[int, str, dict[str, str]]:
    body = json.loads(json.dumps(r.body))
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body["error"].pop("request_id", None)
    text = json.dumps(body, sort_keys=True).replace(ids["table_id"], "<TABLE>")
    headers = {k: v for k, v in r.headers.items() if k.lower() != "x-request-id"}
    return r.status, text, headers


@pytest.mark.parametrize("via", ["dependency", "authorizer"])
@pytest.mark.parametrize("finished", [False, True], ids=["open", "finished"])
def test_every_route_answers_another_operators_ids_exactly_like_missing_ones(
    api: Api, stack: Stack, via: str, finished: bool
) -> None:
    ids = a_world(api, finished)
    missing = nobodys(ids)
    other: Api = GatewayApi(stack.key_b) if via == "authorizer" else Api(stack.key_b)
    before = operator_items(stack, "operator-a")
    walked = walked_routes()
    assert {"POST /v1/shoes/{shoe_id}/rounds", "GET /v1/rounds/{round_id}"} <= set(walked)
    for route_key in walked:
        method, _, template = route_key.partition(" ")
        # public: the proof route (the final proof of an ended shoe; an open shoe's 409
        # shoe_not_closed), and a table's fairness summary
        # public too: a round's public book page (the world's round has no book: 404 for
        # whoever asks, as for nobody's shoe)
        public = "/proof" in template or "/fairness" in template or "{round_number}" in template
        expected = 409 if "/proof" in template and not finished else 200
        if "{round_number}/book" in template:
            expected = 404
        for with_idempotency_key in (False, True):
            answers = []
            for which in (ids, missing):
                path = template.format(**which, **FIXED)
                body = BODIES[route_key]() if method in ("POST", "PUT") else None
                headers = {"Idempotency-Key": str(uuid.uuid4())} if with_idempotency_key else {}
                query = QUERIES.get(route_key, "")
                r = other.call(method, path, body, headers=headers, query=query)
                answers.append(normalised(r, which))
            theirs, nobody = answers
            if public:  # whoever asks
                assert theirs[0] == expected and nobody[0] == 404, route_key
                continue
            assert theirs[0] == 404, (route_key, theirs)
            assert theirs == nobody, route_key
    # nothing of operator A changed, whatever B sent
    assert operator_items(stack, "operator-a") == before


def test_the_reconciliation_listings_show_the_callers_rounds_alone(api: Api, stack: Stack) -> None:
    ids = a_world(api, finished=True)
    day = "date=" + api.get(f"/v1/rounds/{ids['round_id']}").body["dealt_at"][:10]
    mine = api.get("/v1/reports/daily", query=day).body
    assert [t["rounds"] for t in mine["totals"]] == [1]
    other = Api(stack.key_b)
    theirs = other.get("/v1/reports/daily", query=day).body
    assert theirs["totals"] == [] and theirs["tables"] == []
    for query in (f"table_id={ids['table_id']}", f"table_id={nobodys(ids)['table_id']}", ""):
        listed = other.get("/v1/rounds", query=query)
        assert listed.status == 200 and listed.body == {"rounds": [], "next_cursor": None}
    assert len(api.get("/v1/rounds", query=f"table_id={ids['table_id']}").body["rounds"]) == 1


def test_an_idempotency_key_is_never_shared_between_operators(api: Api, stack: Stack) -> None:
    """B sending A's Idempotency-Key with A's very body gets its own result, never A's
    stored response."""
    body = {
        "squeeze_seconds": 0,
        "profile": "star-city",
        "tier": "star-city-fun",
        "banking": "house",
    }
    headers = {"Idempotency-Key": "shared-key-0001"}
    mine = api.post("/v1/tables", body, headers=headers)
    assert mine.status == 201
    theirs = Api(stack.key_b).post("/v1/tables", body, headers=headers)
    assert theirs.status == 201 and theirs.body["table_id"] != mine.body["table_id"]
    assert Api(stack.key_b).get(f"/v1/tables/{mine.body['table_id']}").status == 404
    # while for A the key still replays A's own response (so the key really was in use)
    again = api.post("/v1/tables", body, headers=headers)
    assert again.status == 201 and again.body == mine.body


def test_the_proof_is_public_once_the_shoe_ended(api: Api, stack: Stack) -> None:
    table_id = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"]
    for key in (None, stack.key_b, "garbage"):  # open: the same 409 for whoever asks
        early = api.get(f"/v1/shoes/{shoe_id}/proof", key=key)
        assert (early.status, early.error["code"]) == (409, "shoe_not_closed")
    api.post(f"/v1/shoes/{shoe_id}/close")
    for key in (None, stack.key_b, "garbage"):
        assert api.get(f"/v1/shoes/{shoe_id}/proof", key=key).status == 200
