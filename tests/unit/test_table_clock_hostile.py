"""A running table attacked: by its operator (pause, close, commit, seeds at chosen moments),
by its bettors (a slip at ``closes_at`` while the close tick is late, a reveal past
``reveal_by``), and by time (a round nobody bet on, settled at its deal, whose system reveals
must still be written at their deadlines; the next window counted from the last card shown).
Each test states what must hold; the in-memory repository, a manual clock, ticks delivered by
hand."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat_api.clock import seconds_after
from baccarat_api.ids import ShoeRef, parse_round_id
from baccarat_api.ports.scheduler import Tick
from baccarat_api.service import betting, client_seeds, squeezing, table_clock, tables, ticks
from baccarat_api.service.errors import DomainError
from baccarat_api.service.table_state import table_state

from .conftest import Game
from .test_table_clock import OP, SLIPS, Table, commit, running, seat_company
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


# --- a hostile bettor ----------------------------------------------------------------------


def test_a_slip_at_closes_at_is_refused_though_the_close_tick_is_late(game: Game) -> None:
    """The close tick lands 3 s late: a slip confirmed at ``closes_at`` exactly (or after) is
    refused ``betting_closed``, one a millisecond before is in the book, and the late deal
    locks exactly the slips confirmed before ``closes_at``."""
    table = opened(game)
    close = take(table, "close")
    betting.place_slip(table.repo, OP, table.table_id, "alice", SLIPS["star-city"]["alice"])
    game.clock.set(seconds_after(close["due"], -0.001))
    betting.place_slip(table.repo, OP, table.table_id, "bob", SLIPS["star-city"]["bob"])
    for late in (0, 1.5):
        game.clock.set(seconds_after(close["due"], late))
        with pytest.raises(DomainError) as refused:
            betting.place_slip(table.repo, OP, table.table_id, "alice", SLIPS["star-city"]["bob"])
        assert refused.value.code == "betting_closed"
        with pytest.raises(DomainError) as cancel:
            betting.cancel_slip(table.repo, OP, table.table_id, "bob")
        assert cancel.value.code == "betting_closed"
    game.clock.set(seconds_after(close["due"], 3))
    assert table.deliver(close) == "done"
    dealt = next(e for e in table.events() if e.type == "round_dealt")
    assert dealt.data["bettors"] == 2 and dealt.data["bets"] == 2  # alice's banker, bob's player
    closed = next(e for e in table.events() if e.type == "betting_closed")
    assert closed.at == seconds_after(close["due"], 3)  # written late, once, and says so


def test_a_squeezer_cannot_open_a_step_past_its_reveal_by_while_the_reveal_tick_is_late(
    game: Game,
) -> None:
    """The system opened the step at ``reveal_by``; the squeezer's reveal arriving after it
    (the tick late) is refused, and the system's reveal is reported with ``revealed_at`` =
    ``reveal_by``: nobody can claim a reveal the system made."""
    table = opened(game)
    for bettor, s in SLIPS["star-city"].items():
        betting.place_slip(table.repo, OP, table.table_id, bettor, s)
    assert table.deliver(take(table, "close")) == "done"
    reveal = take(table, "reveal")
    round_id, step = reveal["key"].rsplit(":", 1)
    sq = table.live().squeeze
    assert sq is not None
    squeezers = {b for b in sq["hands"][step].values() if b}
    game.clock.set(seconds_after(reveal["due"], 2))
    for bettor in squeezers:
        with pytest.raises(DomainError) as refused:
            squeezing.reveal_round(table.repo, OP, round_id, bettor, step)
        assert refused.value.code == "reveal_deadline_passed", refused.value.code
    assert table.deliver(reveal) in ("done", "stale")
    shown = [e for e in table.events() if e.type == "squeeze_revealed" and e.data["step"] == step]
    assert shown and all(e.data["by"] == "system" for e in shown)
    assert all(e.data["revealed_at"] == reveal["due"] for e in shown)


# --- a hostile operator --------------------------------------------------------------------


def test_closing_the_shoe_during_an_open_window_cancels_it_visibly_and_uses_the_queued_seed(
    game: Game,
) -> None:
    """The operator closes the shoe while bettors' slips sit in the open window: no card is
    dealt for them (``betting_cancelled`` at ``closes_at``, its reason and slip count), the
    close is an intervention (``shoe_ended`` reason ``closed``), and the next shoe is
    committed with the seed queued for it — not one chosen now: the operator's own commit is
    refused while a seed waits."""
    table = opened(game)
    client_seeds.give(game.repo, OP, table.table_id, "queued for shoe 2")
    for bettor, s in SLIPS["star-city"].items():
        betting.place_slip(table.repo, OP, table.table_id, bettor, s)
    close = take(table, "close")
    tables.close_shoe(game.repo, game.vault, OP, table.shoe_id)
    with pytest.raises(DomainError) as refused:
        tables.commit_shoe(game.repo, game.vault, OP, table.table_id, "chosen after the close")
    assert refused.value.code == "client_seeds_queued"
    ended = next(e for e in table.events() if e.type == "shoe_ended")
    assert ended.data["reason"] == "closed"
    table.sched.ticks.insert(0, close)
    drain(table, until="open")
    cancelled = [e for e in table.events() if e.type == "betting_cancelled"]
    dealt = [e for e in table.events() if e.type == "round_dealt"]
    assert dealt == [] and len(cancelled) == 1, kinds(table)
    assert cancelled[0].data["slips"] == 2
    committed = [e for e in table.events() if e.type == "shoe_committed"]
    assert [e.data["shoe_number"] for e in committed] == [1, 2]
    live = table.live()
    assert live.client_seeds == [] or live.client_seeds is None
    shoe2 = game.repo.get_shoe(OP, ShoeRef(table.table_id, 2))
    assert shoe2 is not None and shoe2.client_seed == "queued for shoe 2"


def test_pausing_mid_round_changes_no_card_and_no_money_of_it(game: Game) -> None:
    """Paused after the deal, during the squeeze: the round in flight is revealed and settled
    at its times exactly as unpaused (no void, no stall; the money is the deal's); only the
    next window waits for the resume, and opens at once then. Pausing is no way to void or
    delay a round one dislikes."""
    table = opened(game)
    for bettor, s in SLIPS["star-city"].items():
        betting.place_slip(table.repo, OP, table.table_id, bettor, s)
    assert table.deliver(take(table, "close")) == "done"
    dealt = next(e for e in table.events() if e.type == "round_dealt")
    table_clock.pause(table.repo, OP, table.table_id)
    drain(table, until="open")
    after = [e for e in table.events() if e.seq > dealt.seq and e.type != "table_paused"]
    assert [e.type for e in after][-1] == "round_settled", [e.type for e in after]
    assert {e.type for e in after} == {"squeeze_revealed", "round_settled"}
    for e in after:
        if e.type == "squeeze_revealed":
            assert e.at == e.data["revealed_at"]  # at its deadline, paused or not
    settled = after[-1]
    assert settled.at == max(e.data["revealed_at"] for e in after[:-1])
    ref = parse_round_id(dealt.data["round_id"])
    assert ref is not None
    rnd = game.repo.get_round(OP, ref)
    assert rnd is not None and rnd.money.get("nets") == settled.data["nets"]
    assert table.next() is None  # no window while paused
    assert ticks.derive(table.live(), game.clock()) is None
    game.clock.set(seconds_after(game.clock(), 60))  # resumed a minute later
    table_clock.resume(table.repo, OP, table.table_id)
    nxt = table.next()
    assert nxt is not None and nxt["step"] == "open" and nxt["due"] <= game.clock()
    assert table.deliver(nxt) == "done"


def test_the_state_shows_the_clock_of_a_round_nobody_bet_on_while_its_cards_count_down(
    game: Game,
) -> None:
    """A frontend reads ``clock.next`` while a round nobody bet on counts down: the next step
    is the system's reveal at ``reveal_by`` (not an ``open`` while the cards are face down)."""
    table = opened(game)
    assert table.deliver(take(table, "close")) == "done"
    state, _ = table_state(game.repo, OP, table.table_id)
    assert state.clock is not None and state.clock.next is not None
    assert state.clock.next.step == "reveal"
    assert state.phase == "squeeze"


# --- what every change at a running table pays ---------------------------------------------


def test_a_busy_running_tables_live_item_with_a_full_seed_queue_costs_two_write_units() -> None:
    """Every change at a table rewrites its live item, charged per started KB. Seven seats and
    a book of slips fit one write unit (tests/unit/test_compact_items.py); a running table adds
    its ``clock`` and ``tick`` (still one unit) and up to 3 queued client seeds of 256 bytes:
    stored plain they made it 2.2 KB — three units for every slip, reveal and step; stored
    compressed like the table's other growing documents, two."""
    import hashlib
    from dataclasses import replace

    from baccarat.fairness import client_hash
    from baccarat_api.adapters.dynamodb.codec import from_item, item_size, to_item
    from baccarat_api.ports.documents import ClockDoc, QueuedSeed, TickDoc
    from baccarat_api.ports.records import LiveRecord

    at = "2026-01-01T00:00:00.000Z"
    seats = {
        str(n): {"bettor_id": f"player-{n}", "balance": 50_000, "level": 3} for n in range(1, 8)
    }
    bets = [{"type": "banker", "amount": 2000}, {"type": "tie", "amount": 100}]
    book = {f"player-{n}": {"role": "seated", "seat": n, "bets": bets, "placed_at": at,
                            "orders": [n, n + 7], "order": n + 7} for n in range(1, 8)}  # fmt: skip
    window = {"shoe_id": "tbl_aaaaaaaaaaaaaaaa_s1", "round_number": 12, "opened_at": at,
              "closes_at": at, "status": "open", "round_id": None}  # fmt: skip
    busy = LiveRecord(OP, "tbl_aaaaaaaaaaaaaaaa", 1234, at, seats=seats, book=book,
                      betting=window, idle={f"player-{n}": 0 for n in range(1, 8)})  # fmt: skip
    clock = ClockDoc(dealing="auto", pause_seconds=5, paused=False, needs_banker=True,
                     waiting=None, resolved_at=at)  # fmt: skip
    running = replace(busy, clock=clock, tick=TickDoc(step="close", key=at, due=at))
    texts = [(hashlib.sha256(bytes([n])).hexdigest() * 4) for n in range(3)]  # 256 bytes each
    seeds = [QueuedSeed(client_seed=s, client_hash=client_hash(s).hex(), given_at=at,
                        for_shoe_number=2 + n) for n, s in enumerate(texts)]  # fmt: skip
    full = replace(running, client_seeds=seeds)
    for live in (running, full):
        assert from_item(LiveRecord, to_item(live)) == live
    sizes = [item_size(to_item(x)) for x in (busy, running, full)]
    assert sizes[0] <= sizes[1] <= 1024, sizes
    assert sizes[2] <= 2048, sizes


# --- a step that fails for a moment --------------------------------------------------------


@pytest.mark.parametrize("failure", ["concurrent_update", "store_unavailable"])
def test_a_step_refused_for_a_moment_is_tried_again_at_once_not_a_minute_later(
    monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """A step that fails with a retryable error (the table changed under every attempt,
    DynamoDB throttled) was dropped by make run's thread and sent back by SQS only after the
    queue's 180 s visibility timeout: the table stood still until the sweep, up to a minute
    (+5 s) later. The job tries it again a moment later (bounded: then the error goes up as
    before, the sweep's net)."""
    from baccarat_api.jobs import table_clock as job
    from baccarat_api.ports.repository import StoreUnavailable

    calls: list[Tick] = []
    slept: list[float] = []

    def flaky(repo: Any, shoes: Any, vault: Any, t: Tick) -> str:
        calls.append(t)
        if len(calls) == 1:
            if failure == "concurrent_update":
                raise DomainError("concurrent_update", "the table changed during the request")
            raise StoreUnavailable("throttled")
        return "done"

    monkeypatch.setattr(table_clock, "run_tick", flaky)

    class Rt:
        repo, shoes, vault = object(), object(), object()
        scheduler = None

    due = "2026-01-01T00:00:10.000Z"
    tick = Tick(operator_id="op", table_id="tbl_a", step="close", key="k", due=due)
    from baccarat_api.clock import ms_of

    out = job.deliver(Rt(), tick, now=lambda: ms_of(due) / 1000, sleep=slept.append)  # type: ignore[arg-type]
    assert out == "done" and len(calls) == 2
    assert sum(slept) <= 1.0  # a moment, not a minute

    def always(repo: Any, shoes: Any, vault: Any, t: Tick) -> str:
        raise DomainError("concurrent_update", "the table changed during the request")

    monkeypatch.setattr(table_clock, "run_tick", always)
    with pytest.raises(DomainError):  # bounded: the failure goes up (the sweep's net)
        job.deliver(Rt(), tick, now=lambda: ms_of(due) / 1000, sleep=slept.append)  # type: ignore[arg-type]


def test_a_step_refused_for_good_is_not_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from baccarat_api.clock import ms_of
    from baccarat_api.jobs import table_clock as job

    calls: list[int] = []

    def refused(repo: Any, shoes: Any, vault: Any, t: Tick) -> str:
        calls.append(1)
        raise DomainError("chain_exhausted", "no shoe left")

    monkeypatch.setattr(table_clock, "run_tick", refused)

    class Rt:
        repo, shoes, vault = object(), object(), object()
        scheduler = None

    due = "2026-01-01T00:00:10.000Z"
    tick = Tick(operator_id="op", table_id="tbl_a", step="commit", key="k", due=due)
    with pytest.raises(DomainError):
        job.deliver(Rt(), tick, now=lambda: ms_of(due) / 1000, sleep=lambda s: None)  # type: ignore[arg-type]
    assert calls == [1]
