"""The betting window and the book (issue 13) over the in-memory repository: the book's view per
seat and per spectator, opening betting (company, unsettled rounds), slips placed, replaced and
cancelled with their events, dealing from the book, the removal rules."""

from __future__ import annotations

from dataclasses import replace

from baccarat_api.ports.records import LiveRecord
from baccarat_api.service.betting import book_view

WINDOW = {
    "shoe_id": "tbl_x-s1",
    "round_number": 3,
    "opened_at": "2026-01-01T00:00:00.000Z",
    "closes_at": "2026-01-01T00:00:15.000Z",
    "status": "open",
    "round_id": None,
}


def test_book_view_shows_each_seat_and_spectator_slip_in_accepted_order() -> None:
    live = LiveRecord(
        "op",
        "tbl_x",
        seq=9,
        betting=WINDOW,
        book={
            "carol": {"role": "spectator", "seat": None, "order": 8,
                      "bets": [{"type": "tie", "amount": 100}],
                      "placed_at": "2026-01-01T00:00:05.000Z"},
            "alice": {"role": "seated", "seat": 3, "order": 6,
                      "bets": [{"type": "banker", "amount": 2000},
                               {"type": "tie", "amount": 500}],
                      "placed_at": "2026-01-01T00:00:02.000Z"},
        },
    )  # fmt: skip
    view = book_view(live, "2026-01-01T00:00:10.000Z")
    assert view.betting is not None and view.betting.status == "open"
    assert list(view.seats) == [3] and view.seats[3].bettor_id == "alice"
    assert view.seats[3].total == 2500
    assert list(view.spectators) == ["carol"] and view.spectators["carol"].seat is None
    assert view.total == 2600
    # past closes_at an open window shows as closed ("no more bets")
    closed = book_view(live, "2026-01-01T00:00:15.000Z")
    assert closed.betting is not None and closed.betting.status == "closed"
    dealt = book_view(replace(live, betting={**WINDOW, "status": "dealt", "round_id": "r"}))
    assert dealt.betting is not None and dealt.betting.status == "dealt"


def test_book_view_of_a_table_that_never_opened_betting_is_empty() -> None:
    for live in (None, LiveRecord("op", "tbl_x", seq=2)):
        view = book_view(live)
        assert view.betting is None and view.seats == {} and view.spectators == {}
        assert view.total == 0
