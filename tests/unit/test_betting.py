"""The betting window and the book over the in-memory repository: the book's view per
seat and per spectator, opening betting (company, unsettled rounds), slips placed, replaced and
cancelled with their events, dealing from the book, the removal rules."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from baccarat.paytables import BetType
from baccarat.profiles import TableConfig
from baccarat_api.adapters.dynamodb.codec import item_size, to_item
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.clock import seconds_after
from baccarat_api.limits import (
    DYNAMODB_ITEM_BYTES,
    MAX_BETS_PER_ROUND,
    MAX_SPECTATORS,
    MAX_WATCHERS,
)
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.repository import StoreUnavailable
from baccarat_api.service import (
    auto_settle,
    betting,
    events,
    presence,
    reading,
    table_state,
    tables,
)
from baccarat_api.service.betting import book_view
from baccarat_api.service.book import book_bets
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import Replayed
from baccarat_api.service.models import DealRequest, SlipRequest
from baccarat_api.service.reading import table_live
from baccarat_api.service.settling import settle_round
from baccarat_dev.entropy import SeededVault

from .conftest import Game
from .conftest import star_city_bets as STAR_CITY_BETS
from .test_service import OP, code_of, deal, new_table, snapshot

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
    dealt = book_view(
        replace(live, betting={**WINDOW, "status": "dealt", "round_id": "r"}),
        "2026-01-01T00:00:15.000Z",
    )
    assert dealt.betting is not None and dealt.betting.status == "dealt"


def test_book_view_of_a_table_that_never_opened_betting_is_empty() -> None:
    for live in (None, LiveRecord("op", "tbl_x", seq=2)):
        view = book_view(live, "2026-01-01T00:00:10.000Z")
        assert view.betting is None and view.seats == {} and view.spectators == {}
        assert view.total == 0


# --- over the in-memory repository -------------------------------------------------------------

BID = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard"}
PB = {"banking": "player_banker"}


def feed(game: Game, table_id: str, after: int = 0) -> list[tuple[str, dict[str, Any]]]:
    page, _ = events.table_events(game.repo, OP, table_id, after, 100)
    return [(e.type, e.data) for e in page.events]


def kinds(game: Game, table_id: str, after: int = 0) -> list[str]:
    return [k for k, _ in feed(game, table_id, after)]


def slip(*bets: tuple[str, int]) -> SlipRequest:
    return SlipRequest.model_validate({"bets": [{"type": t, "amount": a} for t, a in bets]})


def from_book(game: Game, shoe_id: str, **body: Any) -> Any:
    request = DealRequest.model_validate({"from_book": True, **body})
    return deal_round(game.repo, game.shoes, OP, shoe_id, request)


def table_with_shoe(game: Game, **fields: Any) -> tuple[str, str]:
    t = new_table(game, **fields)
    return t, tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id


def alice_and_bob_confirmed(game: Game, alice: int, bob: int) -> tuple[str, str, Any]:
    """A house table, alice on seat 1 and bob on seat 2 (50,000 each), betting open, alice's
    Banker and bob's Player slips confirmed: (table, shoe, the window)."""
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    presence.take_seat(game.repo, OP, t, 2, "bob", 50_000, None)
    window = betting.open_betting(game.repo, OP, t).betting
    assert window is not None
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", alice)))
    betting.place_slip(game.repo, OP, t, "bob", slip(("player", bob)))
    return t, shoe_id, window


def live_of(game: Game, t: str) -> LiveRecord:
    _, live = table_live(game.repo, OP, t)
    assert live is not None
    return live


def test_betting_opens_only_with_an_open_shoe_and_the_profiles_company(game: Game) -> None:
    t = new_table(game)
    assert code_of(lambda: betting.open_betting(game.repo, OP, t)) == "no_open_shoe"
    tables.commit_shoe(game.repo, game.vault, OP, t, "seed")
    # a house table: one seated bettor is the company (the house is the other side)
    with pytest.raises(DomainError) as err:
        betting.open_betting(game.repo, OP, t)
    assert err.value.code == "company_required"
    assert err.value.details == {"missing": ["seated_bettor"]}
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    seq = live_of(game, t).seq
    book = betting.open_betting(game.repo, OP, t)
    assert book.betting is not None and book.betting.status == "open"
    assert book.betting.round_number == 1
    assert seconds_after(book.betting.opened_at, 15) == book.betting.closes_at
    assert feed(game, t, seq) == [
        ("betting_opened", {"shoe_id": book.betting.shoe_id, "round_number": 1,
                            "closes_at": book.betting.closes_at}),
    ]  # fmt: skip
    assert code_of(lambda: betting.open_betting(game.repo, OP, t)) == "betting_in_progress"
    # a star-city player-banker table needs the player-banker and a seated bettor
    p, _ = table_with_shoe(game, **PB)
    presence.take_seat(game.repo, OP, p, 2, "bob", 50_000, None)
    with pytest.raises(DomainError) as err:
        betting.open_betting(game.repo, OP, p)
    assert err.value.details == {"missing": ["player_banker"]}
    presence.take_banker(game.repo, OP, p, "bank", 400_000)
    assert betting.open_betting(game.repo, OP, p).betting is not None


