"""Auto-settlement (the seeds' disconnect rule): a round dealt with locked bets
and not settled within its table's ``settle_deadline_seconds`` is settled by the system, marked
``auto_settled: true``. Due rounds are found through the sparse ``DueRounds`` index (defined in
template.yaml, so these tables have it). The sweep and a late operator call never both settle a
round: one settlement wins, the other caller gets it.

Times are passed to the sweep explicitly (``at=``): no test waits for a clock."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from support.stack import (
    TABLE_NAMES,
    Api,
    LambdaContext,
    Stack,
    function_module,
    make_due,
    scheduled_event,
    star_city_bets,
)

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.keys import DUE_INDEX
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.ids import parse_round_id
from baccarat_api.service.auto_settle import sweep
from baccarat_dev.template import REPO_ROOT, load

TABLE = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def later(iso: str, seconds: float) -> str:
    at = datetime.fromisoformat(iso.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def open_shoe(api: Api, **table: Any) -> str:
    table_id = api.post("/v1/tables", {**TABLE, **table}).body["table_id"]
    return str(api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"])


def due_index(stack: Stack) -> list[str]:
    """The rounds in the index's ``DUE#`` part (its other parts: open shoes, proofs, books)."""
    items = stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"], IndexName=DUE_INDEX)
    due = [i for i in items["Items"] if i["due_shard"]["S"].startswith("DUE#")]
    return sorted(i["round_number"]["N"] for i in due)


def repo() -> DynamoRepository:
    return runtime.get_runtime().repo


def test_the_deadline_is_a_table_setting(api: Api) -> None:
    default = api.post("/v1/tables", TABLE)
    assert default.status == 201 and default.body["settle_deadline_seconds"] == 60
    custom = api.post("/v1/tables", {**TABLE, "settle_deadline_seconds": 5})
    assert custom.body["settle_deadline_seconds"] == 5
    assert api.get(f"/v1/tables/{custom.body['table_id']}").body["settle_deadline_seconds"] == 5
    for bad in (0, -1, 86_401, "60", 1.5):
        r = api.post("/v1/tables", {**TABLE, "settle_deadline_seconds": bad})
        assert r.status == 400 and r.error["code"] == "invalid_request", bad


def test_a_round_past_its_deadline_is_settled_by_the_sweep(api: Api, stack: Stack) -> None:
    shoe_id = open_shoe(api, settle_deadline_seconds=30)
    bare = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}).body
    locked = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert locked["settle_by"] == later(locked["dealt_at"], 30)
    assert bare["settle_by"] is None  # no locked bets, nothing to settle
    assert due_index(stack) == ["2"]

    early = sweep(repo(), at=later(locked["dealt_at"], 29))
    assert (early.due, early.settled) == (0, [])
    assert api.get(f"/v1/rounds/{locked['round_id']}").body["settlement"] is None

    report = sweep(repo(), at=locked["settle_by"])
    assert report.settled == [locked["round_id"]] and not report.failed
    settlement = api.get(f"/v1/rounds/{locked['round_id']}").body["settlement"]
    assert settlement["auto_settled"] is True and settlement["voided"] is False
    assert (
        settlement["lines"] and sum(settlement["nets"].values()) + settlement["house"]["take"] == 0
    )
    assert due_index(stack) == []  # settled: out of the index, the next sweep has nothing
    assert sweep(repo(), at=later(locked["settle_by"], 3600)).due == 0

    # the late operator call gets the auto-settlement, as it was stored
    late = api.post(f"/v1/rounds/{locked['round_id']}/settlement")
    assert late.status == 200 and late.body == settlement


def test_settled_and_voided_rounds_leave_the_index(api: Api, stack: Stack) -> None:
    shoe_id = open_shoe(api)
    # (each round resolved before the next is dealt)
    a = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert due_index(stack) == ["1"]
    settled = api.post(f"/v1/rounds/{a['round_id']}/settlement").body
    b = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert due_index(stack) == ["2"]
    api.post(f"/v1/rounds/{b['round_id']}/void", {"reason": "misdeal"})
    c = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert due_index(stack) == ["3"]
    api.post(f"/v1/shoes/{shoe_id}/close")  # closing the shoe does not forget locked bets
    report = sweep(repo(), at=later(c["settle_by"], 1))
    assert report.settled == [c["round_id"]]
    assert api.get(f"/v1/rounds/{a['round_id']}").body["settlement"] == settled
    assert api.get(f"/v1/rounds/{b['round_id']}").body["settlement"]["voided"] is True


