"""Issue 28's "done when", end to end on the local server (DynamoDB Local, the table clock on its
thread, ``make run``'s local test beacon with a 500 ms period): a running bacc-pf-v2 table where
the bettor only confirms a slip each window; the table locks each round at ``closes_at``
(``round_locked``, public before its beacon round), draws it when the beacon round exists
(``round_dealt`` with the beacon), settles and opens the next — three rounds, then the operator
pauses it and closes the shoe. Its signed proof then verifies three ways: ``baccarat verify`` by
its URL; the core alone re-drawing every round from the revealed seed, the locks' book roots and
the beacons (each BLS-verified; every lock written at least the margin before its beacon round);
and the page the API itself serves at ``/verify`` in Chromium — every beacon BLS-checked in the
page, the cards drawn again, the money recomputed by web/money.js — naming the beacon a test
beacon, never drand. (One shoe for the three: the CLI and the browser verified the same proof.)"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx
from support.local_server import local_server
from support.v2_table import play_v2_shoe, until

from baccarat import beacon as bc
from baccarat.fairness_v2 import BeaconDraw, RoundInput, derive_shoe_v2
from baccarat.rules import ShoeRules
from baccarat_bls import verify_beacon
from baccarat_verify.cli import main as verify_main

ROUNDS = 3


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def test_a_running_v2_table_locks_draws_settles_and_verifies_in_the_cli_and_chromium(
    page: Any, shared_dynamodb: Any
) -> None:
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_BEACON_PERIOD_MS": "500"}
    with local_server(env, probe="/verify", dynamodb=shared_dynamodb) as server:
        api = httpx.Client(base_url=server.url, timeout=30,
                           headers={"Authorization": f"Bearer {server.key}"})  # fmt: skip
        seen_before: list[float] = []
        table, shoe_id = play_v2_shoe(api, ROUNDS, seen_before)
        t = table["table_id"]
        path = f"/v1/shoes/{shoe_id}/proof"
        proof_url = server.url + path
        until(lambda: True if httpx.get(proof_url, timeout=30).status_code == 200 else None)
        # verified as a player would: baccarat verify by its URL (the keys of the origin, every
        # beacon BLS-checked, the cards drawn again, the money recomputed) ...
        assert verify_main(["verify", proof_url, "--allow-test-beacon"]) == 0
        # ... and the page the API serves
        page.goto(f"{server.url}/verify?proof={quote(path)}")
        v = page.wait_verdict(timeout=60)
        shoe = api.get(f"/v1/shoes/{shoe_id}").json()
        events = api.get(f"/v1/tables/{t}/events?limit=100").json()["events"]
        rounds = [api.get(f"/v1/rounds/{shoe_id}_r{k}").json()
                  for k in range(1, shoe["rounds_dealt"] + 1)]  # fmt: skip
    # every check passes, yet a test beacon is never trustless: not green
    assert (v["state"], v["text"]) == ("unconfirmed", "NOT trustless: a test beacon"), (
        v,
        page.errors(),
    )
    assert v["detail"].startswith("The checks pass, but its rounds were keyed by a test beacon")
    assert "bacc-pf-v2 shoe 1: " in v["detail"], v
    assert "of a test beacon (NOT drand: its own key) BLS-verified" in v["detail"]
    assert "drand quicknet" not in v["detail"]
    items = "[...document.querySelectorAll('#checks li')]"
    checks = dict(page.eval(f"{items}.map((li) => [li.dataset.check, li.className])"))
    assert checks["beacons"] == checks["settlements"] == checks["signature"] == "ok", checks
    assert page.errors() == []
    assert shoe["rounds_dealt"] >= ROUNDS and shoe["server_seed"]
    print(f"\nround_locked read from the feed ms before its beacon round: {sorted(seen_before)}")
    assert len(seen_before) == ROUNDS and min(seen_before) > 0
    b = table["beacon"]
    chain = bc.Chain(b["name"], b["chain_hash"], bytes.fromhex(b["public_key"]), b["genesis_ms"],
                     b["period_ms"], b["test"], b["scheme"])  # fmt: skip
    locked = {e["data"]["round_id"]: e for e in events if e["type"] == "round_locked"}
    dealt = {e["data"]["round_id"]: e for e in events if e["type"] == "round_dealt"}
    inputs = []
    for r in rounds:
        lock, beacon, lock_event = r["lock"], r["beacon"], locked[r["round_id"]]
        # the lock public (its event written) at least the margin before its beacon round
        assert lock["beacon_round"] == bc.lock_round(chain, _ms(lock["locked_at"]))
        assert lock_event["seq"] < dealt[r["round_id"]]["seq"]
        due = bc.round_time(chain, lock["beacon_round"])
        assert _ms(lock_event["at"]) + bc.BEACON_MARGIN_MS <= due <= _ms(r["dealt_at"])
        sig = bytes.fromhex(beacon["signature"])
        assert verify_beacon(chain, bc.Beacon(chain.chain_hash, beacon["round"], sig, True))
        assert dealt[r["round_id"]]["data"]["beacon"] == beacon
        drawn = BeaconDraw(bytes.fromhex(chain.chain_hash), beacon["round"], sig)
        inputs.append(RoundInput(bytes.fromhex(lock["book_root"]), drawn))
    v2 = derive_shoe_v2(bytes.fromhex(shoe["server_seed"]), "live v2", 1,
                        ShoeRules.from_dict(shoe["rules"]), inputs)  # fmt: skip
    for r, d in zip(rounds, v2.draws, strict=True):
        assert d is not None
        facts = d.round.facts()
        assert (facts["player"], facts["banker"], facts["result"]) == (
            r["player"],
            r["banker"],
            r["result"],
        )
        assert r["settlement"] is not None