def test_slips_are_placed_replaced_and_cancelled_with_their_events(game: Game) -> None:
    t, _ = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(game.repo, OP, t, 2, "bob", 20_000, None)
    presence.join_watchers(game.repo, OP, t, "wendy")
    betting.open_betting(game.repo, OP, t)
    seq = live_of(game, t).seq
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 2000)))
    again = betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 2000)))  # a retry
    book = betting.place_slip(game.repo, OP, t, "bob", slip(("player", 1000), ("tie", 100)))
    book = betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 3000)))  # replaced
    assert again.seats[1].bets[0].amount == 2000
    assert book.seats[1].bets[0].amount == 3000 and book.seats[2].total == 1100
    assert [s.bettor_id for s in sorted(book.seats.values(), key=lambda s: s.order)] == [
        "bob", "alice",  # a replaced slip is a new confirmation: accepted after bob's
    ]  # fmt: skip
    before = snapshot(game)
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "wendy", slip(("tie", 100)))) == (
        "not_at_table"
    )
    # validated as a deal validates: Banker and Player together is refused (star-city)
    both = slip(("banker", 1000), ("player", 1000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "bob", both)) == (
        "banker_and_player_together"
    )
    over = slip(("banker", 60_000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "bob", over)) in (
        "above_area_limit", "insufficient_balance",
    )  # fmt: skip
    assert snapshot(game) == before  # refusals change nothing
    book = betting.cancel_slip(game.repo, OP, t, "bob")
    assert list(book.seats) == [1]
    assert code_of(lambda: betting.cancel_slip(game.repo, OP, t, "bob")) == "not_found"
    assert kinds(game, t, seq) == ["bet_placed", "bet_placed", "bet_placed", "bet_cancelled"]
    assert feed(game, t, seq)[2][1] == {
        "round_number": 1, "bettor_id": "alice", "bets": 1, "total": 3000,
        "lines": [{"type": "banker", "amount": 3000}],
    }  # fmt: skip


def test_after_closes_at_a_slip_is_refused_and_the_deal_locks_exactly_the_book(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(game.repo, OP, t, 2, "bob", 20_000, None)
    window = betting.open_betting(game.repo, OP, t).betting
    assert window is not None
    betting.place_slip(game.repo, OP, t, "bob", slip(("player", 1000)))
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 2000), ("tie", 100)))
    # an explicit deal while the window waits is refused: the book is the round's bets
    assert code_of(lambda: deal(game, shoe_id, [])) == "betting_in_progress"
    later = seconds_after(window.closes_at, 1)
    game.clock.set(later)
    assert book_view(live_of(game, t), game.clock()).betting.status == "closed"  # type: ignore[union-attr]
    late = slip(("player", 2000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "bob", late)) == "betting_closed"
    assert code_of(lambda: betting.cancel_slip(game.repo, OP, t, "bob")) == "betting_closed"
    seq = live_of(game, t).seq
    out = from_book(game, shoe_id)
    assert [(b.bettor_id, b.type, b.amount, b.seat, b.balance) for b in out.bets] == [
        ("bob", "player", 1000, 2, 20_000),
        ("alice", "banker", 2000, 1, 50_000),
        ("alice", "tie", 100, 1, 50_000),
    ]
    assert kinds(game, t, seq) == ["betting_closed", "round_dealt"]
    live = live_of(game, t)
    assert live.betting is not None and live.betting["status"] == "dealt"
    assert live.betting["round_id"] == out.round_id
    # retried with its round_number: the same round again, nothing dealt twice
    with pytest.raises(Replayed) as replay:
        from_book(game, shoe_id, round_number=1)
    assert replay.value.body["round_id"] == out.round_id and live_of(game, t).seq == live.seq
    assert code_of(lambda: from_book(game, shoe_id)) == "no_betting_window"
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "bob", late)) == "betting_closed"
    # the next window waits for the settlement
    assert code_of(lambda: betting.open_betting(game.repo, OP, t)) == "round_unsettled"
    settle_round(game.repo, OP, out.round_id)
    nxt = betting.open_betting(game.repo, OP, t)
    assert nxt.betting is not None and nxt.betting.round_number == 2 and nxt.seats == {}
    # an empty book deals a round nobody bet on
    empty = from_book(game, shoe_id)
    assert empty.bets == [] and empty.round_number == 2