@pytest.mark.parametrize("winner", ["operator", "sweep"])
def test_a_late_operator_call_racing_the_sweep(
    api: Api, monkeypatch: pytest.MonkeyPatch, winner: str
) -> None:
    """Both read the round unsettled (the race window, made deterministic): whichever writes
    first wins, the other gets the winner's settlement; exactly one is stored."""
    shoe_id = open_shoe(api)
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    ref = parse_round_id(dealt["round_id"])
    assert ref is not None
    stale = repo().get_round("operator-a", ref)
    at = later(dealt["settle_by"], 1)
    if winner == "operator":
        first = api.post(f"/v1/rounds/{dealt['round_id']}/settlement").body
        monkeypatch.setattr(DynamoRepository, "get_round", lambda self, op, ref: stale)
        monkeypatch.setattr(
            DynamoRepository,
            "due_rounds",
            lambda self, now, limit: [("operator-a", ref)],  # the index lags: still listed
        )
        report = sweep(repo(), at=at)
        assert report.settled == [] and report.already == [dealt["round_id"]]
        assert first["auto_settled"] is False
    else:
        report = sweep(repo(), at=at)
        assert report.settled == [dealt["round_id"]]
        monkeypatch.setattr(DynamoRepository, "get_round", lambda self, op, ref: stale)
        late = api.post(f"/v1/rounds/{dealt['round_id']}/settlement")
        assert late.status == 200 and late.body["auto_settled"] is True
        first = late.body
    monkeypatch.undo()
    assert api.get(f"/v1/rounds/{dealt['round_id']}").body["settlement"] == first


def test_the_scheduled_function_sweeps(api: Api, stack: Stack) -> None:
    """``AutoSettleFunction`` (functions/auto_settle/app.py) answers an EventBridge scheduled
    event with its report; it settles what is due now (a 1-second deadline, passed)."""
    shoe_id = open_shoe(api, settle_deadline_seconds=1)
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    # make the round due now without waiting: its settle-by time moved into the past
    make_due(stack.dynamodb, TABLE_NAMES["StateTable"], "operator-a", dealt["table_id"])
    event = scheduled_event()
    handler = function_module("functions/auto_settle/").handler
    out = handler(event, LambdaContext(function_name="AutoSettleFunction"))
    assert out["settled"] == [dealt["round_id"]] and out["failed"] == {}
    assert api.get(f"/v1/rounds/{dealt['round_id']}").body["settlement"]["auto_settled"]


def test_the_template_schedules_a_least_privilege_sweep() -> None:
    resources = load()["Resources"]
    fn = resources["AutoSettleFunction"]["Properties"]
    assert fn["CodeUri"] == "functions/auto_settle/"
    schedule = fn["Events"]["Sweep"]
    assert schedule["Type"] == "Schedule"
    assert schedule["Properties"]["Schedule"] == "rate(1 minute)"
    statements = [s for p in fn["Policies"] for s in p["Statement"]]
    grants = {
        (a, json.dumps(s["Resource"], sort_keys=True))
        for s in statements
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    }
    table = json.dumps({"Fn::GetAtt": ["StateTable", "Arn"]}, sort_keys=True)
    indexes = json.dumps(
        [
            {"Fn::Sub": "${StateTable.Arn}/index/DueRounds"},
            {"Fn::Sub": "${StateTable.Arn}/index/OpenRounds"},
        ],
        sort_keys=True,
    )
    secrets = json.dumps({"Fn::GetAtt": ["SecretsKey", "Arn"]}, sort_keys=True)
    signing = json.dumps({"Fn::GetAtt": ["SigningKey", "Arn"]}, sort_keys=True)
    assert grants == {
        ("dynamodb:Query", indexes),  # due rounds and proofs; a pending proof's open rounds
        ("dynamodb:GetItem", table),
        ("dynamodb:BatchGetItem", table),  # the round + its table's live state
        ("dynamodb:UpdateItem", table),
        ("dynamodb:PutItem", table),  # the settlement's event; finalising: the pages
        ("dynamodb:Query", table),  # finalising: the shoe and its rounds
        ("dynamodb:BatchGetItem", table),  # the proof item
        ("kms:Decrypt", secrets),  # the table's ref key; a shoe's s_i (a from-book deal)
        ("kms:Encrypt", secrets),  # a running table's overdue commit seals the next s_i
        # the next tick of a step it took
        ("sqs:SendMessage", json.dumps({"Fn::GetAtt": ["TableClockQueue", "Arn"]})),
        # a book round's settlement chunks (settled, or overdue and sent again)
        ("sqs:SendMessage", json.dumps({"Fn::GetAtt": ["SettleChunkQueue", "Arn"]})),
        ("kms:Sign", signing),
        ("kms:GetPublicKey", signing),
    }
    env = json.dumps(fn.get("Environment", {}))
    assert "KMS_KEY_ID" in env and "SIGNING_KEY_ID" in env
    gsi = resources["StateTable"]["Properties"]["GlobalSecondaryIndexes"]
    assert [g["IndexName"] for g in gsi] == ["DueRounds", "OpenRounds", "RoundsByDay", "Lobby"]
    assert [k["AttributeName"] for k in gsi[0]["KeySchema"]] == ["due_shard", "due_at"]
    assert [k["AttributeName"] for k in gsi[1]["KeySchema"]] == ["open_in"]
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert re.search(r"^sweep: .*\n\t.*-m baccarat_api\.jobs\.sweep", makefile, re.MULTILINE)


