"""The proof and what the read function serves publicly.

* The final proof carries, per round, its settlement or its void and what recomputing it needs
  (the table's configuration once, the bets / player-banker per round, by bettor ref), also for
  settlements and voids made AFTER the shoe ended (it is built from the round records once every
  round is resolved); 409 ``shoe_not_closed`` while the shoe is open, 409 ``proof_pending``
  while it has ended with rounds unresolved; ``baccarat verify``'s library function checks the
  signature and recomputes every settlement.
* ``GET /verify`` is the browser verifier, one self-contained page, no key; the public routes
  (the proof, the signing keys, a table's fairness summary) answer with
  ``Access-Control-Allow-Origin: *`` (their errors too), no other route does.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import re
from typing import Any

from support.stack import (
    Api,
    LambdaContext,
    function_module,
    http_api_event,
    new_shoe,
    new_table,
    signing_keys,
    star_city_bets,
    verified_proof,
)

from baccarat import proofdoc
from baccarat.verify import verify
from baccarat_api.service.models import ProofPageOut
from baccarat_dev.template import REPO_ROOT
from baccarat_verify import es256

WEB = REPO_ROOT / "web"


def _table(api: Api, banking: str = "house", profile: str = "star-city") -> str:
    return new_table(api, banking=banking, profile=profile)


def _shoe(api: Api, table_id: str, seed: str = "bundle") -> str:
    return new_shoe(api, table_id, seed)


def _public(settlement: dict[str, Any]) -> dict[str, Any]:
    """The operator's settlement as the proof shows it: named by ref, no balances after it."""
    doc = {k: v for k, v in settlement.items() if k != "void"}
    refs = {line["bettor_id"]: line["bettor_ref"] for line in settlement["lines"]}
    refs |= {p["id"]: p["bettor_ref"] for p in settlement["bettors"]}
    if settlement["player_banker"] is not None:
        refs[settlement["player_banker"]["id"]] = settlement["player_banker"]["bettor_ref"]
    return proofdoc.public_settlement(doc, refs.__getitem__)


def _rounds(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for page in pages for r in page["rounds"]]


def test_the_proof_carries_settlements_made_before_and_after_the_end(api: Api) -> None:
    table_id = _table(api)
    table = api.get(f"/v1/tables/{table_id}").body
    shoe_id = _shoe(api, table_id)
    dealt: list[dict[str, Any]] = []
    settled: dict[int, dict[str, Any]] = {}
    for n in range(1, 31):
        # every third: nobody bets (settled at the deal)
        body = {"bets": star_city_bets() if n % 3 != 2 else []}
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", body)
        assert r.status == 201, r.body
        dealt.append(r.body)
        # each round is resolved before the next is dealt; the last (it ends the shoe) after
        if n < 30 and n % 3 != 2:
            s = api.post(f"/v1/rounds/{r.body['round_id']}/settlement")
            assert s.status == 200
            settled[n] = s.body
    assert dealt[-1]["shoe_status"] == "ended"

    nobody = list(range(2, 31, 3))
    open_ = [n for n in range(1, 31) if n not in settled and n not in nobody]
    pending = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert pending.status == 409 and pending.error["code"] == "proof_pending"
    assert pending.error["retryable"] is True and pending.headers["retry-after"] == "5"
    assert pending.error["details"] == {
        "unresolved_rounds": open_,
        "settle_by": max(dealt[n - 1]["settle_by"] for n in open_),
    }
    # after the end: the rest (locked bets), in reverse order
    for n in reversed(open_):
        s = api.post(f"/v1/rounds/{dealt[n - 1]['round_id']}/settlement")
        assert s.status == 200, s.body
        settled[n] = s.body

    verdict, pages = verified_proof(api, shoe_id)
    assert verdict.ok, verdict.line()
    assert verdict.settlements_checked == 30
    for page in pages:
        ProofPageOut.model_validate(page)
    (page,) = pages
    assert page["table_config"]["profile"] == "star-city"
    assert page["table_config"]["tier"]["id"] == table["tier"]
    assert page["table_config"]["rounding"] == table["rounding"]
    assert page["table_config"]["banker_pays"] == table["banker_pays"]
    by_number = {r["round_number"]: r for r in _rounds(pages)}
    # the settlements as answered, by ref and without the balances after the round
    for n, s in settled.items():
        assert by_number[n]["settlement"] == _public(s), n
        assert by_number[n]["settled_at"] == s["settled_at"]
    assert "eligibility" in settled[30] and "eligibility" not in by_number[30]["settlement"]
    assert by_number[2]["settlement"]["lines"] == [] and by_number[2]["bets"] == []
    assert by_number[30]["bets"] == [
        {k: b[k] for k in proofdoc.PUBLIC_BET_FIELDS if k in b} for b in dealt[-1]["bets"]
    ]
    assert not any(r["voided"] for r in _rounds(pages))
    for d in dealt:  # the cards each deal answered, locked when dealt
        r = by_number[d["round_number"]]
        assert (r["player"], r["banker"]) == (d["player"]["cards"], d["banker"]["cards"])
        assert r["dealt_at"] == r["bets_locked_at"] == d["dealt_at"]
    assert page["interventions"] == {
        "voided_rounds": 0,
        "voided_player_net": 0,
        "voided_player_banker_net": 0,
        "closed_early": False,
        "rounds_dealt": 30,
        "rounds_possible": 30,
    }

    tampered = copy.deepcopy(pages)
    tampered[0]["rounds"][29]["settlement"]["bettors"][0]["net"] += 100
    bad = verify(tampered, keys=signing_keys(api), signature_check=es256.check)
    assert not bad.ok and "changed after it was signed" in bad.line()


