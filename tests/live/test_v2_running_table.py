"""A running bacc-pf-v2 table on the local server (DynamoDB Local, the table clock on its thread,
``make run``'s local test beacon with a 500 ms period): the bettor only confirms a slip each
window; the table locks each round at ``closes_at`` (``round_locked``, public before its beacon
round), draws it when the beacon round exists (``round_dealt`` with the beacon), settles and
opens the next — four rounds, then the operator pauses it and closes the shoe. Every round is
then re-drawn by the core alone from the revealed seed, the locks' book roots and the beacons
(each BLS-verified), and every lock was written at least the margin before its beacon round."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
import pytest
from support.local_server import local_server
from support.v2_table import play_v2_shoe, until

from baccarat import beacon as bc
from baccarat.fairness_v2 import BeaconDraw, RoundInput, derive_shoe_v2
from baccarat.rules import ShoeRules
from baccarat_bls import verify_beacon
from baccarat_verify.cli import main as verify_main

pytestmark = pytest.mark.live

ROUNDS = 4


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def test_a_running_v2_table_locks_draws_with_the_beacon_and_settles(shared_dynamodb: Any) -> None:
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_BEACON_PERIOD_MS": "500"}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        api = httpx.Client(base_url=server.url, timeout=30,
                           headers={"Authorization": f"Bearer {server.key}"})  # fmt: skip
        seen_before: list[float] = []
        table, shoe_id = play_v2_shoe(api, ROUNDS, seen_before)
        t = table["table_id"]
        # its signed proof, verified as a player would: baccarat verify by its URL (the keys of
        # the origin, every beacon BLS-checked, the cards drawn again, the money recomputed)
        proof_url = f"{server.url}/v1/shoes/{shoe_id}/proof"
        until(lambda: True if httpx.get(proof_url, timeout=30).status_code == 200 else None)
        assert verify_main(["verify", proof_url]) == 0
        shoe = api.get(f"/v1/shoes/{shoe_id}").json()
        events = api.get(f"/v1/tables/{t}/events?limit=100").json()["events"]
        rounds = [api.get(f"/v1/rounds/{shoe_id}_r{k}").json()
                  for k in range(1, shoe["rounds_dealt"] + 1)]  # fmt: skip
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
