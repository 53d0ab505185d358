"""A running table over HTTP (API Gateway v2 events through each route's Lambda handler, moto
behind): created with ``"dealing": "auto"``, its answer and state show the clock; the operator's
open-betting and deal are refused ``auto_dealing``; pause and resume answer the clock. An
operator table shows ``dealing: operator`` and no clock."""

from __future__ import annotations

from support.stack import Api, new_table


def test_a_running_table_over_http(api: Api) -> None:
    t = new_table(api, dealing="auto", pause_seconds=7)
    table = api.get(f"/v1/tables/{t}")
    assert (table.body["dealing"], table.body["pause_seconds"]) == ("auto", 7)
    seat = {"bettor_id": "alice", "balance": 50_000, "level": 3}
    assert api.call("PUT", f"/v1/tables/{t}/seats/1", seat).status == 200
    shoe = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "s"})
    assert shoe.status == 201, shoe.body
    clock = api.get(f"/v1/tables/{t}/state").body["clock"]
    assert clock["dealing"] == "auto" and clock["pause_seconds"] == 7
    assert clock["paused"] is False and clock["next"]["step"] == "open"
    opened = api.post(f"/v1/tables/{t}/betting")
    assert (opened.status, opened.error["code"]) == (409, "auto_dealing")
    dealt = api.post(f"/v1/shoes/{shoe.body['shoe_id']}/rounds", {"from_book": True})
    assert (dealt.status, dealt.error["code"]) == (409, "auto_dealing")
    paused = api.post(f"/v1/tables/{t}/pause")
    assert paused.status == 200 and paused.body["paused"] is True and paused.body["next"] is None
    resumed = api.post(f"/v1/tables/{t}/resume")
    assert resumed.status == 200 and resumed.body["next"]["step"] == "open"
    kinds = [e["type"] for e in api.get(f"/v1/tables/{t}/events").body["events"]]
    assert kinds[-2:] == ["table_paused", "table_resumed"]


def test_an_operator_table_over_http_has_no_clock(api: Api) -> None:
    t = new_table(api)
    table = api.get(f"/v1/tables/{t}")
    assert (table.body["dealing"], table.body["pause_seconds"]) == ("operator", 5)
    assert api.get(f"/v1/tables/{t}/state").body["clock"] is None
    for action in ("pause", "resume"):
        r = api.post(f"/v1/tables/{t}/{action}")
        assert (r.status, r.error["code"]) == (409, "not_auto_dealing")
