"""``baccarat verify`` recomputes the settlements a proof carries.

Proofs here are built with the engine alone (the spec's example chain, ``settle``), in the proof
route's format: a top-level ``table_config`` and, per settled round, ``settlement`` with the
``bets`` / ``player_banker`` it was computed from. Each test changes one thing and checks that the
verdict names it: which round, which field, expected vs found; the CLI exits 1 on any mismatch."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from baccarat.bets import Bet, BetType, PlayerBanker, Role
from baccarat.cli import main
from baccarat.fairness import anchor_of, client_hash, derive_shoe
from baccarat.profiles import BID_SQUEEZE, STAR_CITY, Banking, Rounding, TableConfig, repo_tiers
from baccarat.settlement import settle
from baccarat.verify import check_settlement, verify_proof

TIERS = repo_tiers()
CHAIN_TOP = hashlib.sha256(b"bacc-pf-v1 example chain secret - never use in production").digest()
N = 10


def _secret(shoe_number: int) -> bytes:
    s = CHAIN_TOP
    for _ in range(N - shoe_number):
        s = hashlib.sha256(b"bacc-pf-v1/chain" + s).digest()
    return s


def _api_bets(profile: str, round_number: int) -> list[dict[str, Any]]:
    """Bets in the API's form (several seats; star-city: Banker or Player per bettor)."""
    if profile == "star-city":
        return [
            {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker",
             "amount": 2000 + 100 * round_number, "balance": 50_000, "level": 3},
            {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "tie", "amount": 100,
             "balance": 50_000, "level": 3},
            {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player", "amount": 1000,
             "balance": 20_000},
            {"bettor_id": "carol", "role": "seated", "seat": 3, "type": "player_pair",
             "amount": 300, "balance": 9_000},
        ]  # fmt: skip
    return [
        {"bettor_id": "dan", "role": "seated", "seat": 1, "type": "banker", "amount": 1500,
         "balance": 90_000},
        {"bettor_id": "dan", "role": "seated", "seat": 1, "type": "banker_dragon", "amount": 500,
         "balance": 90_000},
        {"bettor_id": "erin", "role": "spectator", "type": "player", "amount": 2500,
         "balance": 40_000, "personal_limits": {"player": 5000}},
        {"bettor_id": "erin", "role": "spectator", "type": "lucky6", "amount": 500,
         "balance": 40_000},
    ]  # fmt: skip


def _bets(raw: list[dict[str, Any]]) -> list[Bet]:
    return [
        Bet(b["bettor_id"], Role(b["role"]), BetType(b["type"]), b["amount"], order=i)
        for i, b in enumerate(raw)
    ]


def make_proof(
    config: TableConfig,
    *,
    shoe_number: int = 2,
    rounds: int | None = None,
    settled: tuple[int, ...] = (1, 2, 3),
    player_banker: dict[str, Any] | None = None,
) -> dict[str, Any]:
    secret = _secret(shoe_number)
    rules = config.profile.shoe_rules
    seed = f"verify-settlements:{config.profile.name}"
    shoe = derive_shoe(secret, seed, shoe_number, rules)
    dealt = shoe.rounds if rounds is None else shoe.rounds[:rounds]
    out_rounds = []
    for r in dealt:
        row: dict[str, Any] = {
            "round_number": r.number,
            "start": r.start,
            "player": [c["code"] for c in _cards(r.facts()["player"]["cards"])],
            "banker": [c["code"] for c in _cards(r.facts()["banker"]["cards"])],
            "player_total": r.player_total,
            "banker_total": r.banker_total,
            "result": r.result.value,
            "voided": False,
            "settlement": None,
        }
        if r.number in settled:
            raw = _api_bets(config.profile.name, r.number)
            pb = player_banker
            s = settle(
                config,
                r,
                _bets(raw),
                None if pb is None else PlayerBanker(pb["bettor_id"], pb["balance"]),
            )
            row["settlement"] = {
                "round_id": f"tbl_x_s{shoe_number}_r{r.number}",
                "round_number": r.number,
                **s.as_dict(),
                "nets": s.nets(),
                "eligibility": {},
                "settled_at": "2025-01-01T00:00:00.000Z",
            }
            row["bets"], row["player_banker"] = raw, pb
        out_rounds.append(row)
    return {
        "spec": "bacc-pf-v1",
        "anchor": anchor_of(secret, shoe_number).hex(),
        "shoe_number": shoe_number,
        "client_seed": seed,
        "client_hash": client_hash(seed).hex(),
        "rules": rules.as_dict(),
        "server_seed": secret.hex(),
        "end_reason": "rules" if rounds is None else "closed",
        "table_config": config.to_dict(),
        "rounds": out_rounds,
    }


