"""Presence at a book table (``bet_behind: book``) over the in-memory repository: spectators
and watchers are the book store's, uncapped, and their joins, leaves and updates write no table
event; every rule of a listed table still holds (minimum balance, a seated bettor first, one
place per person — checked both ways —, the same details again change nothing, a balance below
the minimum removes); the last seat leaving removes every spectator with ONE event; a change
that leaves the waiting slip refused cancels it; the bettor ref is the table's."""

from __future__ import annotations

from typing import Any

from baccarat.profiles import TableConfig
from baccarat.proofdoc import bettor_ref
from baccarat_api.limits import FIRST_NAMES, MAX_SPECTATORS, MAX_WATCHERS
from baccarat_api.ports.book import whole_book
from baccarat_api.ports.vault import ref_key_context
from baccarat_api.service import betting, events, presence, tables
from baccarat_api.service.book_presence import book_round
from baccarat_api.service.models import SlipRequest

from .conftest import Game
from .test_service import OP, code_of, new_table

BOOK = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "bet_behind": "book"}
LISTED = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard"}


def feed(game: Game, table_id: str) -> list[tuple[str, dict[str, Any]]]:
    page, _ = events.table_events(game.repo, OP, table_id, 0, 100)
    return [(e.type, e.data) for e in page.events]


def book_table(game: Game) -> str:
    t = new_table(game, **BOOK)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    return t


def join(game: Game, t: str, b: str, balance: int = 50_000, limits: Any = None) -> Any:
    return presence.join_spectators(game.repo, OP, t, b, balance, limits, game.vault)


def min_balance(game: Game, t: str) -> int:
    table = game.repo.load(OP, table_id=t).table
    assert table is not None
    return TableConfig.from_dict(table.config).tier.bettor_min_balance


def test_spectators_and_watchers_are_the_books_uncapped_and_write_no_event(game: Game) -> None:
    t = book_table(game)
    seq = feed(game, t)
    spectators = [f"s{n:03d}" for n in range(MAX_SPECTATORS * 5)]
    for b in reversed(spectators):
        out = join(game, t, b)
    watchers = [f"w{n:03d}" for n in range(MAX_WATCHERS + 5)]
    for w in watchers:
        presence.join_watchers(game.repo, OP, t, w)
    assert feed(game, t) == seq  # no table event: the live item's seq never moved
    out = presence.join_watchers(game.repo, OP, t, "w000")  # again: a no-op
    assert out.spectators == {} and out.watchers == [] and out.seq == 1
    assert out.crowd is not None
    assert out.crowd.spectators.count == len(spectators)
    assert out.crowd.spectators.first == spectators[:FIRST_NAMES]
    assert out.crowd.spectators.next == spectators[FIRST_NAMES - 1]
    assert (out.crowd.watchers.count, out.crowd.watchers.first) == (
        len(watchers),
        watchers[:FIRST_NAMES],
    )
    live = game.repo.load(OP, live=t).live
    assert live is not None and live.spectators == {} and live.watchers == []
    again = join(game, t, "s000")  # the same details: nothing changes
    assert again.crowd == out.crowd
    presence.leave_spectators(game.repo, OP, t, "s000")
    presence.leave_watchers(game.repo, OP, t, "w000")
    assert code_of(lambda: presence.leave_spectators(game.repo, OP, t, "s000")) == "not_found"
    assert code_of(lambda: presence.leave_watchers(game.repo, OP, t, "w000")) == "not_found"
    out = presence.leave_watchers(game.repo, OP, t, "w001")
    assert out.crowd is not None
    assert (out.crowd.spectators.count, out.crowd.watchers.count) == (
        len(spectators) - 1,
        len(watchers) - 2,
    )
    assert feed(game, t) == seq


def test_a_spectators_bettor_ref_is_the_tables_ref(game: Game) -> None:
    t = book_table(game)
    join(game, t, "sam")
    table = game.repo.load(OP, table_id=t).table
    assert table is not None
    key = game.vault.unseal(table.ref_key_ct, ref_key_context(OP, t))
    stored = game.repo.book.get_spectator(OP, t, "sam")
    assert stored is not None and stored.bettor_ref == bettor_ref(key, t, "sam")
    assert stored.bettor_ref != bettor_ref(key, t, "tom")


