"""bacc-pf-v2 tables in the service (issue 28; docs/design/beacon.md §2–§5) over the in-memory
repository, the ``ManualClock`` and ``FakeBeacon`` (the local test beacon's signer on that clock,
with an outage switch): the lock (202, no card, the shoe's cursor unmoved), the draw at the
beacon round's time with the cards re-derived independently by ``baccarat.fairness_v2`` from the
lock's book root and the beacon, a late beacon tried again, an outage voided
``beacon_unavailable``, duplicate timers, and a running v2 table playing a whole shoe."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.beacon import FakeBeacon
from support.examples import examples
from support.scheduler import ManualScheduler

from baccarat.beacon import BEACON_MARGIN_MS, lock_round, round_time
from baccarat.fairness_v2 import BeaconDraw, RoundInput, derive_shoe_v2
from baccarat.rules import ShoeRules
from baccarat_api.clock import at_ms, ms_of, seconds_after
from baccarat_api.ids import parse_round_id
from baccarat_api.limits import BEACON_WAIT_SECONDS
from baccarat_api.ports.records import EventRecord, RoundRecord, ShoeRecord
from baccarat_api.ports.scheduler import Tick
from baccarat_api.service import (
    audit,
    betting,
    presence,
    reading,
    reconciliation,
    settling,
    table_clock,
    tables,
)
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import Replayed
from baccarat_api.service.models import CreateTableRequest, DealRequest, LockedRoundOut, SlipRequest
from baccarat_api.service.table_state import table_state

from .conftest import Game, star_city_bets

OP = "operator-a"
START = "2026-03-01T12:00:00.000Z"


class V2:
    def __init__(self, game: Game, **fields: Any) -> None:
        self.game = game
        self.sched = ManualScheduler()
        game.repo.scheduler = self.sched
        game.clock.set(START)
        self.beacon = FakeBeacon(game.clock)
        body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
                "fairness": "bacc-pf-v2", "chain_length": 2, **fields}  # fmt: skip
        request = CreateTableRequest.model_validate(body)
        self.table = tables.create_table(
            game.repo, game.vault, OP, request, None, self.beacon.chain
        )
        self.shoe_id = ""

    @property
    def repo(self) -> Any:
        return self.game.repo

    def seat(self) -> None:
        presence.take_seat(self.repo, OP, self.table.table_id, 1, "alice", 50_000, 3)
        presence.take_seat(self.repo, OP, self.table.table_id, 2, "bob", 20_000, 2)

    def commit(self) -> str:
        self.shoe_id = tables.commit_shoe(
            self.repo, self.game.vault, OP, self.table.table_id, "client seed"
        ).shoe_id
        return self.shoe_id

    def deal(self, bets: list[dict[str, Any]] | None = None) -> Any:
        body = DealRequest.model_validate({"bets": star_city_bets() if bets is None else bets})
        return deal_round(self.repo, self.game.shoes, OP, self.shoe_id, body)

    def shoe(self) -> ShoeRecord:
        ref = parse_round_id(f"{self.shoe_id}_r1")
        assert ref is not None
        shoe = self.repo.load(OP, shoe=ref.shoe).shoe
        assert shoe is not None
        return shoe

    def round(self, round_id: str) -> RoundRecord | None:
        ref = parse_round_id(round_id)
        assert ref is not None
        return self.repo.get_round(OP, ref)

    def deliver(self, tick: Tick) -> str:
        if tick["due"] > self.game.clock():
            self.game.clock.set(tick["due"])
        return table_clock.run_tick(self.repo, self.game.shoes, self.game.vault, tick, self.beacon)

    def events(self) -> list[EventRecord]:
        found = [r for r in self.repo.items.values()
                 if isinstance(r, EventRecord) and r.table_id == self.table.table_id]  # fmt: skip
        return sorted(found, key=lambda e: e.seq)

    def draws(self) -> list[Tick]:
        return [t for t in self.sched.ticks if t["step"] == "draw"]


def game_clock(v2: V2) -> str:
    return v2.game.clock()


def rederived(v2: V2, shoe: ShoeRecord, rounds: list[RoundRecord]) -> list[Any]:
    """The shoe's rounds drawn again by the core alone from the shoe's secret, the client seed
    and each round's lock and beacon (what a verifier does with the proof)."""
    chain = bytes.fromhex(v2.beacon.chain.chain_hash)
    inputs = []
    for r in rounds:
        assert r.lock is not None
        beacon = None
        if r.beacon is not None:
            sig = bytes.fromhex(r.beacon["signature"])
            beacon = BeaconDraw(chain, r.beacon["round"], sig)
        inputs.append(RoundInput(bytes.fromhex(r.lock["book_root"]), beacon))
    secret = v2.game.shoes.get(shoe).secret
    rules = ShoeRules.from_dict(shoe.rules)
    return list(derive_shoe_v2(secret, shoe.client_seed, shoe.shoe_number, rules, inputs).draws)


