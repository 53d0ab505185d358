"""Hostile input: size limits (bets per round, body size, client seed), strict schemas (unknown
fields refused; a client can never send an outcome, a payout, a status or an operator), and the
per-operator rate limit (429 ``rate_limited`` in the envelope, with Retry-After). Every refusal is
a typed 4xx in the one envelope and changes nothing."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from support.stack import TABLE_NAMES, Api, Response, Stack, open_shoe, star_city_bets

from baccarat_api import limits, runtime
from baccarat_api.ratelimit import RateLimiter
from baccarat_dev.openapi import OPENAPI_JSON

from .test_errors import assert_envelope


def state(stack: Stack) -> str:
    items = stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
    return json.dumps(sorted(items, key=lambda i: (i["pk"]["S"], i["sk"]["S"])), default=str)


def a_round(api: Api) -> tuple[str, str]:
    shoe_id = open_shoe(api)
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []})
    assert dealt.status == 201, dealt.body
    return shoe_id, str(dealt.body["round_id"])


# --- strict schemas: what a client may never send ----------------------------------------------

#: Fields that would let a caller dictate an outcome, a payout, a status or an operator.
FORBIDDEN = [
    "result", "outcome", "player", "banker", "cards", "natural",    # the outcome
    "payout", "payouts", "net", "nets", "lines", "house", "settlement", "multiplier",  # money
    "status", "shoe_status", "settled", "voided", "auto_settled", "end_reason",  # status
    "operator_id", "operator", "tenant",                            # the operator
    "server_seed", "start", "cursor", "version",                    # the shoe's own state
]  # fmt: skip
FORBIDDEN_IN_A_BET = ["payout", "result", "outcome", "net", "grade", "status", "operator_id"]


def post_routes(api: Api) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every POST route with a valid body, on real resources of the caller."""
    shoe_id, round_id = a_round(api)
    table_id = shoe_id.rsplit("_s", 1)[0]
    api.post(f"/v1/shoes/{shoe_id}/close")  # so the commit below would succeed
    deal_shoe = open_shoe(api)
    api.present(deal_shoe.rsplit("_s", 1)[0], {"bets": star_city_bets()})  # its company
    return {
        "create table": (
            "/v1/tables",
            {"profile": "star-city", "tier": "star-city-fun", "banking": "house"},
        ),
        "commit shoe": (f"/v1/tables/{table_id}/shoes", {"client_seed": "s"}),
        "deal": (f"/v1/shoes/{deal_shoe}/rounds", {"bets": star_city_bets()}),
        "settle": (f"/v1/rounds/{round_id}/settlement", {}),
        "void": (f"/v1/rounds/{round_id}/void", {"reason": "misdeal"}),
    }


@pytest.mark.parametrize("field", FORBIDDEN)
def test_no_route_accepts_outcome_money_status_or_operator_fields(
    api: Api, stack: Stack, field: str
) -> None:
    routes = post_routes(api)
    before = state(stack)
    for name, (path, body) in routes.items():
        r = api.post(path, {**body, field: "player" if field == "result" else 1})
        assert_envelope(r, 400, "invalid_request")
        if name == "settle":  # a settlement takes no body at all, and says so
            assert "takes no body" in r.error["message"] and field in r.error["message"]
        else:
            assert any(field in e["loc"] for e in r.error["details"]["errors"]), (name, r.body)
    assert state(stack) == before


def test_a_settlement_carrying_bets_or_a_player_banker_is_refused_and_changes_nothing(
    api: Api, stack: Stack
) -> None:
    _, round_id = a_round(api)
    before = state(stack)
    for body in (
        {"bets": star_city_bets()},
        {"bets": []},
        {"player_banker": {"bettor_id": "pb", "balance": 10**6}},
    ):
        r = api.post(f"/v1/rounds/{round_id}/settlement", body)
        assert_envelope(r, 400, "invalid_request")
        assert "bets were locked when it was dealt" in r.error["message"]
    assert state(stack) == before
    for empty in (None, {}):  # no body, or {}: settles
        assert api.post(f"/v1/rounds/{round_id}/settlement", empty).status == 200


