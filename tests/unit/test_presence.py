"""Presence over the in-memory repository: seats, the player-banker seat, spectators and
watchers — each rule of the seeds, each refusal with its code and nothing changed, each change
with its event; two people racing for one seat; the live-state item's worst-case size."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest
from support.worst_case import fullest_presence

from baccarat_api.adapters.dynamodb.codec import item_size, to_item
from baccarat_api.limits import DYNAMODB_ITEM_BYTES, MAX_WATCHERS
from baccarat_api.ports.records import LiveRecord
from baccarat_api.service import events, presence
from baccarat_api.service.errors import DomainError

from .conftest import Game
from .test_service import OP, code_of, new_table

BID = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard"}
PB = {"banking": "player_banker"}


def feed(game: Game, table_id: str) -> list[tuple[str, dict[str, Any]]]:
    page, _ = events.table_events(game.repo, OP, table_id, 0, 100)
    return [(e.type, e.data) for e in page.events]


def items(game: Game) -> dict[Any, Any]:
    return dict(game.repo.items)


def test_a_seat_is_taken_once_and_left_with_its_events(game: Game) -> None:
    t = new_table(game)
    out = presence.take_seat(game.repo, OP, t, 3, "alice", 50_000, None)
    assert out.seats == {3: {"bettor_id": "alice", "balance": 50_000, "level": None}}
    assert out.seq == 1
    again = presence.take_seat(game.repo, OP, t, 3, "alice", 50_000, None)  # a retried PUT
    assert again == out
    before = items(game)
    assert code_of(lambda: presence.take_seat(game.repo, OP, t, 3, "bob", 9_000, None)) == (
        "seat_occupied"
    )
    assert code_of(lambda: presence.take_seat(game.repo, OP, t, 4, "alice", 50_000, None)) == (
        "already_present"
    )
    assert code_of(lambda: presence.take_seat(game.repo, OP, t, 4, "bob", 999, None)) == (
        "below_min_balance"
    )
    assert items(game) == before  # refusals change nothing
    out = presence.leave_seat(game.repo, OP, t, 3)
    assert out.seats == {}
    assert code_of(lambda: presence.leave_seat(game.repo, OP, t, 3)) == "not_found"
    assert feed(game, t) == [
        ("seat_taken", {"seat": 3, "bettor_id": "alice"}),
        ("seat_vacated", {"seat": 3, "bettor_id": "alice", "reason": "left"}),
    ]


def test_bid_squeeze_seats_need_the_level_and_spectators_a_seated_bettor(game: Game) -> None:
    t = new_table(game, **BID)
    refused = code_of(lambda: presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 0))
    assert refused == "below_seated_min_level"
    with pytest.raises(DomainError) as err:
        presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    assert "spectator" in err.value.message  # the answer says to join as a spectator
    assert code_of(lambda: presence.join_spectators(game.repo, OP, t, "sam", 5_000, None)) == (
        "seated_bettor_required"
    )
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 1)
    out = presence.join_spectators(game.repo, OP, t, "sam", 5_000, {"banker": 2_000})
    assert out.spectators == {"sam": {"balance": 5_000, "personal_limits": {"banker": 2_000}}}
    presence.join_spectators(game.repo, OP, t, "tom", 5_000, None)
    presence.leave_spectators(game.repo, OP, t, "tom")
    # the last seated bettor leaves: the spectators are removed at once
    out = presence.leave_seat(game.repo, OP, t, 1)
    assert out.spectators == {} and out.seats == {}
    assert feed(game, t)[-2:] == [
        ("seat_vacated", {"seat": 1, "bettor_id": "alice", "reason": "left"}),
        ("spectator_left", {"bettor_id": "sam", "reason": "no_seated_bettor"}),
    ]


def test_star_city_has_no_betting_spectators_and_a_player_banker_seat(game: Game) -> None:
    house = new_table(game)
    assert code_of(lambda: presence.join_spectators(game.repo, OP, house, "s", 5_000, None)) == (
        "spectator_betting_not_allowed"
    )
    assert code_of(lambda: presence.take_banker(game.repo, OP, house, "pb", 10**6)) == (
        "player_banker_not_allowed"
    )
    t = new_table(game, **PB)
    assert code_of(lambda: presence.take_banker(game.repo, OP, t, "pb", 34_999)) == (
        "player_banker_below_min_balance"
    )
    out = presence.take_banker(game.repo, OP, t, "pb", 35_000)
    assert out.banker == {"bettor_id": "pb", "balance": 35_000}
    assert code_of(lambda: presence.take_banker(game.repo, OP, t, "other", 10**6)) == (
        "seat_occupied"
    )
    assert code_of(lambda: presence.take_seat(game.repo, OP, t, 1, "pb", 10**6, None)) == (
        "already_present"
    )
    assert presence.leave_banker(game.repo, OP, t).banker is None
    assert code_of(lambda: presence.leave_banker(game.repo, OP, t)) == "not_found"
    assert [kind for kind, _ in feed(game, t)] == ["banker_taken", "banker_left"]
    assert isinstance(game.repo.items[(LiveRecord, (OP, t))], LiveRecord)


def test_watchers_are_the_observer_list_bounded(game: Game) -> None:
    t = new_table(game)
    for n in range(MAX_WATCHERS):
        presence.join_watchers(game.repo, OP, t, f"w{n}")
    assert code_of(lambda: presence.join_watchers(game.repo, OP, t, "late")) == "table_full"
    out = presence.leave_watchers(game.repo, OP, t, "w0")
    assert out.watchers[0] == "w1" and len(out.watchers) == MAX_WATCHERS - 1
    assert code_of(lambda: presence.leave_watchers(game.repo, OP, t, "w0")) == "not_found"
    assert (
        code_of(lambda: presence.take_seat(game.repo, OP, "tbl_zzzzzzzzzzzzzzzz", 1, "a", 5, None))
        == "not_found"
    )


def test_two_people_racing_for_one_seat_one_sits_the_other_is_told(game: Game) -> None:
    """Both read the seat free (the read is held until both have read): one transaction wins
    on the live state's seq, the other re-reads and answers seat_occupied."""
    t = new_table(game)
    real_load = game.repo.load
    barrier = threading.Barrier(2)
    reads = itertools.count()

    def held(*a: Any, **k: Any) -> Any:
        snap = real_load(*a, **k)
        if next(reads) < 2:  # the two first reads meet; the loser's retry reads alone
            barrier.wait(timeout=10)
        return snap

    game.repo.load = held  # type: ignore[method-assign]
    answers: dict[str, Any] = {}

    def sit(name: str) -> None:
        try:
            answers[name] = presence.take_seat(game.repo, OP, t, 5, name, 10_000, None)
        except DomainError as exc:
            answers[name] = exc.code

    threads = [threading.Thread(target=sit, args=(n,)) for n in ("ann", "ben")]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    codes = sorted(v if isinstance(v, str) else "seated" for v in answers.values())
    assert codes == ["seat_occupied", "seated"]
    assert [kind for kind, _ in feed(game, t)] == ["seat_taken"]