def test_a_v2_table_copies_its_beacon_and_shows_its_fairness(game: Game) -> None:
    v2 = V2(game)
    assert v2.table.fairness == "bacc-pf-v2"
    assert v2.table.beacon is not None and v2.table.beacon.chain_hash == v2.beacon.chain.chain_hash
    assert v2.table.beacon.test is True
    v1 = tables.create_table(game.repo, game.vault, OP, CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}))  # fmt: skip
    assert (v1.fairness, v1.beacon) == ("bacc-pf-v1", None)
    stored = game.repo.load(OP, table_id=v1.table_id).table
    assert stored is not None and (stored.fairness, stored.beacon) == (None, None)


def test_no_beacon_no_v2_table_nor_v2_book_table(game: Game) -> None:
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
            "fairness": "bacc-pf-v2"}  # fmt: skip
    with pytest.raises(DomainError) as exc:
        tables.create_table(game.repo, game.vault, OP, CreateTableRequest.model_validate(body))
    assert exc.value.code == "no_beacon"
    book = {**body, "profile": "bid-squeeze", "tier": "bid-squeeze-standard", "bet_behind": "book"}
    with pytest.raises(DomainError) as exc:
        tables.create_table(game.repo, game.vault, OP, CreateTableRequest.model_validate(book))
    assert exc.value.code == "no_beacon"


def test_explicit_deal_locks_then_the_draw_deals_with_the_beacon(game: Game) -> None:
    v2 = V2(game, squeeze_seconds=0)
    v2.seat()
    v2.commit()
    game.clock.set("2026-03-01T12:00:01.234Z")
    out = v2.deal()
    assert isinstance(out, LockedRoundOut) and out.status == "locked"
    locked_at = ms_of(out.locked_at)
    assert out.beacon.round == lock_round(v2.beacon.chain, locked_at)
    expected = round_time(v2.beacon.chain, out.beacon.round)
    assert expected >= locked_at + BEACON_MARGIN_MS and out.beacon.expected_at == at_ms(expected)
    # nothing drawn: no round item, the cursor where it was, the round's status "locked"
    assert v2.round(out.round_id) is None and v2.shoe().cursor == 0
    shown = reading.get_round(v2.repo, OP, out.round_id)
    assert isinstance(shown, LockedRoundOut) and shown.status == "locked"
    with pytest.raises(DomainError) as exc:
        settling.settle_round(v2.repo, OP, out.round_id)
    assert exc.value.code == "round_locked" and exc.value.retry_after is not None
    with pytest.raises(DomainError) as exc:  # one round at a time
        v2.deal([])
    assert exc.value.code == "round_locked"
    with pytest.raises(Replayed) as again:  # the same request again: the same locked round
        v2.deal()
    assert again.value.status == 202 and again.value.body["round_id"] == out.round_id
    kinds = [e.type for e in v2.events()]
    assert kinds[-1] == "round_locked" and "round_dealt" not in kinds
    locked_event = v2.events()[-1].data
    assert locked_event["book_root"] == out.book_root
    # the draw: due at the beacon round's time, at an operator table too
    (tick,) = v2.draws()
    assert tick["due"] == out.beacon.expected_at and tick["key"] == out.round_id
    v2.sched.ticks.clear()
    assert v2.deliver(tick) == "done"
    assert v2.deliver(tick) == "stale"  # a duplicate timer changes nothing
    r = v2.round(out.round_id)
    assert r is not None and r.beacon is not None and r.lock is not None
    assert r.dealt_at == tick["due"] and r.lock["locked_at"] == out.locked_at
    assert r.beacon["round"] == out.beacon.round
    (drawn,) = rederived(v2, v2.shoe(), [r])
    assert drawn is not None and drawn.round.facts() == r.facts
    assert v2.shoe().cursor == drawn.round.end and v2.shoe().v2["locked"] is None  # type: ignore[index]
    dealt = [e for e in v2.events() if e.type == "round_dealt"][-1]
    assert dealt.data["beacon"] == r.beacon
    settled = settling.settle_round(v2.repo, OP, out.round_id)
    assert settled.round_id == out.round_id


