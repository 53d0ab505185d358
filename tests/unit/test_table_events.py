"""Table events over the in-memory repository: every lifecycle change (commit, deal, settle,
auto-settle, void, close) reports its events in the same transaction, numbered 1, 2, 3 … without
gaps; the feed pages them in order with a stable ETag; a change that lost only the table's
live-state race is computed again, and a refused change reports nothing."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from baccarat_api.ids import parse_round_id, parse_shoe_id
from baccarat_api.ports.records import EventRecord, LiveRecord
from baccarat_api.service import auto_settle, events, tables
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round

from .conftest import Game, star_city_bets
from .test_service import OP, code_of, deal, new_shoe, new_table, present


def feed(game: Game, table_id: str, after: int = 0, limit: int = 100) -> list[Any]:
    page, _ = events.table_events(game.repo, OP, table_id, after, limit)
    return page.events


def types(game: Game, table_id: str) -> list[str]:
    return [e.type for e in feed(game, table_id)]


def test_the_lifecycle_reports_its_events_in_order_without_gaps(game: Game) -> None:
    shoe_id = new_shoe(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    present(game, table_id, star_city_bets(), None)  # alice and bob sit down (兩人成局)
    played = deal(game, shoe_id, star_city_bets()).round_id
    settle_round(game.repo, OP, played)
    nobody = deal(game, shoe_id).round_id  # nobody bet: settled at its deal
    voided = deal(game, shoe_id, star_city_bets()).round_id
    void_round(game.repo, OP, voided, reason="misdeal")
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    got = feed(game, table_id)
    assert [e.type for e in got] == [
        "shoe_committed",
        "seat_taken",
        "seat_taken",
        "round_dealt",
        "round_settled",
        "round_dealt",
        "round_settled",
        "round_dealt",
        "round_voided",
        "shoe_ended",
    ]
    assert [e.seq for e in got] == list(range(1, 11))
    assert [e.event_id for e in got] == [f"{table_id}:{n}" for n in range(1, 11)]
    got = got[:1] + got[3:]  # the lifecycle's own events
    # (and what the table shows right after it: tests/unit/test_events_show_the_table.py)
    assert {k: v for k, v in got[1].data.items() if k not in ("round", "shoe")} == {
        "round_id": played, "shoe_id": shoe_id, "round_number": 1, "bettors": 2, "bets": 3,
    }  # fmt: skip
    settled = game.repo.get_round(OP, parse_round_id(played))  # type: ignore[arg-type]
    assert settled is not None
    assert got[2].data == {
        "round_id": played,
        "nets": settled.money["nets"],
        "house_take": settled.money["house"]["take"],
        "lines": len(settled.money["lines"]),
        "auto_settled": False,
    }
    assert got[4].data["round_id"] == nobody and got[4].data["lines"] == 0
    assert got[6].data["round_id"] == voided and got[6].data["reason"] == "misdeal"
    assert got[7].data == {"shoe_id": shoe_id, "reason": "closed", "rounds_dealt": 3}
    assert all(e.at.endswith("Z") for e in got)
    live = game.repo.items[(LiveRecord, (OP, table_id))]
    assert isinstance(live, LiveRecord) and live.seq == 10


def test_the_sweep_reports_round_auto_settled(game: Game) -> None:
    shoe_id = new_shoe(game, settle_deadline_seconds=1)
    table_id = shoe_id.rsplit("_s", 1)[0]
    rid = deal(game, shoe_id, star_city_bets()).round_id
    auto_settle.sweep(game.repo, at="2999-01-01T00:00:00Z")
    last = feed(game, table_id)[-1]
    assert (last.type, last.data["round_id"], last.data["auto_settled"]) == (
        "round_auto_settled", rid, True,
    )  # fmt: skip


def test_a_shoe_played_to_its_end_reports_shoe_ended_by_the_rules(game: Game) -> None:
    shoe_id = new_shoe(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    while (dealt := deal(game, shoe_id, star_city_bets())).shoe_status != "ended":
        settle_round(game.repo, OP, dealt.round_id)
    last = feed(game, table_id, after=0, limit=100)
    got = feed(game, table_id, after=last[-1].seq - 1, limit=100)
    assert [e.type for e in got] == ["shoe_ended"]
    assert got[0].data["reason"] == "rules"
    # the live state's copy of the open shoe (what betting decides on) is cleared with it
    live = game.repo.load(OP, live=table_id).live
    assert live is not None and live.open_shoe_id is None


def test_the_feed_pages_in_order_and_names_each_page_by_its_etag(game: Game) -> None:
    shoe_id = new_shoe(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    for _ in range(3):  # (someone seated first: the commit and a seat_taken)
        deal(game, shoe_id)  # dealt + settled: 2 events each, 8 with the commit and the seat
    first, tag1 = events.table_events(game.repo, OP, table_id, 0, 4)
    assert [e.seq for e in first.events] == [1, 2, 3, 4]
    assert (first.next_after, first.more) == (4, True)
    rest, _ = events.table_events(game.repo, OP, table_id, first.next_after, 100)
    assert [e.seq for e in rest.events] == [5, 6, 7, 8] and rest.more is False
    quiet, tag_quiet = events.table_events(game.repo, OP, table_id, 8, 50)
    assert (quiet.events, quiet.next_after, quiet.more) == ([], 8, False)
    assert events.table_events(game.repo, OP, table_id, 0, 4)[1] == tag1  # same page, same tag
    deal(game, shoe_id)
    moved, tag_moved = events.table_events(game.repo, OP, table_id, 8, 50)
    assert [e.seq for e in moved.events] == [9, 10] and tag_moved != tag_quiet


def test_an_unknown_table_is_404_and_a_quiet_one_an_empty_page(game: Game) -> None:
    assert code_of(lambda: events.table_events(game.repo, OP, "tbl_zzzzzzzzzzzzzzzz", 0, 5)) == (
        "not_found"
    )
    assert code_of(lambda: events.table_events(game.repo, OP, "nonsense", 0, 5)) == "not_found"
    table_id = new_table(game)
    assert code_of(lambda: events.table_events(game.repo, "another-op", table_id, 0, 5)) == (
        "not_found"
    )
    page, _ = events.table_events(game.repo, OP, table_id, 0, 5)
    assert page.events == [] and page.more is False


def test_a_refused_deal_reports_nothing(game: Game) -> None:
    shoe_id = new_shoe(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    bets = star_city_bets()
    bets[0]["amount"] = 10**12
    present(game, table_id, bets, None)
    before = types(game, table_id)
    with pytest.raises(Exception):  # noqa: B017 - the refusal's own code
        deal(game, shoe_id, bets)
    assert types(game, table_id) == before == ["shoe_committed", "seat_taken", "seat_taken"]


def test_a_change_that_lost_only_the_live_race_is_computed_again(game: Game) -> None:
    """A settlement read the live state, then another change at the table committed (an event):
    the settlement's transaction loses on ``seq`` alone, re-reads and commits after it."""
    shoe_id = new_shoe(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    rid = deal(game, shoe_id, star_city_bets()).round_id
    ref = parse_round_id(rid)
    assert ref is not None
    real_load = game.repo.load
    reads = []

    def racing_load(*args: Any, **kw: Any) -> Any:
        snap = real_load(*args, **kw)
        reads.append(snap)
        if len(reads) == 1:  # another change commits right after the first read
            live = game.repo.items[(LiveRecord, (OP, table_id))]
            assert isinstance(live, LiveRecord)
            ev = events.emit(live, OP, table_id, live.updated_at, [("urge", {"bettor_id": "x"})])
            game.repo.table_change("urge", ev)
        return snap

    game.repo.load = racing_load  # type: ignore[method-assign]
    out = settle_round(game.repo, OP, rid)
    assert out.settled_at is not None and len(reads) == 2
    got = feed(game, table_id)
    assert [e.type for e in got][-2:] == ["urge", "round_settled"]
    assert [e.seq for e in got] == list(range(1, len(got) + 1))


def test_a_table_that_never_stops_changing_answers_concurrent_update(game: Game) -> None:
    shoe_id = new_shoe(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    present(game, table_id, [], None)
    stale = game.repo.load(OP, shoe=ref, live=table_id)
    live = stale.live
    assert live is not None
    game.repo.items[(LiveRecord, (OP, table_id))] = dataclasses.replace(live, seq=live.seq)
    # every read sees the live state one event behind the store
    ev = events.emit(live, OP, table_id, live.updated_at, [("urge", {"bettor_id": "x"})])
    game.repo.table_change("urge", ev)
    game.repo.load = lambda *_a, **_k: stale  # type: ignore[method-assign]
    assert code_of(lambda: deal(game, shoe_id, seat=False)) == "concurrent_update"
    assert types(game, table_id) == ["shoe_committed", "seat_taken", "urge"]
    assert not any(isinstance(r, EventRecord) and r.seq > 3 for r in game.repo.items.values())