def test_the_proof_is_not_closed_while_open_pending_while_unresolved_then_final(api: Api) -> None:
    shoe_id = _shoe(api, _table(api))
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert api.post(f"/v1/rounds/{r['round_id']}/settlement").status == 200
    early = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert early.status == 409 and early.error["code"] == "shoe_not_closed"
    assert "server_seed" not in str(early.body)
    late = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
    pending = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert pending.status == 409 and pending.error["details"]["unresolved_rounds"] == [2]
    assert "server_seed" not in str(pending.body)
    assert api.post(f"/v1/rounds/{late['round_id']}/settlement").status == 200
    verdict, (page,) = verified_proof(api, shoe_id)
    assert verdict.ok and page["end_reason"] == "closed", verdict.line()
    assert [r["settlement"] is not None for r in page["rounds"]] == [True, True]
    for bad in ("?page=2", "?page=0", "?page=x", "?page=65"):
        r = api.call("GET", f"/v1/shoes/{shoe_id}/proof", key=None, query=bad[1:])
        assert r.status in (400, 404) and r.body["error"]["code"] in (
            "not_found",
            "invalid_request",
        )
    again = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert again.body == page  # final: it never changes
    assert again.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert again.headers["etag"] == f'"{page["signature"]["manifest"]["pages"][0]}"'


def test_player_banker_tables_and_early_close_verify(api: Api) -> None:
    shoe_id = _shoe(api, _table(api, banking="player_banker"), seed="pb")
    pb = {"bettor_id": "banker-seat", "balance": 500_000}
    for _ in range(4):
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets(), "player_banker": pb})
        assert r.status == 201, r.body
        s = api.post(f"/v1/rounds/{r.body['round_id']}/settlement")
        assert s.status == 200 and s.body["player_banker"]["id"] == "banker-seat", s.body
    assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
    verdict, (proof,) = verified_proof(api, shoe_id)
    assert verdict.ok and verdict.settlements_checked == 4, verdict.line()
    assert proof["table_config"]["banking"] == "player_banker"
    # the player-banker is named by its ref; its balance (validation only) is not published
    ref = r.body["player_banker"]["bettor_ref"]
    assert all(r["player_banker"] == {"bettor_ref": ref} for r in proof["rounds"])
    assert not any(
        key in bet for r in proof["rounds"] for bet in r["bets"]
        for key in ("bettor_id", "balance", "level", "personal_limits")
    )  # fmt: skip
    assert "banker-seat" not in str(proof)
    assert "closed early" in verdict.line()


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
    names = ("bacc-pf-v1.js", "roads.js", "booktree.js", "money.js", "receipt.js", "verify.js")
    assert len(inline) == len(names)
    for code, name in zip(inline, names, strict=True):
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