def test_a_late_beacon_is_tried_again_and_an_outage_voids(game: Game) -> None:
    v2 = V2(game, squeeze_seconds=0)
    v2.seat()
    v2.commit()
    first = v2.deal()
    (tick,) = v2.draws()
    v2.sched.ticks.clear()
    v2.beacon.down = True
    assert v2.deliver(tick) == "waiting"
    (retry,) = v2.draws()
    assert retry["due"] == seconds_after(tick["due"], 1)
    v2.sched.ticks.clear()
    v2.beacon.down = False  # it comes back: drawn at the retry
    assert v2.deliver(retry) == "done"
    r1 = v2.round(first.round_id)
    assert r1 is not None and r1.beacon is not None
    settling.settle_round(v2.repo, OP, first.round_id)
    cursor = v2.shoe().cursor
    second = v2.deal()
    v2.beacon.down = True
    outcomes = []
    for _ in range(100):
        nxt = v2.sched.take()
        if nxt is None:
            break
        outcomes.append(v2.deliver(nxt))
    assert outcomes[-1] == "done" and set(outcomes[:-1]) == {"waiting"}
    void_at = seconds_after(second.locked_at, BEACON_WAIT_SECONDS)
    assert game.clock() == void_at
    r2 = v2.round(second.round_id)
    assert r2 is not None and r2.void is not None and r2.beacon is None
    assert r2.void["reason"] == "beacon_unavailable" and r2.facts == {}
    voided = [e for e in v2.events() if e.type == "round_voided"][-1]
    assert voided.data["reason"] == "beacon_unavailable" and voided.at == void_at
    shoe = v2.shoe()
    assert shoe.cursor == cursor and shoe.rounds_dealt == 2 and shoe.v2["locked"] is None  # type: ignore[index]
    shown = reading.get_round(v2.repo, OP, second.round_id)
    assert isinstance(shown, LockedRoundOut) and shown.status == "voided"
    # every other reader of a round takes a round without cards
    state, _ = table_state(v2.repo, OP, v2.table.table_id)
    assert state.shoe is not None and state.shoe.rounds_dealt == 2
    assert reconciliation.summary(r2, game.clock()).result is None
    assert audit.audit_table(v2.repo, OP, v2.table.table_id).verified  # the chain holds
    # the shoe goes on: round 3 draws from the same remaining cards as round 2 would have
    v2.beacon.down = False
    third = v2.deal([])
    (tick3,) = v2.draws()
    assert v2.deliver(tick3) == "done"
    rounds = [v2.round(f"{v2.shoe_id}_r{n}") for n in (1, 2, 3)]
    draws = rederived(v2, v2.shoe(), [r for r in rounds if r is not None])
    assert draws[1] is None and draws[2] is not None
    r3 = v2.round(third.round_id)
    assert r3 is not None and draws[2].round.facts() == r3.facts
    assert r3.settled_at is not None  # nobody bet: settled at its draw


def test_a_running_v2_table_plays_a_whole_shoe(game: Game) -> None:
    v2 = V2(game, profile="bid-squeeze", tier="bid-squeeze-standard", dealing="auto",
            pause_seconds=2, squeeze_seconds=1, betting_seconds=3)  # fmt: skip
    table_id = v2.table.table_id
    presence.take_seat(v2.repo, OP, table_id, 1, "alice", 50_000_000, 3)
    presence.take_seat(v2.repo, OP, table_id, 2, "bob", 50_000_000, 2)
    v2.commit()
    slip = SlipRequest.model_validate({"bets": [{"type": "banker", "amount": 2000}]})
    for _ in range(5000):
        tick = v2.sched.take()
        assert tick is not None
        live = v2.repo.load(OP, live=table_id).live
        if tick["step"] == "commit" and live.open_shoe_id is None:
            break
        out = v2.deliver(tick)
        state, _ = table_state(v2.repo, OP, table_id)  # what a frontend draws, at every step
        if tick["step"] == "close" and out == "done":  # locked: no card, the draw is next
            assert state.clock is not None and state.clock.next is not None
            assert state.clock.next.step == "draw"
            assert state.phase == "locked" and state.locked is not None
            assert state.deadline == state.locked.beacon.expected_at == state.clock.next.due
        if tick["step"] == "open" and out == "done":
            betting.place_slip(v2.repo, OP, table_id, "alice", slip)
    shoe = v2.shoe()
    assert shoe.status == "ended" and shoe.end_reason == "rules"
    rounds = [v2.round(f"{v2.shoe_id}_r{n}") for n in range(1, shoe.rounds_dealt + 1)]
    assert all(r is not None and r.beacon is not None and r.resolved for r in rounds)
    draws = rederived(v2, shoe, [r for r in rounds if r is not None])
    assert [d.round.facts() for d in draws] == [r.facts for r in rounds if r is not None]
    kinds = [e.type for e in v2.events()]
    assert kinds.count("round_locked") == kinds.count("round_dealt") == shoe.rounds_dealt
    for e in v2.events():  # every lock public before its beacon round's time
        if e.type == "round_locked":
            assert ms_of(e.at) + BEACON_MARGIN_MS <= ms_of(e.data["beacon"]["expected_at"])


