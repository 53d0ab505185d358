"""Make the receipts' known-answer vectors: ``tests/vectors/receipts.json`` (``docs/bacc-pf-v1.md``,
"bacc-pf-v1.1: rounds with a book", quotes them).

    .venv/bin/python tests/make_receipt_vectors.py

A whole small ``bacc-pf-v1.1`` proof made with the engine alone (the spec's example chain, shoe
3, bid-squeeze house-banked, closed early after 2 rounds): round 1 settled, two seated bettors
and a book of 7 spectators; round 2 voided as a misdeal, one seated bettor and a book of 2.
The proof's pages signed with the TEST ONLY key (an unchanged manifest keeps the committed
signature, so running the script again changes nothing); each round's public book pages; one
receipt per leaf (every one verifies); three receipts that must fail (a changed amount, a wrong
index, a wrong tree size). The receipts and pages are built here from ``baccarat.booktree`` and
``baccarat.bookmoney`` as the spec describes them; ``baccarat.receiptcheck`` and the JavaScript
verifier check them independently.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from support.signed_proofs import (  # noqa: E402
    SIGNED_AT,
    TEST_KEY_ID,
    TEST_REF_KEY,
    sign_with_test_key,
)

from baccarat import booktree, proofdoc  # noqa: E402
from baccarat.bets import Bet, BetType, Role  # noqa: E402
from baccarat.bookmoney import BookTotals, slip_doc, slip_settlement  # noqa: E402
from baccarat.cards import code  # noqa: E402
from baccarat.fairness import anchor_of, client_hash, derive_shoe, walk_chain  # noqa: E402
from baccarat.profiles import BID_SQUEEZE, TableConfig, repo_tiers  # noqa: E402
from baccarat.proofbook import PAGE_ENTRIES, page_count  # noqa: E402
from baccarat.settlement import settle  # noqa: E402

VECTORS = HERE / "vectors"
OUT = VECTORS / "receipts.json"

CHAIN_TOP = hashlib.sha256(b"bacc-pf-v1 example chain secret - never use in production").digest()
TABLE_ID = "tbl_book"
SHOE_NUMBER = 3
SHOE_ID = f"{TABLE_ID}_s{SHOE_NUMBER}"
SEED = "bacc-pf-v1.1 sample"
T0 = 1_748_779_200  # 2025-06-01T12:00:00Z
PROOF_URL = f"/v1/shoes/{SHOE_ID}/proof"

#: The spectators' slips of each round (bettor id → lines), by hand: 1 to 13 lines, amounts up
#: to 2^53 − 1 where the tier allows any (the book does not validate; the deal did).
BOOKS: dict[int, dict[str, list[dict[str, Any]]]] = {
    1: {
        "dora": [{"type": "banker", "amount": 2500}],
        "emil": [{"type": "player", "amount": 1000}, {"type": "tie", "amount": 100}],
        "fay": [{"type": "banker_pair", "amount": 300}, {"type": "big", "amount": 500}],
        "gus": [{"type": "small", "amount": 700}, {"type": "lucky6", "amount": 200}],
        "hana": [{"type": t.value, "amount": 100 + 10 * i} for i, t in enumerate(BetType)],
        "ivo": [{"type": "banker_no_commission", "amount": 4000}],
        "jun": [{"type": "player_pair", "amount": 150}, {"type": "any_pair", "amount": 250},
                {"type": "perfect_pair", "amount": 50}],
    },
    2: {
        "dora": [{"type": "player", "amount": 800}],
        "kai": [{"type": "banker", "amount": 1200}, {"type": "player_dragon", "amount": 100}],
    },
}  # fmt: skip
#: The seated bettors' bets (API form, accepted order).
SEATED: dict[int, list[dict[str, Any]]] = {
    1: [
        {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker", "amount": 5000},
        {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player", "amount": 3000},
    ],
    2: [{"bettor_id": "alice", "role": "seated", "seat": 1, "type": "tie", "amount": 200}],
}


def _at(seconds: int) -> str:
    import datetime as dt

    moment = dt.datetime.fromtimestamp(T0 + seconds, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def config() -> TableConfig:
    return TableConfig(BID_SQUEEZE, repo_tiers()["bid-squeeze-standard"])


def round_id(n: int) -> str:
    return f"{SHOE_ID}_r{n}"


def ref(who: str) -> str:
    return proofdoc.bettor_ref(TEST_REF_KEY, TABLE_ID, who)


def book_leaves(n: int) -> list[dict[str, Any]]:
    """Round ``n``'s leaves in book order."""
    docs = [
        booktree.leaf_doc(round_id(n), ref(who), "spectator", lines)
        for who, lines in BOOKS[n].items()
    ]
    return booktree.in_book_order(docs, lambda d: str(d["bettor_ref"]))


