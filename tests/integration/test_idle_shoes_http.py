"""Over HTTP (real API Gateway v2 events through the functions, moto): a shoe
that is never ended hides nothing. Six rounds dealt, four voided, the shoe left open and the
operator moved to a new table: the proof route says the shoe is open (409 ``shoe_not_closed``,
not the unknown shoe's 404), the public fairness summary shows the open shoe's rounds and voids
(no card), and the scheduled sweep closes the idle shoe — once — and publishes its proof."""

from __future__ import annotations

from typing import Any

import pytest
from support.clock import service_clock
from support.stack import (
    Api,
    LambdaContext,
    function_module,
    new_shoe,
    new_table,
    scheduled_event,
    star_city_bets,
    verified_proof,
)

from baccarat_api.clock import seconds_after


def sweep_at(monkeypatch: pytest.MonkeyPatch, at: str) -> dict[str, Any]:
    """The scheduled function's run as if the clock said ``at`` (no test waits an hour)."""
    service_clock(monkeypatch).set(at)
    handler = function_module("functions/auto_settle/").handler
    out: dict[str, Any] = handler(
        scheduled_event(), LambdaContext(function_name="AutoSettleFunction")
    )
    return out


def test_an_open_shoe_with_voids_is_shown_said_open_and_closed_when_idle(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id = new_table(api)
    assert api.get(f"/v1/tables/{table_id}").body["idle_shoe_close_seconds"] == 3600
    shoe_id = new_shoe(api, table_id)
    dealt = []
    for n in range(1, 7):
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
        assert r.status == 201, r.body
        dealt.append(r.body)
        rid = r.body["round_id"]
        if n in (1, 2, 4, 5):
            assert api.post(f"/v1/rounds/{rid}/void", {"reason": "misdeal"}).status == 200
        else:
            assert api.post(f"/v1/rounds/{rid}/settlement").status == 200
    state = api.get(f"/v1/shoes/{shoe_id}").body
    assert state["status"] == "open" and state["close_by"] > dealt[-1]["dealt_at"]
    other = new_table(api)  # the operator moves on to a new table
    new_shoe(api, other)

    proof = api.get(f"/v1/shoes/{shoe_id}/proof", key=False)
    assert proof.status == 409, proof.body
    error = proof.error
    assert error["code"] == "shoe_not_closed" and error["retryable"] is True
    assert error["details"] == {
        "table_id": table_id,
        "shoe_number": 1,
        "rounds_dealt": 6,
        "voided_rounds": 4,
        "close_by": state["close_by"],
    }
    assert proof.headers.get("access-control-allow-origin") == "*"
    assert int(proof.headers["retry-after"]) > 3000
    unknown = api.get(f"/v1/shoes/{table_id}_s2/proof", key=False)
    assert (unknown.status, unknown.error["code"]) == (404, "not_found")

    summary = api.get(f"/v1/tables/{table_id}/fairness", key=False)
    never = api.get(f"/v1/tables/{other}/fairness", key=False)
    assert summary.status == never.status == 200
    assert never.body["open_shoe"]["interventions"]["rounds_dealt"] == 0
    open_shoe = summary.body["open_shoe"]
    assert open_shoe["shoe_id"] == shoe_id and open_shoe["close_by"] == state["close_by"]
    assert open_shoe["interventions"]["voided_rounds"] == 4
    assert open_shoe["interventions"]["rounds_dealt"] == 6
    assert [v["round_number"] for v in open_shoe["voids"]] == [1, 2, 4, 5]
    for r in dealt:  # no card of the open shoe in the public summary
        for card in [*r["player"]["cards"], *r["banker"]["cards"]]:
            assert f'"{card}"' not in summary.text

    close_by = state["close_by"]
    out = sweep_at(monkeypatch, seconds_after(close_by, -1))
    assert out["closed"] == [] and out["failed"] == {}  # not idle yet
    out = sweep_at(monkeypatch, close_by)  # an hour after the last deal
    assert out["closed"] == [shoe_id] and out["failed"] == {}
    again = sweep_at(monkeypatch, seconds_after(close_by, 60))  # the new table's shoe is idle too
    assert shoe_id not in again["closed"] and again["failed"] == {}  # closed once
    monkeypatch.undo()
    ended = api.get(f"/v1/shoes/{shoe_id}").body
    assert (ended["status"], ended["end_reason"], ended["close_by"]) == ("ended", "closed", None)
    verdict, pages = verified_proof(api, shoe_id)
    assert verdict.ok
    iv = pages[0]["interventions"]
    assert (iv["voided_rounds"], iv["closed_early"], iv["rounds_dealt"]) == (4, True, 6)
    after = api.get(f"/v1/tables/{table_id}/fairness", key=False).body
    assert after["open_shoe"] is None and after["totals"]["voided_rounds"] == 4
