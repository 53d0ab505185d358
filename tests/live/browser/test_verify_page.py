"""The browser verifier (web/verify.html) in a real headless Chromium.

The signed two-page sample proof (tests/vectors/proof_v2_sample.json, the TEST ONLY key) must read
"verified", following its pages and checking the ES256 signature with the keys of the origin; the
same pages with any byte changed must read "NOT verified" and say what changed. Old v1 proofs
(made by the engine's CLI, unsigned) read "verified" only when unsigned proofs are allowed, and a
changed card names its round. The page is opened over HTTP as the API serves it (GET /verify,
scripts as siblings), from file:// (proof in a data: URL, pasted, or chosen as files), and as one
inlined page. See conftest.py for how Chromium is driven.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

WEB = Path(__file__).resolve().parents[3] / "web"
SCREENSHOT_DIR = Path(os.environ.get("BACC_SCREENSHOT_DIR", "/tmp"))
LOCAL_SCHEMES = {"file", "data", "about", "blob"}


def _rounds(proof_json: str) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = json.loads(proof_json)["rounds"]
    return rounds


def _assert_local_only(page: Any) -> None:
    for url in page.requested_urls():
        parts = urlsplit(url)
        assert parts.scheme in LOCAL_SCHEMES or parts.hostname == "127.0.0.1", url


def _chosen_on_page(page: Any, page_url: str, proof: str, allow_unsigned: bool = True) -> None:
    """Opens the page, then, as a person would: ticks "accept an unsigned proof" and fetches
    ``proof`` by the URL field (a link cannot make the API's page trust an unsigned proof)."""
    page.goto(page_url)
    page.eval(
        f"document.getElementById('allow-unsigned').checked = {json.dumps(allow_unsigned)};"
        f"document.getElementById('proof-url').value = {json.dumps(proof)};"
        "document.getElementById('fetch-url').click();"
    )


def _page_state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.eval(
        """(() => ({
            rows: [...document.querySelectorAll('#rounds-body tr.round')].map(
                (tr) => [Number(tr.dataset.round), tr.dataset.status]),
            beads: document.querySelectorAll('#bead-plate g.bead').length,
            bigCells: document.querySelectorAll('#big-road g.ring').length,
            bigTies: [...document.querySelectorAll('#big-road g.ring')].reduce(
                (s, g) => s + Number(g.dataset.ties), 0),
            checks: [...document.querySelectorAll('#checks li')].map(
                (li) => [li.dataset.check, li.className]),
            firstCards: [...document.querySelectorAll(
                '#rounds-body tr.round:first-child .card')].map((c) => c.dataset.code),
        }))()"""
    )
    return state


def test_verified_over_http_as_the_api_serves_it(page: Any, server: Any, proof_json: str) -> None:
    rounds = _rounds(proof_json)
    path = server.add_proof("good.json", proof_json)
    _chosen_on_page(page, f"{server.url}/verify", path)
    v = page.wait_verdict()
    # the cards check out, but unsigned (the person's choice): never green on the API's page
    assert v["state"] == "unconfirmed", v
    assert v["text"] == "NOT confirmed by this API"
    assert "it is unsigned (accepted because you allowed unsigned proofs)" in v["detail"]
    assert f"all {len(rounds)} rounds" in v["detail"]
    assert v["detail"].endswith("(unsigned v1 proof: no signature to check)")

    state = _page_state(page)
    assert state["rows"] == [[r["round_number"], "ok"] for r in rounds]
    assert state["beads"] == len(rounds)
    ties = sum(r["result"] == "tie" for r in rounds)
    assert state["bigCells"] == len(rounds) - ties
    assert state["bigTies"] == ties
    checks = dict(state["checks"])
    assert checks.pop("signature") == "info"  # unsigned, as allowed
    assert all(cls == "ok" for cls in checks.values()), state["checks"]
    first = rounds[0]
    assert state["firstCards"] == [*first["player"], *first["banker"]]
    assert page.errors() == []
    _assert_local_only(page)
    page.screenshot(SCREENSHOT_DIR / "bacc-verify-verified.png")


def test_one_tampered_card_is_found_and_named(
    page: Any, server: Any, proof_json: str, proofs: SimpleNamespace
) -> None:
    bad, old, new = proofs.tamper_card(proof_json, round_number=5, side="banker", index=1)
    path = server.add_proof("tampered.json", bad)
    _chosen_on_page(page, f"{server.url}/verify", path)
    v = page.wait_verdict()
    assert v["state"] == "failed", v
    assert v["text"] == "NOT verified"
    assert v["detail"].startswith("round 5, banker cards: expected "), v
    assert old in v["detail"] and new in v["detail"]

    statuses = dict(_page_state(page)["rows"])
    assert statuses.pop(5) == "mismatch"
    assert set(statuses.values()) == {"ok"}
    assert page.eval(
        "document.querySelector('#bead-plate g.bead[data-round=\"5\"]').classList"
        ".contains('flagged')"
    )
    assert page.errors() == []
    page.screenshot(SCREENSHOT_DIR / "bacc-verify-failed.png")


def test_from_file_url_with_the_proof_in_a_data_url(
    page: Any, proof_json: str, proofs: SimpleNamespace
) -> None:
    url = (WEB / "verify.html").as_uri() + "?allow_unsigned=1&proof="
    page.goto(url + quote(proofs.data_url(proof_json)))
    assert page.wait_verdict()["state"] == "verified"

    bad, _, _ = proofs.tamper_card(proof_json, round_number=12, side="player", index=0)
    page.goto(url + quote(proofs.data_url(bad)))
    v = page.wait_verdict()
    assert v["state"] == "failed"
    assert v["detail"].startswith("round 12, player cards:"), v
    assert page.errors() == []
    _assert_local_only(page)


def test_from_file_url_pasted_and_chosen_as_a_file(
    page: Any, proof_json: str, proofs: SimpleNamespace, tmp_path: Path
) -> None:
    page.goto((WEB / "verify.html").as_uri())
    assert page.verdict()["state"] == "pending"

    paste = (
        f"document.getElementById('proof-text').value = {json.dumps(proof_json)};"
        "document.getElementById('verify-text').click();"
    )
    page.eval(paste)
    v = page.wait_verdict()
    assert v["state"] == "failed" and v["detail"].startswith("unsigned proof: it carries no"), v
    page.eval("document.getElementById('allow-unsigned').checked = true;" + paste)
    assert page.wait_verdict()["state"] == "verified"

    bad, _, _ = proofs.tamper_card(proof_json, round_number=1, side="banker", index=0)
    file = tmp_path / "tampered-proof.json"
    file.write_text(bad, encoding="utf-8")
    page.eval("document.getElementById('verdict').dataset.verdict = 'pending'")
    page.set_file("#proof-file", file)
    v = page.wait_verdict()
    assert v["state"] == "failed"
    assert v["detail"].startswith("round 1, banker cards:"), v
    assert "tampered-proof.json" in page.eval("document.getElementById('proof-source').textContent")
    assert page.errors() == []


def test_early_closed_shoe_verifies_but_silently_missing_rounds_do_not(
    page: Any, proof_json: str, proofs: SimpleNamespace
) -> None:
    proof = json.loads(proof_json)
    proof["rounds"] = proof["rounds"][:10]
    proof["end_reason"] = "closed"
    url = (WEB / "verify.html").as_uri() + "?allow_unsigned=1&proof="
    page.goto(url + quote(proofs.data_url(json.dumps(proof))))
    v = page.wait_verdict()
    assert v["state"] == "verified", v
    assert "closed early" in v["detail"]

    del proof["end_reason"]
    page.goto(url + quote(proofs.data_url(json.dumps(proof))))
    v = page.wait_verdict()
    assert v["state"] == "failed"
    assert v["detail"].startswith("round 11 is missing"), v


def test_wrong_anchor_is_a_chain_failure(page: Any, server: Any, proof_json: str) -> None:
    proof = json.loads(proof_json)
    proof["anchor"] = "00" * 32
    path = quote(server.add_proof("anchor.json", json.dumps(proof)))
    _chosen_on_page(page, f"{server.url}/verify", path)
    v = page.wait_verdict()
    assert v["state"] == "failed"
    assert v["detail"].startswith("chain: the server seed does not reach the anchor in 3 steps"), v


def test_a_proof_route_error_is_shown(page: Any, server: Any) -> None:
    server.route(
        "/v1/shoes/shoe_x/proof",
        404,
        {"error": {"code": "not_found", "message": "the shoe has not ended", "retryable": False}},
    )
    page.goto(f"{server.url}/verify?proof=/v1/shoes/shoe_x/proof")
    v = page.wait_verdict()
    assert v["state"] == "error"
    assert v["text"] == "NOT verified"
    assert "HTTP 404: the shoe has not ended" in v["detail"], v


def test_an_open_shoes_proof_route_says_the_shoe_is_open(page: Any, server: Any) -> None:
    """409 shoe_not_closed is shown as an open shoe, with what is known."""
    details = {"table_id": "tbl_open", "shoe_number": 1, "rounds_dealt": 6,
               "voided_rounds": 4, "close_by": "2026-12-05T03:00:00.000Z"}  # fmt: skip
    error = {"code": "shoe_not_closed", "message": "still open", "retryable": True,
             "details": details}  # fmt: skip
    server.route("/v1/shoes/tbl_open_s1/proof", 409, {"error": error})
    page.goto(f"{server.url}/verify?proof=/v1/shoes/tbl_open_s1/proof")
    v = page.wait_verdict()
    assert v["state"] == "error" and v["text"] == "NOT verified"
    assert (
        "HTTP 409: the shoe is still open (table tbl_open, shoe 1): 6 rounds dealt, 4 voided so "
        "far; no proof until it ends — the service closes it by 2026-12-05T03:00:00.000Z"
    ) in v["detail"], v


def test_works_as_one_inlined_page(page: Any, server: Any, proof_json: str) -> None:
    html = (WEB / "verify.html").read_text(encoding="utf-8")

    def inline(m: re.Match[str]) -> str:
        code = (WEB / m.group(1)).read_text(encoding="utf-8")
        assert "</script" not in code.lower()
        return f"<script>\n{code}\n</script>"

    single, n = re.subn(r'<script src="([\w.-]+\.js)"></script>', inline, html)
    assert n == 6
    (server.proofs / "single.html").write_text(single, encoding="utf-8")
    server.add_proof("good.json", proof_json)
    _chosen_on_page(page, f"{server.url}/proofs/single.html", "good.json")
    assert page.wait_verdict()["state"] == "unconfirmed"  # unsigned, as the person chose
    assert all(not u.endswith(".js") for u in page.requested_urls())
    assert page.errors() == []


def test_plain_dump_dom_also_sees_the_verdict(
    chromium_path: str, proof_json: str, proofs: SimpleNamespace, tmp_path: Path
) -> None:
    """The simplest possible driver (no DevTools): what a human can run by hand."""
    url = (
        (WEB / "verify.html").as_uri()
        + "?allow_unsigned=1&proof="
        + quote(proofs.data_url(proof_json))
    )
    out = subprocess.run(
        [
            chromium_path,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=15000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert '<div id="verdict" data-verdict="verified">verified</div>' in out.stdout, (
        out.stdout[-2000:] + out.stderr[-2000:]
    )


# --- signed v2 proofs ---------------------------------------------------------------------------

SAMPLE_REFS = [
    "br_5vlw5ybyvrxgdzesreuutrxh",
    "br_pgtpdh2gjc5xsv4hf2swij6a",
    "br_etj3qstjmpqpr7qrquhcyyad",
]
LINE = (
    "Interventions: 1 voided round, players would have netted +580; "
    "closed early after round 6 of 30"
)


def _signed_state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.eval(
        """(() => ({
            interventions: document.getElementById('interventions').textContent,
            bettors: [...document.querySelectorAll('#bettors-body tr')].map((tr) => tr.dataset.ref),
            rows: [...document.querySelectorAll('#rounds-body tr.round')].map(
                (tr) => [Number(tr.dataset.round), tr.dataset.status]),
            checks: [...document.querySelectorAll('#checks li')].map(
                (li) => [li.dataset.check, li.className]),
            tags: [...document.querySelectorAll('#rounds-body tr.round')].map(
                (tr) => [...tr.querySelectorAll('.tag')].map((t) => t.textContent)),
        }))()"""
    )
    return state


def test_a_signed_two_page_proof_verifies_over_http(
    page: Any, server: Any, signed_pages: list[dict[str, Any]], signing_keys: dict[str, Any]
) -> None:
    path = server.serve_pages(signed_pages, keys=signing_keys)
    page.goto(f"{server.url}/verify?proof={quote(path)}")
    v = page.wait_verdict()
    assert v["state"] == "verified", (v, page.errors())
    kid = signing_keys["keys"][0]["kid"]
    assert v["detail"].endswith(
        f"signed by key {kid} of {server.url}/v1/signing-keys (ES256, 2 pages); "
        "table tbl_vector, shoe tbl_vector_s2 (the shoe asked for)"
    ), v
    state = _signed_state(page)
    assert state["interventions"] == LINE
    assert state["bettors"] == SAMPLE_REFS
    assert state["rows"] == [[n, "ok"] for n in range(1, 7)]
    assert "void" in state["tags"][2]
    assert all(cls in ("ok", "info") for _, cls in state["checks"]), state["checks"]
    assert dict(state["checks"])["signature"] == "ok"
    urls = page.requested_urls()
    assert f"{server.url}{path}?page=2" in urls and f"{server.url}/v1/signing-keys" in urls
    _assert_local_only(page)
    assert page.errors() == []
    # a player types the ref the operator showed them: their rounds are marked
    page.eval(
        f"const f = document.getElementById('ref-filter'); f.value = {json.dumps(SAMPLE_REFS[1])};"
        "f.dispatchEvent(new Event('input'));"
    )
    marked = page.eval("document.querySelectorAll('#rounds-body tr.round.mine').length")
    assert marked == 6
    page.screenshot(SCREENSHOT_DIR / "bacc-verify-signed.png")


def _edit(pages: list[dict[str, Any]], path: tuple[Any, ...], value: Any) -> None:
    target: Any = pages
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value(target[path[-1]]) if callable(value) else value


CHANGES = {
    "an end_reason": ((0, "end_reason"), "rules", "page 1 was changed after it was signed"),
    "a settlement line": (
        (1, "rounds", 0, "settlement", "lines", 1, "net"),
        lambda n: n + 1,
        "page 2 was changed after it was signed",
    ),
    "a timestamp": (
        (1, "rounds", 2, "dealt_at"),
        "2025-06-01T12:05:59.000Z",
        "page 2 was changed after it was signed",
    ),
    "a page's round": (
        (0, "rounds", 1, "banker", 0),
        lambda c: ("K" if c[0] != "K" else "Q") + c[1],
        "page 1 was changed after it was signed",
    ),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_any_changed_byte_fails_in_chromium(
    name: str,
    page: Any,
    server: Any,
    signed_pages: list[dict[str, Any]],
    signing_keys: dict[str, Any],
) -> None:
    path, value, words = CHANGES[name]
    _edit(signed_pages, path, value)
    page.goto(f"{server.url}/verify?proof={quote(server.serve_pages(signed_pages, signing_keys))}")
    v = page.wait_verdict()
    assert v["state"] == "failed", v
    assert v["text"] == "NOT verified"
    assert v["detail"].startswith(f"{words}: its SHA-256 is "), v
    assert page.errors() == []


def test_a_payout_off_by_one_minor_unit_is_caught_though_balanced_and_signed(
    page: Any, server: Any, signed_pages: list[dict[str, Any]], signing_keys: dict[str, Any]
) -> None:
    """A dishonest signer's proof: round 1's Banker winner paid one minor unit more (his round
    commission one less, the house's take one less: the settlement still balances), signed again.
    Only recomputing the money finds it: the page names the round, the field, the bettor and
    both amounts."""
    from support.signed_proofs import resign

    s = signed_pages[0]["rounds"][0]["settlement"]
    ref = s["bettors"][0]["bettor_ref"]
    s["bettors"][0]["commission"] -= 1
    s["bettors"][0]["net"] += 1
    s["nets"][ref] += 1
    s["house"]["commission"] -= 1
    s["house"]["take"] -= 1
    path = server.serve_pages(resign(signed_pages), signing_keys)
    page.goto(f"{server.url}/verify?proof={quote(path)}")
    v = page.wait_verdict()
    assert v["state"] == "failed", v
    assert v["detail"] == (
        f"round 1, settlement.bettors[0].commission (bettor {ref}): expected 11, found 10"
    ), v
    state = _signed_state(page)
    checks = dict(state["checks"])
    assert checks["signature"] == "ok" and checks["settlements"] != "ok", checks
    assert state["rows"][0] == [1, "mismatch"]
    assert page.errors() == []


def test_signed_pages_from_files_with_a_pasted_key_set(
    page: Any, signed_pages: list[dict[str, Any]], signing_keys: dict[str, Any], tmp_path: Path
) -> None:
    files = []
    for k, p in enumerate(signed_pages, start=1):
        files.append(tmp_path / f"page-{k}.json")
        files[-1].write_text(json.dumps(p), encoding="utf-8")
    page.goto((WEB / "verify.html").as_uri())
    page.set_file("#proof-file", *files)
    v = page.wait_verdict()
    assert v["state"] == "failed", v  # from file://: no origin to read the keys from
    assert v["detail"].startswith("signature not checked: no signing keys (paste the JWK set"), v
    page.eval(
        f"document.getElementById('keys-text').value = {json.dumps(json.dumps(signing_keys))};"
        "document.getElementById('verdict').dataset.verdict = 'pending';"
    )
    page.set_file("#proof-file", *reversed(files))
    v = page.wait_verdict()
    assert v["state"] == "verified", v
    assert "of the pasted key set (ES256, 2 pages)" in v["detail"]
    page.set_file("#proof-file", files[0])  # one page of two
    page.eval("document.getElementById('verdict').dataset.verdict = 'pending'")
    page.set_file("#proof-file", files[1])
    v = page.wait_verdict()
    assert v["detail"] == (
        "page 1 of 2 is missing (give every page, a bundle or the proof's URL)"
    ), v
    assert page.errors() == []
    _assert_local_only(page)


def test_a_bundle_in_a_data_url_with_keys_in_a_data_url(
    page: Any, signed_pages: list[dict[str, Any]], signing_keys: dict[str, Any], proofs: Any
) -> None:
    bundle = proofs.data_url(json.dumps({"pages": signed_pages}))
    keys = proofs.data_url(json.dumps(signing_keys))
    page.goto((WEB / "verify.html").as_uri() + f"?keys={quote(keys)}&proof={quote(bundle)}")
    v = page.wait_verdict()
    assert v["state"] == "verified", v
    assert "of a data: URL (ES256, 2 pages)" in v["detail"]
    for p in signed_pages:
        del p["signature"]
    page.goto(
        (WEB / "verify.html").as_uri()
        + "?proof="
        + quote(proofs.data_url(json.dumps(signed_pages)))
    )
    v = page.wait_verdict()
    assert v["state"] == "failed" and v["detail"].startswith("unsigned proof"), v


# --- the API's page trusts only the API's own keys -----------------------------------------------


def _another_key_set() -> dict[str, Any]:
    """A JWK set of a fresh key: the API's own, which did not sign the forged proof."""
    from cryptography.hazmat.primitives.asymmetric import ec

    from baccarat import proofdoc

    n = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    return {"keys": [proofdoc.public_jwk(n.x.to_bytes(32, "big"), n.y.to_bytes(32, "big"))]}


def test_a_crafted_link_to_the_apis_page_never_shows_green(
    page: Any,
    server: Any,
    signed_pages: list[dict[str, Any]],
    signing_keys: dict[str, Any],
    proofs: SimpleNamespace,
    proof_json: str,
) -> None:
    """A forger signs a proof with their own key and links the real page to it with
    ?keys=<their key set>; or links an unsigned forgery with ?allow_unsigned=1; or carries the
    proof in a data: URL. The API's page trusts only its own /v1/signing-keys: no green."""
    path = server.serve_pages(signed_pages, keys=_another_key_set())  # the API's own key
    server.route("/evil/keys.json", 200, signing_keys)  # the forger's key, which signed it
    data_keys = proofs.data_url(json.dumps(signing_keys))
    for keys in (f"{server.url}/evil/keys.json", data_keys):
        page.goto(f"{server.url}/verify?keys={quote(keys, safe='')}&proof={quote(path)}")
        v = page.wait_verdict()
        assert v["state"] == "failed", v
        assert v["detail"].startswith(
            f"signature: key {signing_keys['keys'][0]['kid']} is not among the signing keys of "
            f"{server.url}/v1/signing-keys"
        ), v
        note = page.eval("document.getElementById('link-note').textContent")
        assert "(?keys=): ignored" in note, note
        assert f"{server.url}/evil/keys.json" not in page.requested_urls()

    unsigned = server.add_proof("forged.json", proof_json)
    page.goto(f"{server.url}/verify?allow_unsigned=1&proof={quote(unsigned)}")
    v = page.wait_verdict()
    assert v["state"] == "failed" and v["detail"].startswith("unsigned proof"), v
    assert page.eval("document.getElementById('allow-unsigned').checked") is False

    bundle = proofs.data_url(json.dumps({"pages": signed_pages}))
    page.goto(f"{server.url}/verify?keys={quote(data_keys)}&proof={quote(bundle)}")
    v = page.wait_verdict()
    assert v["state"] == "error" and "A link cannot carry the proof itself" in v["detail"], v

    # the person on the page pastes the other key set: the checks pass, shown as their choice
    page.goto(f"{server.url}/verify")
    page.eval(
        f"document.getElementById('keys-text').value = {json.dumps(json.dumps(signing_keys))};"
        f"document.getElementById('proof-url').value = {json.dumps(path)};"
        "document.getElementById('fetch-url').click();"
    )
    v = page.wait_verdict()
    assert v["state"] == "unconfirmed", v
    assert "checked with the key set you pasted, not with this API's own keys" in v["detail"]
    box = page.eval("getComputedStyle(document.getElementById('verdict-box')).backgroundColor")
    green = page.eval(
        "document.getElementById('verdict-box').dataset.verdict = 'verified';"
        "getComputedStyle(document.getElementById('verdict-box')).backgroundColor"
    )
    assert box != green
    assert page.errors() == []


def test_a_pasted_proof_on_the_apis_page_is_shown_as_pasted(
    page: Any, server: Any, signed_pages: list[dict[str, Any]], signing_keys: dict[str, Any]
) -> None:
    server.serve_pages(signed_pages, keys=signing_keys)  # the API's own key signed it
    page.goto(f"{server.url}/verify")
    page.eval(
        f"document.getElementById('proof-text').value = {json.dumps(json.dumps(signed_pages))};"
        "document.getElementById('verify-text').click();"
    )
    v = page.wait_verdict()
    assert v["state"] == "unconfirmed", v
    assert "a proof you pasted or chose as a file" in v["detail"]
    assert page.errors() == []


def test_another_tables_proof_at_my_shoe_url_is_not_verified(
    page: Any, server: Any, signed_pages: list[dict[str, Any]], signing_keys: dict[str, Any]
) -> None:
    """A clean signed proof of table tbl_vector served at a player's shoe URL."""
    server.serve_pages(signed_pages, keys=signing_keys)
    server.route("/v1/shoes/tbl_mine_s2/proof", 200, signed_pages[0])
    page.goto(f"{server.url}/verify?proof={quote('/v1/shoes/tbl_mine_s2/proof')}")
    v = page.wait_verdict()
    assert v["state"] == "failed", v
    assert v["detail"].startswith(
        "this is the proof of shoe tbl_vector_s2 (table tbl_vector), not of the shoe asked for, "
        "tbl_mine_s2"
    ), v
    subject = page.eval("document.getElementById('subject').textContent")
    assert subject == "Proof of: table tbl_vector, shoe tbl_vector_s2 (not the shoe asked for)"
    assert page.errors() == []


# --- bacc-pf-v1.1: a proof with books, and a bettor's receipt beside it ---------------------------

RECEIPTS = json.loads(
    (Path(__file__).resolve().parents[2] / "vectors" / "receipts.json").read_text(encoding="utf-8")
)


def _receipt_state(page: Any) -> dict[str, Any]:
    import time

    deadline = time.monotonic() + 30
    while True:
        state: dict[str, Any] = page.eval(
            """(() => { const r = document.getElementById('receipt-result');
                return { state: r.dataset.receipt || 'pending', text: r.textContent,
                  books: [...document.querySelectorAll('#rounds-body .tag.book')].map(
                    (t) => [t.dataset.bookCount, t.dataset.bookRoot]) }; })()"""
        )
        if state["state"] != "pending" or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


@pytest.mark.parametrize("tampered", ["no", "amount", "payout"])
def test_a_receipt_beside_a_v11_proof(
    page: Any, server: Any, signing_keys: dict[str, Any], tampered: str
) -> None:
    """A v1.1 proof shows each round's book (root, count); a receipt given by ``?receipt=`` is
    found in its round's book and paid exactly; one with a changed amount is not in the book, one
    paid a minor unit short is not paid exactly."""
    path = server.serve_pages(RECEIPTS["proof"], keys=signing_keys)
    receipt = RECEIPTS["failing"][0]["receipt"] if tampered == "amount" else RECEIPTS["receipts"][3]
    if tampered == "payout":
        receipt = json.loads(json.dumps(receipt))
        receipt["settlement"]["net"] -= 1
    server.route("/receipt.json", 200, receipt)
    page.goto(f"{server.url}/verify?proof={quote(path)}&receipt={quote('/receipt.json')}")
    v = page.wait_verdict()
    assert v["state"] == "verified", (v, page.errors())
    state = _receipt_state(page)
    books = [r["book"] for p in RECEIPTS["proof"] for r in p["rounds"]]
    assert state["books"] == [[str(b["count"]), b["root"]] for b in books]
    net = RECEIPTS["receipts"][3]["settlement"]["net"]
    if tampered == "amount":
        assert state["state"] == "failed", state
        assert state["text"].startswith(
            "Receipt: NOT verified: the slip is NOT in the book locked at the deal of round 1"
        ), state
    elif tampered == "payout":
        assert state["state"] == "failed", state
        assert state["text"] == (
            "Receipt: NOT verified: the slip was NOT paid exactly: settlement.net: "
            f"expected {net}, found {net - 1}"
        ), state
    else:
        assert state["state"] == "verified", state
        assert state["text"].startswith(
            "Receipt: verified: slip in the book locked at the deal of round 1 (leaf 4 of 7) "
            f"and paid exactly: net {net} (the slip's money is recomputed on this page"
        ), state
    assert page.errors() == []
    _assert_local_only(page)