def _settled(n: int, leaf: dict[str, Any], derived: Any, voided: bool) -> dict[str, Any]:
    s = slip_settlement(config(), derived, leaf["lines"])
    if voided:
        return {"voided": True, "stake": s.bettors[0].stake, "net": 0}
    return slip_doc(s)


def stored_book(n: int, derived: Any) -> dict[str, Any]:
    """The round's book as the deal stores it (``BookDoc``)."""
    leaves = book_leaves(n)
    totals = BookTotals()
    for leaf in leaves:
        totals.add(slip_settlement(config(), derived, leaf["lines"]))
    return {
        "root": booktree.root([proofdoc.canonical(d) for d in leaves]).hex(),
        "count": len(leaves),
        "chunks": page_count(len(leaves)),
        "shards": 32,
        "totals": totals.as_dict(),
    }


def private_proof() -> dict[str, Any]:
    cfg = config()
    rules = cfg.profile.shoe_rules
    secret = walk_chain(CHAIN_TOP, 10 - SHOE_NUMBER)
    shoe = derive_shoe(secret, SEED, SHOE_NUMBER, rules)
    rounds = []
    for r, derived in zip(shoe.rounds_json()[:2], shoe.rounds, strict=False):
        n = r["round_number"]
        raw = SEATED[n]
        row: dict[str, Any] = {**r, "dealt_at": _at(60 * n), "bets": raw, "player_banker": None,
                               "book": stored_book(n, derived)}  # fmt: skip
        if n == 2:
            row["settlement"] = None
            row["void"] = {"reason": "misdeal", "note": None, "voided_at": _at(60 * n + 20)}
        else:
            bets = [Bet(b["bettor_id"], Role(b["role"]), BetType(b["type"]), b["amount"], order=i)
                    for i, b in enumerate(raw)]  # fmt: skip
            s = settle(cfg, derived, bets)
            row["settlement"] = {
                "round_id": round_id(n),
                "round_number": n,
                **s.as_dict(),
                "nets": s.nets(),
                "settled_at": _at(60 * n + 30),
                "auto_settled": False,
            }
        rounds.append(row)
    return {
        "spec": "bacc-pf-v1",  # public_proof makes it bacc-pf-v1.1: its rounds carry books
        "shoe_id": SHOE_ID,
        "table_id": TABLE_ID,
        "anchor": anchor_of(secret, SHOE_NUMBER).hex(),
        "shoe_number": SHOE_NUMBER,
        "client_seed": SEED,
        "client_hash": client_hash(SEED).hex(),
        "rules": rules.as_dict(),
        "server_seed": secret.hex(),
        "end_reason": "closed",
        "ended_at": _at(60 * 2 + 40),
        "cut_index": shoe.cut_index,
        "burn": shoe.burn_count,
        "burn_exposed": None if shoe.burn_exposed is None else code(shoe.burn_exposed),
        "first_round_start": shoe.first_start,
        "table_config": cfg.to_dict(),
        "rounds": rounds,
    }


