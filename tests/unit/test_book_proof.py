"""Proofs of shoes with a book (``bacc-pf-v1.1``), receipts (``bacc-receipt-v1``) and public book
pages, checked by ``baccarat.verify``, ``baccarat.receiptcheck`` and the CLI.

The money is checked against an independent recomputation: the whole book settled at once by
``baccarat.settlement.settle`` (every spectator one bettor of one settlement), not slip by slip
through ``baccarat.bookmoney`` as the builder and the checks do."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import make_receipt_vectors as mrv
import pytest
from support.signed_proofs import TEST_KEYS

from baccarat import proofdoc
from baccarat.bets import Bet, BetType, Role
from baccarat.proofbook import SPEC_V11, page_count
from baccarat.proofpages import assemble
from baccarat.receiptcheck import verify_books, verify_receipt
from baccarat.settlement import settle
from baccarat.verify import verify
from baccarat_verify.cli import main

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
RECEIPTS = json.loads((VECTORS / "receipts.json").read_text(encoding="utf-8"))


def _proof() -> dict[str, Any]:
    return assemble(copy.deepcopy(RECEIPTS["proof"]))[1]


def _whole_book(n: int) -> dict[str, int]:
    """Round ``n``'s book settled at once: Σ nets, the house's covered, commission and take."""
    leaves = mrv.book_leaves(n)
    bets = [
        Bet(leaf["bettor_ref"], Role.SPECTATOR, BetType(line["type"]), line["amount"], order=i)
        for i, (leaf, line) in enumerate((lf, ln) for lf in leaves for ln in lf["lines"])
    ]
    s = settle(mrv.config(), mrv._derived(n), bets)
    return {
        "net": sum(s.nets().values()),
        "covered": s.house_covered,
        "commission": s.house_commission,
        "take": s.house_take,
        "bettors": len(s.bettors),
    }


# --- the proof ------------------------------------------------------------------------------------


def test_the_committed_vectors_are_what_the_core_computes() -> None:
    assert mrv.build() == RECEIPTS, "stale: run .venv/bin/python tests/make_receipt_vectors.py"


def test_a_shoe_with_books_is_v11_and_verifies() -> None:
    verdict = verify(copy.deepcopy(RECEIPTS["proof"]), require_signature=False)
    assert verdict.ok, verdict.line()
    assert "2 books of spectators' slips" in verdict.summary
    proof = _proof()
    assert proof["spec"] == SPEC_V11
    for r in proof["rounds"]:
        book, whole = r["book"], _whole_book(r["round_number"])
        assert set(book) == {"root", "count", "pages", "totals"}
        assert book["pages"] == page_count(book["count"]) == 1
        assert book["totals"]["net"] == whole["net"]
        assert book["totals"]["house"] == {k: whole[k] for k in ("covered", "commission", "take")}
        assert book["totals"]["bettors"] == whole["bettors"] == book["count"]
        assert r["bets"] and all(b["role"] == "seated" for b in r["bets"])


def test_the_house_figures_are_the_seated_plus_the_book() -> None:
    proof = _proof()
    settled, voided = proof["rounds"]
    seated = settle(
        mrv.config(),
        mrv._derived(1),
        [Bet(b["bettor_id"], Role.SEATED, BetType(b["type"]), b["amount"], order=i)
         for i, b in enumerate(mrv.SEATED[1])],
    )  # fmt: skip
    book = _whole_book(1)
    assert settled["settlement"]["house"] == {
        "covered": seated.house_covered + book["covered"],
        "commission": seated.house_commission + book["commission"],
        "take": seated.house_take + book["take"],
    }
    assert (
        sum(settled["settlement"]["nets"].values())
        + book["net"]
        + (settled["settlement"]["house"]["take"])
        == 0
    )
    # a void replaced the seated bettors' money and the book's: the players' side of it counts both
    seated2 = settle(
        mrv.config(), mrv._derived(2),
        [Bet("alice", Role.SEATED, BetType.TIE, 200, order=0)],
    )  # fmt: skip
    book2 = _whole_book(2)
    assert voided["void"]["replaced"]["house_take"] == seated2.house_take + book2["take"]
    assert (
        proof["interventions"]["voided_player_net"] == sum(seated2.nets().values()) + book2["net"]
    )


def _tampered(change: Any) -> Any:
    pages = copy.deepcopy(RECEIPTS["proof"])
    change(pages[0]["rounds"][0])
    return verify(pages, require_signature=False)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r["book"]["totals"].update(net=r["book"]["totals"]["net"] + 1), "balance"),
        (lambda r: r["book"].update(pages=2), "book pages"),
        (lambda r: r["book"].update(root="00" * 31), "book root"),
        (lambda r: r["settlement"]["house"].update(take=r["settlement"]["house"]["take"] - 1),
         "house"),
        (lambda r: r["book"]["totals"].update(bettors=6), "bettors"),
    ],
)  # fmt: skip
def test_a_round_book_that_does_not_add_up_fails(change: Any, words: str) -> None:
    verdict = _tampered(change)
    assert not verdict.ok
    assert any(words in str(m) for m in verdict.mismatches), verdict.mismatches


def test_a_book_in_a_v1_proof_fails() -> None:
    pages = copy.deepcopy(RECEIPTS["proof"])
    for p in pages:
        p["spec"] = "bacc-pf-v1"
    verdict = verify(pages, require_signature=False)
    assert not verdict.ok
    assert any("only a bacc-pf-v1.1 proof may" in str(m) for m in verdict.mismatches)


def test_a_proof_without_books_stays_v1() -> None:
    private = mrv.private_proof()
    for r in private["rounds"]:
        del r["book"]
    public = proofdoc.public_proof(private, b"k" * 32)
    assert public["spec"] == "bacc-pf-v1"
    assert all("book" not in r for r in public["rounds"])


# --- receipts ------------------------------------------------------------------------------------


def test_every_receipt_verifies() -> None:
    proof = _proof()
    nets = {r["leaf"]["bettor_ref"]: r["settlement"]["net"] for r in RECEIPTS["receipts"][:7]}
    whole = _whole_book(1)
    assert sum(nets.values()) == whole["net"]
    for receipt in RECEIPTS["receipts"]:
        verdict = verify_receipt(proof, receipt)
        assert verdict.ok, verdict.lines()
        n, size = receipt["round_number"], receipt["tree_size"]
        assert f"round {n} (leaf {receipt['leaf_index'] + 1} of {size})" in verdict.summary


@pytest.mark.parametrize("case", range(3))
def test_the_failing_receipts_fail(case: int) -> None:
    bad = RECEIPTS["failing"][case]
    verdict = verify_receipt(_proof(), bad["receipt"])
    assert not verdict.ok, bad["why"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r["settlement"].update(net=r["settlement"]["net"] + 1), "paid"),
        (lambda r: r.update(round_number=2), "NOT in the book"),
        (lambda r: r["leaf"].update(role="seated", seat=1), "leaf role"),
        (lambda r: r.update(shoe_id="tbl_book_s2"), "shoe_id"),
        (lambda r: r["path"].reverse(), "NOT in the book"),
        (lambda r: r.update(round_number=9), "not in the proof"),
        (lambda r: r["leaf"].update(round_id="tbl_book_s3_r2"), "round_id"),
    ],
)
def test_a_tampered_receipt_fails(change: Any, words: str) -> None:
    receipt = copy.deepcopy(RECEIPTS["receipts"][4])
    change(receipt)
    verdict = verify_receipt(_proof(), receipt)
    assert not verdict.ok
    assert any(words in line for line in verdict.lines()), verdict.lines()


def test_a_receipt_of_a_voided_round_is_its_stake_back() -> None:
    receipt = copy.deepcopy(RECEIPTS["receipts"][-1])
    assert receipt["settlement"]["voided"] is True
    stake = sum(line["amount"] for line in receipt["leaf"]["lines"])
    assert receipt["settlement"] == {"voided": True, "stake": stake, "net": 0}
    receipt["settlement"]["net"] = 5
    assert not verify_receipt(_proof(), receipt).ok


# --- book pages ----------------------------------------------------------------------------------


def test_the_book_pages_verify() -> None:
    verdict = verify_books(_proof(), RECEIPTS["book_pages"])
    assert verdict.ok, verdict.lines()


def _pages_changed(change: Any) -> list[str]:
    pages = copy.deepcopy(RECEIPTS["book_pages"])
    change(pages)
    verdict = verify_books(_proof(), pages)
    assert not verdict.ok
    return verdict.lines()


def test_tampered_book_pages_fail() -> None:
    def swap(p: list[Any]) -> None:
        e = p[0]["entries"]
        e[0], e[1] = e[1], e[0]

    def amount(p: list[Any]) -> None:
        p[0]["entries"][3]["settlement"]["net"] += 1

    def drop(p: list[Any]) -> None:
        del p[0]["entries"][6]

    def leaf(p: list[Any]) -> None:
        p[0]["entries"][2]["leaf"]["lines"][0]["amount"] += 1

    assert any("ascending" in x for x in _pages_changed(swap))
    assert any("settlement" in x for x in _pages_changed(amount))
    assert any("count" in x or "root" in x for x in _pages_changed(drop))
    assert any("root" in x for x in _pages_changed(leaf))
    assert any("pages" in x for x in _pages_changed(lambda p: p.pop()))


# --- the CLI -------------------------------------------------------------------------------------


def _signed_proof(tmp_path: Path) -> list[str]:
    """The vectors' signed proof and the TEST ONLY key set, as ``baccarat verify`` arguments."""
    proof = tmp_path / "proof.json"
    proof.write_text(json.dumps({"pages": RECEIPTS["proof"]}))
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(TEST_KEYS))
    return [str(proof), "--keys", str(keys)]


