"""A running table attacked: by its operator (pause, close, commit, seeds at chosen moments),
by its bettors (a slip at ``closes_at`` while the close tick is late, a reveal past
``reveal_by``), and by time (a round nobody bet on, settled at its deal, whose system reveals
must still be written at their deadlines; the next window counted from the last card shown).
Each test states what must hold; the in-memory repository, a manual clock, ticks delivered by
hand."""

from __future__ import annotations

from typing import Any

from baccarat_api.clock import seconds_after
from baccarat_api.ports.scheduler import Tick

from .conftest import Game
from .test_table_clock import Table, commit, running, seat_company
from .test_table_clock_faults import kinds, take


def opened(game: Game, **fields: Any) -> Table:
    """A star-city player-banker running table, its company seated, a shoe committed and its
    first window opened by its tick (no slip yet)."""
    table = running(game, banking="player_banker", **fields)
    seat_company(table, banker=True)
    commit(table)
    assert table.deliver(take(table, "open")) == "done"
    return table


def drain(table: Table, until: str | None = None) -> list[tuple[Tick, str]]:
    """Deliver the scheduled ticks in due order (each at its due) until none is left, or
    until a tick of step ``until`` is next (left scheduled)."""
    out: list[tuple[Tick, str]] = []
    for _ in range(200):
        tick = table.next()
        if tick is None:
            return out
        if until is not None and tick["step"] == until:
            table.sched.ticks.insert(0, tick)
            return out
        out.append((tick, table.deliver(tick)))
    raise AssertionError("the table never settled down")


# --- a round nobody bet on -----------------------------------------------------------------


def test_a_round_nobody_bet_on_has_its_system_reveals_written_at_their_deadlines(
    game: Game,
) -> None:
    table = opened(game)
    close = take(table, "close")
    assert table.deliver(close) == "done"
    dealt = [e for e in table.events() if e.type == "round_dealt"]
    assert len(dealt) == 1
    assert kinds(table)[-1] == "round_settled"  # nobody bet: settled at its deal
    assert table.live().squeeze is not None  # the cards are still face down at the table
    drain(table, until="open")
    reveals = [e for e in table.events() if e.type == "squeeze_revealed"]
    assert reveals, kinds(table)
    for e in reveals:
        assert e.data["by"] == "system"
        assert e.at == e.data["revealed_at"], (e.at, e.data)  # written at its deadline
    # and the next window opens pause_seconds after the last card was shown
    nxt = table.next()
    assert nxt is not None and nxt["step"] == "open"
    last_shown = max(e.data["revealed_at"] for e in reveals)
    assert nxt["due"] == seconds_after(last_shown, 5)
    assert table.deliver(nxt) == "done"
    assert [e.type for e in table.events()].count("betting_opened") == 2