def _cards(codes: list[str]) -> list[dict[str, str]]:
    return [{"code": c} for c in codes]


STAR = TableConfig(STAR_CITY, TIERS["star-city-fun"])
STAR_PB = TableConfig(STAR_CITY, TIERS["star-city-fun"], Banking.PLAYER_BANKER)
BID = TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-standard"], dragon_table="common")
BID_HALF_UP = TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-standard"], rounding=Rounding.HALF_UP)
PB = {"bettor_id": "banker-seat", "balance": 900_000}


@pytest.mark.parametrize(
    ("config", "pb"),
    [(STAR, None), (STAR_PB, PB), (BID, None), (BID_HALF_UP, None)],
    ids=["star-city", "star-city-player-banker", "bid-squeeze-common-dragon", "half-up"],
)
def test_settlements_are_recomputed_and_match(
    config: TableConfig, pb: dict[str, Any] | None
) -> None:
    proof = make_proof(config, rounds=12, settled=tuple(range(1, 13)), player_banker=pb)
    verdict = verify_proof(proof)
    assert verdict.ok, verdict.line()
    assert verdict.settlements_checked == 12
    assert "12 rounds and 12 settlements re-derived and matching" in verdict.line()


@pytest.mark.parametrize(
    ("path", "field"),
    [
        (("lines", 0, "net"), "settlement lines[0].net"),
        (("lines", 1, "grade"), "settlement lines[1].grade"),
        (("bettors", 1, "commission"), "settlement bettors[1].commission"),
        (("house", "take"), "settlement house.take"),
        (("nets", "bob"), "settlement nets.bob"),
        (("result",), "settlement result"),
        (("rounding",), "settlement rounding"),
    ],
)
def test_a_changed_settlement_field_is_named(path: tuple[Any, ...], field: str) -> None:
    proof = make_proof(STAR, rounds=6, settled=(2, 4))
    target = proof["rounds"][3]["settlement"]
    for step in path[:-1]:
        target = target[step]
    before = target[path[-1]]
    target[path[-1]] = (
        before + 7 if isinstance(before, int) else ("half_up" if field.endswith("rounding")
                                                   else "tie" if before != "tie" else "banker")
    )  # fmt: skip
    verdict = verify_proof(proof)
    assert not verdict.ok
    first = verdict.mismatches[0]
    assert first.where == "round 4" and first.field == field, first
    assert str(first).startswith(f"round 4, {field}: expected ")
    assert verdict.line().startswith("NOT verified: round 4, settlement")


def test_changed_bets_change_the_recomputed_settlement() -> None:
    proof = make_proof(STAR, rounds=5, settled=(1, 2, 3))
    proof["rounds"][1]["bets"][2]["amount"] += 500  # bob's Player stake, as if he bet more
    verdict = verify_proof(proof)
    assert not verdict.ok
    first = verdict.mismatches[0]
    assert first.where == "round 2" and first.field.startswith("settlement lines[2].")
    assert first.field == "settlement lines[2].stake" and (first.expected, first.found) == (
        1500,
        1000,
    )


def test_the_settlement_is_recomputed_on_the_rederived_round_not_the_proofs_cards() -> None:
    """A proof that claims other cards and a settlement to match them fails on the cards AND on
    the settlement (recomputed on the round the seed deals)."""
    proof = make_proof(STAR, rounds=3, settled=(1,))
    honest = verify_proof(proof)
    assert honest.ok
    r1 = proof["rounds"][0]
    flipped = "player" if r1["result"] != "player" else "banker"
    r1["result"] = flipped
    r1["settlement"]["result"] = flipped
    verdict = verify_proof(proof)
    fields = [(m.where, m.field) for m in verdict.mismatches]
    assert ("round 1", "result") in fields
    assert ("round 1", "settlement result") in fields