def test_the_cli_checks_a_receipt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(RECEIPTS["receipts"][0]))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(RECEIPTS["failing"][0]["receipt"]))
    args = ["verify", *_signed_proof(tmp_path), "--receipt"]
    assert main([*args, str(good)]) == 0
    out = capsys.readouterr().out
    assert "slip in the book locked at the deal of round 1 (leaf 1 of 7) and paid exactly" in out
    assert main([*args, str(bad)]) == 1
    assert "NOT verified: the slip is NOT in the book" in capsys.readouterr().out


def test_the_cli_checks_the_books(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    books = tmp_path / "books.json"
    books.write_text(json.dumps(RECEIPTS["book_pages"]))
    args = ["verify", *_signed_proof(tmp_path), "--books", "--book-pages"]
    assert main([*args, str(books)]) == 0
    assert "2 books of spectators' slips: every page, 9 slips" in capsys.readouterr().out
    tampered = copy.deepcopy(RECEIPTS["book_pages"])
    tampered[0]["entries"][0]["settlement"]["net"] += 1
    books.write_text(json.dumps(tampered))
    assert main([*args, str(books)]) == 1


def test_the_builders_documents_are_the_vectors() -> None:
    """``baccarat.receipts`` (what the settlement fan-out writes) gives the vectors' receipts and
    pages from their parts: the builder and the spec's vectors agree on the documents."""
    from baccarat import receipts

    names = ("shoe_id", "round_number", "round_id", "leaf", "leaf_index", "tree_size", "root",
             "path", "settlement", "proof_url")  # fmt: skip
    for r in RECEIPTS["receipts"]:
        assert receipts.receipt_doc(*[r[k] for k in names]) == r
    for p in RECEIPTS["book_pages"]:
        entries = [receipts.book_entry(e["leaf"], e["settlement"]) for e in p["entries"]]
        built = receipts.book_page_doc(
            p["shoe_id"], p["round_number"], p["root"], p["count"], p["page"]["number"],
            p["page"]["count"], entries,
        )  # fmt: skip
        assert built == p
    voided = RECEIPTS["receipts"][-1]["settlement"]
    assert receipts.voided_settlement(voided["stake"]) == voided


def test_malformed_receipts_and_pages_are_refused_in_words() -> None:
    proof = _proof()
    bad_lines = copy.deepcopy(RECEIPTS["receipts"][0])
    bad_lines["leaf"]["lines"] = [{"type": "no_such_bet", "amount": 100}]
    for receipt in (None, [], {"spec": "bacc-receipt-v1"}, bad_lines):
        assert not verify_receipt(proof, receipt).ok
    for pages in ([None], [{"round_number": 1, "page": None}], [{"round_number": 1}]):
        assert not verify_books(proof, pages).ok


def test_books_are_fetched_from_the_proof_urls_origin() -> None:
    """``--books`` with the proof's URL reads page k of every round with a book at
    ``/v1/shoes/{shoe_id}/rounds/{n}/book?page=k`` of the same origin."""
    import argparse

    from baccarat import bookcli

    pages = {
        bookcli.book_page_url("https://api.example", p["shoe_id"], p["round_number"],
                              p["page"]["number"]): p
        for p in RECEIPTS["book_pages"]
    }  # fmt: skip
    asked: list[str] = []

    def read(url: str) -> Any:
        asked.append(url)
        return pages[url]

    args = argparse.Namespace(
        proof=["https://api.example/v1/shoes/tbl_book_s3/proof"],
        receipt=None,
        books=True,
        book_pages=None,
    )
    ((name, verdict),) = bookcli.checks(args, copy.deepcopy(RECEIPTS["proof"]), read, True)
    assert name == "books" and verdict.ok, verdict.lines()
    assert asked == [
        "https://api.example/v1/shoes/tbl_book_s3/rounds/1/book?page=0",
        "https://api.example/v1/shoes/tbl_book_s3/rounds/2/book?page=0",
    ]
    ((_, refused),) = bookcli.checks(args, copy.deepcopy(RECEIPTS["proof"]), read, False)
    assert not refused.ok and refused.summary == "not checked: the proof did not verify"