@pytest.mark.parametrize("field", FORBIDDEN_IN_A_BET)
def test_no_bet_carries_its_own_payout_or_result(api: Api, stack: Stack, field: str) -> None:
    routes = post_routes(api)
    before = state(stack)
    for name in ("deal",):
        path, body = routes[name]
        bets = [{**star_city_bets()[0], field: 1}]
        r = api.post(path, {**body, "bets": bets})
        assert_envelope(r, 400, "invalid_request")
        assert any(field in e["loc"] for e in r.error["details"]["errors"]), (name, r.body)
    assert state(stack) == before


def test_a_query_string_cannot_name_an_operator(api: Api, stack: Stack) -> None:
    table_id = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body["table_id"]
    from baccarat_api.http.app import create_app
    from baccarat_api.http.routers import all_routers

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(*all_routers()))
        async with httpx.AsyncClient(transport=transport, base_url="http://local") as client:
            return await client.get(
                f"/v1/tables/{table_id}?operator_id=operator-a&operator=operator-a",
                headers={"authorization": f"Bearer {stack.key_b}", "x-operator-id": "operator-a"},
            )

    assert run(call()).status_code == 404


# --- size limits -------------------------------------------------------------------------------


def test_the_limits_are_data_in_one_place_and_the_contract_says_them() -> None:
    doc = json.loads(OPENAPI_JSON.read_text(encoding="utf-8"))
    schemas = doc["components"]["schemas"]
    for name in ("DealRequest",):
        bets = schemas[name]["properties"]["bets"]
        (array,) = [s for s in bets.get("anyOf", [bets]) if s.get("type") == "array"]
        assert array["maxItems"] == limits.MAX_BETS_PER_ROUND
    seed = schemas["CommitShoeRequest"]["properties"]["client_seed"]
    assert seed["maxLength"] == limits.CLIENT_SEED_BYTES == 256
    assert schemas["BetIn"]["properties"]["bettor_id"]["maxLength"] == limits.MAX_ID_LENGTH


def test_bets_per_round_are_bounded(api: Api, stack: Stack) -> None:
    shoe_id = open_shoe(api, "bid-squeeze", "bid-squeeze-standard")
    spectator = {"role": "spectator", "type": "player", "amount": 100, "balance": 10**9}
    too_many = [{"bettor_id": f"s{i}", **spectator} for i in range(limits.MAX_BETS_PER_ROUND + 1)]
    before = state(stack)
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": too_many}, present=False)
    assert_envelope(r, 400, "invalid_request")
    assert r.error["details"]["errors"][0]["loc"] == ["body", "bets"]
    assert str(limits.MAX_BETS_PER_ROUND) in r.error["message"]
    assert state(stack) == before
    # at the limit the schema lets it through (the table's own rules then judge the bets)
    at_limit = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": too_many[:-1]})
    assert at_limit.status != 400, at_limit.body


@pytest.mark.parametrize(
    "seed",
    [
        "x" * 257,  # 257 bytes
        "é" * 129,  # 258 bytes in 129 characters
        "\U0001f0a1" * 65,  # 260 bytes in 65 characters (4-byte playing cards)
    ],
)
def test_client_seeds_over_256_utf8_bytes(api: Api, stack: Stack, seed: str) -> None:
    table_id = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body["table_id"]
    before = state(stack)
    assert_envelope(
        api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": seed}), 400, "invalid_request"
    )
    assert state(stack) == before
    fits = "\U0001f0a1" * 64  # exactly 256 bytes
    ok = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": fits})
    assert ok.status == 201 and ok.body["client_seed"] == fits


