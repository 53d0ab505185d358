"""Live tables over HTTP (real API Gateway v2 events through each route's Lambda handler, moto
behind): presence answers and refusals with their statuses, and the table feed's ETag / 304."""

from __future__ import annotations

from support.stack import Api, new_table, star_city_bets


def table(api: Api, **fields: str) -> str:
    return new_table(api, **fields)


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


def test_the_squeeze_and_the_state_over_http(api: Api) -> None:
    t = new_table(api, squeeze_seconds=10)
    state = api.get(f"/v1/tables/{t}/state")
    assert state.status == 200 and state.function == "ReadFunction"
    assert (state.body["phase"], state.body["shoe"], state.body["round"]) == ("idle", None, None)
    shoe = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "squeeze"}).body["shoe_id"]
    dealt = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": star_city_bets()}).body
    initial = dealt["squeeze"]["steps"]["initial"]
    assert (initial["status"], initial["revealed_at"]) == ("squeezing", None)
    path = f"/v1/rounds/{dealt['round_id']}/reveal"
    nobody = api.post(path, {"bettor_id": "bob", "step": "initial"})
    assert (nobody.status, nobody.error["code"]) == (409, "not_squeezer")
    assert nobody.error["details"]["squeezers"] == ["alice"]
    bad = api.post(path, {"bettor_id": "alice", "step": "third"})
    assert (bad.status, bad.error["code"]) == (400, "invalid_request")
    # the table shows the first cards only, counting down to the initial reveal_by
    now = api.get(f"/v1/tables/{t}/state").body
    assert (now["phase"], now["deadline"]) == ("squeeze", initial["reveal_by"])
    assert [c["code"] is None for c in now["round"]["cards"]] == [False, False, True, True]
    assert now["round"]["result"] is None and now["shoe"]["rounds_dealt"] == 1
    opened = api.post(path, {"bettor_id": "alice", "step": "initial"})
    assert opened.status == 200 and opened.function == "SettleBetsFunction"
    assert opened.body["squeeze"]["steps"]["initial"]["status"] == "revealed"
    twice = api.post(path, {"bettor_id": "alice", "step": "initial"})
    assert (twice.status, twice.error["code"]) == (409, "already_revealed")
    after = api.get(f"/v1/tables/{t}/state")
    shown = [c for c in after.body["round"]["cards"] if c["index"] <= 2]
    assert all(c["code"] is not None for c in shown) and after.body["seq"] == opened.body["seq"]
    same = api.get(f"/v1/tables/{t}/state", headers={"If-None-Match": after.headers["etag"]})
    assert same.status == 304
    got = api.get(f"/v1/rounds/{dealt['round_id']}").body["squeeze"]["steps"]["initial"]
    assert got["hands"]["player"]["opened"]["by"] == "alice"
    urge = api.post(f"/v1/tables/{t}/urge", {"bettor_id": "alice"})
    assert (urge.status, urge.error["code"]) == (422, "player_banker_not_allowed")
    banked = table(api, banking="player_banker")
    api.call("PUT", f"/v1/tables/{banked}/banker", {"bettor_id": "pat", "balance": 35_000})
    refused = api.post(f"/v1/tables/{banked}/urge", {"bettor_id": "alice"})
    assert (refused.status, refused.error["code"]) == (409, "not_player_banker")
    pressed = api.post(f"/v1/tables/{banked}/urge", {"bettor_id": "pat"})
    assert pressed.status == 200 and pressed.function == "ShuffleCommitFunction"
    assert pressed.body == {"table_id": banked, "round_id": None, "seq": 2}


def test_the_betting_window_over_http(api: Api) -> None:
    t = table(api)
    closed = api.post(f"/v1/tables/{t}/betting")
    assert (closed.status, closed.error["code"]) == (409, "no_open_shoe")
    shoe = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "book"}).body["shoe_id"]
    alone = api.post(f"/v1/tables/{t}/betting")
    assert (alone.status, alone.error["code"]) == (409, "company_required")
    assert alone.error["details"] == {"missing": ["seated_bettor"]}
    api.call("PUT", f"/v1/tables/{t}/seats/3", {"bettor_id": "alice", "balance": 50_000})
    opened = api.post(f"/v1/tables/{t}/betting")
    assert opened.status == 200 and opened.function == "DealAndResolveFunction"
    assert opened.body["betting"]["status"] == "open" and opened.body["seats"] == {}
    twice = api.post(f"/v1/tables/{t}/betting")
    assert (twice.status, twice.error["code"]) == (409, "betting_in_progress")
    slip = f"/v1/tables/{t}/bets/alice"
    put = api.call("PUT", slip, {"bets": [{"type": "banker", "amount": 2000}]})
    assert put.status == 200 and put.body["seats"]["3"]["total"] == 2000
    over = api.call("PUT", slip, {"bets": [{"type": "banker", "amount": 2050}]})
    assert (over.status, over.error["code"]) == (422, "not_chip_multiple")
    stranger = api.call(
        "PUT", f"/v1/tables/{t}/bets/zed", {"bets": [{"type": "tie", "amount": 100}]}
    )
    assert (stranger.status, stranger.error["code"]) == (409, "not_at_table")
    empty = api.call("PUT", slip, {"bets": []})
    assert empty.status == 400
    assert api.call("DELETE", slip).body["seats"] == {}
    api.call("PUT", slip, {"bets": [{"type": "player", "amount": 1000}]})
    explicit = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": []})
    assert (explicit.status, explicit.error["code"]) == (409, "betting_in_progress")
    both = api.post(f"/v1/shoes/{shoe}/rounds", {"from_book": True, "bets": []})
    assert (both.status, both.error["code"]) == (422, "bets_or_from_book")
    dealt = api.post(f"/v1/shoes/{shoe}/rounds", {"from_book": True})
    assert dealt.status == 201 and [(b["bettor_id"], b["seat"]) for b in dealt.body["bets"]] == [
        ("alice", 3)
    ]
    late = api.call("PUT", slip, {"bets": [{"type": "player", "amount": 2000}]})
    assert (late.status, late.error["code"]) == (409, "betting_closed")
    # the dealt slip again (a PUT retried after its answer was lost): its book, dealt
    retried = api.call("PUT", slip, {"bets": [{"type": "player", "amount": 1000}]})
    assert retried.status == 200 and retried.body["betting"]["status"] == "dealt"
    unsettled = api.post(f"/v1/tables/{t}/betting")
    assert (unsettled.status, unsettled.error["code"]) == (409, "round_unsettled")
    feed = api.get(f"/v1/tables/{t}/events", query="after=0&limit=50").body["events"]
    assert [e["type"] for e in feed][-6:] == [
        "betting_opened", "bet_placed", "bet_cancelled", "bet_placed", "betting_closed",
        "round_dealt",
    ]  # fmt: skip