def test_an_idle_seated_bettor_is_removed_after_five_rounds_across_shoes(game: Game) -> None:
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    presence.take_seat(game.repo, OP, t, 2, "bob", 50_000, None)

    def play(shoe: str) -> Any:
        betting.open_betting(game.repo, OP, t)
        betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 100)))
        out = from_book(game, shoe)
        settle_round(game.repo, OP, out.round_id)
        return out

    for _ in range(3):  # bob sits out rounds 1-3 of this shoe …
        play(shoe_id)
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    shoe_2 = tables.commit_shoe(game.repo, game.vault, OP, t, "seed-2").shoe_id
    play(shoe_2)  # … and 1 of the next: 4 in a row, still seated
    assert live_of(game, t).idle == {"alice": 0, "bob": 4}
    seq = live_of(game, t).seq
    out = play(shoe_2)  # the 5th: removed by this deal
    assert ("seat_vacated", {"seat": 2, "bettor_id": "bob", "reason": "idle"}) in feed(game, t, seq)
    live = live_of(game, t)
    assert list(live.seats) == ["1"] and "bob" not in live.idle
    # the settlement's advice says what was done
    detail = reading.get_round(game.repo, OP, out.round_id)
    assert detail.settlement is not None
    assert detail.settlement.eligibility.idle_bettors == ["bob"]


#: A seed whose first round of a star-city shoe is a banker win.
SEED_BANKER_FIRST = "banker-first"


def seeded(game: Game, seed: str) -> Game:
    """``game`` with its shoes drawn from ``seed``: the money walk of a loop that waits for a
    balance to fall is the same on every run (with a random shoe it may not fall in 25 rounds)."""
    game.vault = SeededVault(game.vault, seed)  # type: ignore[assignment]
    game.shoes = ShoeCache(game.vault)
    game.ref_keys = game.shoes.ref_key
    return game


@pytest.mark.parametrize("seed", ["below-1", "below-2", "below-3"])
def test_below_the_minimum_after_a_settlement_the_bettor_and_player_banker_leave(
    game: Game, seed: str
) -> None:
    seeded(game, seed)
    t, shoe_id = table_with_shoe(game, **PB)
    presence.take_banker(game.repo, OP, t, "bank", 35_000)
    presence.take_seat(game.repo, OP, t, 1, "alice", 60_000, None)
    for _ in range(25):
        betting.open_betting(game.repo, OP, t)
        betting.place_slip(game.repo, OP, t, "alice", slip(("player", 5000)))
        out = from_book(game, shoe_id)
        seq = live_of(game, t).seq
        settled = settle_round(game.repo, OP, out.round_id)
        after = feed(game, t, seq)
        elig = settled.eligibility
        live = live_of(game, t)
        if elig.player_banker_below_min_balance is not None:
            assert ("banker_left", {"bettor_id": "bank", "reason": "balance"}) in after
            assert live.banker is None
            with pytest.raises(DomainError) as err:
                betting.open_betting(game.repo, OP, t)
            assert err.value.details == {"missing": ["player_banker"]}
            return
        assert [k for k, _ in after] == ["round_settled"]
        # presence carries the balances after the round
        assert live.banker is not None
        assert live.banker["balance"] == elig.balances_after["bank"]
        assert live.seats["1"]["balance"] == elig.balances_after["alice"]
    raise AssertionError("the player never won in 25 rounds")


@pytest.mark.parametrize("seed", ["below-1", "below-2", "below-3"])
def test_a_bettor_below_the_minimum_after_settlement_is_unseated(game: Game, seed: str) -> None:
    seeded(game, seed)
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 1_000, None)  # exactly the minimum
    for _ in range(25):
        betting.open_betting(game.repo, OP, t)
        betting.place_slip(game.repo, OP, t, "alice", slip(("player", 100)))
        out = from_book(game, shoe_id)
        seq = live_of(game, t).seq
        settled = settle_round(game.repo, OP, out.round_id)
        if settled.eligibility.below_min_balance:
            assert settled.eligibility.below_min_balance == ["alice"]
            assert feed(game, t, seq)[1:] == [
                ("seat_vacated", {"seat": 1, "bettor_id": "alice", "reason": "balance"})
            ]
            assert live_of(game, t).seats == {}
            return
    raise AssertionError("alice never lost in 25 rounds")


