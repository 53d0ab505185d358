"""Strict input at the HTTP layer: a JSON object naming a key twice —
anywhere in a body, on every route that takes one — is 400 ``invalid_request`` and changes
nothing (it used to keep the last value: ``"amount":100000000,"amount":1000`` staked 1000);
identifiers match whole (``fullmatch``: a trailing newline is not part of an id); and a path with
a trailing slash is 404 in the envelope, never a redirect to whatever the Host header said."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from support.stack import Api, Stack, open_shoe, star_city_bets

from baccarat_api.adapters.dynamodb.operators import OperatorError, check_operator_id
from baccarat_api.http.app import create_app
from baccarat_api.http.json_body import DuplicateKey, loads
from baccarat_api.http.routers import all_routers
from baccarat_api.ids import parse_round_id, parse_shoe_id, parse_table_id
from baccarat_dev.template import routes

TABLE = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def test_loads_refuses_a_repeated_key_at_any_depth_and_keeps_everything_else() -> None:
    assert loads('{"a": 1, "b": [{"c": 2, "d": {"e": 3}}]}') == {
        "a": 1,
        "b": [{"c": 2, "d": {"e": 3}}],
    }
    for raw, key in [
        ('{"a": 1, "a": 1}', "a"),
        ('{"bets": [{"amount": 100000000, "amount": 1000}]}', "amount"),
        ('[{"x": {"y": 1, "y": 2}}]', "y"),
        ('{"a": {}, "b": {}, "a": {}}', "a"),
    ]:
        with pytest.raises(DuplicateKey) as caught:
            loads(raw)
        assert caught.value.key == key and caught.value.status_code == 400
    assert loads('{"a": {"a": 1}}') == {"a": {"a": 1}}  # the same key in two objects is fine


def _dealt(stack: Stack) -> int:
    """Every round item of the state table (so a refused deal is seen to store nothing)."""
    items = stack.dynamodb.scan(TableName="test-state")["Items"]
    return sum("#ROUND#" in i["sk"]["S"] for i in items)


def _assert_refused(r: Any, key: str) -> None:
    assert r.status == 400, r.body
    assert r.error["code"] == "invalid_request" and key in r.error["message"], r.error
    assert r.error["details"]["errors"][0]["type"] == "duplicate_key"


def test_every_body_with_a_repeated_key_is_refused_and_changes_nothing(
    api: Api, stack: Stack
) -> None:
    before = stack.dynamodb.scan(TableName="test-state")["Items"]
    r = api.post("/v1/tables", raw_body='{"profile": "star-city", "tier": "star-city-fun", '
                 '"banking": "house", "banking": "player_banker"}')  # fmt: skip
    _assert_refused(r, "banking")
    assert stack.dynamodb.scan(TableName="test-state")["Items"] == before

    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    r = api.post(
        f"/v1/tables/{table_id}/shoes", raw_body='{"client_seed": "a", "client_seed": "b"}'
    )
    _assert_refused(r, "client_seed")
    assert api.get(f"/v1/tables/{table_id}").body["open_shoe_id"] is None

    shoe_id = open_shoe(api)
    bets = json.dumps({"bets": star_city_bets()})
    # the example: the first amount is over the table's maximum, the last within it
    stake = bets.replace('"amount": 2000', '"amount": 100000000, "amount": 2000', 1)
    assert stake != bets
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", raw_body=stake)
    _assert_refused(r, "amount")
    assert _dealt(stack) == 0 and api.get(f"/v1/shoes/{shoe_id}").body["rounds_dealt"] == 0

    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    for path in (f"/v1/rounds/{round_id}/settlement", f"/v1/rounds/{round_id}/void"):
        r = api.post(path, raw_body='{"reason": "misdeal", "note": "x", "note": "y"}')
        _assert_refused(r, "note")
    assert api.get(f"/v1/rounds/{round_id}").body["settlement"] is None


def test_every_route_parses_its_body_strictly() -> None:
    """create_app refuses a route that would parse JSON leniently (one place: JsonRoute)."""
    from fastapi import APIRouter

    loose = APIRouter()

    @loose.post("/v1/loose")
    def handler(body: dict[str, Any]) -> dict[str, Any]:
        return body

    create_app(*all_routers())  # every product route is strict
    with pytest.raises(TypeError, match="/v1/loose"):
        create_app(loose)


@pytest.mark.parametrize(
    "text",
    ["tbl_aaaaaaaaaaaaaaaa\n", "tbl_aaaaaaaaaaaaaaaa_s1\n", "tbl_aaaaaaaaaaaaaaaa_s1_r2\n"],
)
def test_ids_match_whole_a_trailing_newline_is_not_an_id(text: str) -> None:
    assert parse_table_id(text) is None
    assert parse_shoe_id(text) is None and parse_round_id(text) is None
    whole = text.strip()
    assert any((parse_table_id(whole), parse_shoe_id(whole), parse_round_id(whole)))


def test_an_operator_id_with_a_trailing_newline_is_refused() -> None:
    assert check_operator_id("casino-b") == "casino-b"
    for bad in ("casino-b\n", "casino-b\r\n", "\ncasino-b"):
        with pytest.raises(OperatorError):
            check_operator_id(bad)


def test_a_path_id_with_a_trailing_newline_names_nothing(api: Api) -> None:
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    assert api.get(f"/v1/tables/{table_id}").status == 200
    r = api.get(f"/v1/tables/{table_id}\n")
    assert r.status == 404 and r.error["code"] == "not_found"


@pytest.mark.parametrize("route", sorted({r.path for r in routes()}))
def test_a_trailing_slash_is_404_in_the_envelope_never_a_redirect(route: str) -> None:
    app = create_app(*all_routers(), docs=True)
    path = route.replace("{table_id}", "tbl_aaaaaaaaaaaaaaaa")
    path = path.replace("{shoe_id}", "tbl_aaaaaaaaaaaaaaaa_s1").replace(
        "{round_id}", "tbl_aaaaaaaaaaaaaaaa_s1_r1"
    )

    async def ask(method: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://evil.example") as http:
            return await http.request(method, path + "/")

    for method in ("GET", "POST"):
        loop = asyncio.new_event_loop()  # not asyncio.run: it unsets the thread's loop (mangum's)
        try:
            r = loop.run_until_complete(ask(method))
        finally:
            loop.close()
        assert r.status_code == 404, (method, path, r.status_code, r.headers)
        assert "location" not in r.headers
        assert r.json()["error"]["code"] == "not_found"


def test_a_route_that_takes_no_body_refuses_one_and_changes_nothing(api: Api) -> None:
    """docs/api.md: requests are strict, an unknown field is 400. A route that declares no body
    ignored whatever came: ``POST …/close`` with ``{"foo": 1}`` closed the shoe, a watcher's
    ``PUT`` with ``{"balance": "x"}`` joined. Nothing, or ``{}``, is still no body."""
    shoe_id = open_shoe(api)
    table_id = parse_shoe_id(shoe_id).table_id  # type: ignore[union-attr]
    r = api.post(f"/v1/shoes/{shoe_id}/close", {"foo": 1})
    assert (r.status, r.error["code"]) == (400, "invalid_request"), r.body
    assert r.error["details"]["errors"][0]["type"] == "no_body_expected"
    assert api.get(f"/v1/shoes/{shoe_id}").body["status"] == "open"
    r = api.call("PUT", f"/v1/tables/{table_id}/watchers/wendy", {"balance": "x"})
    assert (r.status, r.error["code"]) == (400, "invalid_request"), r.body
    assert api.get(f"/v1/tables/{table_id}/state").body["watchers"] == []
    assert api.call("PUT", f"/v1/tables/{table_id}/watchers/wendy", {}).status == 200
    assert api.call("DELETE", f"/v1/tables/{table_id}/watchers/wendy").status == 200
    assert api.post(f"/v1/shoes/{shoe_id}/close", raw_body=" {} ").status == 200


def test_an_empty_object_written_with_spaces_is_still_no_body(api: Api) -> None:
    """``{}`` is no body; so is the same empty object as a serialiser may write it (``{ }``,
    ``{\\n}``): it was 400 no_body_expected, refused for its whitespace."""
    shoe_id = open_shoe(api)
    table_id = parse_shoe_id(shoe_id).table_id  # type: ignore[union-attr]
    for body in ("{ }", "{\n}", "\t{  }\r\n"):
        r = api.call("PUT", f"/v1/tables/{table_id}/watchers/wendy", raw_body=body)
        assert r.status == 200, (body, r.body)
    r = api.call("PUT", f"/v1/tables/{table_id}/watchers/wendy", raw_body='{ "a": 1 }')
    assert r.status == 400 and r.error["details"]["errors"][0]["type"] == "no_body_expected"
