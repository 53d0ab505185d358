"""A receipt (``bacc-receipt-v1``) and a public book page (``bacc-book-v1``): their shape, that a
receipt's path leads to its root (checked by the book tree's own verification), and that neither
names a bettor."""

from __future__ import annotations

import json

import pytest

from baccarat import booktree
from baccarat.audit import canonical
from baccarat.bookmoney import slip_doc, slip_settlement
from baccarat.outcome import deal_round
from baccarat.profiles import BID_SQUEEZE, TableConfig, repo_tiers
from baccarat.receipts import (
    ReceiptError,
    book_entry,
    book_page_doc,
    receipt_doc,
    voided_settlement,
)

CONFIG = TableConfig(BID_SQUEEZE, repo_tiers()["bid-squeeze-standard"])
ROUND = "rnd_t1_1_3"
REFS = [f"br_{c}{'a' * 23}" for c in "abcdefg"]
IDS = [f"bettor-secret-{n}" for n in range(len(REFS))]


def _book() -> tuple[list[dict[str, object]], list[bytes]]:
    docs = [
        booktree.leaf_doc(ROUND, ref, "spectator", [{"type": "banker", "amount": 100 + n}])
        for n, ref in enumerate(REFS)
    ]
    return docs, [canonical(d) for d in docs]


def test_a_receipt_holds_what_verifies_it() -> None:
    docs, leaves = _book()
    root = booktree.root(leaves)
    rnd = deal_round([1, 2, 3, 4, 5, 6], 0)
    for i, doc in enumerate(docs):
        path = booktree.inclusion_path(leaves, i)
        settled = slip_doc(slip_settlement(CONFIG, rnd, doc["lines"]))  # type: ignore[arg-type]
        r = receipt_doc(
            "shoe_1", 3, ROUND, doc, i, len(docs), root.hex(), [h.hex() for h in path],
            settled, "https://x/v1/shoes/shoe_1/proof",
        )  # fmt: skip
        assert set(r) == {
            "spec", "shoe_id", "round_number", "round_id", "leaf", "leaf_index", "tree_size",
            "root", "path", "settlement", "proof_url",
        }  # fmt: skip
        assert r["spec"] == "bacc-receipt-v1"
        leaf = booktree.leaf_hash(canonical(r["leaf"]))
        path_back = [bytes.fromhex(h) for h in r["path"]]
        assert booktree.verify_inclusion(
            leaf, r["leaf_index"], r["tree_size"], path_back, bytes.fromhex(r["root"])
        )
        assert r["settlement"] == settled
        text = json.dumps(r)
        assert not any(b in text for b in IDS)
        assert "bettor_id" not in text


def test_a_receipt_refuses_parts_that_do_not_fit() -> None:
    docs, leaves = _book()
    root = booktree.root(leaves).hex()
    ok = ("shoe_1", 3, ROUND, docs[0], 0, 7, root, [], {"net": 0}, "u")
    receipt_doc(*ok)  # type: ignore[arg-type]
    bad = [
        (2, "rnd_other"),  # another round's leaf
        (4, 7),  # index outside the book
        (5, 0),  # an empty book has no receipt
        (6, root.upper()),  # not lower-case hex
        (7, ["ab"]),  # a path hash that is not one
        (1, 0),  # no round 0
    ]
    for at, value in bad:
        args = list(ok)
        args[at] = value
        with pytest.raises(ReceiptError):
            receipt_doc(*args)  # type: ignore[arg-type]


def test_a_voided_slip_gets_its_stake_back() -> None:
    assert voided_settlement(250) == {"voided": True, "stake": 250, "net": 0}
    with pytest.raises(ReceiptError):
        voided_settlement(-1)


def test_book_pages_chain_and_name_nobody() -> None:
    docs, leaves = _book()
    root = booktree.root(leaves).hex()
    entries = [book_entry(d, {"net": n}) for n, d in enumerate(docs)]
    pages = [
        book_page_doc("shoe_1", 3, root, 7, k, 3, entries[3 * k : 3 * k + 3]) for k in range(3)
    ]
    assert [p["page"] for p in pages] == [
        {"number": 0, "count": 3, "next": 1},
        {"number": 1, "count": 3, "next": 2},
        {"number": 2, "count": 3, "next": None},
    ]
    assert all(p["spec"] == "bacc-book-v1" and p["root"] == root for p in pages)
    assert [e["leaf"] for p in pages for e in p["entries"]] == docs
    assert [e["settlement"]["net"] for p in pages for e in p["entries"]] == list(range(7))
    text = json.dumps(pages)
    assert not any(b in text for b in IDS) and "bettor_id" not in text
    with pytest.raises(ReceiptError):
        book_page_doc("shoe_1", 3, root, 7, 3, 3, [])


def test_a_receipt_and_a_settlement_page_at_their_largest_fit_their_budgets() -> None:
    """Every bet type at the largest stake, a path of a book of 2**20 leaves, the longest ids;
    a page of 100 bettors of the longest ids and the largest stakes and nets."""
    from baccarat.paytables import BetType
    from baccarat_api.limits import (
        BETTOR_REF_LENGTH,
        CHUNK_SLIPS,
        MAX_ID_LENGTH,
        MAX_MONEY,
        RECEIPT_BUDGET_BYTES,
        SETTLEMENT_PAGE_BUDGET_BYTES,
        json_bytes,
    )

    lines = [{"type": t.value, "amount": MAX_MONEY} for t in BetType]
    rid = "tbl_" + "a" * 16 + "_s999999_r9999"
    worst = 0
    for cards in ([0, 1, 2, 3, 4, 5], [8, 21, 9, 22, 4, 5], [0, 13, 1, 14, 2, 15]):
        settled = slip_doc(slip_settlement(CONFIG, deal_round(cards, 0), lines))
        leaf = booktree.leaf_doc(rid, "br_" + "z" * (BETTOR_REF_LENGTH - 3), "spectator", lines)
        receipt = receipt_doc(
            rid[:-6], 9999, rid, leaf, 2**20 - 1, 2**20, "f" * 64, ["f" * 64] * 20, settled,
            f"/v1/shoes/{rid[:-6]}/proof",
        )  # fmt: skip
        worst = max(worst, json_bytes(receipt))
    assert worst <= RECEIPT_BUDGET_BYTES
    entry = {
        "bettor_id": "x" * MAX_ID_LENGTH,
        "bettor_ref": "br_" + "z" * (BETTOR_REF_LENGTH - 3),
        "stake": len(BetType) * MAX_MONEY,
        "net": -len(BetType) * MAX_MONEY,
    }
    page = {"round_id": rid, "page": 9999, "pages": 10000, "next": 9999,
            "bettors": [entry] * CHUNK_SLIPS}  # fmt: skip
    assert json_bytes(page) <= SETTLEMENT_PAGE_BUDGET_BYTES
    print(f"receipt ≤ {worst} B, settlement page ≤ {json_bytes(page)} B")
