"""The service's final proof of a shoe whose rounds carry a book (``RoundRecord.book``, written
by the deal at a ``bet_behind: book`` table): ``bacc-pf-v1.1``, each round's book public, the
house figures, the voids' interventions and the fairness summary counting the book. The books
are given to the stored rounds here as the deal would store them; the figures are checked
against sums written out in the test."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, cast

from baccarat.profiles import TableConfig
from baccarat.verify import verify
from baccarat_api.ids import parse_shoe_id
from baccarat_api.ports.documents import BookDoc
from baccarat_api.ports.repository import ShoeHistory
from baccarat_api.service import proofs
from baccarat_verify import es256

from .conftest import Game
from .test_proofs import ended_shoe, keys, served_pages, settle_all
from .test_service import OP, new_shoe


def _book(n: int) -> BookDoc:
    """A balanced book of one slip: banker ``100 · n`` lost (net −100n, the house takes 100n)."""
    stake = 100 * n
    doc = {
        "root": f"{n:02x}" * 32,
        "count": 1,
        "chunks": 1,
        "shards": 32,
        "totals": {
            "bettors": 1,
            "stake": stake,
            "net": -stake,
            "by_type": {"banker": {"stake": stake, "gross_win": 0, "commission": 0, "net": -stake}},
            "house": {"covered": stake, "commission": 0, "take": stake},
        },
    }
    return cast(BookDoc, doc)


def test_a_shoe_with_books_is_proved_in_v11(game: Game) -> None:
    shoe_id, dealt = ended_shoe(game, close_after=3, voided={2})
    settle_all(game, [r for r in dealt if r.round_number != 2])
    history = game.repo.shoe_history

    def with_books(operator_id: str, ref: Any) -> ShoeHistory:
        h = history(operator_id, ref)
        rounds = [dataclasses.replace(r, book=_book(r.round_number)) for r in h.rounds]
        return dataclasses.replace(h, rounds=rounds)

    game.repo.shoe_history = with_books  # type: ignore[method-assign]
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    stored = {r.round_number: r for r in history(OP, ref).rounds}
    pages = served_pages(game, shoe_id)
    assert pages[0]["spec"] == "bacc-pf-v1.1"
    rounds = {r["round_number"]: r for p in pages for r in p["rounds"]}
    for n, r in rounds.items():
        assert r["book"] == {
            "root": f"{n:02x}" * 32,
            "count": 1,
            "pages": 1,
            "totals": _book(n)["totals"],
        }
    for n in (1, 3):
        seated = stored[n].settlement
        assert seated is not None
        assert rounds[n]["settlement"]["house"]["take"] == seated["house"]["take"] + 100 * n
    iv = pages[0]["interventions"]
    replaced = stored[2].void["replaced"] if stored[2].void else None
    assert replaced is not None
    assert iv["voided_player_net"] == sum(replaced["nets"].values()) - 200
    assert rounds[2]["void"]["replaced"]["house_take"] == replaced["house_take"] + 200
    verdict = verify(pages, keys=keys(game), signature_check=es256.check, shoe_id=shoe_id)
    assert verdict.ok, verdict.mismatches
    summary = proofs.fairness(game.repo, shoe_id.rsplit("_s", 1)[0])
    assert summary.shoes[0].interventions.voided_player_net == iv["voided_player_net"]


def test_an_open_shoes_voids_count_the_book(game: Game) -> None:
    """The fairness summary's open shoe prices a void with its book too (once its cards are
    shown), as the proof will."""
    from .test_proofs import play

    shoe_id = new_shoe(game)
    (dealt,) = play(game, shoe_id, 1, voided={1})
    history = game.repo.shoe_history

    def with_books(operator_id: str, ref: Any) -> ShoeHistory:
        h = history(operator_id, ref)
        rounds = [dataclasses.replace(r, book=_book(3)) for r in h.rounds]
        return dataclasses.replace(h, rounds=rounds)

    game.repo.shoe_history = with_books  # type: ignore[method-assign]
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    (stored,) = history(OP, ref).rounds
    assert stored.void is not None and dealt.round_id == stored.round_id
    view = proofs.open_shoe_view(game.repo, OP, shoe_id)
    assert view is not None
    (void,) = view["voids"]
    assert void["replaced"] is not None  # a voided round's cards are shown at the void
    seated = sum(stored.void["replaced"]["nets"].values())
    assert view["interventions"]["voided_player_net"] == seated - 300
    assert void["replaced"]["house_take"] == stored.void["replaced"]["house_take"] + 300


# --- the whole path: slips confirmed, the deal, settlement or void, the proof, pages, receipts --


def test_real_book_rounds_prove_and_every_page_and_receipt_verifies(game: Game) -> None:
    """Round 1 settled, round 2 voided, both dealt from books of real confirmed slips (the
    deal, the fan-out and the proof as the service runs them); the shoe closed. The proof is
    v1.1 and verifies; every public page and every receipt the fan-out wrote verifies against
    it; the house and the interventions count each book, against the whole book settled at
    once."""
    from baccarat.proofpages import assemble
    from baccarat.receiptcheck import verify_books, verify_receipt
    from baccarat_api.ids import RoundRef
    from baccarat_api.service import betting, tables
    from baccarat_api.service.settling import settle_round
    from baccarat_api.service.voiding import void_round

    from .test_bet_behind_deal import (
        SLIPS,
        book_table,
        cards_of,
        from_book,
        independent_totals,
        slip,
        spectator,
    )

    t, shoe_id = book_table(game)
    for b in SLIPS:
        spectator(game, t, b)
    rounds = []
    for n in (1, 2):
        betting.open_betting(game.repo, OP, t)
        betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 20_000)))
        for b, lines in SLIPS.items():
            betting.place_slip(game.repo, OP, t, b, slip(*lines))
        out = from_book(game, shoe_id)
        if n == 1:
            settle_round(game.repo, OP, out.round_id)
        else:
            void_round(game.repo, OP, out.round_id, reason="misdeal")
        rounds.append(out.round_id)
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)

    pages = served_pages(game, shoe_id)
    verdict = verify(pages, keys=keys(game), signature_check=es256.check, shoe_id=shoe_id)
    assert verdict.ok, verdict.mismatches
    proof = assemble(pages)[1]
    assert proof["spec"] == "bacc-pf-v1.1"
    settled, voided = proof["rounds"]
    first = game.repo.get_round(OP, RoundRef(*_shoe_parts(shoe_id), 1))
    assert first is not None
    config = TableConfig.from_dict(first.config)
    whole = [independent_totals(config, cards_of(game, shoe_id, n), SLIPS) for n in (1, 2)]
    for r, w in zip((settled, voided), whole, strict=True):
        assert r["book"]["count"] == len(SLIPS) and r["book"]["pages"] == 1
        assert r["book"]["totals"]["net"] == sum(b.net for b in w.bettors)
    seated_take = settled["settlement"]["house"]["take"] - whole[0].house_take
    assert seated_take == -sum(settled["settlement"]["nets"].values())
    assert voided["void"]["replaced"]["house_take"] == (
        -sum(voided["void"]["replaced"]["nets"].values()) + whole[1].house_take
    )
    assert proof["interventions"]["voided_player_net"] == sum(
        voided["void"]["replaced"]["nets"].values()
    ) + sum(b.net for b in whole[1].bettors)

    # the settled round's public page and receipts (a voided round's fan-out is not wired yet:
    # its book is in the proof, its pages and receipts are not written)
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    page = json.loads(proofs.book_page(game.repo, shoe_id, 1, 0))
    checked = verify_books({**proof, "rounds": [settled]}, [page])
    assert checked.ok, checked.lines()
    tampered = json.loads(json.dumps(page))
    tampered["entries"][0]["settlement"]["net"] += 1
    assert not verify_books({**proof, "rounds": [settled]}, [tampered]).ok
    for b in SLIPS:
        item = game.repo.chunks.receipt(OP, RoundRef(ref.table_id, ref.shoe_number, 1), b)
        assert item is not None
        got = verify_receipt(proof, dict(item.doc))
        assert got.ok, got.lines()


def _shoe_parts(shoe_id: str) -> tuple[str, int]:
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    return ref.table_id, ref.shoe_number


def test_a_proof_page_of_the_book_is_one_settlement_chunk() -> None:
    """The proof's ``book.pages`` (``ceil(count / 100)``, the core's rule) counts the pages the
    settlement chunks write (``limits.CHUNK_SLIPS`` leaves each)."""
    from baccarat import proofbook
    from baccarat_api import limits

    assert proofbook.PAGE_ENTRIES == limits.CHUNK_SLIPS
