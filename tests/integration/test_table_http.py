"""Live tables over HTTP (real API Gateway v2 events through each route's Lambda handler, moto
behind): presence answers and refusals with their statuses, and the table feed's ETag / 304."""

from __future__ import annotations

from support.stack import Api


def table(api: Api, **fields: str) -> str:
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house", **fields}
    out = api.post("/v1/tables", body)
    assert out.status == 201, out.body
    return str(out.body["table_id"])


def test_presence_over_http(api: Api) -> None:
    t = table(api, banking="player_banker")
    seat = api.call("PUT", f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    assert seat.status == 200 and seat.function == "ShuffleCommitFunction"
    assert seat.body["seats"] == {"1": {"bettor_id": "alice", "balance": 50_000, "level": None}}
    taken = api.call("PUT", f"/v1/tables/{t}/seats/1", {"bettor_id": "bob", "balance": 50_000})
    assert (taken.status, taken.error["code"]) == (409, "seat_occupied")
    poor = api.call("PUT", f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 1})
    assert (poor.status, poor.error["code"]) == (422, "below_min_balance")
    assert api.call("PUT", f"/v1/tables/{t}/seats/8", {"bettor_id": "b", "balance": 5}).status == (
        400
    )
    banker = api.call("PUT", f"/v1/tables/{t}/banker", {"bettor_id": "pb", "balance": 35_000})
    assert banker.status == 200 and banker.body["banker"]["bettor_id"] == "pb"
    watch = api.call("PUT", f"/v1/tables/{t}/watchers/wendy")
    assert watch.status == 200 and watch.body["watchers"] == ["wendy"]
    bad = api.call("PUT", f"/v1/tables/{t}/watchers/not%20an%20id")
    assert bad.status in (400, 404)
    spect = api.call("PUT", f"/v1/tables/{t}/spectators/sam", {"balance": 5_000})
    assert (spect.status, spect.error["code"]) == (422, "spectator_betting_not_allowed")
    assert api.call("DELETE", f"/v1/tables/{t}/watchers/wendy").body["watchers"] == []
    assert api.call("DELETE", f"/v1/tables/{t}/banker").body["banker"] is None
    left = api.call("DELETE", f"/v1/tables/{t}/seats/1")
    assert left.status == 200 and left.body["seats"] == {} and left.body["seq"] == 6
    again = api.call("DELETE", f"/v1/tables/{t}/seats/1")
    assert (again.status, again.error["code"]) == (404, "not_found")
    other = api.call("PUT", f"/v1/tables/{t}/watchers/x", key="bk_not_a_key")
    assert other.status == 401


def test_the_feed_answers_304_while_nothing_happened(api: Api) -> None:
    t = table(api)
    path = f"/v1/tables/{t}/events"
    empty = api.get(path)
    assert empty.status == 200 and empty.body == {
        "table_id": t, "events": [], "next_after": 0, "more": False,
    }  # fmt: skip
    api.call("PUT", f"/v1/tables/{t}/watchers/wendy")
    page = api.get(path, query="after=0&limit=10")
    assert page.status == 200 and [e["type"] for e in page.body["events"]] == ["watcher_joined"]
    assert page.body["events"][0]["event_id"] == f"{t}:1"
    tag = page.headers["etag"]
    same = api.get(path, query="after=0&limit=10", headers={"If-None-Match": tag})
    assert same.status == 304 and same.headers["etag"] == tag
    api.call("DELETE", f"/v1/tables/{t}/watchers/wendy")
    moved = api.get(path, query="after=0&limit=10", headers={"If-None-Match": tag})
    assert moved.status == 200 and moved.headers["etag"] != tag
    assert [e["seq"] for e in moved.body["events"]] == [1, 2]
    assert api.get(path, query="limit=101").status == 400
    assert api.get("/v1/tables/tbl_zzzzzzzzzzzzzzzz/events").status == 404
