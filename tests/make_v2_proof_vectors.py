"""Make the signed sample proofs of ``bacc-pf-v2`` shoes: ``tests/vectors/pf2_sample_proof.json``
(``docs/bacc-pf-v2.md``, "The proof document"; the CLI and the browser verify it, and every
tamper test starts from it).

    .venv/bin/python tests/make_v2_proof_vectors.py

The shoe is played in the core alone, as the service would: star-city rules (4 decks, 30
rounds), the spec's example chain (shoe 3), three seated bettors betting at random (a fixed
``random.Random`` seed), each round locked at a time, its book root computed at the lock from
the locked bets, its beacon round the lock's (``beacon.lock_round``), signed by a local **test
beacon** with a fixed key (``baccarat_dev.beacon_local``; the proof says ``test: true``), the
cards drawn by ``fairness_v2``, every settlement by ``baccarat.settlement``. Round 7 is voided
``beacon_unavailable`` and its beacon came later (priced), round 19 likewise and its beacon never
came, round 12 is a misdeal after its cards: 30 rounds deal cards, the shoe ends by its rules
after round 32. And ``tests/vectors/pf2_quicknet_proof.json``: five rounds keyed by five REAL
drand quicknet rounds (``tests/vectors/quicknet.json``), closed early. Both signed with the TEST
ONLY key; an unchanged manifest keeps its signature.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_beacon_vectors import GENESIS_MS, SECRET  # noqa: E402
from support.signed_proofs import (  # noqa: E402
    TEST_REF_KEY,
    sign_keeping,
)

from baccarat import beacon, booktree, fairness_v2, pf2proof, proofdoc  # noqa: E402
from baccarat.bets import Bet, BetType, Role  # noqa: E402
from baccarat.bookmoney import BookTotals, slip_doc, slip_settlement  # noqa: E402
from baccarat.fairness import anchor_of, client_hash, round_json, walk_chain  # noqa: E402
from baccarat.profiles import STAR_CITY, TableConfig, repo_tiers  # noqa: E402
from baccarat.receipts import receipt_doc  # noqa: E402
from baccarat.settlement import settle  # noqa: E402
from baccarat_dev.beacon_local import LocalBeacon  # noqa: E402

SAMPLE = HERE / "vectors" / "pf2_sample_proof.json"
QUICKNET_SAMPLE = HERE / "vectors" / "pf2_quicknet_proof.json"
RECEIPT = HERE / "vectors" / "pf2_sample_receipt.json"
QUICKNET = HERE / "vectors" / "quicknet.json"
TABLE_ID = "tbl_vector"
SHOE_NUMBER = 3
SEED = "bacc-pf-v2 sample"
CHAIN_TOP = hashlib.sha256(b"bacc-pf-v1 example chain secret - never use in production").digest()
#: 2025-12-02T00:00:00Z: a day after the test beacon's genesis.
T0_MS = GENESIS_MS + 86_400_000
BEACON_VOIDS = {7: "late", 19: "never"}
#: Round 5's spectators' book (a bet-behind table's slips: the spectators' subtree of its root).
BOOKS = {
    5: {
        "dave": [{"type": "player", "amount": 500}],
        "erin": [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}],
        "frank": [{"type": "player_pair", "amount": 200}],
    }
}
MISDEAL = 12
ROUNDS = 32
BUDGET = 20_000
BETTORS = (("alice", 1), ("bob", 2), ("carol", 3))
TYPES = ("banker", "player", "tie", "player_pair", "banker_pair")


def _at(ms: int) -> str:
    moment = dt.datetime.fromtimestamp(ms / 1000, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _bets(rng: random.Random) -> list[dict[str, Any]]:
    """0 to 3 bettors, each one or two lines, in accepted order (API form)."""
    out = []
    for who, seat in BETTORS:
        if rng.random() < 0.3:
            continue
        for kind in rng.sample(TYPES[:2], 1) + (
            rng.sample(TYPES[2:], 1) if rng.random() < 0.3 else []
        ):
            most = 5000 if kind in ("banker", "player") else 1000
            amount = 100 * rng.randint(1, most // 100)
            out.append({"bettor_id": who, "role": "seated", "seat": seat, "type": kind,
                        "amount": amount, "balance": 90_000})  # fmt: skip
    rng.shuffle(out)
    return out


def _book_root(round_id: str, bets: list[dict[str, Any]], leaves: list[dict[str, Any]]) -> str:
    """The lock's book root, as the service computes it from the locked bets (by ref) and the
    spectators' leaves."""
    public = proofdoc.public_bets(bets, proofdoc.refs_for(TEST_REF_KEY, TABLE_ID))
    seated = fairness_v2.seated_root(round_id, public)
    spectators = booktree.root([proofdoc.canonical(d) for d in leaves])
    return fairness_v2.locked_root(seated, spectators).hex()


