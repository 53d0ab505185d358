"""The lobby over HTTP (API Gateway v2 events through the read function's handler, moto behind):
``GET /v1/tables`` pages in number order with its ETag and 304, refuses a bad cursor or limit
with typed errors, never lists another operator's tables; ``POST /v1/tables`` answers a taken
number 409; ``GET /lobby`` is the page, its one script allowed by hash."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from support.stack import Api, LambdaContext, function_module, http_api_event

TABLE = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def test_the_lobby_pages_in_number_order_with_an_etag(api: Api, stack: Any) -> None:
    made = {n: api.post("/v1/tables", {**TABLE, "number": n, "name": f"T{n}"}) for n in (5, 2, 9)}
    assert all(r.status == 201 and r.body["number"] == n for n, r in made.items())
    auto = api.post("/v1/tables", TABLE)
    assert (auto.status, auto.body["number"], auto.body["name"]) == (201, 1, None)
    taken = api.post("/v1/tables", {**TABLE, "number": 5})
    assert (taken.status, taken.error["code"]) == (409, "table_number_taken")
    assert taken.error["details"] == {"number": 5, "table_id": made[5].body["table_id"]}
    other = Api(stack.key_b)
    assert other.post("/v1/tables", {**TABLE, "number": 5}).status == 201  # per operator

    first = api.get("/v1/tables", query="limit=3")
    assert first.status == 200 and first.function == "ReadFunction"
    assert [t["number"] for t in first.body["tables"]] == [1, 2, 5]
    assert first.headers["cache-control"] == "max-age=2"
    rest = api.get("/v1/tables", query=f"limit=3&after={first.body['next']}")
    assert [t["number"] for t in rest.body["tables"]] == [9] and rest.body["next"] is None
    same = api.get("/v1/tables", query="limit=3", headers={"If-None-Match": first.headers["etag"]})
    assert same.status == 304
    assert [t["number"] for t in other.get("/v1/tables").body["tables"]] == [5]


def test_bad_cursors_and_limits_are_typed_errors(api: Api) -> None:
    for cursor in ("x", "l1.AAAA", "f1.MQ", "l1." + "A" * 200):
        r = api.get("/v1/tables", query=f"after={cursor}")
        assert (r.status, r.error["code"]) == (422, "invalid_cursor"), cursor
    for limit in ("0", "51", "x"):
        r = api.get("/v1/tables", query=f"limit={limit}")
        assert (r.status, r.error["code"]) == (400, "invalid_request"), limit
    assert api.get("/v1/tables", key=None).status == 401
    bad = api.post("/v1/tables", {**TABLE, "name": "evil\u202eemanr"})
    assert (bad.status, bad.error["code"]) == (400, "invalid_request")
    assert api.post("/v1/tables", {**TABLE, "number": 0}).status == 400


def test_the_lobby_page_is_public_and_runs_only_its_own_script(api: Api) -> None:
    route = api.route("GET", "/lobby")
    assert route.function == "ReadFunction"
    out = function_module(route.code_uri).handler(
        http_api_event("GET", "/lobby", route), LambdaContext(route.function)
    )
    body = out["body"]
    html = base64.b64decode(body).decode() if out.get("isBase64Encoded") else str(body)
    assert out["statusCode"] == 200 and "<title>Lobby" in html
    (script,) = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = out["headers"]["content-security-policy"]
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp
    assert "textContent" in script and "innerHTML" not in script  # names are text, never markup


def test_a_lobby_token_reads_the_lobby_from_a_browser_and_nothing_else(api: Api) -> None:
    """What the lobby page does: a lobby token (no table, no person) reads the operator's
    lobby, with CORS (a browser on the operator's origin may read it); any other route is
    refused with its code."""
    api.post("/v1/tables", {**TABLE, "number": 4, "name": "Four"})
    token = api.post("/v1/lobby-tokens", {"ttl_seconds": 600}).body["token"]
    page = api.get("/v1/tables", key=token, headers={"Origin": "https://casino.example"})
    assert page.status == 200 and [t["number"] for t in page.body["tables"]] == [4]
    assert page.headers.get("access-control-allow-origin") == "*"
    assert page.body == api.get("/v1/tables").body
    other = api.get(f"/v1/tables/{page.body['tables'][0]['table_id']}", key=token)
    assert (other.status, other.error["code"]) == (403, "token_route_forbidden")
