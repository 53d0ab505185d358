"""Issue 28's "done when", in the browser: a running bacc-pf-v2 table on the local server
(``make run``'s runner, its local test beacon at a 500 ms period) plays a shoe, and the page the
API itself serves at ``/verify`` says "verified" on its signed proof — every beacon BLS-checked
in the page, the cards drawn again, the money recomputed by web/money.js — and names the beacon
a test beacon, never drand."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
from support.local_server import local_server
from support.v2_table import play_v2_shoe, until


def test_a_live_v2_shoes_proof_verifies_in_chromium(page: Any, shared_dynamodb: Any) -> None:
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_BEACON_PERIOD_MS": "500"}
    with local_server(env, probe="/verify", dynamodb=shared_dynamodb) as server:
        api = httpx.Client(base_url=server.url, timeout=30,
                           headers={"Authorization": f"Bearer {server.key}"})  # fmt: skip
        _, shoe_id = play_v2_shoe(api, 3)
        path = f"/v1/shoes/{shoe_id}/proof"
        until(lambda: True if httpx.get(server.url + path, timeout=30).status_code == 200 else None)
        page.goto(f"{server.url}/verify?proof={quote(path)}")
        v = page.wait_verdict(timeout=60)
    assert v["state"] == "verified", (v, page.errors())
    assert v["detail"].startswith("bacc-pf-v2 shoe 1: "), v
    assert "of a test beacon (NOT drand: its own key) BLS-verified" in v["detail"]
    assert "drand quicknet" not in v["detail"]
    items = "[...document.querySelectorAll('#checks li')]"
    checks = dict(page.eval(f"{items}.map((li) => [li.dataset.check, li.className])"))
    assert checks["beacons"] == checks["settlements"] == checks["signature"] == "ok", checks
    assert page.errors() == []