def test_the_listed_rules_hold_at_a_book_table(game: Game) -> None:
    t = new_table(game, **BOOK)
    assert code_of(lambda: join(game, t, "sam")) == "seated_bettor_required"
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    need = min_balance(game, t)
    assert code_of(lambda: join(game, t, "sam", need - 1)) == "below_min_balance"
    bad = {"banker": 10**12}
    assert code_of(lambda: join(game, t, "sam", need, bad)) == "invalid_personal_limit"
    assert game.repo.book.spectators(OP, t, 5).count == 0  # refusals wrote nothing
    join(game, t, "sam", need, {"banker": 2_000})
    # one place per person, checked both ways
    assert code_of(lambda: join(game, t, "alice")) == "already_present"
    assert code_of(lambda: presence.join_watchers(game.repo, OP, t, "sam")) == "already_present"
    taking = lambda: presence.take_seat(game.repo, OP, t, 2, "sam", 50_000, 5)  # noqa: E731
    assert code_of(taking) == "already_present"
    presence.join_watchers(game.repo, OP, t, "walt")
    assert code_of(lambda: join(game, t, "walt")) == "already_present"
    seat_walt = lambda: presence.take_seat(game.repo, OP, t, 2, "walt", 50_000, 5)  # noqa: E731
    assert code_of(seat_walt) == "already_present"
    # an update, then a balance below the minimum removes (told in the answer, no event)
    seq = feed(game, t)
    out = join(game, t, "sam", need + 10, None)
    stored = game.repo.book.get_spectator(OP, t, "sam")
    assert stored is not None and (stored.balance, stored.personal_limits, stored.epoch) == (
        need + 10,
        None,
        2,
    )
    out = join(game, t, "sam", need - 1, None)
    assert out.removed is not None
    assert (out.removed.where, out.removed.reason, out.removed.limit) == (
        "spectator",
        "balance",
        need,
    )
    assert game.repo.book.get_spectator(OP, t, "sam") is None
    assert feed(game, t) == seq


def test_a_listed_table_is_as_before(game: Game) -> None:
    t = new_table(game, **LISTED)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    out = join(game, t, "sam")
    assert out.crowd is None and list(out.spectators) == ["sam"]
    assert game.repo.book.spectators(OP, t, 5).count == 0
    assert feed(game, t)[-1] == ("spectator_joined", {"bettor_id": "sam"})


def test_the_last_seat_leaving_removes_every_spectator_with_one_event(game: Game) -> None:
    t = book_table(game)
    presence.take_seat(game.repo, OP, t, 2, "bob", 50_000, 5)
    ids = [f"s{n:03d}" for n in range(250)]
    for b in ids:
        join(game, t, b)
    presence.join_watchers(game.repo, OP, t, "walt")
    presence.leave_seat(game.repo, OP, t, 1)
    assert game.repo.book.spectators(OP, t, 5).count == 250  # bob is still seated
    out = presence.leave_seat(game.repo, OP, t, 2)
    assert out.crowd is not None
    assert (out.crowd.spectators.count, out.crowd.spectators.first) == (0, [])
    assert out.crowd.watchers.count == 1  # watchers need nobody seated
    assert feed(game, t)[-2:] == [
        ("seat_vacated", {"seat": 2, "bettor_id": "bob", "reason": "left"}),
        ("spectators_removed", {"reason": "no_seated_bettor", "count": 250, "first": ids[:100]}),
    ]
    assert all(game.repo.book.get_spectator(OP, t, b) is None for b in ids)
    assert code_of(lambda: join(game, t, "s000")) == "seated_bettor_required"
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    join(game, t, "s000")  # back after a seat is taken: its epoch moved on
    back = game.repo.book.get_spectator(OP, t, "s000")
    assert back is not None and back.epoch == 3


def test_an_interrupted_removal_is_resumed_by_the_next_join(game: Game) -> None:
    t = book_table(game)
    for b in ("s1", "s2"):
        join(game, t, b)
    table = game.repo.load(OP, table_id=t).table
    assert table is not None
    # alice leaves while the removal cannot write the marks (as if its request stopped there)
    marks = game.repo.book.leave_spectator
    game.repo.book.leave_spectator = lambda *a, **k: False  # type: ignore[method-assign]
    presence.leave_seat(game.repo, OP, t, 1)
    game.repo.book.leave_spectator = marks  # type: ignore[method-assign]
    assert game.repo.book.spectators(OP, t, 5).count == 2
    assert code_of(lambda: join(game, t, "s3")) == "seated_bettor_required"
    assert game.repo.book.spectators(OP, t, 5).count == 0
    removed = [e for e in feed(game, t) if e[0] == "spectators_removed"]
    assert [e[1]["count"] for e in removed] == [2, 2]  # resumed: told again, with who is left


