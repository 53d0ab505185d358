"""A running table (``"dealing": "auto"``) plays by itself over the in-memory repository: the
test only seats the company, confirms slips and squeezes; every other step is a tick the
repository scheduled, delivered by the test at its due time (``table_clock.run_tick``). Each
time-driven event is written at its deadline; faults (a tick twice, late, early, stale, lost)
change nothing twice."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.scheduler import ManualScheduler

from baccarat.verify import verify
from baccarat_api.clock import seconds_after
from baccarat_api.ports.records import EventRecord, LiveRecord
from baccarat_api.ports.scheduler import Tick
from baccarat_api.service import (
    betting,
    client_seeds,
    presence,
    proofs,
    squeezing,
    table_clock,
    tables,
)
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import CreateTableRequest, SlipRequest
from baccarat_api.service.table_state import table_state
from baccarat_verify import es256

from .conftest import Game

OP = "operator-a"
START = "2026-03-01T12:00:00.000Z"


@dataclass
class Table:
    game: Game
    sched: ManualScheduler
    table_id: str
    shoe_id: str = ""
    outcomes: list[tuple[Tick, str]] = field(default_factory=list)

    @property
    def repo(self) -> Any:
        return self.game.repo

    def live(self) -> LiveRecord:
        live = self.repo.load(OP, live=self.table_id).live
        assert live is not None
        return live

    def events(self, after: int = 0) -> list[EventRecord]:
        found = [
            r
            for r in self.repo.items.values()
            if isinstance(r, EventRecord) and r.table_id == self.table_id and r.seq > after
        ]
        return sorted(found, key=lambda e: e.seq)

    def deliver(self, tick: Tick) -> str:
        """Move the clock to the tick's due time (never back) and deliver it."""
        if tick["due"] > self.game.clock():
            self.game.clock.set(tick["due"])
        out = table_clock.run_tick(self.repo, self.game.shoes, self.game.vault, tick)
        self.outcomes.append((tick, out))
        return out

    def next(self) -> Tick | None:
        return self.sched.take()


def running(game: Game, **fields: Any) -> Table:
    sched = ManualScheduler()
    game.repo.scheduler = sched
    game.clock.set(START)
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
            "dealing": "auto", "pause_seconds": 5, **fields}  # fmt: skip
    request = CreateTableRequest.model_validate(body)
    t = tables.create_table(game.repo, game.vault, OP, request)
    assert (t.dealing, t.pause_seconds) == ("auto", 5)
    return Table(game, sched, t.table_id)


def slip(*bets: tuple[str, int]) -> SlipRequest:
    return SlipRequest.model_validate({"bets": [{"type": t, "amount": a} for t, a in bets]})


def commit(table: Table) -> str:
    table.shoe_id = tables.commit_shoe(
        table.repo, table.game.vault, OP, table.table_id, "client seed"
    ).shoe_id
    return table.shoe_id


SLIPS = {
    "star-city": {"alice": slip(("banker", 2000)), "bob": slip(("player", 1000))},
    "bid-squeeze": {"alice": slip(("banker", 2000)), "bob": slip(("player", 1000))},
}


def seat_company(table: Table, banker: bool) -> None:
    if banker:
        presence.take_banker(table.repo, OP, table.table_id, "pb", 10_000_000)
    presence.take_seat(table.repo, OP, table.table_id, 1, "alice", 5_000_000, 3)
    presence.take_seat(table.repo, OP, table.table_id, 2, "bob", 5_000_000, 2)


def play(
    table: Table, profile: str, squeezer: str | None = "alice", until_shoe_end: bool = True
) -> None:
    """Deliver ticks in due order until the shoe has ended and its last round is resolved
    (then the next step is the commit). After each window opens, alice and bob confirm slips;
    ``squeezer`` opens her hands of each initial step 2 s before its deadline (never the
    draws); bob never squeezes."""
    for _ in range(2000):
        tick = table.next()
        if tick is None:
            return
        live = table.live()
        ended = live.open_shoe_id is None and live.last_round is not None
        if until_shoe_end and tick["step"] == "commit" and ended:
            table.sched.ticks.insert(0, tick)
            return
        if (
            tick["step"] == "reveal"
            and squeezer is not None
            and _squeeze_first(table, tick, squeezer)
        ):
            table.sched.ticks.append(tick)  # still delivered (then stale), after what is due first
            continue
        out = table.deliver(tick)
        if tick["step"] == "open" and out == "done":
            for bettor, s in SLIPS[profile].items():
                betting.place_slip(table.repo, OP, table.table_id, bettor, s)
    raise AssertionError("the shoe did not end")


