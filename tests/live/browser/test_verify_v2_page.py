"""The browser verifier on a whole ``bacc-pf-v2`` shoe in headless Chromium (issue 28's "done
when"): the signed sample (tests/make_v2_proof_vectors.py: 32 round numbers on a local test
beacon, 31 BLS checks in the page, the money recomputed by web/money.js) reads "verified" and
names its beacon "test beacon", never drand; a beacon signature, a book root, a card or a payout
changed and signed again (a dishonest signer) reads "NOT verified" with the round and what is
wrong. The page as the API serves it (GET /verify, its scripts as siblings)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

SCREENSHOT_DIR = Path(os.environ.get("BACC_SCREENSHOT_DIR", "/tmp"))
SAMPLE = Path(__file__).resolve().parents[3] / "tests" / "vectors" / "pf2_sample_proof.json"


def _pages() -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = json.loads(SAMPLE.read_text(encoding="utf-8"))["pages"]
    return pages


def _round(pages: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """The k-th settled round (from 0), as it is on its page (edits change the page)."""
    return [r for p in pages for r in p["rounds"] if r.get("settlement")][k]


def _sign_of_other_round(pages: list[dict[str, Any]]) -> None:
    _round(pages, 3)["beacon"]["signature"] = _round(pages, 4)["beacon"]["signature"]


def _root(pages: list[dict[str, Any]]) -> None:
    _round(pages, 2)["lock"]["book_root"] = "00" * 32


def _card(pages: list[dict[str, Any]]) -> None:
    r = _round(pages, 6)
    r["player"][0] = "KS" if r["player"][0] != "KS" else "QS"


def _payout(pages: list[dict[str, Any]]) -> None:
    r = next(x for p in pages for x in p["rounds"] if x.get("settlement", {}) and x["bets"])
    r["settlement"]["lines"][0]["net"] += 1


TAMPERS = {
    "beacon signature": (_sign_of_other_round, 3, "'s signature does not verify under the test"),
    "book root": (_root, 2, ": book root 0000"),
    "card": (_card, 6, ", player cards: expected"),
    "payout": (_payout, None, ", settlement.lines[0].net"),
}


def _state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.eval(
        """(() => ({
            rows: [...document.querySelectorAll('#rounds-body tr.round')].map(
                (tr) => [Number(tr.dataset.round), tr.dataset.status]),
            checks: Object.fromEntries([...document.querySelectorAll('#checks li')].map(
                (li) => [li.dataset.check, li.className])),
            summary: [...document.querySelectorAll('#summary dt')].map(
                (dt) => [dt.textContent, dt.nextElementSibling.textContent]),
            interventions: document.getElementById('interventions').textContent,
        }))()"""
    )
    return state


def test_a_whole_v2_shoe_verifies_in_chromium_with_its_beacon_named(
    page: Any, server: Any, signing_keys: dict[str, Any]
) -> None:
    path = server.serve_pages(_pages(), keys=signing_keys)
    page.goto(f"{server.url}/verify?proof={quote(path)}")
    v = page.wait_verdict(timeout=60)
    # every check passes, yet a test beacon is never trustless: not green
    assert (v["state"], v["text"]) == ("unconfirmed", "NOT trustless: a test beacon"), (
        v,
        page.errors(),
    )
    assert v["detail"].startswith("The checks pass, but its rounds were keyed by a test beacon")
    assert "bacc-pf-v2 shoe 3: " in v["detail"]
    assert "31 beacon rounds of a test beacon (NOT drand: its own key) BLS-verified" in v["detail"]
    assert "drand quicknet" not in v["detail"]
    state = _state(page)
    assert dict(state["summary"])["Beacon"].startswith("test beacon: its own key, NOT drand")
    assert state["checks"]["beacons"] == state["checks"]["settlements"] == "ok", state["checks"]
    assert [n for n, s in state["rows"] if s == "beacon void"] == [7, 19]
    assert all(s in ("ok", "beacon void") for _, s in state["rows"])
    assert "2 beacon_unavailable voids (no beacon in time), 1 priced" in state["interventions"]
    assert page.errors() == []
    page.screenshot(SCREENSHOT_DIR / "bacc-verify-v2.png")


@pytest.mark.parametrize("name", list(TAMPERS))
def test_a_changed_beacon_root_card_or_payout_is_caught_in_chromium(
    name: str, page: Any, server: Any, signing_keys: dict[str, Any]
) -> None:
    from support.signed_proofs import resign

    edit, k, words = TAMPERS[name]
    pages = _pages()
    edit(pages)
    path = server.serve_pages(resign(pages), keys=signing_keys)
    page.goto(f"{server.url}/verify?proof={quote(path)}")
    v = page.wait_verdict(timeout=60)
    assert v["state"] == "failed", v
    n = _round(_pages(), k)["round_number"] if k is not None else None
    assert v["detail"].startswith(f"round {n}" if n else "round "), v
    assert words in v["detail"], v
    assert _state(page)["checks"]["signature"] == "ok"
    assert page.errors() == []