def test_only_the_public_routes_allow_any_origin(api: Api) -> None:
    table_id = _table(api)
    shoe_id = _shoe(api, table_id)
    origin = {"origin": "null"}  # a page opened from file://
    early = api.get(f"/v1/shoes/{shoe_id}/proof", key=None, headers=origin)
    assert early.status == 409  # shoe_not_closed
    assert early.headers["access-control-allow-origin"] == "*"
    api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []})
    api.post(f"/v1/shoes/{shoe_id}/close")
    for path in (
        f"/v1/shoes/{shoe_id}/proof",
        "/v1/signing-keys",
        f"/v1/tables/{table_id}/fairness",
        "/v1/tables/tbl_aaaaaaaaaaaaaaaa/fairness",  # a 404 too
    ):
        ok = api.get(path, key=None, headers=origin)
        assert ok.status in (200, 404) and ok.headers["access-control-allow-origin"] == "*"
        exposed = ok.headers["access-control-expose-headers"]
        assert {"x-request-id", "retry-after", "etag"} <= set(exposed.replace(" ", "").split(","))
    for path in ("/v1/tiers", f"/v1/shoes/{shoe_id}", f"/v1/tables/{table_id}"):
        r = api.get(path, headers=origin)
        assert r.status == 200 and "access-control-allow-origin" not in r.headers, path


def test_voided_rounds_keep_their_cards_in_the_proof_also_after_the_end(api: Api) -> None:
    shoe_id = _shoe(api, _table(api), seed="voids")
    # each round resolved before the next is dealt (the last one after the shoe's end)
    dealt = [api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body]
    assert api.post(f"/v1/rounds/{dealt[0]['round_id']}/settlement").status == 200
    dealt.append(api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body)
    before = api.post(f"/v1/rounds/{dealt[1]['round_id']}/void", {"reason": "misdeal"})
    assert before.status == 200, before.body
    dealt.append(api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body)
    assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
    after = api.post(
        f"/v1/rounds/{dealt[2]['round_id']}/void", {"reason": "technical_fault", "note": "shoe jam"}
    )
    assert after.status == 200, after.body

    verdict, (proof,) = verified_proof(api, shoe_id)
    assert verdict.ok, verdict.line()
    assert "1 settlement re-derived and matching, 2 voided rounds" in verdict.line()
    assert [r["voided"] for r in proof["rounds"]] == [False, True, True]
    refs = {b["bettor_id"]: b["bettor_ref"] for b in dealt[0]["bets"]}
    for r, answered in zip(proof["rounds"][1:], (before.body, after.body), strict=True):
        void = answered["void"]
        assert r["void"] == {
            "reason": void["reason"],
            "note": void["note"],
            "voided_at": void["voided_at"],
            "replaced": {
                "nets": {refs[who]: net for who, net in void["replaced"]["nets"].items()},
                "house_take": void["replaced"]["house_take"],
            },
        }
        assert r["settlement"] is None and r["voided_at"] == void["voided_at"]
    for r, d in zip(proof["rounds"], dealt, strict=True):
        assert (r["player"], r["banker"]) == (d["player"]["cards"], d["banker"]["cards"])
    iv = proof["interventions"]
    assert iv["voided_rounds"] == 2 and iv["closed_early"] is True
    assert iv["voided_player_net"] == sum(
        sum(v["void"]["replaced"]["nets"].values()) for v in (before.body, after.body)
    )


def test_a_malformed_fairness_cursor_is_422_invalid_cursor_like_every_cursor(api: Api) -> None:
    """The three cursors (the feed's after, /v1/rounds' and the fairness
    summary's cursor) answer a malformed value alike: 422 invalid_cursor."""
    table_id = new_table(api)
    for garbage in ("garbage", "0", "1234567"):
        bad = api.get(f"/v1/tables/{table_id}/fairness", query=f"cursor={garbage}", key=None)
        assert (bad.status, bad.error["code"]) == (422, "invalid_cursor"), garbage
