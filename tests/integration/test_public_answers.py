"""No bettor id, balance, level or personal limit in any public answer.

Recognisable bettor ids, balances and personal limits (values that occur nowhere else) go through
every route — both profiles, both banking modes (a player-banker with its own recognisable id and
balance), a round auto-settled by the sweep, one settled, one voided, the shoe closed early — and
every public answer (no key) is scanned for them: every proof page, the proof's 404 and its 409
``proof_pending`` answer, the table's fairness summary, the signing keys, the verify page. The
operator's own answers carry them (the scan would find them there: the test checks that too)."""

from __future__ import annotations

import base64
import json
import os
import re
from typing import Any

import pytest
from support.stack import (
    Api,
    LambdaContext,
    Stack,
    function_module,
    http_api_event,
    make_due,
    proof_pages,
    scheduled_event,
)

#: bettor ids, balances and personal limits that occur nowhere but in the requests
ALICE, BOB, CAROL, PB = "zq-secret-alice", "zq-secret-bob", "zq-secret-carol", "zq-secret-pb"
BALANCE, PB_BALANCE, PERSONAL = 987_654_300, 876_543_200, 4_321_700
#: a personal limit entered at the spectator route: within the tier's own (banker ≤ 500,000)
ENTERED = 432_117
SECRETS = [ALICE, BOB, CAROL, PB, str(BALANCE), str(PB_BALANCE), str(PERSONAL), str(ENTERED),
           "zq-secret"]  # fmt: skip
#: member names that would carry them (``seated_min_level``, ``bettor_min_balance`` … of the
#: published table configuration are the table's rules, not a bettor's)
PRIVATE_KEYS = re.compile(r'"(bettor_id|balance|balances_after|level|personal_limits|eligibility)"')

CASES = {
    "star-city": ("star-city-fun", 500_000),
    "bid-squeeze": ("bid-squeeze-standard", 3_600_000),
}


def _bets(profile: str) -> list[dict[str, Any]]:
    private = {"balance": BALANCE, "level": 3, "personal_limits": {"banker": PERSONAL}}
    bets = [
        {"bettor_id": ALICE, "role": "seated", "seat": 1, "type": "banker", "amount": 2000,
         **private},
        {"bettor_id": BOB, "role": "seated", "seat": 2, "type": "player", "amount": 1000,
         "balance": BALANCE, "level": 2},
    ]  # fmt: skip
    if profile == "bid-squeeze":  # spectators bet there
        bets.append({"bettor_id": CAROL, "role": "spectator", "type": "tie", "amount": 1000,
                     "balance": BALANCE, "personal_limits": {"tie": PERSONAL}})  # fmt: skip
    return bets


def _raw_get(api: Api, path: str) -> str:
    """A public GET's body as the handler answered it (the verify page is HTML)."""
    route = api.route("GET", path)
    out = function_module(route.code_uri).handler(
        http_api_event("GET", path, route), LambdaContext(route.function)
    )
    body = out["body"]
    return base64.b64decode(body).decode() if out.get("isBase64Encoded") else str(body)


def _unleaked(what: str, text: str) -> None:
    found = [s for s in SECRETS if s in text]
    assert not found, f"{what} carries {found}"
    keys = PRIVATE_KEYS.findall(text)
    assert not keys, f"{what} names {sorted(set(keys))}"


@pytest.mark.parametrize("banking", ["house", "player_banker"])
@pytest.mark.parametrize("profile", sorted(CASES))
def test_no_public_answer_names_a_bettor_or_a_balance(
    api: Api, stack: Stack, profile: str, banking: str
) -> None:
    tier, pb_min = CASES[profile]
    table = api.post(
        "/v1/tables", {"squeeze_seconds": 0, "profile": profile, "tier": tier, "banking": banking}
    )
    assert table.status == 201, table.body
    table_id = table.body["table_id"]
    shoe = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "scan"})
    shoe_id = shoe.body["shoe_id"]
    deal: dict[str, Any] = {"bets": _bets(profile)}
    if banking == "player_banker":
        deal["player_banker"] = {"bettor_id": PB, "balance": PB_BALANCE}
        assert pb_min < PB_BALANCE
    public: dict[str, str] = {}
    operator: list[str] = []
    for n in range(3):
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", deal)
        assert r.status == 201, r.body
        operator.append(r.text)
        # each round resolved before the next is dealt: round 1 auto-settled by the sweep (which
        # finalises nothing yet), 2 settled; 3 voided after the shoe's end
        if n == 0:
            make_due(stack.dynamodb, os.environ["STATE_TABLE"], "operator-a", table_id)
            swept = function_module("functions/auto_settle/").handler(
                scheduled_event(), LambdaContext(function_name="AutoSettleFunction")
            )
            assert swept["settled"] == [f"{shoe_id}_r1"], swept
        elif n == 1:
            settled = api.post(f"/v1/rounds/{r.body['round_id']}/settlement")
            assert settled.status == 200, settled.body
            operator.append(settled.text)
    public["proof while open (404)"] = api.get(f"/v1/shoes/{shoe_id}/proof", key=None).text
    closed = api.post(f"/v1/shoes/{shoe_id}/close")
    assert closed.status == 200, closed.body
    pending = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert pending.status == 409 and pending.error["code"] == "proof_pending", pending.body
    public["proof pending (409)"] = pending.text
    voided = api.post(f"/v1/rounds/{shoe_id}_r3/void", {"reason": "misdeal"})
    assert voided.status == 200, voided.body
    operator.append(voided.text)

    pages = proof_pages(api, shoe_id)
    assert [r["round_number"] for p in pages for r in p["rounds"]] == [1, 2, 3]
    rounds = {r["round_number"]: r for p in pages for r in p["rounds"]}
    assert rounds[1]["settlement"]["auto_settled"] and rounds[3]["voided"]
    for k, page in enumerate(pages, start=1):
        public[f"proof page {k}"] = json.dumps(page, ensure_ascii=False)
    fairness = api.get(f"/v1/tables/{table_id}/fairness", key=None)
    assert fairness.status == 200 and fairness.body["shoes"][0]["shoe_id"] == shoe_id
    public["fairness summary"] = fairness.text
    public["signing keys"] = api.get("/v1/signing-keys", key=None).text
    public["verify page"] = _raw_get(api, "/verify")

    for what, text in public.items():
        _unleaked(what, text)
    # the scan does see them where they belong: the operator's own answers
    everything = "".join(operator)
    assert all(s in everything for s in (ALICE, BOB, str(BALANCE)))
    assert banking == "house" or (PB in everything and str(PB_BALANCE) in everything)


