"""Void and early close.

``POST /v1/rounds/{round_id}/void {reason, note?}`` returns every stake (a settlement-shaped
record, every net 0, ``voided: true``, with the void: its reason, note, time and the settlement
it replaced), is idempotent, refuses a settled round (409 ``round_settled``) and a round past its
table's void window (409 ``void_window_closed``), and a voided round can never be settled (409
``round_voided``). A shoe with voided rounds, closed early or played out, publishes a proof that
still verifies with ``baccarat verify`` (the voided round's cards stay, marked voided). Nothing
is ever deleted."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.clock import service_clock
from support.stack import TABLE_NAMES, Api, Stack, signing_keys, star_city_bets, verified_proof

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.ids import parse_round_id
from baccarat_api.service.models import SettlementOut
from baccarat_dev.template import REPO_ROOT, load

TABLE = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def shoe(api: Api, table: dict[str, Any] = TABLE) -> str:
    table_id = api.post("/v1/tables", table).body["table_id"]
    return str(api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "v"}).body["shoe_id"])


def test_a_void_returns_every_stake_once_and_for_good(api: Api) -> None:
    shoe_id = shoe(api)
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    round_id = dealt["round_id"]
    body = {"reason": "misdeal", "note": "card misdealt"}
    void = api.post(f"/v1/rounds/{round_id}/void", body)
    assert void.status == 200 and void.function == "SettleBetsFunction", void.body
    doc = SettlementOut.model_validate(void.body)
    assert doc.voided is True and not doc.auto_settled and doc.void is not None
    assert (doc.void.reason, doc.void.note, doc.void.voided_at) == (
        "misdeal",
        "card misdealt",
        doc.settled_at,
    )
    assert [(x.bettor_id, x.stake, x.net, x.grade) for x in doc.lines] == [
        (b["bettor_id"], b["amount"], 0, "void") for b in star_city_bets()
    ]
    assert {p.id: (p.stake, p.net) for p in doc.bettors} == {
        "alice": (2100, 0),
        "bob": (1000, 0),
    }
    assert doc.nets == {"alice": 0, "bob": 0}
    assert (doc.house.covered, doc.house.commission, doc.house.take) == (0, 0, 0)
    assert doc.eligibility.balances_after == {"alice": 50_000, "bob": 20_000}

    assert list(doc.void.replaced.nets) == ["alice", "bob"]  # bettors in order of first bet

    # idempotent: voiding again (whatever the reason) returns the same record
    again = api.post(f"/v1/rounds/{round_id}/void", {"reason": "regulatory"})
    assert again.status == 200 and again.body == void.body
    # a voided round can never be settled
    settle = api.post(f"/v1/rounds/{round_id}/settlement")
    assert settle.status == 409 and settle.error["code"] == "round_voided", settle.body
    assert settle.error["retryable"] is False
    assert settle.error["details"]["void_reason"] == "misdeal"
    assert api.get(f"/v1/rounds/{round_id}").body["settlement"] == void.body


def test_the_void_replaces_exactly_what_settling_would_have_paid(api: Api) -> None:
    """``replaced`` is the settlement the core computes for the locked bets on the dealt
    cards — recomputed here from the deal's answer alone."""
    shoe_id = shoe(api)
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    voided = api.post(f"/v1/rounds/{dealt['round_id']}/void", {"reason": "operator_error"})
    replaced = voided.body["void"]["replaced"]
    # the settlement recomputed from the locked bets on the dealt cards (the core, independently)
    from baccarat.bets import bets_from_json
    from baccarat.cards import parse_code
    from baccarat.outcome import Round
    from baccarat.profiles import TableConfig
    from baccarat.settlement import settle

    ref = parse_round_id(dealt["round_id"])
    assert ref is not None
    stored = runtime.get_runtime().repo.get_round("operator-a", ref)
    assert stored is not None
    rnd = Round(
        number=dealt["round_number"],
        start=dealt["start"],
        player=tuple(parse_code(c) for c in dealt["player"]["cards"]),
        banker=tuple(parse_code(c) for c in dealt["banker"]["cards"]),
    )
    would = settle(TableConfig.from_dict(stored.config), rnd, bets_from_json(star_city_bets()))
    assert replaced == {"nets": would.nets(), "house_take": would.house_take}


def test_a_settled_round_cannot_be_voided(api: Api) -> None:
    shoe_id = shoe(api)
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    settled = api.post(f"/v1/rounds/{round_id}/settlement")
    assert settled.status == 200
    void = api.post(f"/v1/rounds/{round_id}/void", {"reason": "misdeal"})
    assert void.status == 409 and void.error["code"] == "round_settled", void.body
    assert api.get(f"/v1/rounds/{round_id}").body["settlement"] == settled.body