def test_the_live_state_item_at_its_largest_fits_with_margin() -> None:
    live = LiveRecord(OP, "tbl_" + "a" * 16, 10**12 - 1, "2026-01-01T00:00:00.000Z",
                      **fullest_presence())  # fmt: skip
    size = item_size(to_item(live))
    print(f"live-state item at its largest: {size} bytes")
    assert size < DYNAMODB_ITEM_BYTES // 10


def test_a_balance_refusal_never_sends_the_bettor_to_the_spectators(game: Game) -> None:
    """A spectator refused for balance was told to "join as a spectator" (and
    so was a seat, though a spectator place needs the same balance). The message names what is
    needed, and where."""
    t = new_table(game, **BID)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 1)
    need = game.repo.get_table(OP, t).config["tier"]["bettor_min_balance"]  # type: ignore[union-attr]
    for refuse in (
        lambda: presence.join_spectators(game.repo, OP, t, "sam", need - 1, None),
        lambda: presence.take_seat(game.repo, OP, t, 2, "sam", need - 1, 1),
    ):
        with pytest.raises(DomainError) as err:
            refuse()
        assert err.value.code == "below_min_balance"
        assert "join as a spectator" not in err.value.message
        assert err.value.message == (
            f"a balance of at least {need} is needed to bet at this table, seated or as a spectator"
        )