@pytest.mark.parametrize(
    ("profile", "banking"), [("bid-squeeze", "house"), ("star-city", "player_banker")]
)
def test_no_public_answer_names_a_bettor_of_a_live_table(
    api: Api, profile: str, banking: str
) -> None:
    """The same scan over a live table's session: seats, a spectator, a watcher, a
    player-banker, betting windows with slips placed, replaced and cancelled, rounds dealt from
    the book, squeeze reveals, the urge button, a seat left — then the shoe closed and its
    rounds settled: the proof, the fairness summary, the signing keys and the verify page name
    none of them (the squeezers and reveals live on the round; the proof lists no reveal)."""
    tier, _ = CASES[profile]
    table_id = api.post("/v1/tables", {"profile": profile, "tier": tier, "banking": banking}).body[
        "table_id"
    ]
    t = f"/v1/tables/{table_id}"
    shoe_id = api.post(f"{t}/shoes", {"client_seed": "scan-live"}).body["shoe_id"]
    operator: list[str] = []

    def ok(method: str, path: str, body: Any = None) -> None:
        r = api.call(method, path, body)
        assert r.status in (200, 201), (path, r.body)
        operator.append(r.text)

    ok("PUT", f"{t}/seats/1", {"bettor_id": ALICE, "balance": BALANCE, "level": 5})
    ok("PUT", f"{t}/seats/2", {"bettor_id": BOB, "balance": BALANCE, "level": 5})
    ok("PUT", f"{t}/watchers/zq-secret-wendy")
    if banking == "player_banker":
        ok("PUT", f"{t}/banker", {"bettor_id": PB, "balance": PB_BALANCE})
    else:  # bid-squeeze: a spectator with personal limits
        limits = {"banker": {"min": 1000, "max": ENTERED}}
        ok("PUT", f"{t}/spectators/{CAROL}", {"balance": BALANCE, "personal_limits": limits})
    rounds = []
    for n in (1, 2):
        ok("POST", f"{t}/betting")
        ok("PUT", f"{t}/bets/{ALICE}", {"bets": [{"type": "banker", "amount": 1000}]})
        ok("PUT", f"{t}/bets/{BOB}", {"bets": [{"type": "player", "amount": 1000}]})
        ok("PUT", f"{t}/bets/{ALICE}", {"bets": [{"type": "banker", "amount": 2000}]})
        if banking == "house":
            ok("PUT", f"{t}/bets/{CAROL}", {"bets": [{"type": "tie", "amount": 1000}]})
            ok("DELETE", f"{t}/bets/{CAROL}")
        elif n == 1:  # one press (a second within 5 s is the table's urge_cooldown)
            ok("POST", f"{t}/urge", {"bettor_id": PB})
        dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"from_book": True})
        assert dealt.status == 201, dealt.body
        operator.append(dealt.text)
        # every card shown (each hand's squeezer opens it, the initial cards, then the third
        # cards), then the settlement
        for step in ("initial", "draws"):
            hands = dealt.body["squeeze"]["steps"].get(step, {}).get("hands", {})
            for hand in ("player", "banker"):
                squeezer = hands.get(hand, {}).get("squeezer")
                if squeezer is not None:
                    r = api.post(f"/v1/rounds/{dealt.body['round_id']}/reveal",
                                 {"bettor_id": squeezer, "step": step})  # fmt: skip
                    assert r.status == 200 or r.body["error"]["code"] == "already_revealed"
                    operator.append(r.text)
        ok("POST", f"/v1/rounds/{dealt.body['round_id']}/settlement")
        rounds.append(n)
    ok("DELETE", f"{t}/seats/2")
    ok("POST", f"/v1/shoes/{shoe_id}/close")
    public: dict[str, str] = {}
    pages = proof_pages(api, shoe_id)
    assert [r["round_number"] for p in pages for r in p["rounds"]] == rounds
    for k, page in enumerate(pages, start=1):
        public[f"proof page {k}"] = json.dumps(page, ensure_ascii=False)
    public["fairness summary"] = api.get(f"{t}/fairness", key=None).text
    public["signing keys"] = api.get("/v1/signing-keys", key=None).text
    public["verify page"] = _raw_get(api, "/verify")
    for what, text in public.items():
        _unleaked(what, text)
    everything = "".join(operator)
    assert all(s in everything for s in (ALICE, BOB, str(BALANCE), "zq-secret-wendy"))