@pytest.mark.parametrize("first", ["settle", "void"])
def test_a_void_racing_a_settlement_one_wins_the_other_is_told(
    api: Api, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """Both read the round unsettled (the race window, made deterministic); the conditional
    write lets exactly one through; the other gets 409 with the winner named."""
    shoe_id = shoe(api)
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    ref = parse_round_id(round_id)
    assert ref is not None
    stale = runtime.get_runtime().repo.get_round("operator-a", ref)
    calls = {
        "settle": lambda: api.post(f"/v1/rounds/{round_id}/settlement"),
        "void": lambda: api.post(f"/v1/rounds/{round_id}/void", {"reason": "misdeal"}),
    }
    winner = calls[first]()
    assert winner.status == 200
    monkeypatch.setattr(DynamoRepository, "get_round", lambda self, op, ref: stale)
    loser = calls["void" if first == "settle" else "settle"]()
    monkeypatch.undo()
    assert loser.status == 409
    assert loser.error["code"] == ("round_settled" if first == "settle" else "round_voided")
    assert api.get(f"/v1/rounds/{round_id}").body["settlement"] == winner.body


def test_a_void_needs_a_known_reason_and_a_known_round(api: Api, stack: Stack) -> None:
    shoe_id = shoe(api)
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    for body in (
        None,
        {},
        {"reason": ""},
        {"reason": "dealer error"},  # not one of the four reasons
        {"reason": "misdeal", "note": "x" * 257},
        {"reason": "misdeal", "note": 5},
        {"reason": "misdeal", "net": 5},
    ):
        r = api.post(f"/v1/rounds/{round_id}/void", body)
        assert r.status == 400 and r.error["code"] == "invalid_request", (body, r.body)
    lone = '{"reason": "misdeal", "note": "\\ud800"}'  # a lone surrogate: not Unicode
    r = api.post(f"/v1/rounds/{round_id}/void", raw_body=lone)
    assert r.status == 400 and r.error["code"] == "invalid_request", r.body
    missing = api.post(f"{'/v1/rounds/'}{round_id[:-1]}9/void", {"reason": "misdeal"})
    assert missing.status == 404
    theirs = Api(stack.key_b).post(f"/v1/rounds/{round_id}/void", {"reason": "misdeal"})
    assert theirs.status == 404 and theirs.error["code"] == "not_found"
    ok = api.post(f"/v1/rounds/{round_id}/void", {"reason": "misdeal", "note": "é" * 256})
    assert ok.status == 200 and ok.body["void"]["note"] == "é" * 256
    # a round nobody bet on was settled at its deal: there is nothing to void
    empty_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}).body["round_id"]
    empty = api.post(f"/v1/rounds/{empty_id}/void", {"reason": "misdeal"})
    assert empty.status == 409 and empty.error["code"] == "round_settled", empty.body


