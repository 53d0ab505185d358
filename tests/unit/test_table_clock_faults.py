"""A running table's ticks when the world misbehaves: delivered twice, late after the table
changed (someone left, the shoe closed, the round voided, the table paused), early, stale after
a squeezer's early reveal, lost after the commit (the sweep's path: ``tick_of`` the live state)
— each does the right thing or nothing. And what the operator may no longer do there."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from baccarat.proofdoc import VOID_REASONS
from baccarat_api.clock import seconds_after
from baccarat_api.ports.scheduler import Tick
from baccarat_api.service import (
    betting,
    client_seeds,
    presence,
    squeezing,
    table_clock,
    tables,
    ticks,
)
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import DealRequest
from baccarat_api.service.table_state import table_state
from baccarat_api.service.voiding import void_round

from .conftest import Game
from .test_service import new_table
from .test_table_clock import OP, SLIPS, Table, commit, running, seat_company


def window_open(game: Game, **fields: Any) -> Table:
    """A star-city player-banker running table, its company seated, a shoe committed, its
    first window opened by its tick and both slips confirmed."""
    table = running(game, banking="player_banker", **fields)
    seat_company(table, banker=True)
    commit(table)
    tick = take(table, "open")
    assert table.deliver(tick) == "done"
    for bettor, s in SLIPS["star-city"].items():
        betting.place_slip(table.repo, OP, table.table_id, bettor, s)
    return table


def take(table: Table, step: str) -> Tick:
    """The latest scheduled tick of ``step`` (the others dropped: they are stale anyway)."""
    found = [t for t in table.sched.ticks if t["step"] == step]
    assert found, (step, table.sched.ticks)
    table.sched.ticks.clear()
    return found[-1]


def kinds(table: Table, after: int = 0) -> list[str]:
    return [e.type for e in table.events(after)]


def test_a_tick_delivered_twice_acts_once(game: Game) -> None:
    table = window_open(game)
    close = take(table, "close")
    assert table.deliver(close) == "done"
    seq = table.live().seq
    assert table.deliver(close) == "stale"
    assert table.live().seq == seq
    assert kinds(table).count("round_dealt") == 1


def test_an_early_tick_does_nothing_and_says_so(game: Game) -> None:
    table = window_open(game)
    close = take(table, "close")
    game.clock.set(seconds_after(close["due"], -3))
    seq = table.live().seq
    out = table_clock.run_tick(game.repo, game.shoes, game.vault, close)
    assert out == "early" and table.live().seq == seq
    assert table.deliver(close) == "done"  # at its time


def test_a_late_close_after_the_player_banker_left_cancels_the_window(game: Game) -> None:
    table = window_open(game)
    close = take(table, "close")
    presence.leave_banker(game.repo, OP, table.table_id)
    game.clock.set(seconds_after(close["due"], 4))  # late
    seq = table.live().seq
    assert table.deliver(close) == "done"
    events = table.events(seq)
    assert [e.type for e in events] == ["betting_cancelled"]
    assert events[0].data["reason"] == "company_required"
    assert "round_dealt" not in kinds(table)
    # waiting for company: nothing scheduled; the player-banker's return opens the next window
    assert table.live().tick is None
    presence.take_banker(game.repo, OP, table.table_id, "pb", 10_000_000)
    reopen = take(table, "open")
    assert reopen["due"] <= game.clock() and table.deliver(reopen) == "done"
    assert kinds(table)[-1] == "betting_opened"


def test_a_close_after_the_shoe_was_closed_deals_nothing(game: Game) -> None:
    table = window_open(game)
    close = take(table, "close")
    tables.close_shoe(game.repo, game.vault, OP, table.shoe_id)
    seq = table.live().seq
    assert table.deliver(close) == "stale"
    assert table.live().seq == seq and "round_dealt" not in kinds(table)
    assert table.live().tick is not None and table.live().tick["step"] == "commit"


def test_reveal_and_settle_ticks_after_a_void_do_nothing(game: Game) -> None:
    table = window_open(game)
    assert table.deliver(take(table, "close")) == "done"
    reveal = take(table, "reveal")
    round_id = reveal["key"].rsplit(":", 1)[0]
    void_round(game.repo, OP, round_id, reason=VOID_REASONS[0])
    seq = table.live().seq
    assert table.deliver(reveal) == "stale"
    assert table.live().seq == seq
    voided = next(e for e in table.events() if e.type == "round_voided")
    nxt = take(table, "open")  # the next window after the pause, counted from the void
    assert nxt["due"] == seconds_after(voided.at, 5)


def test_a_paused_table_finishes_its_round_and_opens_no_window_until_resumed(
    game: Game,
) -> None:
    table = window_open(game)
    table_clock.pause(game.repo, OP, table.table_id)
    assert table_clock.pause(game.repo, OP, table.table_id).paused  # again: nothing new
    assert kinds(table).count("table_paused") == 1
    for _ in range(10):  # the round in flight: dealt, revealed, settled
        if not table.sched.ticks:
            break
        table.deliver(table.sched.take())  # type: ignore[arg-type]
    assert "round_settled" in kinds(table)
    live = table.live()
    assert live.last_round is not None and live.last_round["resolved"]
    assert live.tick is None and kinds(table)[-1] != "betting_opened"
    game.clock.set(seconds_after(game.clock(), 60))
    out = table_clock.resume(game.repo, OP, table.table_id)
    assert not out.paused and out.next is not None and out.next.step == "open"
    assert table.deliver(take(table, "open")) == "done"
    assert kinds(table)[-2:] == ["table_resumed", "betting_opened"]


def test_a_stale_reveal_after_the_squeezer_revealed_early_does_nothing(game: Game) -> None:
    table = window_open(game)
    assert table.deliver(take(table, "close")) == "done"
    reveal = take(table, "reveal")
    round_id, step = reveal["key"].rsplit(":", 1)
    sq = table.live().squeeze
    assert sq is not None
    squeezers = {w for w in sq["hands"][step].values() if w is not None}
    if not squeezers:
        pytest.skip("nobody squeezes this step")
    for who in sorted(squeezers):
        squeezing.reveal_round(game.repo, OP, round_id, who, step)
    seq = table.live().seq
    assert table.deliver(reveal) == "stale"
    assert table.live().seq == seq
    assert table.live().tick != {"step": reveal["step"], "key": reveal["key"], "due": reveal["due"]}


def test_a_lost_tick_is_recovered_from_the_live_state(game: Game) -> None:
    """A crash after the commit, before the schedule: the sweep delivers ``tick_of(live)``."""
    table = window_open(game)
    table.sched.ticks.clear()  # the timer was never sent
    for _ in range(20):
        tick = ticks.tick_of(table.live())
        assert tick is not None
        table.sched.ticks.clear()
        game.clock.set(max(game.clock(), seconds_after(tick["due"], 5)))  # the sweep, late
        assert table_clock.run_tick(game.repo, game.shoes, game.vault, tick) == "done"
        if kinds(table)[-1] == "betting_opened":
            break
    assert kinds(table).count("round_settled") == 1
    assert kinds(table)[-1] == "betting_opened"


def test_the_operator_neither_opens_betting_nor_deals_at_a_running_table(game: Game) -> None:
    table = window_open(game)
    with pytest.raises(DomainError) as exc:
        betting.open_betting(game.repo, OP, table.table_id)
    assert exc.value.code == "auto_dealing"
    request = DealRequest(from_book=True, round_number=1)
    with pytest.raises(DomainError) as exc:
        deal_round(game.repo, game.shoes, OP, table.shoe_id, request)
    assert exc.value.code == "auto_dealing"


def test_an_operator_table_has_no_clock(game: Game) -> None:
    t = new_table(game)
    for use in (table_clock.pause, table_clock.resume):
        with pytest.raises(DomainError) as exc:
            use(game.repo, OP, t)
        assert exc.value.code == "not_auto_dealing"
    assert game.repo.load(OP, live=t).live is None  # nothing stored for it
    stored = game.repo.load(OP, table_id=t).table
    assert stored is not None and (stored.dealing, stored.pause_seconds) == (None, None)


def test_the_commit_step_waits_for_a_seed_then_commits_with_the_oldest(game: Game) -> None:
    """The commit step (``client_seeds.commit_next``): no seed queued →
    ``table_waiting`` once and nothing scheduled; a seed given → committed at once with it."""
    table = running(game, banking="player_banker")
    assert table.live().tick is None  # nobody at the table: no shoe committed for nobody
    seat_company(table, banker=True)
    first = ticks.tick_of(table.live())
    assert first is not None and first["step"] == "commit"
    assert table.deliver(first) == "done"
    assert (
        kinds(table).count("table_waiting") == 1
        and kinds(table)[-1] == "table_waiting"
        and table.live().tick is None
    )
    assert table.deliver(first) == "stale"  # waiting: nothing more
    client_seeds.give(game.repo, OP, table.table_id, "first seed")
    tick = take(table, "commit")
    assert table.deliver(tick) == "done"
    assert kinds(table)[-1] == "shoe_committed"
    assert table.live().open_shoe_id is not None


def test_the_repository_schedules_a_tick_only_when_a_change_moves_it(game: Game) -> None:
    table = running(game)
    seat_company(table, banker=False)
    live = table.live()
    assert live.tick is not None and live.tick["step"] == "commit"  # once the company came
    assert table.sched.ticks == [ticks.tick_of(live)]
    table.sched.ticks.clear()
    presence.join_watchers(game.repo, OP, table.table_id, "wanda")  # the step does not move
    assert table.sched.ticks == [] and table.live().tick == live.tick
    # an operator table: no clock, no tick, nothing scheduled; its state shows no clock
    t = new_table(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    assert table.sched.ticks == []
    assert table_state(game.repo, OP, t)[0].clock is None


def _read_before(game: Game, monkeypatch: pytest.MonkeyPatch, stale: Any) -> None:
    """The clock's next read of the live state answers ``stale`` (as read just before a change
    that then commits); every read after it is fresh."""
    load = game.repo.load
    answers = [stale]

    def once(*args: Any, **kwargs: Any) -> Any:
        loaded = load(*args, **kwargs)
        if answers and kwargs.get("live"):
            return replace(loaded, live=answers.pop())
        return loaded

    monkeypatch.setattr(game.repo, "load", once)


def test_an_open_decided_before_a_pause_and_written_after_it_opens_nothing(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = window_open(game)
    for _ in range(10):  # the round in flight: dealt, revealed, settled
        if not table.sched.ticks or table.sched.ticks[-1]["step"] == "open":
            break
        table.deliver(table.sched.take())  # type: ignore[arg-type]
    before = table.live()
    open_tick = take(table, "open")
    table_clock.pause(game.repo, OP, table.table_id)
    seq = table.live().seq
    _read_before(game, monkeypatch, before)
    assert table.deliver(open_tick) == "stale"  # nothing opened: said so
    assert table.live().seq == seq and kinds(table)[-1] == "table_paused"


def test_a_commit_decided_before_a_pause_and_written_after_it_commits_nothing(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = running(game)
    seat_company(table, banker=False)
    client_seeds.give(game.repo, OP, table.table_id, "given in advance")
    before = table.live()
    commit_tick = ticks.tick_of(before)
    assert commit_tick is not None and commit_tick["step"] == "commit"
    table_clock.pause(game.repo, OP, table.table_id)
    seq = table.live().seq
    _read_before(game, monkeypatch, before)
    table.deliver(commit_tick)
    live = table.live()
    assert live.seq == seq and live.open_shoe_id is None and kinds(table)[-1] == "table_paused"
