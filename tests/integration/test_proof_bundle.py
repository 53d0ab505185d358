"""The proof bundle and what the read function serves publicly.

* The proof carries, per round, its settlement and what recomputing it needs (the table's
  configuration once, the bets / player-banker per round), also for settlements made AFTER the
  shoe ended (it is read from the round records themselves); it stays 404
  until the end; ``baccarat verify``'s library function recomputes every settlement.
* Round trips: the proof is the proof item and one Query of the shoe's rounds, a settlement
  still two calls.
* ``GET /verify`` is the browser verifier, one self-contained page, no key; the proof route
  answers with ``Access-Control-Allow-Origin: *`` (its errors too), no other route does.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from collections import Counter
from typing import Any

from support.stack import Api, LambdaContext, function_module, http_api_event, star_city_bets

from baccarat.verify import verify_proof
from baccarat_api import runtime
from baccarat_api.service.models import ProofOut
from baccarat_api.service.views import PUBLIC_BET_FIELDS
from baccarat_dev.template import REPO_ROOT

WEB = REPO_ROOT / "web"


def _table(api: Api, banking: str = "house", profile: str = "star-city") -> str:
    tier = "star-city-fun" if profile == "star-city" else "bid-squeeze-standard"
    r = api.post("/v1/tables", {"profile": profile, "tier": tier, "banking": banking})
    assert r.status == 201, r.body
    return str(r.body["table_id"])


def _shoe(api: Api, table_id: str, seed: str = "bundle") -> str:
    r = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": seed})
    assert r.status == 201, r.body
    return str(r.body["shoe_id"])


def _public(settlement: dict[str, Any]) -> dict[str, Any]:
    """A settlement as this (v1) proof shows it: no balances after the round, no refs."""

    def unref(doc: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in doc.items() if k != "bettor_ref"}

    out = {k: v for k, v in settlement.items() if k not in ("eligibility", "voided", "void")}
    out["lines"] = [unref(line) for line in settlement["lines"]]
    out["bettors"] = [unref(p) for p in settlement["bettors"]]
    pb = settlement["player_banker"]
    out["player_banker"] = None if pb is None else unref(pb)
    return out


def _given(bets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Bets as sent (the response lists unset optional fields as null)."""
    return [{k: v for k, v in b.items() if v is not None} for b in bets]


def test_the_proof_carries_settlements_made_before_and_after_the_end(api: Api) -> None:
    table_id = _table(api)
    table = api.get(f"/v1/tables/{table_id}").body
    shoe_id = _shoe(api, table_id)
    dealt: list[dict[str, Any]] = []
    for n in range(1, 31):
        # every third: nobody bets (settled at the deal)
        body = {"bets": star_city_bets() if n % 3 != 2 else []}
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", body)
        assert r.status == 201, r.body
        dealt.append(r.body)
        if n <= 10 and n % 3 == 1:
            assert api.post(f"/v1/rounds/{r.body['round_id']}/settlement").status == 200
    assert dealt[-1]["shoe_status"] == "ended"

    published = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert published.status == 200 and published.function == "ReadFunction"
    before = ProofOut.model_validate(published.body)
    nobody = list(range(2, 31, 3))
    assert [r.round_number for r in before.rounds if r.settlement] == sorted([1, 4, 7, 10, *nobody])
    assert before.table_config is not None and before.table_config["profile"] == "star-city"
    assert before.table_config["tier"]["id"] == table["tier"]
    assert before.table_config["rounding"] == table["rounding"]
    assert before.table_config["banker_pays"] == table["banker_pays"]

    # after publication: the last round (locked bets)
    last = api.post(f"/v1/rounds/{dealt[-1]['round_id']}/settlement")
    assert last.status == 200, last.body

    proof = api.get(f"/v1/shoes/{shoe_id}/proof", key=None).body
    ProofOut.model_validate(proof)
    by_number = {r["round_number"]: r for r in proof["rounds"]}
    assert sorted(n for n, r in by_number.items() if r["settlement"]) == sorted(
        [1, 4, 7, 10, 30, *nobody]
    )
    # the settlements as answered, but for the balances after the round (the operator's only)
    assert by_number[30]["settlement"] == _public(last.body)
    assert "eligibility" in last.body and "eligibility" not in by_number[30]["settlement"]
    assert by_number[2]["settlement"]["lines"] == [] and by_number[2]["bets"] == []
    public = [{k: b[k] for k in b if k in PUBLIC_BET_FIELDS} for b in star_city_bets()]
    assert _given(by_number[30]["bets"]) == public
    assert [
        {k: v for k, v in b.items() if k != "bettor_ref"} for b in _given(dealt[-1]["bets"])
    ] == (star_city_bets())
    assert by_number[3]["settlement"] is None and by_number[3]["bets"] is None
    assert not any(r["voided"] for r in proof["rounds"])
    # the cards are the ones each deal answered
    for d in dealt:
        r = by_number[d["round_number"]]
        assert (r["player"], r["banker"]) == (d["player"]["cards"], d["banker"]["cards"])

    verdict = verify_proof(proof)
    assert verdict.ok, verdict.line()
    assert verdict.settlements_checked == 5 + len(nobody)

    tampered = copy.deepcopy(proof)
    tampered["rounds"][29]["settlement"]["bettors"][0]["net"] += 100
    bad = verify_proof(tampered)
    assert not bad.ok
    assert bad.line().startswith("NOT verified: round 30, settlement bettors[0].net: expected ")


