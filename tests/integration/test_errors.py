"""One error envelope for everything, with the right status and the API Gateway request id."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.stack import Api, Response, Stack, open_shoe, star_city_bets

from baccarat.fairness import MAX_CLIENT_SEED_BYTES
from baccarat_api.runtime import get_runtime
from baccarat_api.service.models import ErrorOut


def assert_envelope(r: Response, status: int, code: str, *, retryable: bool = False) -> None:
    assert r.status == status, r.body
    ErrorOut.model_validate(r.body)
    assert r.error["code"] == code, r.body
    assert r.error["retryable"] is retryable
    assert r.error["request_id"] == r.request_id  # the API Gateway request id
    assert r.headers["x-request-id"] == r.request_id
    assert r.headers["content-type"] == "application/json"


# --- 401 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer ", "Basic abc", "bk_x", "Bearer not-a-known-key", "Bearer a b"],
)
def test_routes_need_a_known_operator_key(api: Api, authorization: str | None) -> None:
    headers = {} if authorization is None else {"authorization": authorization}
    for method, path in [("GET", "/v1/tiers"), ("POST", "/v1/tables")]:
        r = api.call(method, path, {}, key=False, headers=headers)
        assert_envelope(r, 401, "unauthorized")


def test_a_revoked_key_is_refused_once_the_cache_expires(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTH_CACHE_SECONDS", "0")
    from baccarat_api import runtime

    runtime.reset()
    assert api.get("/v1/tiers").status == 200
    from baccarat_api.apikeys import hash_key

    stack.dynamodb.update_item(
        TableName=stack.repo.config,
        Key={"pk": {"S": f"KEY#{hash_key(stack.key_a)}"}, "sk": {"S": "KEY"}},
        UpdateExpression="SET revoked = :t",
        ExpressionAttributeValues={":t": {"BOOL": True}},
    )
    assert_envelope(api.get("/v1/tiers"), 401, "unauthorized")


# --- 400: schema -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"profile": "star-city", "tier": "star-city-fun"}, "banking"),
        ({"profile": "nope", "tier": "star-city-fun", "banking": "house"}, "profile"),
        ({"profile": "star-city", "tier": "star-city-fun", "banking": "house", "x": 1}, "x"),
        (
            {"profile": "star-city", "tier": "t", "banking": "house", "chain_length": "10"},
            "chain_length",
        ),
        (
            {"profile": "star-city", "tier": "t", "banking": "house", "chain_length": 0},
            "chain_length",
        ),
        ([1, 2], ""),
    ],
)
def test_schema_violations_are_400_invalid_request(api: Api, body: Any, loc: str) -> None:
    r = api.post("/v1/tables", body)
    assert_envelope(r, 400, "invalid_request")
    errors = r.error["details"]["errors"]
    assert errors and all(set(e) == {"loc", "msg", "type"} for e in errors)
    assert any(loc in e["loc"] for e in errors) or not loc


def test_malformed_json_and_base64_bodies(api: Api) -> None:
    assert_envelope(api.post("/v1/tables", raw_body="{not json"), 400, "invalid_request")
    ok = api.post(
        "/v1/tables",
        raw_body=json.dumps({"profile": "star-city", "tier": "star-city-fun", "banking": "house"}),
        base64_body=True,
    )
    assert ok.status == 201, ok.body


def test_client_seed_is_at_most_256_utf8_bytes(api: Api) -> None:
    table_id = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body["table_id"]
    path = f"/v1/tables/{table_id}/shoes"
    too_long = "é" * (MAX_CLIENT_SEED_BYTES // 2) + "x"  # 257 bytes, 129 characters
    assert_envelope(api.post(path, {"client_seed": too_long}), 400, "invalid_request")
    assert_envelope(api.post(path, {"client_seed": 7}), 400, "invalid_request")
    assert_envelope(api.post(path, {}), 400, "invalid_request")
    assert_envelope(api.post(path, raw_body='{"client_seed": "\\ud800"}'), 400, "invalid_request")
    exactly = "é" * (MAX_CLIENT_SEED_BYTES // 2)  # 256 bytes
    r = api.post(path, {"client_seed": exactly})
    assert r.status == 201 and r.body["client_seed"] == exactly


@pytest.mark.parametrize(
    "change",
    [
        {"amount": 100.0},
        {"amount": "100"},
        {"amount": True},
        {"type": "dragon_tiger"},
        {"role": "dealer"},
        {"payout": 100},
        {"result": "player"},
    ],
)
def test_bets_are_strict(api: Api, change: dict[str, Any]) -> None:
    shoe_id = open_shoe(api)
    bet = {**star_city_bets()[0], **change}
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": [bet]})
    assert_envelope(r, 400, "invalid_request")
    assert api.get(f"/v1/shoes/{shoe_id}").body["rounds_dealt"] == 0


def test_outcome_fields_cannot_be_sent(api: Api) -> None:
    shoe_id = open_shoe(api)
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"result": "player"})
    assert_envelope(r, 400, "invalid_request")


# --- 422: refused bets and tables --------------------------------------------------------------


def test_a_refused_bet_names_bettor_bet_limit_and_attempt(api: Api) -> None:
    shoe_id = open_shoe(api)
    bets = star_city_bets()
    bets[2] = {**bets[2], "amount": 6000}  # bob: Player above the 5000 area limit
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": bets})
    assert_envelope(r, 422, "above_area_limit")
    assert r.error["details"] == {
        "bettor_id": "bob",
        "bet_index": 2,
        "bet_type": "player",
        "limit": 5000,
        "attempted": 6000,
    }
    # nothing was dealt: the refusal comes before the round is recorded
    assert api.get(f"/v1/shoes/{shoe_id}").body["rounds_dealt"] == 0


def test_a_bet_type_the_profile_does_not_offer(api: Api) -> None:
    shoe_id = open_shoe(api)
    bet = {**star_city_bets()[0], "type": "lucky6"}
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": [bet]})
    assert_envelope(r, 422, "bet_type_not_offered")


@pytest.mark.parametrize(
    "body",
    [
        {"profile": "star-city", "tier": "no-such-tier", "banking": "house"},
        {"profile": "star-city", "tier": "bid-squeeze-standard", "banking": "house"},
        {"profile": "bid-squeeze", "tier": "bid-squeeze-high", "banking": "house",
         "banker_pays": "1"},
    ],
)  # fmt: skip
def test_table_configurations_refused(api: Api, body: dict[str, Any]) -> None:
    assert_envelope(api.post("/v1/tables", body), 422, "invalid_table")


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"currency": "USD"}, "currency_mismatch"),  # the fun tier is in coins
        ({"minor_unit_exponent": 2}, "currency_mismatch"),
        ({"currency": "ABC"}, "unknown_currency"),
    ],
)
def test_a_table_in_another_currency_than_its_tier_is_refused(
    api: Api, fields: dict[str, Any], code: str
) -> None:
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house", **fields}
    r = api.post("/v1/tables", body)
    assert_envelope(r, 422, code)
    if code == "currency_mismatch":
        assert r.body["error"]["details"]["tier_currency"] == "XCN"
    ok = api.post("/v1/tables", {**body, **dict.fromkeys(fields)})  # the fields absent: accepted
    assert ok.status == 201 and (ok.body["currency"], ok.body["minor_unit_exponent"]) == ("XCN", 0)


# --- 404, 405 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/v1/tables/tbl_aaaaaaaaaaaaaaaa",
        "/v1/tables/not-an-id",
        "/v1/shoes/tbl_aaaaaaaaaaaaaaaa_s1",
        "/v1/shoes/garbage",
        "/v1/rounds/tbl_aaaaaaaaaaaaaaaa_s1_r1",
        "/v1/rounds/tbl_aaaaaaaaaaaaaaaa_s1_r0",
    ],
)
def test_unknown_resources_are_404(api: Api, path: str) -> None:
    assert_envelope(api.get(path), 404, "not_found")


def test_unknown_routes_and_methods(stack: Stack) -> None:
    """Routes API Gateway would not send are still answered in the envelope (make run)."""
    import asyncio

    import httpx

    from baccarat_api.http.app import create_app
    from baccarat_api.http.routers import all_routers

    async def calls() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=create_app(*all_routers()))
        async with httpx.AsyncClient(transport=transport, base_url="http://local") as client:
            return [
                await client.get("/v2/nothing"),
                await client.delete("/v1/tiers"),
                await client.post("/v1/tables", content=b"x" * 300_000),
            ]

    loop = asyncio.new_event_loop()  # not asyncio.run: it would unset mangum's event loop
    try:
        missing, wrong_method, too_big = loop.run_until_complete(calls())
    finally:
        loop.close()
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["code"] == "method_not_allowed"
    assert too_big.status_code == 413
    assert too_big.json()["error"]["code"] == "payload_too_large"
    assert too_big.json()["error"]["request_id"] == too_big.headers["x-request-id"]


# --- 5xx: our side -----------------------------------------------------------------------------


class _FakeHttp:
    status_code = 400
    headers: dict[str, str] = {}  # noqa: RUF012
    text = ""
    content = b""


def inject(client: Any, operation: str, code: str) -> None:
    """Make every ``operation`` call of ``client`` fail with ``code`` (after the SDK's own
    retries, as a fault-injecting client would)."""

    def fail(**_: Any) -> tuple[Any, dict[str, Any]]:
        return _FakeHttp(), {"Error": {"Code": code, "Message": "injected"}}

    service = client.meta.service_model.endpoint_prefix
    client.meta.events.register(f"before-call.{service}.{operation}", fail)


@pytest.mark.parametrize(
    ("operation", "code"),
    [
        ("TransactWriteItems", "ProvisionedThroughputExceededException"),
        ("TransactWriteItems", "TransactionConflictException"),
        ("BatchGetItem", "ThrottlingException"),  # the deal reads the shoe + the live state
        ("BatchGetItem", "InternalServerError"),
    ],
)
def test_dynamodb_throttling_and_conflicts_are_retryable_503(
    api: Api, operation: str, code: str, logs: list[str]
) -> None:
    shoe_id = open_shoe(api)
    api.present(shoe_id.rsplit("_s", 1)[0], {"bets": star_city_bets()})  # before the fault
    inject(get_runtime().dynamodb, operation, code)
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
    assert_envelope(r, 503, "unavailable", retryable=True)
    warned = [json.loads(x) for x in logs if "dependency unavailable" in x]
    assert warned and warned[-1]["correlation_id"] == r.request_id


def test_kms_throttling_is_retryable_503(api: Api) -> None:
    inject(get_runtime().kms, "GenerateDataKey", "ThrottlingException")
    r = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    )
    assert_envelope(r, 503, "unavailable", retryable=True)


def test_a_cancelled_transaction_with_a_conflict_reason_is_503(api: Api) -> None:
    shoe_id = open_shoe(api)
    api.present(shoe_id.rsplit("_s", 1)[0], {"bets": []})  # the deal's company, before the fault

    def cancel(**_: Any) -> tuple[Any, dict[str, Any]]:
        return _FakeHttp(), {
            "Error": {"Code": "TransactionCanceledException", "Message": "injected"},
            "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}],
        }

    get_runtime().dynamodb.meta.events.register("before-call.dynamodb.TransactWriteItems", cancel)
    assert_envelope(
        api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}), 503, "unavailable", retryable=True
    )


def test_unexpected_errors_are_500_in_the_envelope(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from baccarat_api.service import reading

    def boom(*_: Any) -> Any:
        raise KeyError("a bug")

    monkeypatch.setattr(reading, "list_tiers", boom)
    assert_envelope(api.get("/v1/tiers"), 500, "internal_error")
