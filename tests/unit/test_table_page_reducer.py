"""The table page's reducer (``web/table-state.js``) against the service: rounds of both seeds
with squeezes (the squeezer opening, the system opening at ``reveal_by`` and reported by the
next change), played over the in-memory repository; the state a player's token reads after
every change and the table's events are written as fixtures, and ``web/test/table-state.test.js``
checks under Node that a snapshot with the events after it applied gives what the state read
after them draws — for every snapshot and every later read. ``BACCARAT_WRITE_GOLDEN=1`` also
writes them to ``web/test/table-events.json`` (what ``node --test web/test`` reads alone)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from baccarat_api.clock import seconds_after
from baccarat_api.service import betting, events, presence, squeezing, table_state
from baccarat_api.service.callers import Player
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round

from .conftest import Game
from .test_betting import from_book, seeded, slip, table_with_shoe
from .test_service import OP
from .test_v2_flow import V2

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
FIXTURE = ROOT / "web" / "test" / "table-events.json"

TABLES = {
    "star-city": ({"profile": "star-city", "tier": "star-city-fun"}, ("banker", 1000)),
    "bid-squeeze": ({"profile": "bid-squeeze", "tier": "bid-squeeze-standard"}, ("player", 2000)),
}


def play(seed: str, shoe_seed: str) -> dict[str, Any]:
    """Three rounds at a ``seed`` table seen by alice's token: the state after every change."""
    game = seeded(Game(), shoe_seed)
    fields, line = TABLES[seed]
    t, shoe_id = table_with_shoe(game, **fields, banking="house", squeeze_seconds=10)
    me = Player(OP, "seat", "jti", 0, 2**31, t, "alice")
    repo = game.repo
    states: list[dict[str, Any]] = []

    def read() -> None:
        out, _ = table_state.table_state(repo, OP, t, me)
        state = out.model_dump(mode="json")
        if state["shoe"] is not None:  # the page draws its roads from the bead plate
            state["shoe"]["roads"] = {"bead_plate": state["shoe"]["roads"]["bead_plate"]}
        states.append(state)

    def change(call: Any) -> Any:
        try:
            out = call()
        except DomainError:
            out = None
        read()
        return out

    read()
    change(lambda: presence.take_seat(repo, OP, t, 1, "alice", 500_000, 3))
    change(lambda: presence.take_seat(repo, OP, t, 2, "bob", 500_000, 1))
    change(lambda: presence.join_watchers(repo, OP, t, "wendy"))
    for n in range(3):
        change(lambda: betting.open_betting(repo, OP, t))
        change(lambda: betting.place_slip(repo, OP, t, "alice", slip(line, ("tie", 100))))
        change(lambda: betting.place_slip(repo, OP, t, "bob", slip(("banker", 1500))))
        if n == 1:
            change(lambda: betting.cancel_slip(repo, OP, t, "bob"))
        dealt = change(lambda: from_book(game, shoe_id))
        rid = dealt.round_id
        game.clock.set(seconds_after(dealt.dealt_at, 2))
        if n != 1:  # the squeezers open the initial cards; in round 2 the system does
            for who in ("alice", "bob"):
                change(lambda w=who, r=rid: squeezing.reveal_round(repo, OP, r, w, "initial"))
        game.clock.set(seconds_after(dealt.dealt_at, 40))  # every countdown over
        change(lambda n=n: presence.join_watchers(repo, OP, t, f"w{n}"))  # reports the system's
        change(lambda r=rid: settle_round(repo, OP, r))
        game.clock.set(seconds_after(dealt.dealt_at, 45))
    change(lambda: presence.leave_seat(repo, OP, t, 2))
    page, _ = events.table_events(repo, OP, t, 0, 500)
    return {
        "seed": seed,
        "me": "alice",
        "states": states,
        "events": [e.model_dump(mode="json") for e in page.events],
    }


def play_v2() -> dict[str, Any]:
    """Three rounds at a bacc-pf-v2 star-city table (the local test beacon, ``FakeBeacon``):
    each locked (``round_locked``: the page waits for its beacon round), round 1 drawn, round 2
    voided ``beacon_unavailable`` (an outage), round 3 drawn and squeezed; every state read."""
    game = seeded(Game(), "reducer-v2")
    v2 = V2(game, squeeze_seconds=10)
    t, me, repo = v2.table.table_id, None, game.repo
    shoe_id = v2.commit()
    states: list[dict[str, Any]] = []

    def read() -> None:
        out, _ = table_state.table_state(repo, OP, t, me)
        state = out.model_dump(mode="json")
        if state["shoe"] is not None:
            state["shoe"]["roads"] = {"bead_plate": state["shoe"]["roads"]["bead_plate"]}
        states.append(state)

    me = Player(OP, "seat", "jti", 0, 2**31, t, "alice")
    read()
    presence.take_seat(repo, OP, t, 1, "alice", 500_000, 3)
    presence.take_seat(repo, OP, t, 2, "bob", 500_000, 1)
    read()
    for n in range(3):
        betting.open_betting(repo, OP, t)
        betting.place_slip(repo, OP, t, "alice", slip(("banker", 1000)))
        betting.place_slip(repo, OP, t, "bob", slip(("player", 1500)))
        read()
        locked = from_book(game, shoe_id)
        read()
        v2.beacon.down = n == 1
        while (tick := v2.sched.take()) is not None:  # the draw, or its retries then the void
            v2.deliver(tick)
        read()
        if n != 1:
            game.clock.set(seconds_after(game.clock(), 40))  # the system opens every card
            presence.join_watchers(repo, OP, t, f"w{n}")  # reports the system's reveals
            read()
            settle_round(repo, OP, locked.round_id)
            read()
    page, _ = events.table_events(repo, OP, t, 0, 500)
    assert [e.type for e in page.events].count("round_locked") == 3
    return {"seed": "star-city-v2", "me": "alice", "states": states,
            "events": [e.model_dump(mode="json") for e in page.events]}  # fmt: skip


def fixtures() -> dict[str, Any]:
    return {"cases": [play(seed, f"reducer-{seed}") for seed in sorted(TABLES)] + [play_v2()]}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_page_reducer_draws_from_a_snapshot_and_events_what_the_state_shows(
    tmp_path: Path,
) -> None:
    data = fixtures()
    path = tmp_path / "table-events.json"
    path.write_text(json.dumps(data))
    if os.environ.get("BACCARAT_WRITE_GOLDEN") == "1":
        FIXTURE.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    assert NODE is not None
    out = subprocess.run(
        [NODE, "--test", str(ROOT / "web" / "test" / "table-state.test.js")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TABLE_EVENTS_FIXTURE": str(path)},
    )
    assert out.returncode == 0, out.stdout + out.stderr