def test_what_recomputing_needs_must_be_there() -> None:
    proof = make_proof(STAR, rounds=3, settled=(2,))
    no_config = {k: v for k, v in proof.items() if k != "table_config"}
    verdict = verify_proof(no_config)
    assert not verdict.ok
    assert verdict.mismatches[0].where == "round 2"
    assert "table_config" in str(verdict.mismatches[0].expected)

    bad_bets = copy.deepcopy(proof)
    bad_bets["rounds"][1]["bets"] = [{"bettor_id": "x", "type": "nonsense", "amount": 1}]
    first = verify_proof(bad_bets).mismatches[0]
    assert (first.where, first.field) == ("round 2", "settlement bets")

    other_profile = copy.deepcopy(proof)
    other_profile["table_config"] = BID.to_dict()
    first = verify_proof(other_profile).mismatches[0]
    assert first.where == "shoe" and first.field.startswith("table_config profile")

    # the player-banker is part of the inputs: dropping it cannot be settled the same way
    pb_proof = make_proof(STAR_PB, rounds=2, settled=(1,), player_banker=PB)
    assert verify_proof(pb_proof).ok
    pb_proof["rounds"][0]["player_banker"] = None
    first = verify_proof(pb_proof).mismatches[0]
    assert (first.where, first.field) == ("round 1", "settlement")


def test_voided_rounds_verify_and_carry_no_settlement() -> None:
    proof = make_proof(STAR, rounds=4, settled=(1, 3))
    proof["rounds"][1]["voided"] = True
    proof["rounds"][1]["void"] = {"reason": "dealer error"}
    verdict = verify_proof(proof)
    assert verdict.ok, verdict.line()
    assert verdict.settlements_checked == 2
    assert "1 voided round" in verdict.line() and "closed early" in verdict.line()

    proof["rounds"][1]["void"]["nets"] = {"alice": 0, "bob": 0}
    assert verify_proof(proof).ok
    proof["rounds"][1]["void"]["nets"]["bob"] = -1000  # a "void" that kept a stake
    first = verify_proof(proof).mismatches[0]
    assert (first.where, first.field, first.expected, first.found) == (
        "round 2",
        "void nets.bob",
        0,
        -1000,
    )
    proof["rounds"][1]["void"]["nets"]["bob"] = 0

    proof["rounds"][2]["voided"] = True  # voided AND settled: impossible
    verdict = verify_proof(proof)
    assert not verdict.ok
    assert (verdict.mismatches[0].where, verdict.mismatches[0].field) == ("round 3", "settlement")


def test_cards_only_when_asked() -> None:
    proof = make_proof(STAR, rounds=3, settled=(1,))
    proof["rounds"][0]["settlement"]["house"]["take"] += 1
    assert not verify_proof(proof).ok
    verdict = verify_proof(proof, settlement_check=None)
    assert verdict.ok and verdict.settlements_checked == 0


def test_check_settlement_directly() -> None:
    proof = make_proof(BID, rounds=2, settled=(2,))
    shoe = derive_shoe(
        bytes.fromhex(proof["server_seed"]), proof["client_seed"], 2, BID.profile.shoe_rules
    )
    assert check_settlement(proof, proof["rounds"][1], shoe.rounds[1]) == []
    proof["rounds"][1]["settlement"]["lines"][3]["gross_win"] += 1
    (m,) = check_settlement(proof, proof["rounds"][1], shoe.rounds[1])
    assert (m.where, m.field, m.found - m.expected) == (
        "round 2",
        "settlement lines[3].gross_win",
        1,
    )


def test_cli_exit_status_and_plain_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proof = make_proof(STAR_PB, settled=(1, 2, 30), player_banker=PB)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(proof), encoding="utf-8")
    assert main(["verify", str(good)]) == 1  # a v1 proof has no signature
    assert capsys.readouterr().out.startswith("NOT verified: unsigned proof")
    assert main(["verify", "--allow-unsigned", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("verified: bacc-pf-v1 shoe 2:") and "3 settlements" in out
    assert "(unsigned v1 proof: no signature to check)" in out

    proof["rounds"][29]["settlement"]["player_banker"]["net"] -= 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(proof), encoding="utf-8")
    assert main(["verify", "--allow-unsigned", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT verified: round 30, settlement player_banker.net: expected ")

    assert main(["verify", "--allow-unsigned", "--json", str(bad)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verified"] is False
    assert report["mismatches"][0]["field"] == "settlement player_banker.net"