def test_the_proof_stays_404_until_the_end_whatever_was_settled(api: Api) -> None:
    shoe_id = _shoe(api, _table(api))
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert api.post(f"/v1/rounds/{r['round_id']}/settlement").status == 200
    early = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert early.status == 404 and early.error["code"] == "not_found"
    assert "server_seed" not in json.dumps(early.body)
    assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
    proof = api.get(f"/v1/shoes/{shoe_id}/proof", key=None).body
    assert proof["end_reason"] == "closed" and proof["rounds"][0]["settlement"]
    assert verify_proof(proof).ok


def test_player_banker_tables_and_early_close_verify(api: Api) -> None:
    shoe_id = _shoe(api, _table(api, banking="player_banker"), seed="pb")
    pb = {"bettor_id": "banker-seat", "balance": 500_000}
    for _ in range(4):
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets(), "player_banker": pb})
        assert r.status == 201, r.body
        s = api.post(f"/v1/rounds/{r.body['round_id']}/settlement")
        assert s.status == 200 and s.body["player_banker"]["id"] == "banker-seat", s.body
    assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
    proof = api.get(f"/v1/shoes/{shoe_id}/proof", key=None).body
    assert proof["table_config"]["banking"] == "player_banker"
    # the player-banker is named; its balance (which only served validation) is not published
    assert all(r["player_banker"] == {"bettor_id": pb["bettor_id"]} for r in proof["rounds"])
    assert not any(
        key in bet for r in proof["rounds"] for bet in r["bets"]
        for key in ("balance", "level", "personal_limits")
    )  # fmt: skip
    verdict = verify_proof(proof)
    assert verdict.ok and verdict.settlements_checked == 4, verdict.line()
    assert "closed early" in verdict.line()


def test_the_interim_proof_is_two_calls_and_a_settlement_two(api: Api) -> None:
    """A settlement: the round read and one conditional update. The (unsigned v1) proof: the
    proof item and one Query of the shoe's rounds."""
    ops: Counter[str] = Counter()

    def count(event_name: str, **_: Any) -> None:
        ops[event_name.rsplit(".", 1)[-1]] += 1

    shoe_id = _shoe(api, _table(api))
    api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})  # warm
    rnd = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    runtime.get_runtime().dynamodb.meta.events.register("before-call.dynamodb", count)
    assert api.post(f"/v1/rounds/{rnd['round_id']}/settlement").status == 200
    assert ops == {"GetItem": 1, "UpdateItem": 1}
    api.post(f"/v1/shoes/{shoe_id}/close")
    for _ in range(2):
        ops.clear()
        assert api.get(f"/v1/shoes/{shoe_id}/proof", key=None).status == 200
        assert ops == {"GetItem": 1, "Query": 1}