@settings(max_examples=examples(0.1))
@given(st.lists(st.sampled_from(["up", "late", "out"]), min_size=1, max_size=5))
def test_whatever_the_beacon_does_the_shoe_stays_one_permutation(beacon: list[str]) -> None:
    """Round by round the beacon is there at its time, late (then there at the first retry),
    or out past the wait: each round is drawn or voided ``beacon_unavailable`` accordingly,
    the cards drawn are exactly the dealt rounds' (the shoe's bitmap, its cursor), and the core
    re-derives every dealt round from the locks' book roots and the beacons."""
    v2 = V2(Game(), squeeze_seconds=0)
    v2.seat()
    v2.commit()
    for n, fate in enumerate(beacon, start=1):
        v2.deal([] if n % 2 else None)
        v2.beacon.down = fate != "up"
        for _ in range(2 * BEACON_WAIT_SECONDS):
            tick = v2.sched.take()
            assert tick is not None and tick["step"] == "draw"
            if v2.deliver(tick) == "done":
                break
            v2.beacon.down = fate == "out"
        v2.sched.ticks.clear()
        r = v2.round(f"{v2.shoe_id}_r{n}")
        assert r is not None and (r.void is not None) == (fate == "out")
        if r.void is None and r.settled_at is None:
            settling.settle_round(v2.repo, OP, r.round_id)
        table_state(v2.repo, OP, v2.table.table_id)  # drawn or voided: the table shows it
        assert reconciliation.summary(r, game_clock(v2)).round_id == r.round_id
    shoe = v2.shoe()
    rounds = [v2.round(f"{v2.shoe_id}_r{n}") for n in range(1, len(beacon) + 1)]
    draws = rederived(v2, shoe, [r for r in rounds if r is not None])
    for r, d in zip(rounds, draws, strict=True):
        assert r is not None and (d is None) == (r.void is not None)
        assert d is None or d.round.facts() == r.facts
    dealt = [c for d in draws if d is not None for c in (*d.round.player, *d.round.banker)]
    assert len(set(dealt)) == len(dealt) == shoe.cursor
    assert shoe.v2 is not None
    bits = bytes.fromhex(shoe.v2["drawn"])
    size = ShoeRules.from_dict(shoe.rules).size
    assert {c for c in range(size) if bits[c // 8] >> (c % 8) & 1} == set(dealt)


def test_a_running_table_voids_on_an_outage_and_plays_on(game: Game) -> None:
    v2 = V2(game, dealing="auto", pause_seconds=1, squeeze_seconds=0, betting_seconds=2)
    table_id = v2.table.table_id
    presence.take_seat(v2.repo, OP, table_id, 1, "alice", 500_000, 3)
    v2.commit()
    slip = SlipRequest.model_validate({"bets": [{"type": "banker", "amount": 2000}]})
    v2.beacon.down = True
    steps = []
    for _ in range(200):
        tick = v2.sched.take()
        assert tick is not None
        out = v2.deliver(tick)
        steps.append((tick["step"], out))
        if tick["step"] == "open" and out == "done":
            betting.place_slip(v2.repo, OP, table_id, "alice", slip)
        if any(e.type == "round_voided" for e in v2.events()):
            v2.beacon.down = False
        if any(e.type == "round_settled" for e in v2.events()):
            break
    kinds = [e.type for e in v2.events() if e.type.startswith(("round_", "betting_"))]
    assert kinds[:4] == ["betting_opened", "betting_closed", "round_locked", "round_voided"]
    assert kinds[4:] == ["betting_opened", "betting_closed", "round_locked", "round_dealt",
                         "round_settled"]  # fmt: skip
    r1, r2 = v2.round(f"{v2.shoe_id}_r1"), v2.round(f"{v2.shoe_id}_r2")
    assert r1 is not None and r1.void is not None and r1.void["reason"] == "beacon_unavailable"
    assert r2 is not None and r2.beacon is not None and r2.settled_at is not None
    assert r1.bets == r2.bets  # the same slip, returned then bet again
    # the roads number round 2 as the feed and the proof do (round 1 has no bead: no card)
    dealt = next(e for e in v2.events() if e.type == "round_dealt")
    assert dealt.data["round_number"] == dealt.data["shoe"]["last"]["round"] == 2
    state, _ = table_state(v2.repo, OP, table_id)
    shoe = state.model_dump()["shoe"]
    assert [c["round"] for c in shoe["history"]] == [2]
    assert [c["round"] for c in shoe["roads"]["bead_plate"]["cells"]] == [2]
    assert shoe["rounds_dealt"] == 2