def run(coro: Any) -> Any:
    loop = asyncio.new_event_loop()  # not asyncio.run: it would unset mangum's event loop
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def test_a_body_past_the_limit_is_413_even_without_content_length(stack: Stack) -> None:
    """A chunked upload (no Content-Length) is counted as it arrives: 413 in the envelope once
    it passes the limit, before anything is parsed."""
    from baccarat_api.http.app import create_app
    from baccarat_api.http.routers import all_routers

    async def chunks(total: int) -> AsyncIterator[bytes]:
        sent = 0
        while sent < total:
            yield b" " * 8192
            sent += 8192

    async def calls() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=create_app(*all_routers()))
        headers = {"authorization": f"Bearer {stack.key_a}", "content-type": "application/json"}
        async with httpx.AsyncClient(transport=transport, base_url="http://local") as client:
            big = await client.post(
                "/v1/tables", content=chunks(limits.MAX_BODY_BYTES + 8192), headers=headers
            )
            small = await client.post("/v1/tables", content=chunks(8192), headers=headers)
            return [big, small]

    big, small = run(calls())
    assert "content-length" not in big.request.headers
    assert big.status_code == 413 and big.json()["error"]["code"] == "payload_too_large"
    assert big.json()["error"]["request_id"] == big.headers["x-request-id"]
    assert small.status_code == 400 and small.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 50_000 + "]" * 50_000,  # deep nesting
        '{"client_seed": "a", "client_seed": 1}',  # duplicate key (last wins: not a string)
        '{"client_seed": "a"}' + "x",  # trailing garbage
        "\ufeff{}",  # BOM
        '{"client_seed": "' + "\\u0000" * 10 + '"}',  # NUL characters are a seed like any other
    ],
)
def test_odd_json_is_a_4xx_never_a_5xx(api: Api, raw: str) -> None:
    table_id = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body["table_id"]
    r: Response = api.post(f"/v1/tables/{table_id}/shoes", raw_body=raw)
    assert r.status < 500, r.body
    if r.status >= 400:
        assert_envelope(r, r.status, r.error["code"])


@pytest.mark.parametrize(
    "change",
    [{"amount": 10**16}, {"amount": -(10**16)}, {"balance": 10**100}, {"seat": -1},
     {"bettor_id": ""}, {"bettor_id": "x" * 65}, {"level": 10**6}],
)  # fmt: skip
def test_numbers_and_ids_out_of_range(api: Api, change: dict[str, Any]) -> None:
    shoe_id = open_shoe(api)
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": [{**star_city_bets()[0], **change}]})
    assert_envelope(r, 400, "invalid_request")


# --- the per-operator rate limit ---------------------------------------------------------------