def test_spectators_leave_with_the_last_seat_at_once_or_after_their_rounds_settlement(
    game: Game,
) -> None:
    t, shoe_id = table_with_shoe(game, **BID)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    presence.join_spectators(game.repo, OP, t, "carol", 50_000, None)
    presence.join_spectators(game.repo, OP, t, "dave", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000)))
    book = betting.place_slip(game.repo, OP, t, "carol", slip(("player", 1000)))
    assert list(book.spectators) == ["carol"]
    out = from_book(game, shoe_id)
    seq = live_of(game, t).seq
    presence.leave_seat(game.repo, OP, t, 1)  # the last seat: dave (no bet) goes at once
    assert feed(game, t, seq) == [
        ("seat_vacated", {"seat": 1, "bettor_id": "alice", "reason": "left"}),
        ("spectator_left", {"bettor_id": "dave", "reason": "no_seated_bettor"}),
    ]
    assert list(live_of(game, t).spectators) == ["carol"]
    seq = live_of(game, t).seq
    settle_round(game.repo, OP, out.round_id)  # carol bet: after the settlement
    assert feed(game, t, seq)[1:] == [
        ("spectator_left", {"bettor_id": "carol", "reason": "no_seated_bettor"})
    ]
    assert live_of(game, t).spectators == {}


def test_a_settlement_adds_the_net_to_the_balance_the_operator_reported_after_the_deal(
    game: Game,
) -> None:
    """The deal locks alice at 50,000; the operator then reports 10,000 (she withdrew). The
    settlement adds her net to the 10,000 presence holds, not to the deal's 50,000 (regression:
    the wallet's 40,000 came back), and judges the minimum on that: bob, reported
    at the minimum after the deal, loses (the seed's first round is a banker win) and leaves,
    although the settlement's advice, from his balance at the deal, keeps him."""
    seeded(game, SEED_BANKER_FIRST)
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    presence.take_seat(game.repo, OP, t, 2, "bob", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000)))
    betting.place_slip(game.repo, OP, t, "bob", slip(("player", 1000)))
    dealt = from_book(game, shoe_id)
    table, _ = table_live(game.repo, OP, t)
    minimum = TableConfig.from_dict(table.config).tier.bettor_min_balance
    presence.take_seat(game.repo, OP, t, 1, "alice", 10_000, None)  # seat_updated
    presence.take_seat(game.repo, OP, t, 2, "bob", minimum, None)  # bob: at the minimum
    settled = settle_round(game.repo, OP, dealt.round_id)
    assert (settled.result, settled.nets["bob"]) == ("banker", -1000)
    live = live_of(game, t)
    assert live.seats["1"]["balance"] == 10_000 + settled.nets["alice"]
    assert "2" not in live.seats and settled.eligibility.below_min_balance == []
    assert ("seat_vacated", {"seat": 2, "bettor_id": "bob", "reason": "balance"}) in feed(game, t)


def test_the_sweep_deals_a_window_nobody_dealt_from_its_book(game: Game) -> None:
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    window = betting.open_betting(game.repo, OP, t).betting
    assert window is not None
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000)))
    deal_by = seconds_after(window.closes_at, 15)
    early = auto_settle.sweep(game.repo, at=seconds_after(deal_by, -1), shoes=game.shoes)
    assert early.dealt == [] and live_of(game, t).betting["status"] == "open"  # type: ignore[index]
    seq = live_of(game, t).seq
    report = auto_settle.sweep(game.repo, at=deal_by, shoes=game.shoes)
    assert report.dealt == [f"{shoe_id}_r1"] and report.failed == {}
    assert kinds(game, t, seq) == ["betting_closed", "round_dealt"]
    live = live_of(game, t)
    assert live.deal_by is None and live.betting is not None
    assert live.betting["round_id"] == f"{shoe_id}_r1"
    rnd = reading.get_round(game.repo, OP, f"{shoe_id}_r1")
    assert [(b.bettor_id, b.amount) for b in rnd.bets] == [("alice", 1000)]
    # dealt once: the next sweep finds nothing to deal
    assert auto_settle.sweep(game.repo, at=deal_by, shoes=game.shoes).dealt == []


def _refused_window(game: Game) -> tuple[str, str, Any]:
    """A player-banker table whose window waits with a slip the deal now refuses (the
    player-banker left): the window, past nothing yet."""
    t, shoe_id = table_with_shoe(game, **PB)
    presence.take_banker(game.repo, OP, t, "bank", 400_000)
    presence.take_seat(game.repo, OP, t, 1, "alice", 200_000, None)
    window = betting.open_betting(game.repo, OP, t).betting
    assert window is not None
    betting.place_slip(game.repo, OP, t, "alice", slip(("player", 5000)))
    presence.leave_banker(game.repo, OP, t)
    return t, shoe_id, window