def _squeeze_first(table: Table, tick: Tick, squeezer: str) -> bool:
    """The squeezer opens her hands of the step 2 s before its deadline, if she squeezes it
    and can (True: she did)."""
    round_id, step = tick["key"].rsplit(":", 1)
    sq = table.live().squeeze
    if step != "initial" or sq is None or squeezer not in sq["hands"][step].values():
        return False  # she leaves the draws to the system
    at = seconds_after(tick["due"], -2)
    if at < table.game.clock():
        return False
    table.game.clock.set(at)
    try:
        squeezing.reveal_round(table.repo, OP, round_id, squeezer, step)
    except DomainError as exc:  # e.g. the draws open with the player's card first
        assert exc.code in ("reveal_out_of_order", "already_revealed"), exc.code
        return False
    return True


def rounds_of(events: list[EventRecord]) -> list[list[EventRecord]]:
    """The events cut at each ``betting_opened``."""
    out: list[list[EventRecord]] = []
    for e in events:
        if e.type == "betting_opened":
            out.append([])
        if out:
            out[-1].append(e)
    return out


def check_round(events: list[EventRecord], previous_settled: str | None, pause: int) -> None:
    """One round's events in order, each time-driven one at its deadline."""
    kinds = [e.type for e in events]
    opened, placed = events[0], [e for e in events if e.type == "bet_placed"]
    assert kinds[:3] == ["betting_opened", "bet_placed", "bet_placed"], kinds
    assert len(placed) == 2
    closes_at = opened.data["closes_at"]
    closed = events[3]
    dealt = events[4]
    assert (closed.type, closed.at) == ("betting_closed", closes_at), kinds
    assert (dealt.type, dealt.at) == ("round_dealt", closes_at)
    rest = [e for e in events[5:] if e.type != "shoe_ended"]
    reveals = [e for e in rest if e.type == "squeeze_revealed"]
    settled = [e for e in rest if e.type == "round_settled"]
    assert len(settled) == 1 and rest[-1] is settled[0], kinds
    assert all(e.type in ("squeeze_revealed", "round_settled") for e in rest), kinds
    for e in reveals:
        if e.data["by"] == "system":
            assert e.at == e.data["revealed_at"]  # written at its deadline
    last_shown = max([dealt.at, *(e.data["revealed_at"] for e in reveals)])
    assert settled[0].at == last_shown  # settled the moment every card is shown
    if previous_settled is not None:
        assert opened.at == seconds_after(previous_settled, pause)


@pytest.mark.parametrize(
    ("profile", "fields", "banker"),
    [
        ("star-city", {"banking": "player_banker"}, True),
        ("bid-squeeze", {"profile": "bid-squeeze", "tier": "bid-squeeze-standard"}, False),
    ],
    ids=["star-city-player-banker", "bid-squeeze"],
)
def test_a_running_table_plays_a_whole_shoe_by_itself(
    game: Game, profile: str, fields: dict[str, Any], banker: bool
) -> None:
    table = running(game, **fields)
    assert table.live().clock is not None and table.live().seq == 0
    seat_company(table, banker)
    commit(table)
    committed_at = game.clock()
    client_seeds.give(game.repo, OP, table.table_id, "the operator's seed for shoe 2")
    play(table, profile)
    events = table.events()
    rounds = rounds_of(events)
    assert rounds, [e.type for e in events]
    assert rounds[0][0].at == committed_at  # the shoe's first window opens at its commit
    previous = None
    for r in rounds:
        check_round(r, previous, 5)
        previous = next(e.at for e in r if e.type == "round_settled")
    assert events[-1].type in ("round_settled", "shoe_ended")
    assert [e.type for e in events].count("shoe_ended") == 1
    assert any(e.type == "squeeze_revealed" and e.data["by"] == "system" for e in events)
    assert any(e.type == "squeeze_revealed" and e.data["by"] == "alice" for e in events)
    # nothing but ticks moved the table: no operator request per round
    assert {o for _, o in table.outcomes} <= {"done", "stale"}
    assert table.live().open_shoe_id is None
    state, _ = table_state(game.repo, OP, table.table_id)
    assert state.clock is not None and state.clock.next is not None
    assert state.clock.next.step == "commit"
    page = json.loads(proofs.proof_page(game.repo, game.vault, game.ref_keys, table.shoe_id).body)
    keys = {"keys": [game.vault.public_jwk()]}
    assert verify([page], keys=keys, signature_check=es256.check).ok
    # the next shoe: committed at once with the seed given in advance, its first window then
    commit_tick = table.next()
    assert commit_tick is not None and commit_tick["step"] == "commit"
    assert table.deliver(commit_tick) == "done"
    committed = table.events()[-1]
    assert committed.type == "shoe_committed" and committed.data["shoe_number"] == 2
    assert committed.at == commit_tick["due"] == previous  # the moment the last round settled
    first = table.next()
    assert first is not None and (first["step"], first["due"]) == ("open", committed.at)
    assert table.deliver(first) == "done" and table.events()[-1].type == "betting_opened"