def test_the_sweep_reads_any_iso_time(api: Api) -> None:
    """``--at 2026-01-01T00:00:00Z`` means the same instant as the stored form with
    milliseconds: a round due one millisecond later is not swept yet."""
    shoe_id = open_shoe(api, settle_deadline_seconds=1)
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    due = datetime.fromisoformat(dealt["settle_by"].replace("Z", "+00:00"))
    just_before = (due - timedelta(milliseconds=1)).astimezone(UTC)
    for form in (
        just_before.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        just_before.isoformat(timespec="microseconds"),
        just_before.replace(tzinfo=None).isoformat(timespec="milliseconds"),
    ):
        assert sweep(repo(), at=form).due == 0, form
    whole_second = due.replace(microsecond=0) + timedelta(seconds=1)
    assert sweep(repo(), at=whole_second.isoformat().replace("+00:00", "Z")).due == 1


def test_one_bad_round_does_not_stop_the_sweep_for_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A round the sweep cannot settle (any error, not only a typed one) is reported as failed,
    and every other due round is still settled."""
    from baccarat_api.ids import RoundRef
    from baccarat_api.service import auto_settle

    calls: list[str] = []

    class Repo:
        def due_rounds(self, at: str, limit: int) -> list[tuple[str, RoundRef]]:
            return [("op", RoundRef("tbl_a", 1, 1)), ("op", RoundRef("tbl_b", 1, 1))]

        chunks = SimpleNamespace(due_progress=lambda now, limit: [])  # no book fan-out due

    def fake_settle(repo: object, operator_id: str, rid: str, **kw: object) -> SimpleNamespace:
        calls.append(rid)
        if len(calls) == 1:
            raise ValueError("corrupt stored configuration")
        return SimpleNamespace(auto_settled=True)

    monkeypatch.setattr(auto_settle, "settle_round", fake_settle)
    report = auto_settle.sweep(Repo(), at="2026-01-01T00:00:00Z")  # type: ignore[arg-type]
    assert report.failed == {calls[0]: "ValueError"}
    assert report.settled == [calls[1]]


def test_the_sweep_deals_a_betting_window_nobody_dealt(api: Api, stack: Stack) -> None:
    """The live item carries its window's deal_by in DueRounds (shard BOOK#k) while the window
    waits, set and removed by the live state's own updates."""
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"]
    api.call("PUT", f"/v1/tables/{table_id}/seats/2", {"bettor_id": "bob", "balance": 50_000})
    window = api.post(f"/v1/tables/{table_id}/betting").body["betting"]
    slip = {"bets": [{"type": "player", "amount": 1000}]}
    assert api.call("PUT", f"/v1/tables/{table_id}/bets/bob", slip).status == 200

    def books() -> list[str]:
        items = stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"], IndexName=DUE_INDEX)
        return [i["due_at"]["S"] for i in items["Items"] if i["due_shard"]["S"].startswith("BOOK#")]

    deal_by = later(window["closes_at"], 15)
    assert books() == [deal_by]
    rt = runtime.get_runtime()
    assert sweep(repo(), at=later(deal_by, -1), shoes=rt.shoes).dealt == []
    report = sweep(repo(), at=deal_by, shoes=rt.shoes)
    assert report.dealt == [f"{shoe_id}_r1"] and report.failed == {}
    assert books() == []
    dealt = api.get(f"/v1/rounds/{shoe_id}_r1").body
    assert [(b["bettor_id"], b["type"], b["amount"]) for b in dealt["bets"]] == [
        ("bob", "player", 1000)
    ]
