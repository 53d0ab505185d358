"""The service's final proof of a shoe whose rounds carry a book (``RoundRecord.book``, written
by the deal at a ``bet_behind: book`` table): ``bacc-pf-v1.1``, each round's book public, the
house figures, the voids' interventions and the fairness summary counting the book. The books
are given to the stored rounds here as the deal would store them; the figures are checked
against sums written out in the test."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

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
