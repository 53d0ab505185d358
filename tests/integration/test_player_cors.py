"""CORS on exactly the player routes (docs/design/browsers.md §1, http/cors.py): a browser's
preflight answered 204 with the methods a token may use there, ``Access-Control-Allow-Origin: *``
on every answer of a player route (errors too), nothing changed elsewhere (no ACAO; an
``OPTIONS`` stays 405); and template.yaml routes each player path's preflight, unauthorised, to
the function serving the path."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.routing import APIRoute
from starlette.testclient import TestClient
from support.stack import Api, Stack, new_table

from baccarat_api.http.app import create_app
from baccarat_api.http.player import PLAYER_ROUTES
from baccarat_api.http.routers import all_routers
from baccarat_dev.template import TEMPLATE, load, routes

ORIGIN = {"Origin": "https://casino.example"}


@pytest.fixture
def client(stack: Stack) -> Iterator[TestClient]:
    with TestClient(create_app(*all_routers()), raise_server_exceptions=False) as c:
        yield c


def app_paths() -> set[tuple[str, str]]:
    return {
        (m, r.path)
        for r in create_app(*all_routers()).routes
        if isinstance(r, APIRoute)
        for m in r.methods
    }


def test_preflight_of_each_player_path_and_none_elsewhere(client: TestClient) -> None:
    served = app_paths()
    for path in sorted({r.path for r in PLAYER_ROUTES}):
        methods = sorted({r.method for r in PLAYER_ROUTES if r.path == path})
        if not any((m, path) in served for m in methods):
            continue  # chat and the lobby: not in the app yet
        url = path.format(table_id="tbl_" + "a" * 16, bettor_id="alice", seat=1,
                          round_id="tbl_" + "a" * 16 + "_s1_r1")  # fmt: skip
        r = client.options(url, headers={**ORIGIN, "Access-Control-Request-Method": methods[0]})
        assert r.status_code == 204, (path, r.text)
        assert r.headers["access-control-allow-origin"] == "*"
        assert r.headers["access-control-allow-methods"] == ", ".join(methods)
        assert r.headers["access-control-allow-headers"] == (
            "authorization, content-type, idempotency-key, if-none-match"
        )
        assert r.headers["access-control-max-age"] == "600"
    for url in ("/v1/tables/tbl_aaaaaaaaaaaaaaaa/shoes", "/v1/rounds", "/v1/events"):
        r = client.options(url, headers={**ORIGIN, "Access-Control-Request-Method": "GET"})
        assert r.status_code == 405 and "access-control-allow-origin" not in r.headers


def test_every_answer_of_a_player_route_is_readable_by_a_browser(
    client: TestClient, stack: Stack
) -> None:
    api = Api(stack.key_a)
    t = new_table(api)
    token = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "alice", "role": "seat"}).body
    bearer = {**ORIGIN, "Authorization": f"Bearer {token['token']}"}
    ok = client.get(f"/v1/tables/{t}/state", headers=bearer)
    assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == "*"
    assert "etag" in ok.headers["access-control-expose-headers"]
    refused = client.delete(f"/v1/tables/{t}/bets/bob", headers=bearer)
    assert refused.status_code == 403 and refused.headers["access-control-allow-origin"] == "*"
    bad = client.get(f"/v1/tables/{t}/state", headers={**ORIGIN, "Authorization": "Bearer x"})
    assert bad.status_code == 401 and bad.headers["access-control-allow-origin"] == "*"
    # an operator route, even with a token: no CORS (the browser cannot read it)
    op = client.post(f"/v1/tables/{t}/shoes", json={"client_seed": "x"}, headers=bearer)
    assert op.status_code == 403 and "access-control-allow-origin" not in op.headers
    # the operator-only method of a player path neither
    seat = client.put(f"/v1/tables/{t}/seats/1", json={}, headers=bearer)
    assert "access-control-allow-origin" not in seat.headers


def test_the_template_routes_each_preflight_unauthorised_to_the_paths_function() -> None:
    template = load(TEMPLATE)["Resources"]
    by_key = {r.route_key: r.function for r in routes(preflight=True)}
    auth = {
        f"{e['Properties']['Method'].upper()} {e['Properties']['Path']}": e["Properties"].get(
            "Auth"
        )
        for res in template.values()
        if res.get("Type") == "AWS::Serverless::Function"
        for e in res["Properties"].get("Events", {}).values()
        if e.get("Type") == "HttpApi"
    }
    for path in sorted({r.path for r in PLAYER_ROUTES}):
        served = {by_key[f"{r.method} {path}"] for r in PLAYER_ROUTES
                  if r.path == path and f"{r.method} {path}" in by_key}  # fmt: skip
        if not served:
            continue  # chat and the lobby: not in the template yet
        assert by_key.get(f"OPTIONS {path}") in served, path
        assert auth[f"OPTIONS {path}"] == {"Authorizer": "NONE"}
    assert not any(r.method == "OPTIONS" for r in routes())


def test_a_preflight_through_the_lambda_handler_of_its_function(stack: Stack) -> None:
    """As API Gateway delivers it (no authorizer on the OPTIONS route): the function's app
    answers it before any route."""
    from support.stack import LambdaContext, function_module, http_api_event

    for route in routes(preflight=True):
        if route.method != "OPTIONS":
            continue
        path = route.path.format(table_id="tbl_" + "a" * 16, bettor_id="alice", seat=1,
                                 round_id="tbl_" + "a" * 16 + "_s1_r1")  # fmt: skip
        headers = {"origin": "https://casino.example", "access-control-request-method": "GET"}
        event = http_api_event("OPTIONS", path, route, headers=headers)
        out = function_module(route.code_uri).handler(event, LambdaContext(route.function))
        assert out["statusCode"] == 204, (route.route_key, out)
        got = {k.lower(): v for k, v in out["headers"].items()}
        assert got["access-control-allow-origin"] == "*"
        assert got["access-control-max-age"] == "600"