def test_the_sweep_cancels_a_window_whose_deal_is_refused_for_good(game: Game) -> None:
    """The player-banker leaves while a confirmed slip waits: the deal's company check refuses
    the book. The sweep, past ``deal_by``, cancels the window (nothing was locked) instead
    of failing on it every minute, and the table opens betting again once company is back."""
    t, shoe_id, window = _refused_window(game)
    assert code_of(lambda: from_book(game, shoe_id)) == "company_required"
    seq = live_of(game, t).seq
    deal_by = seconds_after(window.closes_at, 15)
    report = auto_settle.sweep(game.repo, at=deal_by, shoes=game.shoes)
    assert report.dealt == [] and report.failed == {}
    assert report.cancelled == {f"{t}:betting": "company_required"}
    assert feed(game, t, seq) == [
        ("betting_cancelled", {"shoe_id": shoe_id, "round_number": 1,
                               "reason": "company_required", "slips": 1}),
    ]  # fmt: skip
    live = live_of(game, t)
    assert (live.betting, live.book, live.deal_by) == (None, {}, None)
    # nothing was dealt or locked, and the next sweep has nothing left to do at this table
    assert reading.get_shoe(game.repo, OP, shoe_id).rounds_dealt == 0
    again = auto_settle.sweep(game.repo, at=deal_by, shoes=game.shoes)
    assert (again.cancelled, again.failed) == ({}, {})
    presence.take_banker(game.repo, OP, t, "bank-2", 400_000)
    reopened = betting.open_betting(game.repo, OP, t).betting
    assert reopened is not None and reopened.round_number == 1