def test_a_balance_report_that_refuses_the_waiting_slip_cancels_it(game: Game) -> None:
    t = book_table(game)
    tables.commit_shoe(game.repo, game.vault, OP, t, "seed")
    join(game, t, "sam", 50_000)
    join(game, t, "tom", 50_000)
    betting.open_betting(game.repo, OP, t)
    live = game.repo.load(OP, live=t).live
    assert live is not None and live.betting is not None
    round_id = book_round(live)
    assert round_id is not None
    five = SlipRequest.model_validate({"bets": [{"type": "player", "amount": 5_000}]})
    for b in ("sam", "tom"):
        betting.place_slip(game.repo, OP, t, b, five)
    assert len(whole_book(game.repo.book, OP, round_id)) == 2
    join(game, t, "sam", 4_999)  # below the slip's stake: its slip goes with the report
    join(game, t, "tom", 40_000)  # still covers it: its slip stays
    assert [s.bettor_id for s in whole_book(game.repo.book, OP, round_id)] == ["tom"]
    join(game, t, "tom", 40_000, {"player": {"max": 1_000}})  # its own limit now refuses it
    assert whole_book(game.repo.book, OP, round_id) == []
    betting.place_slip(game.repo, OP, t, "sam", SlipRequest.model_validate(
        {"bets": [{"type": "banker", "amount": 4_000}]}))  # fmt: skip
    presence.leave_spectators(game.repo, OP, t, "sam")  # its slip leaves with it
    assert whole_book(game.repo.book, OP, round_id) == []


def test_presence_answers_and_names_pages_stay_within_their_budgets(game: Game) -> None:
    from baccarat_api.limits import (
        MAX_ID_LENGTH,
        MAX_MONEY,
        MAX_NAMES_PAGE,
        NAMES_PAGE_BUDGET_BYTES,
        PRESENCE_BUDGET_BYTES,
        worst_presence_bytes,
    )
    from baccarat_api.service import presence_reads

    worst = worst_presence_bytes()
    assert worst["presence"] <= PRESENCE_BUDGET_BYTES
    assert max(worst["spectators_page"], worst["watchers_page"]) <= NAMES_PAGE_BUDGET_BYTES
    t = new_table(game, **BOOK)

    def longest(prefix: str, n: int) -> str:
        return f"{prefix}{n:05d}".ljust(MAX_ID_LENGTH, "x")

    for seat in range(1, 8):
        presence.take_seat(game.repo, OP, t, seat, longest("seat", seat), MAX_MONEY, 10_000)
    for n in range(MAX_NAMES_PAGE + 10):
        join(game, t, longest("spec", n), MAX_MONEY)
        presence.join_watchers(game.repo, OP, t, longest("watch", n))
    out = join(game, t, longest("spec", 0), 1)  # a removal: the answer at its longest
    assert out.removed is not None and out.crowd is not None
    assert len(out.crowd.spectators.first) == FIRST_NAMES
    assert len(out.model_dump_json().encode()) <= worst["presence"]
    spectators = presence_reads.spectators_page(game.repo, OP, t, MAX_NAMES_PAGE)
    watchers = presence_reads.watchers_page(game.repo, OP, t, MAX_NAMES_PAGE)
    assert len(spectators.spectators) == len(watchers.watchers) == MAX_NAMES_PAGE
    assert len(spectators.model_dump_json().encode()) <= worst["spectators_page"]
    assert len(watchers.model_dump_json().encode()) <= worst["watchers_page"]


def test_a_join_racing_a_seat_past_both_checks_loses_to_the_seat(game: Game) -> None:
    t = book_table(game)
    join(game, t, "sam")
    real = game.repo.book.get_spectator
    # the seat's check ran before the join wrote (it saw nobody), and the join's check after
    # it ran before the seat was written: both passed. The seat's check is made to miss.
    misses = iter([None])
    game.repo.book.get_spectator = lambda *a: next(misses, real(*a))  # type: ignore[method-assign]
    out = presence.take_seat(game.repo, OP, t, 2, "sam", 50_000, 5)
    game.repo.book.get_spectator = real  # type: ignore[method-assign]
    assert out.seats[2]["bettor_id"] == "sam"
    assert game.repo.book.get_spectator(OP, t, "sam") is None  # the seat won
    assert out.crowd is not None and out.crowd.spectators.count == 0
