"""A ``beacon_unavailable`` void priced by the service (issue 28; docs/design/beacon.md §5,
``service/beacon_prices``): the outage voids a round, the outage ends, the shoe ends — the
proof's first build fetches the void's beacon round (verified, as the draw's), stores it on the
round (not hashed: the audit chain holds) and the proof prices the void, which the CLI verifier
recomputes ("1 priced"); a tampered price is caught. A beacon still missing at the shoe's end
keeps the proof pending (409, retried by each read) until ``BEACON_PRICE_WAIT_SECONDS``, then
the proof is final with the void unpriced."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from baccarat import proofdoc
from baccarat.verify import verify
from baccarat_api.clock import seconds_after
from baccarat_api.limits import BEACON_PRICE_WAIT_SECONDS
from baccarat_api.service import audit, beacon_prices, proofs, settling, tables
from baccarat_api.service.errors import DomainError
from baccarat_bls import verify_beacon
from baccarat_verify.cli import main
from baccarat_verify.es256 import check

from .conftest import Game
from .test_v2_flow import V2

OP = "operator-a"
VOIDED = 2  # the round the outage voids


def _shoe_with_a_beacon_void(game: Game) -> V2:
    """Three rounds with bets; round 2's beacon never comes within the wait (an outage, the
    beacon back up afterwards only if the test says so); the shoe closed."""
    v2 = V2(game, squeeze_seconds=0)
    v2.seat()
    v2.commit()
    for n in range(1, 4):
        locked = v2.deal()
        v2.beacon.down = n == VOIDED
        while (tick := v2.sched.take()) is not None:
            v2.deliver(tick)
        if n != VOIDED:
            settling.settle_round(v2.repo, OP, locked.round_id)
    tables.close_shoe(v2.repo, game.vault, OP, v2.shoe_id)
    return v2


def _pages(v2: V2, game: Game) -> list[dict[str, Any]]:
    first = json.loads(
        proofs.proof_page(v2.repo, game.vault, game.ref_keys, v2.shoe_id, 1, lambda: v2.beacon).body
    )
    return [first] + [
        json.loads(proofs.proof_page(v2.repo, game.vault, game.ref_keys, v2.shoe_id, k).body)
        for k in range(2, first["page"]["count"] + 1)
    ]


def _voided(pages: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for p in pages for r in p["rounds"] if r["round_number"] == VOIDED)


def test_a_beacon_void_whose_beacon_came_later_is_priced_in_the_proof(
    game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v2 = _shoe_with_a_beacon_void(game)
    record = v2.round(f"{v2.shoe_id}_r{VOIDED}")
    assert record is not None and record.void is not None and record.beacon is None
    assert beacon_prices.unpriced(record)
    asked = len(v2.beacon.asked)
    pages = _pages(v2, game)
    round_ = _voided(pages)
    assert round_["void"]["reason"] == "beacon_unavailable" and "player" not in round_
    assert record.lock is not None and round_["beacon"]["round"] == record.lock["beacon_round"]
    assert round_["void"]["replaced"] is not None  # what the void took from each side
    assert v2.beacon.asked[asked:] == [record.lock["beacon_round"]]  # one fetch
    stored = v2.round(f"{v2.shoe_id}_r{VOIDED}")
    assert stored is not None and stored.late_beacon == round_["beacon"]
    assert stored.void == record.void and stored.round_hash == record.round_hash  # still void
    assert audit.audit_table(v2.repo, OP, v2.table.table_id).verified  # chain intact
    keys = {"keys": [game.vault.public_jwk()]}
    verdict = verify(pages, keys=keys, signature_check=check, beacon_check=verify_beacon)
    assert verdict.ok, verdict.mismatches
    assert verdict.interventions is not None
    assert verdict.interventions["beacon_voids_priced"] == 1
    assert verdict.interventions["beacon_voided_player_net"] == sum(
        round_["void"]["replaced"]["nets"].values()
    ) - round_["void"]["replaced"]["nets"].get("player_banker", 0)
    summary = proofs.fairness(v2.repo, v2.table.table_id).shoes[0].interventions
    assert (summary.beacon_voids, summary.beacon_voids_priced) == (1, 1)
    path, key_file = tmp_path / "proof.json", tmp_path / "keys.json"
    path.write_text(json.dumps({"pages": pages}), encoding="utf-8")
    key_file.write_text(json.dumps(keys), encoding="utf-8")
    assert (
        main(
            [
                "verify",
                str(path),
                "--keys",
                str(key_file),
                "--shoe",
                v2.shoe_id,
                "--allow-test-beacon",
            ]
        )
        == 0
    )
    assert "1 beacon_unavailable void (no beacon in time), 1 priced" in capsys.readouterr().out
    # a price the verifier does not recompute, re-signed, is caught
    bad = [dict(p) for p in pages]
    wrong = _voided(bad)["void"]["replaced"]
    wrong["house_take"] += 1
    resigned = proofdoc.sign(bad, game.vault.sign, keys["keys"][0]["kid"], game.clock())
    caught = verify(resigned, keys=keys, signature_check=check, beacon_check=verify_beacon)
    assert not caught.ok and f"round {VOIDED}" in str(caught.mismatches[0])


def test_a_beacon_still_missing_keeps_the_proof_pending_then_final_unpriced(game: Game) -> None:
    v2 = _shoe_with_a_beacon_void(game)
    v2.beacon.down = True  # the outage outlasts the shoe
    with pytest.raises(DomainError) as pending:
        _pages(v2, game)
    assert pending.value.code == "proof_pending" and pending.value.retry_after
    record = v2.round(f"{v2.shoe_id}_r{VOIDED}")
    assert record is not None and record.lock is not None
    assert pending.value.details["unpriced_beacon_rounds"] == [record.lock["beacon_round"]]
    report = proofs.finalise_due(v2.repo, game.vault, game.ref_keys, game.clock(),
                                 beacon=lambda: v2.beacon)  # fmt: skip
    assert report.pending == [v2.shoe_id]  # the sweep retries too
    ended = v2.shoe().ended_at
    assert ended is not None
    game.clock.set(seconds_after(ended, BEACON_PRICE_WAIT_SECONDS))  # the wait is over
    round_ = _voided(_pages(v2, game))
    assert "beacon" not in round_ and round_["void"]["replaced"] is None
    v2.beacon.down = False  # too late: a final proof never changes
    assert _voided(_pages(v2, game)) == round_


def test_pricing_is_idempotent_between_two_finalisers(game: Game) -> None:
    v2 = _shoe_with_a_beacon_void(game)
    shoe = v2.shoe()
    rounds = [v2.round(f"{v2.shoe_id}_r{n}") for n in range(1, 4)]
    assert all(r is not None for r in rounds)
    source = lambda: v2.beacon  # noqa: E731
    first = beacon_prices.price_beacon_voids(v2.repo, source, shoe, rounds)  # type: ignore[arg-type]
    second = beacon_prices.price_beacon_voids(v2.repo, source, shoe, rounds)  # type: ignore[arg-type]
    assert first == second and not any(beacon_prices.unpriced(r) for r in first)
    assert beacon_prices.price_beacon_voids(v2.repo, None, shoe, rounds) == rounds  # type: ignore[arg-type]


def test_on_drand_a_missing_beacon_keeps_the_proof_pending_past_the_wait(game: Game) -> None:
    """drand keeps every round, and the verifiers refuse an unpriced beacon void on it: a proof
    on drand is never final unpriced (a test beacon's is, after the wait: the test above)."""
    v2 = _shoe_with_a_beacon_void(game)
    v2.beacon.down = True
    shoe = v2.shoe()
    assert shoe.ended_at is not None and shoe.beacon is not None
    on_drand = dataclasses.replace(shoe, beacon={**shoe.beacon, "test": False})
    rounds = [r for n in (1, 2, 3) if (r := v2.round(f"{v2.shoe_id}_r{n}")) is not None]
    game.clock.set(seconds_after(shoe.ended_at, 10 * BEACON_PRICE_WAIT_SECONDS))
    with pytest.raises(DomainError) as pending:
        beacon_prices.price_beacon_voids(v2.repo, lambda: v2.beacon, on_drand, rounds)
    assert pending.value.code == "proof_pending"
    assert pending.value.details["price_by"] is None
    # the same shoe on its test beacon: final, the void unpriced
    assert beacon_prices.price_beacon_voids(v2.repo, lambda: v2.beacon, shoe, rounds) == rounds