def _raw(api: Api, method: str, path: str, headers: dict[str, str] | None = None) -> Any:
    """The handler's raw answer (for non-JSON bodies)."""
    route = api.route(method, path)
    event = http_api_event(method, path, route, headers=headers)
    out = function_module(route.code_uri).handler(event, LambdaContext(route.function))
    body = out["body"]
    if out.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    return route.function, out["statusCode"], out["headers"], body


def test_verify_page_is_served_whole_and_public(api: Api) -> None:
    function, status, headers, html = _raw(api, "GET", "/verify")
    assert (function, status) == ("ReadFunction", 200)
    assert headers["content-type"].startswith("text/html")
    assert "<script src=" not in html
    inline = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    assert len(inline) == 3
    for code, name in zip(inline, ("bacc-pf-v1.js", "roads.js", "verify.js"), strict=True):
        assert code.strip() == (WEB / name).read_text(encoding="utf-8").strip(), name
    # the page is web/verify.html, with its scripts inlined
    assert html.split("<script>")[0] == (WEB / "verify.html").read_text().split("<script")[0]
    csp = headers["content-security-policy"]
    for code in inline:
        digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp
    assert (
        "default-src 'none'" in csp
        and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    )
    assert "connect-src *" in csp
    assert headers["x-content-type-options"] == "nosniff"
    # with a key it is the same page (Trust A's isolation walk sends one)
    _, status, _, again = _raw(api, "GET", "/verify", headers={"authorization": "Bearer nope"})
    assert status == 200 and again == html


def test_only_the_proof_route_allows_any_origin(api: Api) -> None:
    shoe_id = _shoe(api, _table(api))
    origin = {"origin": "null"}  # a page opened from file://
    early = api.get(f"/v1/shoes/{shoe_id}/proof", key=None, headers=origin)
    assert early.status == 404
    assert early.headers["access-control-allow-origin"] == "*"
    api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []})
    api.post(f"/v1/shoes/{shoe_id}/close")
    ok = api.get(f"/v1/shoes/{shoe_id}/proof", key=None, headers=origin)
    assert ok.status == 200 and ok.headers["access-control-allow-origin"] == "*"
    assert "x-request-id" in ok.headers["access-control-expose-headers"]
    for path in ("/v1/tiers", f"/v1/shoes/{shoe_id}"):
        r = api.get(path, headers=origin)
        assert r.status == 200 and "access-control-allow-origin" not in r.headers, path


def test_voided_rounds_keep_their_cards_in_the_proof_also_after_the_end(api: Api) -> None:
    shoe_id = _shoe(api, _table(api), seed="voids")
    dealt = [
        api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body for _ in range(3)
    ]
    assert api.post(f"/v1/rounds/{dealt[0]['round_id']}/settlement").status == 200
    before = api.post(f"/v1/rounds/{dealt[1]['round_id']}/void", {"reason": "misdeal"})
    assert before.status == 200, before.body
    assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
    after = api.post(f"/v1/rounds/{dealt[2]['round_id']}/void", {"reason": "misdeal"})
    assert after.status == 200, after.body

    proof = api.get(f"/v1/shoes/{shoe_id}/proof", key=None).body
    ProofOut.model_validate(proof)
    assert [r["voided"] for r in proof["rounds"]] == [False, True, True]
    assert proof["rounds"][1]["void"] == before.body["void"]
    assert proof["rounds"][2]["void"] == after.body["void"]
    assert all(r["settlement"] is None for r in proof["rounds"][1:])
    for r, d in zip(proof["rounds"], dealt, strict=True):
        assert (r["player"], r["banker"]) == (d["player"]["cards"], d["banker"]["cards"])
    verdict = verify_proof(proof)
    assert verdict.ok, verdict.line()
    assert "1 settlement re-derived and matching, 2 voided rounds" in verdict.line()