def proof_pages(previous: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    pages = proofdoc.paginate(proofdoc.public_proof(private_proof(), TEST_REF_KEY))
    manifest = proofdoc.manifest(pages, TEST_KEY_ID, SIGNED_AT)
    kept = previous[0]["signature"] if previous else None
    if kept and kept["manifest"] == manifest:

        def signer(_: bytes) -> bytes:
            return proofdoc.b64url_decode(kept["value"])
    else:
        signer = sign_with_test_key
    return proofdoc.sign(pages, signer, TEST_KEY_ID, SIGNED_AT)


def _derived(n: int) -> Any:
    secret = walk_chain(CHAIN_TOP, 10 - SHOE_NUMBER)
    return derive_shoe(secret, SEED, SHOE_NUMBER, config().profile.shoe_rules).rounds[n - 1]


def receipts(n: int, root: str, voided: bool) -> list[dict[str, Any]]:
    leaves = book_leaves(n)
    data = [proofdoc.canonical(d) for d in leaves]
    paths = booktree.inclusion_paths(data)
    derived = _derived(n)
    return [
        {
            "spec": "bacc-receipt-v1",
            "shoe_id": SHOE_ID,
            "round_number": n,
            "round_id": round_id(n),
            "leaf": leaf,
            "leaf_index": i,
            "tree_size": len(leaves),
            "root": root,
            "path": [h.hex() for h in paths[i]],
            "settlement": _settled(n, leaf, derived, voided),
            "proof_url": PROOF_URL,
        }
        for i, leaf in enumerate(leaves)
    ]


def book_pages(n: int, root: str, voided: bool) -> list[dict[str, Any]]:
    """Round ``n``'s public book pages (``GET /v1/shoes/{shoe_id}/rounds/{n}/book?page=k``, k
    from 0: page k is settlement chunk k, leaves [100k, 100k + 100))."""
    leaves = book_leaves(n)
    derived = _derived(n)
    count = page_count(len(leaves))
    return [
        {
            "spec": booktree.BOOK_SPEC,
            "shoe_id": SHOE_ID,
            "round_number": n,
            "root": root,
            "count": len(leaves),
            "page": {"number": k, "count": count, "next": k + 1 if k + 1 < count else None},
            "entries": [
                {"leaf": leaf, "settlement": _settled(n, leaf, derived, voided)}
                for leaf in leaves[PAGE_ENTRIES * k : PAGE_ENTRIES * (k + 1)]
            ],
        }
        for k in range(count)
    ]


def failing(good: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Three receipts of round 1 that must fail, each with what is wrong."""
    amount = copy.deepcopy(good[2])
    amount["leaf"]["lines"][0]["amount"] += 1
    index = copy.deepcopy(good[3])
    index["leaf_index"] = 2
    size = copy.deepcopy(good[5])
    size["tree_size"] = 8
    return [
        {"why": "a changed amount (the leaf no longer reaches the root)", "receipt": amount},
        {"why": "a wrong index (the path leads elsewhere)", "receipt": index},
        {"why": "a wrong tree size (8: the path alone would fit it)", "receipt": size},
    ]


def build() -> dict[str, Any]:
    previous = json.loads(OUT.read_text(encoding="utf-8"))["proof"] if OUT.exists() else None
    pages = proof_pages(previous)
    rounds = {r["round_number"]: r for p in pages for r in p["rounds"]}
    good = {n: receipts(n, rounds[n]["book"]["root"], rounds[n]["voided"]) for n in BOOKS}
    return {
        "spec": "bacc-receipt-v1",
        "about": "known-answer vectors of bacc-pf-v1.1 books and bacc-receipt-v1 receipts "
        "(docs/bacc-pf-v1.md); made by tests/make_receipt_vectors.py",
        "proof": pages,
        "book_pages": [p for n in BOOKS for p in book_pages(n, rounds[n]["book"]["root"],
                                                              rounds[n]["voided"])],
        "receipts": [r for n in BOOKS for r in good[n]],
        "failing": failing(good[1]),
    }  # fmt: skip


def main() -> None:
    text = json.dumps(build(), ensure_ascii=False, indent=1) + "\n"
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(HERE.parent)} ({len(text.encode())} bytes)")


if __name__ == "__main__":
    main()
