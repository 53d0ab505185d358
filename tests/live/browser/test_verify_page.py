"""The browser verifier (web/verify.html) in a real headless Chromium.

A proof made by the engine's CLI must read "verified"; the same proof with one card changed must
read "NOT verified" and name the round. The page is opened over HTTP as the API serves it
(GET /verify, scripts as siblings), from file:// (proof in a data: URL, pasted, or chosen as a
file), and as one inlined page. See conftest.py for how Chromium is driven.
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
    page.goto(f"{server.url}/verify?proof={quote(path)}")
    v = page.wait_verdict()
    assert v["state"] == "verified", v
    assert v["text"] == "verified"
    assert f"all {len(rounds)} rounds" in v["detail"]

    state = _page_state(page)
    assert state["rows"] == [[r["round_number"], "ok"] for r in rounds]
    assert state["beads"] == len(rounds)
    ties = sum(r["result"] == "tie" for r in rounds)
    assert state["bigCells"] == len(rounds) - ties
    assert state["bigTies"] == ties
    assert all(cls == "ok" for _, cls in state["checks"]), state["checks"]
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
    page.goto(f"{server.url}/verify?proof={quote(path)}")
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
    page.goto((WEB / "verify.html").as_uri() + "?proof=" + quote(proofs.data_url(proof_json)))
    assert page.wait_verdict()["state"] == "verified"

    bad, _, _ = proofs.tamper_card(proof_json, round_number=12, side="player", index=0)
    page.goto((WEB / "verify.html").as_uri() + "?proof=" + quote(proofs.data_url(bad)))
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

    page.eval(
        f"document.getElementById('proof-text').value = {json.dumps(proof_json)};"
        "document.getElementById('verify-text').click();"
    )
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
    url = (WEB / "verify.html").as_uri() + "?proof="
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
    page.goto(
        f"{server.url}/verify?proof={quote(server.add_proof('anchor.json', json.dumps(proof)))}"
    )
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


def test_works_as_one_inlined_page(page: Any, server: Any, proof_json: str) -> None:
    html = (WEB / "verify.html").read_text(encoding="utf-8")

    def inline(m: re.Match[str]) -> str:
        code = (WEB / m.group(1)).read_text(encoding="utf-8")
        assert "</script" not in code.lower()
        return f"<script>\n{code}\n</script>"

    single, n = re.subn(r'<script src="([\w.-]+\.js)"></script>', inline, html)
    assert n == 3
    (server.proofs / "single.html").write_text(single, encoding="utf-8")
    server.add_proof("good.json", proof_json)
    page.goto(f"{server.url}/proofs/single.html?proof=good.json")
    assert page.wait_verdict()["state"] == "verified"
    assert all(not u.endswith(".js") for u in page.requested_urls())
    assert page.errors() == []


def test_plain_dump_dom_also_sees_the_verdict(
    chromium_path: str, proof_json: str, proofs: SimpleNamespace, tmp_path: Path
) -> None:
    """The simplest possible driver (no DevTools): what a human can run by hand."""
    url = (WEB / "verify.html").as_uri() + "?proof=" + quote(proofs.data_url(proof_json))
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