def test_the_sweep_deals_only_the_window_the_index_listed_and_only_once_it_is_due(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index (eventually consistent) lists a window; before the sweep reads the table, the
    operator deals it, settles and opens the next: the sweep must not deal that newer window,
    whose betting is still open."""
    game.clock.set("2026-03-01T12:00:00.000Z")
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    first = betting.open_betting(game.repo, OP, t).betting
    assert first is not None
    deal_by = seconds_after(first.closes_at, 15)
    listed = game.repo.due_books

    def stale(now: str, limit: int) -> list[tuple[str, str]]:
        due = listed(now, limit)
        game.clock.set(now)  # all this happens at the sweep's moment, after it listed the index
        settle_round(game.repo, OP, from_book(game, shoe_id).round_id)
        betting.open_betting(game.repo, OP, t)  # the next window: open at that moment
        return due

    monkeypatch.setattr(game.repo, "due_books", stale)
    report = auto_settle.sweep(game.repo, at=deal_by, shoes=game.shoes)
    assert (report.dealt, report.failed, report.cancelled) == ([], {}, {})
    assert live_of(game, t).betting["status"] == "open"  # type: ignore[index]


def test_a_window_is_cancelled_only_as_the_refused_deal_saw_the_table(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancellation is conditional on the table as the sweep read it before the refused
    deal: the player-banker sitting down meanwhile keeps the window (the next sweep deals
    it); and a second sweep that decided on a cancelled window never cancels the window opened
    after it for the same round."""
    t, shoe_id, window = _refused_window(game)
    real = betting.cancel_window

    def banker_back(*args: Any) -> bool:
        presence.take_banker(game.repo, OP, t, "bank", 400_000)
        return real(*args)

    monkeypatch.setattr(betting, "cancel_window", banker_back)
    deal_by = seconds_after(window.closes_at, 15)
    report = auto_settle.sweep(game.repo, at=deal_by, shoes=game.shoes)
    assert report.cancelled == {} and report.failed == {f"{t}:betting": "company_required"}
    monkeypatch.setattr(betting, "cancel_window", real)
    assert auto_settle.sweep(game.repo, at=deal_by, shoes=game.shoes).dealt == [f"{shoe_id}_r1"]

    # two sweeps on one refused window: A cancels it, the operator opens the round again
    t, shoe_id, window = _refused_window(game)
    seq, deal_by = live_of(game, t).seq, seconds_after(window.closes_at, 15)
    assert real(game.repo, OP, t, window.opened_at, seq, "player_banker_required", deal_by)
    presence.take_banker(game.repo, OP, t, "bank-2", 400_000)
    again = betting.open_betting(game.repo, OP, t).betting
    assert again is not None and again.round_number == window.round_number
    betting.place_slip(game.repo, OP, t, "alice", slip(("player", 5000)))
    late = seconds_after(again.closes_at, 15)
    # B decided on the first window (its opened_at, the table as it was then)
    assert not real(game.repo, OP, t, window.opened_at, seq, "player_banker_required", late)
    assert live_of(game, t).book != {}


def test_a_failing_cancellation_is_reported_and_the_sweep_goes_on(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store failure while cancelling one table's window is that table's failure: the sweep
    still settles every due round of every other table."""
    other = new_table(game)
    other_shoe = tables.commit_shoe(game.repo, game.vault, OP, other, "seed").shoe_id
    due = deal(game, other_shoe, STAR_CITY_BETS())
    t, _, _ = _refused_window(game)

    def busy(*_: Any) -> bool:
        raise StoreUnavailable("throttled")

    monkeypatch.setattr(betting, "cancel_window", busy)
    report = auto_settle.sweep(game.repo, at="2099-01-01T00:00:00.000Z", shoes=game.shoes)
    assert report.failed == {f"{t}:betting": "unavailable"}
    assert report.settled == [due.round_id]


def test_a_from_book_deal_retried_with_its_round_number_is_that_round_again(game: Game) -> None:
    """Its answer lost, a from-book deal retried with ``round_number`` answers the round it
    dealt — also once the next window is open (it answered 409 round_mismatch)."""
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000)))
    first = from_book(game, shoe_id, round_number=1)
    settle_round(game.repo, OP, first.round_id)
    betting.open_betting(game.repo, OP, t)
    with pytest.raises(Replayed) as replay:
        from_book(game, shoe_id, round_number=1)
    assert replay.value.body["round_id"] == first.round_id


def test_a_closed_shoe_voids_its_waiting_window(game: Game) -> None:
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    assert live_of(game, t).deal_by is None  # the sweep will not try to deal it
    late = slip(("banker", 1000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "alice", late)) == "betting_closed"
    tables.commit_shoe(game.repo, game.vault, OP, t, "seed-2")
    nxt = betting.open_betting(game.repo, OP, t).betting
    assert nxt is not None and nxt.round_number == 1 and nxt.shoe_id != shoe_id


def test_betting_decides_on_the_open_shoe_the_live_state_holds(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table item read torn from the live state (from before the shoe's close, the live
    state after it) cannot open a window on the ended shoe: betting decides on the live
    state's copy of the open shoe, which moves under its seq."""
    t, shoe_id = table_with_shoe(game)
    assert live_of(game, t).open_shoe_id == shoe_id
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    stale = game.repo.get_table(OP, t)
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    assert live_of(game, t).open_shoe_id is None
    real = game.repo.load

    def torn(operator_id: str, **wanted: Any) -> Any:
        snap = real(operator_id, **wanted)
        if wanted.get("table_id") is not None:
            snap.table = stale  # still names the shoe open
        return snap

    monkeypatch.setattr(game.repo, "load", torn)
    assert code_of(lambda: betting.open_betting(game.repo, OP, t)) == "no_open_shoe"
    monkeypatch.setattr(game.repo, "load", real)
    assert live_of(game, t).betting is None
    # the next commit sets it: the next shoe is the one betting opens for
    nxt = tables.commit_shoe(game.repo, game.vault, OP, t, "seed-2").shoe_id
    assert live_of(game, t).open_shoe_id == nxt


def test_an_empty_table_is_judged_by_presence_not_by_who_bet(game: Game) -> None:
    """Seed 001: a seated player who sits a round out still makes the table non-empty, so a
    spectator's bet is accepted (from the book, and in an explicit deal alike)."""
    t, shoe_id = table_with_shoe(game, **BID)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    presence.join_spectators(game.repo, OP, t, "carol", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "carol", slip(("player", 1000)))
    out = from_book(game, shoe_id)
    assert [(b.bettor_id, b.role) for b in out.bets] == [("carol", "spectator")]
    settle_round(game.repo, OP, out.round_id)
    spectator = [{"bettor_id": "carol", "role": "spectator", "type": "banker", "amount": 1000,
                  "balance": 50_000}]  # fmt: skip
    second = deal(game, shoe_id, spectator, seat=False)
    assert second.bets[0].bettor_id == "carol"
    settle_round(game.repo, OP, second.round_id)
    presence.leave_seat(game.repo, OP, t, 1)  # now the table is empty: no company to deal
    assert code_of(lambda: deal(game, shoe_id, spectator, seat=False)) == "company_required"


def test_a_full_book_is_one_dealable_round_and_the_live_item_stays_small() -> None:
    """Every seat and every spectator with a slip of one line per bet type: the book is within a
    round's bet limit, and the live item (presence at its largest, the full book, the idle
    counters, the window) stays far under DynamoDB's item limit."""
    lines = len(BetType)
    assert (7 + MAX_SPECTATORS) * lines <= MAX_BETS_PER_ROUND
    kinds_ = [t.value for t in BetType]
    assert SlipRequest.model_json_schema()["properties"]["bets"]["maxItems"] == lines
    longest = "x" * 64
    seated = {str(n): longest[:-1] + str(n) for n in range(1, 8)}
    spectators = [f"{n}{longest[1:]}" for n in range(MAX_SPECTATORS)]
    limits = dict.fromkeys(kinds_, 10**15)
    at = "2026-01-01T00:00:00.000Z"
    lines_ = [{"type": k, "amount": 10**15} for k in kinds_]
    orders = [10**12 - n for n in range(lines)]  # each line confirmed apart (the largest seqs)
    book = {b: {"role": "seated", "seat": int(s), "bets": lines_, "placed_at": at,
                "orders": orders, "order": 10**12} for s, b in seated.items()}  # fmt: skip
    book |= {b: {"role": "spectator", "seat": None, "bets": lines_, "placed_at": at,
                 "orders": orders, "order": 10**12} for b in spectators}  # fmt: skip
    live = LiveRecord(
        OP, "tbl_" + "a" * 16, 10**12 - 1, at,
        seats={s: {"bettor_id": b, "balance": 10**15, "level": 10_000} for s, b in seated.items()},
        banker={"bettor_id": longest, "balance": 10**15},
        spectators={b: {"balance": 10**15, "personal_limits": limits} for b in spectators},
        watchers=[f"{n:03d}{longest[3:]}" for n in range(MAX_WATCHERS)],
        betting={**WINDOW, "shoe_id": "tbl_" + "a" * 16 + "_s999999", "round_id": None},
        book=book,
        idle=dict.fromkeys(seated.values(), 4),
        last_round={"round_id": "tbl_" + "a" * 16 + "_s999999_r99", "shoe_id": "x" * 30,
                    "round_number": 99, "resolved": False, "spectators": spectators},
        deal_by=at,
    )  # fmt: skip
    assert len(book_bets(live)) == (7 + MAX_SPECTATORS) * lines
    size = item_size(to_item(live))
    print(f"live-state item with a full book: {size} bytes")
    assert size < DYNAMODB_ITEM_BYTES // 8


@pytest.mark.parametrize("past_closes_at", [False, True])
def test_a_balance_report_below_a_waiting_slip_cancels_that_slip_only(
    game: Game, monkeypatch: pytest.MonkeyPatch, past_closes_at: bool
) -> None:
    """alice confirms 5,000 on Banker, bob 5,000 on Player; then the operator reports alice's
    wallet at 2,000. Her slip can no longer be dealt: it is cancelled with that report (regression:
    it stayed, the from-book deal answered insufficient_balance for the whole
    book, nobody could cancel it after closes_at, and the sweep dropped bob's slip with the
    window). bob's slip is dealt."""
    t, shoe_id, window = alice_and_bob_confirmed(game, 5000, 5000)
    if past_closes_at:
        later = seconds_after(window.closes_at, 1)
        game.clock.set(later)
    seq = live_of(game, t).seq
    presence.take_seat(game.repo, OP, t, 1, "alice", 2_000, None)  # her wallet now
    assert feed(game, t, seq) == [
        ("seat_updated", {"seat": 1, "bettor_id": "alice"}),
        ("bet_cancelled", {"round_number": 1, "bettor_id": "alice",
                           "reason": "insufficient_balance"}),
    ]  # fmt: skip
    assert list(live_of(game, t).book) == ["bob"]
    # a report the slip still fits keeps it
    presence.take_seat(game.repo, OP, t, 2, "bob", 6_000, None)
    assert list(live_of(game, t).book) == ["bob"]
    out = from_book(game, shoe_id)
    assert [(b.bettor_id, b.amount, b.balance) for b in out.bets] == [("bob", 5000, 6_000)]


def test_a_spectators_balance_report_below_a_waiting_slip_cancels_it(game: Game) -> None:
    t, shoe_id = table_with_shoe(game, **BID)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    presence.join_spectators(game.repo, OP, t, "carol", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "carol", slip(("player", 3000)))
    seq = live_of(game, t).seq
    presence.join_spectators(game.repo, OP, t, "carol", 2_000, None)
    assert [k for k, _ in feed(game, t, seq)] == ["spectator_updated", "bet_cancelled"]
    assert live_of(game, t).book == {}
    assert from_book(game, shoe_id).bets == []


def test_closing_the_shoe_cancels_its_waiting_window_and_book(game: Game) -> None:
    """The operator closes the shoe while betting is open: the window and its slips go in the
    same change (``betting_cancelled``, reason ``shoe_ended``) — regression: they
    stayed, the state showed the table ``betting`` on the ended shoe's window with alice's slip
    (after the next commit too) and the feed never said the slip was gone."""
    t, shoe_id = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 5000)))
    seq = live_of(game, t).seq
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    assert feed(game, t, seq)[0] == (
        "betting_cancelled",
        {"shoe_id": shoe_id, "round_number": 1, "reason": "shoe_ended", "slips": 1},
    )
    assert kinds(game, t, seq) == ["betting_cancelled", "shoe_ended"]
    live = live_of(game, t)
    assert (live.betting, live.book, live.deal_by) == (None, {}, None)
    tables.commit_shoe(game.repo, game.vault, OP, t, "seed-2")
    state, _ = table_state.table_state(game.repo, OP, t)
    assert (state.phase, state.book.betting, state.book.total) == ("idle", None, 0)
    # a dealt window stays as it was: closing a shoe after its round is dealt cancels nothing
    t2, shoe_2 = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t2, 1, "alice", 50_000, None)
    betting.open_betting(game.repo, OP, t2)
    from_book(game, shoe_2)
    seq = live_of(game, t2).seq
    tables.close_shoe(game.repo, game.vault, OP, shoe_2)
    assert kinds(game, t2, seq) == ["shoe_ended"]


