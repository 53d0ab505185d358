"""``ticks.derive``: a running table's next step from its live state alone, state by state."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from baccarat_api.ports.documents import ClockDoc, LiveSqueeze
from baccarat_api.ports.records import LiveRecord
from baccarat_api.service import ticks

T0 = "2026-01-01T00:00:00.000Z"
SHOE = "tbl_aaaaaaaaaaaaaaaa_s1"
ROUND = "tbl_aaaaaaaaaaaaaaaa_s1_r3"
S2 = "tbl_aaaaaaaaaaaaaaaa_s2"
CLOCK: ClockDoc = {
    "dealing": "auto",
    "pause_seconds": 5,
    "paused": False,
    "needs_banker": False,
    "waiting": None,
    "resolved_at": "2026-01-01T00:00:40.000Z",
}
SEATED = {"1": {"bettor_id": "alice", "balance": 50_000}}
WINDOW = {
    "shoe_id": SHOE,
    "round_number": 4,
    "opened_at": "2026-01-01T00:00:45.000Z",
    "closes_at": "2026-01-01T00:01:00.000Z",
    "status": "open",
    "round_id": None,
}
# a squeeze dealt at T0, 10 s a step: the initial step by alice (banker) and the system (player)
SQUEEZE: LiveSqueeze = {
    "round_id": ROUND,
    "dealt_at": T0,
    "seconds": 10,
    "hands": {"initial": {"player": None, "banker": "alice"}, "draws": {"player": "alice"}},
    "reveals": [],
    "noticed": [],
}


def live(**fields: Any) -> LiveRecord:
    base = LiveRecord(
        "op",
        "tbl_aaaaaaaaaaaaaaaa",
        seats=SEATED,  # type: ignore[arg-type]
        open_shoe_id=SHOE,
        clock=CLOCK,
        last_round={"round_id": ROUND, "shoe_id": SHOE, "round_number": 3, "resolved": True,
                    "spectators": []},
    )  # fmt: skip
    return replace(base, **fields)


def unresolved(**fields: Any) -> LiveRecord:
    last = {"round_id": ROUND, "shoe_id": SHOE, "round_number": 3, "resolved": False,
            "spectators": []}  # fmt: skip
    return live(last_round=last, **fields)


def step(tick: Any) -> tuple[str, str, str] | None:
    return None if tick is None else (tick["step"], tick["key"], tick["due"])


CASES: list[tuple[str, LiveRecord, str, tuple[str, str, str] | None]] = [
    ("an operator table", live(clock=None), T0, None),
    ("an open window", live(betting=WINDOW), T0,
     ("close", WINDOW["opened_at"], WINDOW["closes_at"])),
    ("a window past closes_at", live(betting=WINDOW), "2026-01-01T00:09:00.000Z",
     ("close", WINDOW["opened_at"], WINDOW["closes_at"])),
    ("a window paused: still dealt", live(betting=WINDOW, clock={**CLOCK, "paused": True}), T0,
     ("close", WINDOW["opened_at"], WINDOW["closes_at"])),
    ("a closed shoe's window is void", live(betting=WINDOW, open_shoe_id=None), T0,
     ("commit", SHOE, CLOCK["resolved_at"])),
    ("a dealt window: the pause", live(betting={**WINDOW, "status": "dealt", "round_id": ROUND}),
     T0, ("open", f"{SHOE}:4", "2026-01-01T00:00:45.000Z")),
    ("squeezing the initial step", unresolved(squeeze=SQUEEZE), "2026-01-01T00:00:03.000Z",
     ("reveal", f"{ROUND}:initial", "2026-01-01T00:00:10.000Z")),
    ("opened by the system, not reported", unresolved(squeeze=SQUEEZE),
     "2026-01-01T00:00:12.000Z",
     ("reveal", f"{ROUND}:initial", "2026-01-01T00:00:10.000Z")),
    ("reported: the draws count from it",
     unresolved(squeeze={**SQUEEZE, "noticed": ["initial"]}), "2026-01-01T00:00:12.000Z",
     ("reveal", f"{ROUND}:draws", "2026-01-01T00:00:20.000Z")),
    ("every card shown: settle when the last was",
     unresolved(squeeze={**SQUEEZE, "noticed": ["initial", "draws"]}), "2026-01-01T00:00:30.000Z",
     ("settle", ROUND, "2026-01-01T00:00:20.000Z")),
    ("squeezers opened everything",
     unresolved(squeeze={**SQUEEZE, "hands": {"initial": {"banker": "alice"}},
                         "reveals": [{"step": "initial", "hands": ["banker"], "by": "alice",
                                      "at": "2026-01-01T00:00:04.000Z"}],
                         "noticed": ["initial"]}),
     "2026-01-01T00:00:05.000Z", ("settle", ROUND, "2026-01-01T00:00:04.000Z")),
    ("dealt face up", unresolved(squeeze={**SQUEEZE, "hands": {}}), "2026-01-01T00:00:01.000Z",
     ("settle", ROUND, T0)),
    ("no squeeze copy", unresolved(), "2026-01-01T00:00:01.000Z",
     ("settle", ROUND, "2026-01-01T00:00:01.000Z")),
    ("paused mid-round: still revealed",
     unresolved(squeeze=SQUEEZE, clock={**CLOCK, "paused": True}),
     "2026-01-01T00:00:03.000Z", ("reveal", f"{ROUND}:initial", "2026-01-01T00:00:10.000Z")),
    ("resolved: open after the pause", live(), T0,
     ("open", f"{SHOE}:4", "2026-01-01T00:00:45.000Z")),
    ("a shoe's first round: at its commit", live(open_shoe_id=S2), T0,
     ("open", f"{S2}:1", CLOCK["resolved_at"])),
    ("a new table's first shoe", live(last_round=None), T0,
     ("open", f"{SHOE}:1", CLOCK["resolved_at"])),
    ("paused between rounds", live(clock={**CLOCK, "paused": True}), T0, None),
    ("nobody seated", live(seats={}), T0, None),
    ("the player-banker missing", live(clock={**CLOCK, "needs_banker": True}), T0, None),
    ("the player-banker present", live(clock={**CLOCK, "needs_banker": True},
                                        banker={"bettor_id": "pb", "balance": 1}), T0,
     ("open", f"{SHOE}:4", "2026-01-01T00:00:45.000Z")),
    ("the shoe ended: commit the next", live(open_shoe_id=None), T0,
     ("commit", SHOE, CLOCK["resolved_at"])),
    ("an empty table commits no shoe", live(open_shoe_id=None, seats={}), T0, None),
    ("a new table: commit its first", live(open_shoe_id=None, last_round=None), T0,
     ("commit", "first", CLOCK["resolved_at"])),
    ("paused: no shoe committed", live(open_shoe_id=None, clock={**CLOCK, "paused": True}), T0,
     None),
    ("waiting for a client seed", live(open_shoe_id=None,
                                       clock={**CLOCK, "waiting": "no_client_seed"}), T0, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("state", "at", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_derive_names_the_next_step_of_each_state(
    state: LiveRecord, at: str, expected: tuple[str, str, str] | None
) -> None:
    assert step(ticks.derive(state, at)) == expected


def test_a_round_resolved_or_a_shoe_committed_restarts_the_pause() -> None:
    before = unresolved(squeeze={**SQUEEZE, "noticed": ["initial", "draws"]})
    settled = replace(before, last_round={**before.last_round, "resolved": True})  # type: ignore[typeddict-item]
    at = "2026-01-01T00:00:31.000Z"
    after = ticks.clock_after(before, settled, at)
    assert after.clock is not None and after.clock.get("resolved_at") == at
    assert step(after.tick) == ("open", f"{SHOE}:4", "2026-01-01T00:00:36.000Z")
    # any other change leaves resolved_at and re-derives the same step
    again = ticks.clock_after(after, replace(after, watchers=["w"]), "2026-01-01T00:00:33.000Z")
    assert again.clock == after.clock and again.tick == after.tick
    # a committed shoe: its first window at the commit, no longer waiting for a seed
    ended = replace(after, open_shoe_id=None, clock={**CLOCK, "waiting": "no_client_seed"})
    assert ticks.derive(ended, at) is None
    committed = ticks.clock_after(ended, replace(ended, open_shoe_id=S2), at)
    assert committed.clock is not None and committed.clock["waiting"] is None
    assert step(committed.tick) == ("open", f"{S2}:1", at)
    # an operator table has no clock: nothing derived, nothing stored
    plain = live(clock=None)
    assert ticks.clock_after(plain, plain, at) == plain


def test_tick_of_names_the_table() -> None:
    assert ticks.tick_of(None) is None and ticks.tick_of(live()) is None
    stored = live(tick={"step": "open", "key": "k", "due": T0})
    assert ticks.tick_of(stored) == {
        "operator_id": "op", "table_id": "tbl_aaaaaaaaaaaaaaaa", "step": "open", "key": "k",
        "due": T0,
    }  # fmt: skip