def book_leaves(round_id: str, slips: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """A round's spectators' leaves, in book order."""
    refs = proofdoc.refs_for(TEST_REF_KEY, TABLE_ID)
    docs = [
        booktree.leaf_doc(round_id, refs(who), "spectator", lines) for who, lines in slips.items()
    ]
    return booktree.in_book_order(docs, lambda d: str(d["bettor_ref"]))


def _stored_book(config: TableConfig, rnd: Any, leaves: list[dict[str, Any]]) -> dict[str, Any]:
    """The round's book as the deal stores it: root, count, the slips' money summed."""
    totals = BookTotals()
    for leaf in leaves:
        totals.add(slip_settlement(config, rnd, leaf["lines"]))
    root = booktree.root([proofdoc.canonical(d) for d in leaves]).hex()
    return {"root": root, "count": len(leaves), "totals": totals.as_dict()}


def sample_receipt(plan: Plan) -> dict[str, Any]:
    """The receipt of the first slip of the plan's first book (as the service gives a player)."""
    config = TableConfig(STAR_CITY, repo_tiers()["star-city-fun"])
    n, slips = next(iter(plan.books.items()))
    shoe_id = f"{TABLE_ID}_s{plan.shoe_number}"
    leaves = book_leaves(f"{shoe_id}_r{n}", slips)
    data = [proofdoc.canonical(d) for d in leaves]
    public = pf2proof.public_proof_v2(private_proof(plan), TEST_REF_KEY)
    rnd = pf2proof.rounds_by_number(public)[n - 1]
    assert rnd is not None
    return receipt_doc(
        shoe_id,
        n,
        f"{shoe_id}_r{n}",
        leaves[0],
        0,
        len(leaves),
        booktree.root(data).hex(),
        [h.hex() for h in booktree.inclusion_paths(data)[0]],
        slip_doc(slip_settlement(config, rnd, leaves[0]["lines"])),
        f"/v1/shoes/{shoe_id}/proof",
    )


def _settlement(
    config: TableConfig, rnd: Any, raw: list[dict[str, Any]], shoe: int, n: int, at: str
) -> dict[str, Any]:
    bets = [Bet(b["bettor_id"], Role(b["role"]), BetType(b["type"]), b["amount"], order=i)
            for i, b in enumerate(raw)]  # fmt: skip
    s = settle(config, rnd, bets)
    return {"round_id": f"{TABLE_ID}_s{shoe}_r{n}", "round_number": n, **s.as_dict(),
            "nets": s.nets(), "settled_at": at, "auto_settled": False}  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """What a sample shoe is played with: its beacon chain and signer, when each round locks,
    which rounds are voided and how, and how many round numbers are used."""

    chain: beacon.Chain
    sign: Callable[[int], bytes]
    lock_ms: Callable[[int, random.Random], int]
    rounds: int
    beacon_voids: dict[int, str]
    misdeal: int | None
    books: dict[int, dict[str, list[dict[str, Any]]]]
    shoe_number: int
    client_seed: str


def whole_shoe_plan() -> Plan:
    """The whole shoe on a local test beacon (the module docstring)."""
    signer = LocalBeacon(secret=SECRET, period_ms=3_000, genesis_ms=GENESIS_MS)
    return Plan(
        chain=signer.chain,
        sign=lambda r: signer.sign(r).signature,
        lock_ms=lambda n, rng: T0_MS + 45_000 * n + rng.randint(0, 2_999),
        rounds=ROUNDS,
        beacon_voids=BEACON_VOIDS,
        misdeal=MISDEAL,
        books=BOOKS,
        shoe_number=SHOE_NUMBER,
        client_seed=SEED,
    )


def quicknet_plan() -> Plan:
    """Five rounds keyed by five REAL drand quicknet rounds (tests/vectors/quicknet.json), each
    locked 4.5 s before its round was due; the shoe closed early."""
    real = json.loads(QUICKNET.read_text(encoding="utf-8"))["rounds"]
    sigs = {r["round"]: bytes.fromhex(r["signature"]) for r in real}
    order = sorted(sigs)
    return Plan(
        chain=beacon.QUICKNET,
        sign=lambda r: sigs[r],
        lock_ms=lambda n, _: beacon.round_time(beacon.QUICKNET, order[n - 1]) - 4_500,
        rounds=len(order),
        beacon_voids={},
        misdeal=None,
        books={},
        shoe_number=4,
        client_seed="bacc-pf-v2 quicknet sample",
    )


def private_proof(plan: Plan) -> dict[str, Any]:
    """The private final proof of a sample shoe (the core alone, no service)."""
    config = TableConfig(STAR_CITY, repo_tiers()["star-city-fun"])
    rules = config.profile.shoe_rules
    chain, number = plan.chain, plan.shoe_number
    secret = walk_chain(CHAIN_TOP, 10 - number)
    header = {"server_seed": secret.hex(), "client_seed": plan.client_seed,
              "shoe_number": number, "rules": rules.as_dict()}  # fmt: skip
    key, _ = pf2proof.key_of(header)
    rng = random.Random(28 + number)
    rows: list[dict[str, Any]] = []
    inputs: list[fairness_v2.RoundInput] = []
    for n in range(1, plan.rounds + 1):
        locked = plan.lock_ms(n, rng)
        bets = _bets(rng)
        leaves = book_leaves(f"{TABLE_ID}_s{number}_r{n}", plan.books[n]) if n in plan.books else []
        root = _book_root(f"{TABLE_ID}_s{number}_r{n}", bets, leaves)
        b_round = beacon.lock_round(chain, locked)
        sig = plan.sign(b_round)
        row: dict[str, Any] = {"round_number": n, "bets": bets, "player_banker": None,
                               "lock": {"locked_at": _at(locked), "book_root": root,
                                        "beacon_round": b_round}}  # fmt: skip
        draw = fairness_v2.BeaconDraw(bytes.fromhex(chain.chain_hash), b_round, sig)
        if n in plan.beacon_voids:
            row["void"] = {"reason": pf2proof.BEACON_VOID, "note": "drand did not answer in time",
                           "voided_at": _at(locked + 30_000)}  # fmt: skip
            row["settlement"] = None
            if plan.beacon_voids[n] == "late":
                row["beacon"] = {"round": b_round, "signature": sig.hex()}
            draw = None
        else:
            row["beacon"] = {"round": b_round, "signature": sig.hex()}
        inputs.append(fairness_v2.RoundInput(bytes.fromhex(root), draw))
        rows.append(row)
    shoe = fairness_v2.shoe_from_key_v2(key, rules, inputs)
    for row, drawn in zip(rows, shoe.draws, strict=True):
        if drawn is None:
            continue
        n = row["round_number"]
        dealt = beacon.round_time(chain, row["beacon"]["round"]) + 400 + rng.randint(0, 300)
        row |= round_json(drawn.round) | {"dealt_at": _at(dealt)}
        if n in plan.books:
            leaves = book_leaves(f"{TABLE_ID}_s{number}_r{n}", plan.books[n])
            row["book"] = _stored_book(config, drawn.round, leaves)
        if n == plan.misdeal:
            row["settlement"] = None
            row["void"] = {
                "reason": "misdeal",
                "note": "a card face up",
                "voided_at": _at(dealt + 9_000),
            }
        else:
            row["settlement"] = _settlement(
                config, drawn.round, row["bets"], number, n, _at(dealt + 15_000)
            )
    return {
        "spec": "bacc-pf-v1",
        "fairness": pf2proof.SPEC,
        "beacon": pf2proof.chain_json(chain),
        "shoe_id": f"{TABLE_ID}_s{number}",
        "table_id": TABLE_ID,
        "anchor": anchor_of(secret, number).hex(),
        "shoe_number": number,
        "client_seed": plan.client_seed,
        "client_hash": client_hash(plan.client_seed).hex(),
        "rules": rules.as_dict(),
        "server_seed": secret.hex(),
        "end_reason": "rules" if shoe.ended_by_rules else "closed",
        "ended_at": rows[-1]["settlement"]["settled_at"],
        "table_config": config.to_dict(),
        "rounds": rows,
    }


def sample_pages(plan: Plan, previous: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    public = pf2proof.public_proof_v2(private_proof(plan), TEST_REF_KEY)
    pages = proofdoc.paginate(public, BUDGET)
    return sign_keeping(pages, previous)


def main() -> None:
    for out, plan in ((SAMPLE, whole_shoe_plan()), (QUICKNET_SAMPLE, quicknet_plan())):
        previous = json.loads(out.read_text(encoding="utf-8"))["pages"] if out.exists() else None
        pages = sample_pages(plan, previous)
        out.write_text(json.dumps({"pages": pages}, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(HERE.parent)}: {len(pages)} pages")
    RECEIPT.write_text(
        json.dumps(sample_receipt(whole_shoe_plan()), indent=1) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
