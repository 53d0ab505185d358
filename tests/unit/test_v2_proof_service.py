"""A bacc-pf-v2 shoe played by the service (v2flow's lock → beacon → draw, over the in-memory
repository, the ``ManualClock`` and ``FakeBeacon``) has a proof that ``baccarat verify`` accepts
(``service/proofs.private_proof`` → ``pf2proof.final_pages``, finalised and served by
``proofs.proof_page``): every round's lock, beacon, cards and money, a beacon outage's void
apart (in the fairness summary too), the test beacon named — and a changed card fails."""

from __future__ import annotations

import json
from typing import Any

from baccarat import pf2proof, proofdoc
from baccarat.verify import verify
from baccarat_api.service import proofs, settling, tables
from baccarat_api.service.proofs import private_proof
from baccarat_bls import verify_beacon
from baccarat_verify.es256 import check

from .conftest import Game
from .test_v2_flow import V2


def _round_records(v2: V2) -> list[Any]:
    shoe = v2.shoe()
    return [v2.round(f"{v2.shoe_id}_r{n}") for n in range(1, shoe.rounds_dealt + 1)]


def _draw(v2: V2) -> str:
    (tick,) = v2.draws()
    v2.sched.ticks.clear()
    return v2.deliver(tick)


def test_a_v2_shoe_played_by_the_service_has_a_proof_both_checks_accept(game: Game) -> None:
    v2 = V2(game, squeeze_seconds=0)
    v2.seat()
    v2.commit()
    for n in range(1, 5):
        locked = v2.deal()
        if n == 3:  # an outage: no beacon within BEACON_WAIT_SECONDS
            v2.beacon.down = True
            while (tick := v2.sched.take()) is not None:
                v2.deliver(tick)
            v2.beacon.down = False
            continue
        assert _draw(v2) == "done"
        settling.settle_round(v2.repo, OP, locked.round_id)
    tables.close_shoe(v2.repo, game.vault, OP, v2.shoe_id)
    assert private_proof(v2.shoe(), _round_records(v2))["fairness"] == pf2proof.SPEC
    first = json.loads(proofs.proof_page(v2.repo, game.vault, game.ref_keys, v2.shoe_id, 1).body)
    pages = [first] + [
        json.loads(proofs.proof_page(v2.repo, game.vault, game.ref_keys, v2.shoe_id, k).body)
        for k in range(2, first["page"]["count"] + 1)
    ]
    summary = proofs.fairness(v2.repo, v2.table.table_id).shoes[0].interventions
    assert (summary.voided_rounds, summary.beacon_voids, summary.rounds_dealt) == (0, 1, 3)
    keys = {"keys": [game.vault.public_jwk()]}
    verdict = verify(pages, keys=keys, signature_check=check, beacon_check=verify_beacon)
    assert verdict.ok, verdict.mismatches
    assert verdict.beacon == "test beacon" and verdict.rounds_checked == 3
    assert verdict.interventions is not None and verdict.interventions["beacon_voids"] == 1
    voided = pages[0]["rounds"][2]
    assert voided["void"]["reason"] == "beacon_unavailable" and "player" not in voided
    # a changed card, re-signed, is caught
    bad: list[dict[str, Any]] = [dict(p) for p in pages]
    r = bad[0]["rounds"][0]
    r["player"] = ["KS" if r["player"][0] != "KS" else "QS", *r["player"][1:]]
    resigned = proofdoc.sign(bad, game.vault.sign, keys["keys"][0]["kid"], game.clock())
    caught = verify(resigned, keys=keys, signature_check=check, beacon_check=verify_beacon)
    assert not caught.ok and str(caught.mismatches[0]).startswith("round 1, player cards")


OP = "operator-a"
