"""The reserved ids (the settlement's ``house`` and ``player_banker``, the squeeze's ``system``)
are refused wherever a bettor id comes in, a path as well as a body: 400 ``invalid_request``, and
the table does not change (regression: ``PUT …/spectators/house`` seated a
spectator called ``house``, whose slip then answered 500; a bettor called ``system`` could pose
as the system's reveal)."""

from __future__ import annotations

import pytest
from support.stack import Api

from baccarat_api.service.models import RESERVED_BETTOR_IDS

BANKER = [{"type": "banker", "amount": 1000}]


def test_the_reserved_names_are_exactly_the_settlements_and_the_squeezes() -> None:
    assert sorted(RESERVED_BETTOR_IDS) == ["house", "player_banker", "system"]


@pytest.mark.parametrize("reserved", sorted(RESERVED_BETTOR_IDS))
def test_no_route_takes_a_reserved_bettor_id(api: Api, reserved: str) -> None:
    body = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house"}
    t = api.post("/v1/tables", body).body["table_id"]
    assert api.post(f"/v1/tables/{t}/shoes", {"client_seed": "reserved"}).status == 201
    seated = {"bettor_id": "alice", "balance": 50_000, "level": 1}
    assert api.call("PUT", f"/v1/tables/{t}/seats/1", seated).status == 200
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    before = api.get(f"/v1/tables/{t}/state").body
    tries = [
        ("PUT", f"/v1/tables/{t}/spectators/{reserved}", {"balance": 50_000}),
        ("DELETE", f"/v1/tables/{t}/spectators/{reserved}", None),
        ("PUT", f"/v1/tables/{t}/watchers/{reserved}", None),
        ("DELETE", f"/v1/tables/{t}/watchers/{reserved}", None),
        ("PUT", f"/v1/tables/{t}/bets/{reserved}", {"bets": BANKER}),
        ("DELETE", f"/v1/tables/{t}/bets/{reserved}", None),
        ("PUT", f"/v1/tables/{t}/seats/2", {"bettor_id": reserved, "balance": 50_000, "level": 1}),
        ("PUT", f"/v1/tables/{t}/banker", {"bettor_id": reserved, "balance": 50_000}),
        ("POST", f"/v1/tables/{t}/urge", {"bettor_id": reserved}),
    ]
    for method, path, payload in tries:
        out = api.call(method, path, payload)
        assert (out.status, out.error["code"]) == (400, "invalid_request"), (method, path, out.body)
        assert "reserved" in out.error["message"], out.body
    after = api.get(f"/v1/tables/{t}/state").body
    kept = ("seq", "seats", "banker", "spectators", "watchers", "book")
    assert {k: after[k] for k in kept} == {k: before[k] for k in kept}
    shoe = before["shoe"]["shoe_id"]
    dealt = api.post(f"/v1/shoes/{shoe}/rounds", {"from_book": True}).body
    reveal = api.post(f"/v1/rounds/{dealt['round_id']}/reveal",
                      {"bettor_id": reserved, "step": "initial"})  # fmt: skip
    assert (reveal.status, reveal.error["code"]) == (400, "invalid_request")