def test_a_slip_retried_after_closes_at_answers_its_book_not_betting_closed(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's PUT is accepted just before closes_at and its answer is lost; her client retries
    the same slip after closes_at, and again once the round is dealt: each answers the book that
    holds it (regression: ``409 betting_closed`` told her the bet was refused while
    it was dealt and settled). Another slip is still refused, and a DELETE retried after
    closes_at whose first try cancelled the slip answers ``404 not_found`` (no slip), not
    ``betting_closed`` (which says it stands)."""
    t, shoe_id, window = alice_and_bob_confirmed(game, 2000, 1000)
    betting.cancel_slip(game.repo, OP, t, "bob")  # its answer lost too
    later = seconds_after(window.closes_at, 1)
    game.clock.set(later)
    seq = live_of(game, t).seq
    again = betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 2000)))
    assert again.betting is not None and again.betting.status == "closed"
    assert again.seats[1].total == 2000 and live_of(game, t).seq == seq  # nothing changed
    other = slip(("banker", 3000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "alice", other)) == (
        "betting_closed"
    )
    assert code_of(lambda: betting.cancel_slip(game.repo, OP, t, "bob")) == "not_found"
    assert code_of(lambda: betting.cancel_slip(game.repo, OP, t, "alice")) == "betting_closed"
    dealt = from_book(game, shoe_id)
    after = betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 2000)))
    assert after.betting is not None and after.betting.status == "dealt"
    assert after.betting.round_id == dealt.round_id and after.seats[1].total == 2000


def test_a_slip_naming_its_round_is_never_staked_in_a_later_window(game: Game) -> None:
    """alice's PUT for round 1 is dealt, its answer lost; her client retries it once round 2's
    window is open (regression: without a round the retry was a new slip, staked
    again in round 2). Naming ``round_number`` it is 409 ``round_mismatch`` and changes nothing;
    naming round 2 it is placed there; without one it is still a slip for the open window."""
    t, shoe_id, window = alice_and_bob_confirmed(game, 2000, 1000)
    assert window.round_number == 1
    for_one = SlipRequest.model_validate(
        {"bets": [{"type": "banker", "amount": 2000}], "round_number": 1}
    )
    assert betting.place_slip(game.repo, OP, t, "alice", for_one).seats[1].total == 2000
    settle_round(game.repo, OP, from_book(game, shoe_id).round_id)
    assert betting.open_betting(game.repo, OP, t).betting is not None
    seq = live_of(game, t).seq
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "alice", for_one)) == (
        "round_mismatch"
    )
    assert live_of(game, t).seq == seq and "alice" not in live_of(game, t).book
    for_two = SlipRequest.model_validate(for_one.model_dump() | {"round_number": 2})
    placed = betting.place_slip(game.repo, OP, t, "alice", for_two)
    assert placed.betting is not None and placed.betting.round_number == 2
    assert placed.seats[1].total == 2000
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "bob", for_one)) == (
        "round_mismatch"
    )


def test_a_balance_report_cancels_only_a_slip_it_made_undealable(game: Game) -> None:
    """Seven seated bettors and a spectator each confirm 500,000 on Player; then the
    player-banker reports 3,500,000: the book (4,000,000 to cover) is refused — the report of no
    bettor's. Then alice's wallet is reported HIGHER. Her slip was cancelled (bet_cancelled,
    player_banker_cannot_cover) because the book without it passes: whichever bettor's report
    came in first lost their slip for the player-banker's report. A report cancels a slip only
    when it is what made it refused."""
    t, _ = table_with_shoe(game, **BID, **PB)
    presence.take_banker(game.repo, OP, t, "bank", 10_000_000)
    names = ["alice", "bob", "cy", "di", "ed", "flo", "gus"]
    for seat, name in enumerate(names, start=1):
        presence.take_seat(game.repo, OP, t, seat, name, 1_000_000, 5)
    presence.join_spectators(game.repo, OP, t, "carol", 1_000_000, None)
    assert betting.open_betting(game.repo, OP, t).betting is not None
    for name in [*names, "carol"]:
        betting.place_slip(game.repo, OP, t, name, slip(("player", 500_000)))
    presence.take_banker(game.repo, OP, t, "bank", 3_500_000)  # the player-banker's wallet now
    seq = live_of(game, t).seq
    presence.take_seat(game.repo, OP, t, 1, "alice", 2_000_000, 5)  # alice's wallet: more
    assert feed(game, t, seq) == [("seat_updated", {"seat": 1, "bettor_id": "alice"})]
    assert sorted(live_of(game, t).book) == sorted([*names, "carol"])