def test_the_token_bucket() -> None:
    now = [100.0]
    bucket = RateLimiter(rate=2.0, burst=3, clock=lambda: now[0])
    assert [bucket.wait_seconds("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.wait_seconds("a") == pytest.approx(0.5)
    assert bucket.wait_seconds("b") == 0.0  # another operator has its own bucket
    now[0] += 0.5
    assert bucket.wait_seconds("a") == 0.0  # one token back after 1/rate seconds
    assert bucket.wait_seconds("a") == pytest.approx(0.5)
    now[0] += 60
    assert [bucket.wait_seconds("a") for _ in range(4)][-1] > 0  # refills to burst, no more
    assert RateLimiter(rate=0, burst=1).wait_seconds("a") == 0.0  # rate 0: off


def test_an_operator_over_its_rate_gets_429_in_the_envelope(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    shoe_id = open_shoe(api)
    monkeypatch.setenv("RATE_LIMIT_PER_SECOND", "0.001")  # no refill within the test
    monkeypatch.setenv("RATE_LIMIT_BURST", "3")
    runtime.reset()
    assert runtime.get_runtime().limiter.burst == 3
    for _ in range(3):
        assert api.get(f"/v1/shoes/{shoe_id}").status == 200
    before = state(stack)
    limited = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
    assert_envelope(limited, 429, "rate_limited", retryable=True)
    seconds = limited.error["details"]["retry_after_seconds"]
    assert seconds >= 1 and limited.headers["retry-after"] == str(seconds)
    assert state(stack) == before  # the refused deal dealt nothing
    # the other operator is not slowed down by this one
    assert Api(stack.key_b).get("/v1/tiers").status == 200
    # an unauthenticated request is refused as such (401), not counted against anyone
    assert api.get("/v1/tiers", key=False).status == 401


def test_the_limits_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from baccarat_api.settings import Settings

    monkeypatch.setenv("STATE_TABLE", "state")  # the settings every function needs
    monkeypatch.setenv("CONFIG_TABLE", "config")
    monkeypatch.delenv("RATE_LIMIT_PER_SECOND", raising=False)
    monkeypatch.delenv("RATE_LIMIT_BURST", raising=False)
    defaults = Settings.from_env()
    assert defaults.rate_limit_per_second == limits.RATE_LIMIT_PER_SECOND
    assert defaults.rate_limit_burst == limits.RATE_LIMIT_BURST
    monkeypatch.setenv("RATE_LIMIT_PER_SECOND", "7.5")
    monkeypatch.setenv("RATE_LIMIT_BURST", "9")
    assert (Settings.from_env().rate_limit_per_second, Settings.from_env().rate_limit_burst) == (
        7.5,
        9,
    )


def test_the_template_throttles_every_route_and_the_costly_or_public_ones_more() -> None:
    """HttpApi route throttling (API Gateway's own 429, its own body): a default for every
    route, tighter per-route settings on the routes that call KMS and on the public ones, all
    naming real routes; the app's per-operator bucket defaults to the stage's default."""
    from baccarat_dev.template import load, routes

    t = load()
    api = t["Resources"]["HttpApi"]["Properties"]
    default = api["DefaultRouteSettings"]
    assert default == {
        "ThrottlingRateLimit": {"Ref": "ThrottlingRateLimit"},
        "ThrottlingBurstLimit": {"Ref": "ThrottlingBurstLimit"},
    }
    params = t["Parameters"]
    assert params["ThrottlingRateLimit"]["Default"] == limits.RATE_LIMIT_PER_SECOND
    assert params["ThrottlingBurstLimit"]["Default"] == limits.RATE_LIMIT_BURST
    per_route = api["RouteSettings"]
    assert set(per_route) <= {r.route_key for r in routes()}
    kms_routes = {"POST /v1/tables", "POST /v1/tables/{table_id}/shoes",
                  "POST /v1/shoes/{shoe_id}/close"}  # fmt: skip
    assert kms_routes | {"GET /v1/shoes/{shoe_id}/proof"} <= set(per_route)
    for key, settings in per_route.items():
        for name in ("ThrottlingRateLimit", "ThrottlingBurstLimit"):
            param = params[settings[name]["Ref"]]
            assert param["Default"] < params[name]["Default"], key


# --- bad input that answered 5xx ----------------------------------------------------------------

NESTED = "[" * 2048 + "]" * 2048  # 4 KB


@pytest.mark.parametrize("raw", [NESTED, '{"a":' * 1000 + "1" + "}" * 1000, "[" * 3000])
def test_a_deeply_nested_body_on_a_route_that_takes_none_is_a_400(api: Api, raw: str) -> None:
    shoe_id = open_shoe(api)
    table_id = shoe_id.rsplit("_s", 1)[0]
    for method, path in [
        ("POST", f"/v1/shoes/{shoe_id}/close"),
        ("PUT", f"/v1/tables/{table_id}/watchers/wendy"),
        ("DELETE", f"/v1/tables/{table_id}/seats/1"),
        ("POST", f"/v1/tables/{table_id}/shoes"),  # a route that takes a body
    ]:
        r = api.call(method, path, raw_body=raw)
        assert_envelope(r, 400, "invalid_request")
    assert api.get(f"/v1/shoes/{shoe_id}").body["status"] == "open"  # nothing changed


@pytest.mark.parametrize(
    "query",
    ["from=9999-12-31", "from=9999-12-31T23:59:59.999Z", "from=9999-12-30&to=9999-12-31",
     "to=0001-01-01", "from=0001-01-01&to=0001-01-02", "from=2026-02-30", "from=2026-13-01"],
)  # fmt: skip
def test_a_rounds_range_at_the_edges_of_the_calendar_is_a_422(api: Api, query: str) -> None:
    r = api.get("/v1/rounds", query=query)
    assert r.status < 500, r.body
    if r.status != 200:
        assert_envelope(r, 422, "invalid_range")


def _cursor(doc: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode()


def test_a_forged_or_tampered_rounds_cursor_is_422_invalid_cursor(api: Api) -> None:
    """The cursor is the caller's to hand back: anything else — garbage, a hand-made one for
    the very query (its query id is a public hash), a real one tampered with — is 422
    ``invalid_cursor``, never a 5xx and never a read from a made-up position."""
    shoe_id = open_shoe(api)
    for _ in range(3):
        assert api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}).status == 201
    first = api.get("/v1/rounds", query="limit=1")
    assert first.status == 200 and first.body["next_cursor"], first.body
    real = first.body["next_cursor"]
    doc = json.loads(base64.urlsafe_b64decode(real))
    assert api.get("/v1/rounds", query=f"limit=1&cursor={real}").status == 200
    table_id = shoe_id.rsplit("_s", 1)[0]
    forged = [
        "x", "", "%00", _cursor([1, 2]), _cursor({"q": doc["q"]}),
        _cursor("[" * 200),
        base64.urlsafe_b64encode(b"[" * 300).decode(),
        _cursor({**doc, "p": [0, "garbage"]}),
        _cursor({**doc, "p": [10**6, f"{table_id}#000001#00001"]}),
        _cursor({**doc, "p": [-1, f"{table_id}#000001#00001"]}),
        _cursor({**doc, "p": [0, "#" * 300]}),
        _cursor({**doc, "p": [0, f"{table_id}#x#y"]}),
        _cursor({**doc, "p": [0, "tbl_" + "z" * 16 + "#000001#00001" + "#" * 5]}),
        _cursor({**doc, "p": [0, "A" * 300]}),
        _cursor({**doc, "p": ["a", "b"]}),
        _cursor({**doc, "p": [0]}),
        _cursor({**doc, "d": "9999-99-99"}),
        real[:-4] + "AAAA",
    ]  # fmt: skip
    for cursor in forged:
        r = api.get("/v1/rounds", query=f"limit=1&cursor={cursor}")
        assert (r.status, r.error["code"]) == (422, "invalid_cursor"), (cursor, r.body)


@pytest.mark.parametrize("reserved", ["System", "HOUSE", "House", "Player_Banker", "pLaYeR_bAnKeR"])
def test_a_reserved_id_is_reserved_whatever_its_case(api: Api, reserved: str) -> None:
    body = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house"}
    t = api.post("/v1/tables", body).body["table_id"]
    seat = {"bettor_id": reserved, "balance": 50_000, "level": 1}
    for method, path, payload in [
        ("PUT", f"/v1/tables/{t}/seats/1", seat),
        ("PUT", f"/v1/tables/{t}/watchers/{reserved}", None),
        ("PUT", f"/v1/tables/{t}/banker", {"bettor_id": reserved, "balance": 50_000}),
    ]:
        r = api.call(method, path, payload)
        assert_envelope(r, 400, "invalid_request")
        assert "reserved" in r.error["message"], r.body
    assert api.get(f"/v1/tables/{t}/state").body["seq"] == 0


# --- the invariant: no generated query or body is ever answered 5xx -----------------------------

_SLOW = hypothesis_settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_DAYISH = st.from_regex(r"\A\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z)?\Z")


@_SLOW
@given(
    params=st.dictionaries(
        st.sampled_from(["from", "to", "cursor", "limit", "status", "table_id"]),
        st.text(max_size=40) | _DAYISH,
    )
)
def test_no_rounds_query_is_answered_5xx(api: Api, params: dict[str, str]) -> None:
    r = api.get("/v1/rounds", query=urlencode(params))
    assert r.status < 500, (params, r.body)


@_SLOW
@given(body=_JSON, route=st.sampled_from(["close", "deal", "watch", "spectate", "seat"]))
def test_no_json_body_is_answered_5xx(api: Api, body: Any, route: str) -> None:
    table = api.post("/v1/tables", {"profile": "bid-squeeze", "tier": "bid-squeeze-standard",
                                    "banking": "house"}).body["table_id"]  # fmt: skip
    shoe = f"{table}_s1"
    method, path = {
        "close": ("POST", f"/v1/shoes/{shoe}/close"),
        "deal": ("POST", f"/v1/shoes/{shoe}/rounds"),
        "watch": ("PUT", f"/v1/tables/{table}/watchers/wendy"),
        "spectate": ("PUT", f"/v1/tables/{table}/spectators/sam"),
        "seat": ("PUT", f"/v1/tables/{table}/seats/1"),
    }[route]
    r = api.call(method, path, raw_body=json.dumps(body))
    assert r.status < 500, (route, body, r.body)