def test_a_void_is_refused_after_the_window_and_where_voids_are_disabled(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    disabled = shoe(api, {**TABLE, "void_window_seconds": 0})
    table = api.get(f"/v1/tables/{disabled.rsplit('_s', 1)[0]}").body
    assert table["void_window_seconds"] == 0
    dealt = api.post(f"/v1/shoes/{disabled}/rounds", {"bets": star_city_bets()}).body
    assert dealt["void_by"] is None
    r = api.post(f"/v1/rounds/{dealt['round_id']}/void", {"reason": "misdeal"})
    assert r.status == 409 and r.error["code"] == "void_window_closed", r.body
    assert r.error["details"] == {"void_window_seconds": 0, "void_by": None}

    shoe_id = shoe(api, {**TABLE, "void_window_seconds": 5})
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert dealt["void_by"] > dealt["dealt_at"]
    clock = service_clock(monkeypatch)
    clock.set(dealt["void_by"])  # the last instant: accepted
    inside = api.post(f"/v1/rounds/{dealt['round_id']}/void", {"reason": "misdeal"})
    assert inside.status == 200, inside.body
    late = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    clock.set("2999-01-01T00:00:00.000Z")
    before = stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
    r = api.post(f"/v1/rounds/{late['round_id']}/void", {"reason": "misdeal"})
    assert r.status == 409 and r.error["code"] == "void_window_closed", r.body
    assert r.error["details"]["void_by"] == late["void_by"]
    assert stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"] == before
    for bad in (-1, 3601, "60"):
        refused = api.post("/v1/tables", {**TABLE, "void_window_seconds": bad})
        assert refused.status == 400 and refused.error["code"] == "invalid_request"


def _verify_cli(api: Api, pages: list[dict[str, Any]], tmp_path: Path) -> tuple[int, str]:
    """``baccarat verify page1.json page2.json … --keys keys.json`` (the console script)."""
    from baccarat_dev.cli import main

    files = []
    for k, page in enumerate(pages, start=1):
        files.append(tmp_path / f"page{k}.json")
        files[-1].write_text(json.dumps(page))
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(signing_keys(api)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["verify", *map(str, files), "--keys", str(keys)])
    return code, out.getvalue()


@pytest.mark.parametrize("end", ["closed early", "played out"])
def test_a_shoe_with_voided_rounds_still_verifies(api: Api, tmp_path: Path, end: str) -> None:
    shoe_id = shoe(api)
    dealt = [api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body]
    api.post(f"/v1/rounds/{dealt[0]['round_id']}/void", {"reason": "misdeal"})  # before the next
    dealt += [api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}).body for _ in range(2)]
    if end == "closed early":
        closed = api.post(f"/v1/shoes/{shoe_id}/close")
        assert closed.status == 200 and closed.body["end_reason"] == "closed"
        assert closed.body["server_seed"]
    else:  # star-city ends after round 30; void the last one after the end
        while dealt[-1]["shoe_status"] == "open":
            bets = star_city_bets() if len(dealt) == 29 else []  # the last round has bets
            dealt.append(api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": bets}).body)
        pending = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
        assert pending.status == 409 and pending.error["code"] == "proof_pending"
        assert pending.error["details"]["unresolved_rounds"] == [30]
        last = api.post(f"/v1/rounds/{dealt[-1]['round_id']}/void", {"reason": "regulatory"})
        assert last.status == 200
    verdict, pages = verified_proof(api, shoe_id)
    assert verdict.ok, verdict.line()
    rounds = [r for page in pages for r in page["rounds"]]
    assert len(rounds) == len(dealt)  # the voided rounds' cards stay in the proof
    assert rounds[0]["voided"] is True and rounds[0]["void"]["reason"] == "misdeal"
    assert [r["player"] for r in rounds] == [d["player"]["cards"] for d in dealt]
    if end == "played out":
        assert rounds[-1]["voided"] is True
    assert not any(r["voided"] for r in rounds[1:-1])
    voided = [r for r in rounds if r["voided"]]
    assert pages[0]["interventions"]["voided_rounds"] == len(voided)
    assert pages[0]["interventions"]["voided_player_net"] == sum(
        sum(r["void"]["replaced"]["nets"].values()) for r in voided
    )
    code, line = _verify_cli(api, pages, tmp_path)
    assert code == 0 and line.startswith("verified"), line
    assert "voided round" in line


def test_nothing_is_ever_deleted() -> None:
    """No IAM policy of the template allows DeleteItem (nor BatchWriteItem, which can delete),
    and no code path calls it: game state, keys and tiers are only ever added or updated.
    (DynamoDB's TTL removes expired idempotency records; that is not a code path.)"""
    resources = load()["Resources"]
    for name, resource in resources.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        policies = json.dumps(resource["Properties"].get("Policies", []))
        for action in ("dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "dynamodb:*"):
            assert action not in policies, (name, action)
    sources = [*(REPO_ROOT / "shared").rglob("*.py"), *(REPO_ROOT / "functions").rglob("*.py")]
    sources += [*(REPO_ROOT / "infra").rglob("*.py")]
    assert len(sources) > 20
    for path in sources:
        code = path.read_text(encoding="utf-8")
        assert not re.search(r"delete_item|batch_write_item|DeleteItem|\"Delete\"\s*:", code), path


def test_a_void_changes_nothing_but_its_round_and_reports_it(api: Api, stack: Stack) -> None:
    shoe_id = shoe(api)
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]

    def snapshot() -> dict[tuple[str, str], dict[str, Any]]:
        return {
            (i["pk"]["S"], i["sk"]["S"]): i
            for i in stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
        }

    before = snapshot()
    api.post(f"/v1/rounds/{round_id}/void", {"reason": "misdeal"})
    after = snapshot()
    assert set(before) <= set(after)  # nothing removed
    changed = {k for k in before if before[k] != after[k]}
    added = set(after) - set(before)
    # the round, and the table's live state (its event counter); one event added
    assert sorted(k[1] for k in changed) == ["LIVE", "SHOE#000001#ROUND#00001"]
    assert [after[k]["type"]["S"] for k in added] == ["round_voided"]  # the proof reads the round
    changed.discard(next(k for k in changed if k[1] == "LIVE"))
    assert "due_at" in before[next(iter(changed))] and "due_at" not in after[next(iter(changed))]
