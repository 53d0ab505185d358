"""Tenant isolation: the operator id is part of every key, so another operator's table, shoe or
round answers 404 exactly like a missing one, on every route. The proof is public."""

from __future__ import annotations

from .conftest import Api, Stack, star_city_bets


def test_another_operators_resources_are_indistinguishable_from_missing_ones(
    api: Api, stack: Stack
) -> None:
    table_id = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"]
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    other = Api(stack.key_b)
    missing = {
        table_id: "tbl_zzzzzzzzzzzzzzzz",
        shoe_id: "tbl_zzzzzzzzzzzzzzzz_s1",
        round_id: "tbl_zzzzzzzzzzzzzzzz_s1_r1",
    }
    calls = [
        ("GET", "/v1/tables/{t}", None),
        ("POST", "/v1/tables/{t}/shoes", {"client_seed": "b"}),
        ("GET", "/v1/shoes/{s}", None),
        ("POST", "/v1/shoes/{s}/rounds", None),
        ("POST", "/v1/shoes/{s}/close", None),
        ("GET", "/v1/rounds/{r}", None),
        ("POST", "/v1/rounds/{r}/settlement", None),
    ]
    for method, template, body in calls:
        theirs = template.format(t=table_id, s=shoe_id, r=round_id)
        nobodys = template.format(t=missing[table_id], s=missing[shoe_id], r=missing[round_id])
        a = other.call(method, theirs, body)
        b = other.call(method, nobodys, body)
        assert a.status == b.status == 404, (method, template, a.body)
        ea, eb = a.error, b.error
        assert ea["code"] == eb["code"] == "not_found"
        assert ea["message"].replace(table_id, "ID") == eb["message"].replace(
            missing[table_id], "ID"
        )
    # nothing of operator A changed
    shoe = api.get(f"/v1/shoes/{shoe_id}").body
    assert shoe["status"] == "open" and shoe["rounds_dealt"] == 1
    assert api.get(f"/v1/rounds/{round_id}").body["settlement"] is None
    # B's own world is separate: B can use the same profile/tier and gets its own ids
    assert other.get("/v1/tiers").status == 200


def test_the_proof_is_public_once_the_shoe_ended(api: Api, stack: Stack) -> None:
    table_id = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"]
    assert api.get(f"/v1/shoes/{shoe_id}/proof", key=None).status == 404
    api.post(f"/v1/shoes/{shoe_id}/close")
    for key in (None, stack.key_b, "garbage"):
        assert api.get(f"/v1/shoes/{shoe_id}/proof", key=key).status == 200
