"""Over HTTP (real API Gateway v2 events): a settlement while a card is face
down is ``409 cards_not_shown`` — retryable, the step and its ``reveal_by`` in ``details``, a
``Retry-After`` — and changes nothing anyone sees (the round, the feed, the state's balances,
the shoe's history); once the squeezer has opened every card it settles. A table created with
``squeeze_seconds: 0`` settles at once."""

from __future__ import annotations

from support.stack import Api


def _table(api: Api, **fields: object) -> tuple[str, str]:
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house", **fields}
    table = api.post("/v1/tables", body)
    assert table.status == 201, table.body
    t = table.body["table_id"]
    shoe = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "face down"})
    assert shoe.status == 201, shoe.body
    assert api.call("PUT", f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000,
                                                       "level": 3}).status == 200  # fmt: skip
    return t, shoe.body["shoe_id"]


def _deal_alices_banker(api: Api, t: str, shoe_id: str) -> dict[str, object]:
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    slip = {"bets": [{"type": "banker", "amount": 1000}]}
    assert api.call("PUT", f"/v1/tables/{t}/bets/alice", slip).status == 200
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"from_book": True})
    assert dealt.status == 201, dealt.body
    body: dict[str, object] = dealt.body
    return body


def test_a_settlement_while_a_card_is_face_down_is_409_and_changes_nothing(api: Api) -> None:
    t, shoe_id = _table(api)
    dealt = _deal_alices_banker(api, t, shoe_id)
    rid = dealt["round_id"]
    before = api.get(f"/v1/tables/{t}/state").body
    early = api.post(f"/v1/rounds/{rid}/settlement")
    assert early.status == 409
    assert (early.error["code"], early.error["retryable"]) == ("cards_not_shown", True)
    details = early.error["details"]
    assert (details["round_id"], details["step"]) == (rid, "initial")
    assert details["reveal_by"] == dealt["squeeze"]["steps"]["initial"]["reveal_by"]  # type: ignore[index]
    assert 1 <= int(early.headers["retry-after"]) <= 10
    after = api.get(f"/v1/tables/{t}/state").body
    assert after["seq"] == before["seq"] and after["seats"] == before["seats"]
    assert api.get(f"/v1/rounds/{rid}").body["settlement"] is None
    assert api.get(f"/v1/shoes/{shoe_id}").body["history"] == []
    kinds = [e["type"] for e in api.get(f"/v1/tables/{t}/events").body["events"]]
    assert "round_settled" not in kinds
    # alice (the squeezer) opens every card: the initial ones, then the third cards if any
    reveal = f"/v1/rounds/{rid}/reveal"
    assert api.post(reveal, {"bettor_id": "alice", "step": "initial"}).status == 200
    if "draws" in dealt["squeeze"]["steps"]:  # type: ignore[operator]
        assert api.post(f"/v1/rounds/{rid}/settlement").error["details"]["step"] == "draws"
        assert api.post(reveal, {"bettor_id": "alice", "step": "draws"}).status == 200
    settled = api.post(f"/v1/rounds/{rid}/settlement")
    assert settled.status == 200, settled.body
    assert api.get(f"/v1/shoes/{shoe_id}").body["history"][0]["result"] == dealt["result"]


def test_a_table_without_a_squeeze_settles_at_once(api: Api) -> None:
    t, shoe_id = _table(api, squeeze_seconds=0)
    assert api.get(f"/v1/tables/{t}").body["squeeze_seconds"] == 0
    dealt = _deal_alices_banker(api, t, shoe_id)
    assert dealt["squeeze"]["steps"] == {}  # type: ignore[index]
    assert api.post(f"/v1/rounds/{dealt['round_id']}/settlement").status == 200
