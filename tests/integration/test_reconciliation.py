"""Reconciliation through the handlers (real HTTP API v2 events, the template's tables on moto):
``GET /v1/rounds`` pages through the RoundsByDay index and ``GET /v1/reports/daily`` is the sum
of the day's settlements and voids, one operator's alone."""

from __future__ import annotations

from typing import Any

from support.stack import Api, star_city_bets

from baccarat_api.clock import now

TABLE = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def play(api: Api, tables: int = 2, rounds: int = 4) -> tuple[list[str], list[dict[str, Any]]]:
    ids, money = [], []
    for t in range(tables):
        table_id = api.post("/v1/tables", TABLE).body["table_id"]
        shoe = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": f"t{t}"}).body["shoe_id"]
        for n in range(rounds):
            rid = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": star_city_bets()}).body["round_id"]
            ids.append(rid)
            if n == 1:
                r = api.post(f"/v1/rounds/{rid}/void", {"reason": "misdeal"})
            elif n < rounds - 1:
                r = api.post(f"/v1/rounds/{rid}/settlement")
            else:
                continue  # left dealt
            assert r.status == 200, r.body
            money.append(r.body)
    return ids, money


def test_the_report_and_the_listing_over_the_index(api: Api) -> None:
    ids, money = play(api)
    day = now()[:10]
    r = api.call("GET", "/v1/reports/daily", query=f"date={day}")
    assert r.status == 200 and r.function == "ReadFunction", r.body
    (total,) = r.body["totals"]
    assert (total["currency"], total["minor_unit_exponent"]) == ("XCN", 0)
    settled = [m for m in money if not m["voided"]]
    assert (total["rounds"], total["voided"], total["dealt"]) == (8, 2, 2)
    assert total["settled"] == len(settled) == 4
    assert total["house_take"] == sum(m["house"]["take"] for m in settled)
    assert total["staked"] == sum(line["stake"] for m in settled for line in m["lines"])
    assert sum(total["nets"].values()) + total["house_take"] == 0
    assert r.body["final"] is False and len(r.body["tables"]) == 2

    seen = [x["round_id"] for x in pages(api, "limit=3")]
    assert sorted(seen) == sorted(ids) and len(set(seen)) == len(seen)
    dealt = pages(api, "status=dealt")
    assert [x["status"] for x in dealt] == ["dealt", "dealt"]
    table = ids[0].rsplit("_s", 1)[0]
    mine = api.call("GET", "/v1/rounds", query=f"table_id={table}").body["rounds"]
    assert [x["round_id"] for x in mine] == ids[:4]


def pages(api: Api, query: str) -> list[dict[str, Any]]:
    """Every round of a listing, following next_cursor."""
    out, cursor = [], ""
    for _ in range(100):
        page = api.call("GET", "/v1/rounds", query=query + cursor)
        assert page.status == 200, page.body
        out += page.body["rounds"]
        if page.body["next_cursor"] is None:
            return out
        cursor = f"&cursor={page.body['next_cursor']}"
    raise AssertionError("the listing never ended")


def test_typed_errors_and_another_operators_day(api: Api) -> None:
    play(api, tables=1, rounds=2)
    bad = api.call("GET", "/v1/rounds", query="from=2026-01-02&to=2026-01-01")
    assert (bad.status, bad.body["error"]["code"]) == (422, "invalid_range")
    for garbage in ("xyz", "x" * 600):  # any length: the same code
        bad = api.call("GET", "/v1/rounds", query=f"cursor={garbage}")
        assert (bad.status, bad.body["error"]["code"]) == (422, "invalid_cursor")
    bad = api.call("GET", "/v1/reports/daily", query="date=tomorrow")
    assert (bad.status, bad.body["error"]["code"]) == (400, "invalid_request")
    bad = api.call("GET", "/v1/reports/daily", query="date=2026-02-30")
    assert (bad.status, bad.body["error"]["code"]) == (422, "invalid_range")
    assert api.call("GET", "/v1/rounds", key=False).status == 401
