"""The running table's next time-driven step, derived from its live state alone (pure): every
change at a running table stores it (``LiveRecord.tick``, set by :func:`~.events.emit`), the
repository schedules it after the change commits, and the table-clock job acts on it only if it
is still the table's next step when delivered.

The states and their steps (docs/design/table-clock.md §2), first that holds wins:

- a window waits to be dealt → ``close`` at its ``closes_at`` (key: its ``opened_at``);
- the latest round is dealt: a squeeze step still face down, or opened by the system and not
  reported yet → ``reveal`` at its ``reveal_by`` (key ``round_id:step``) — also when the round
  is resolved already (nobody bet: settled at its deal; its cards are still shown at their
  time, each system reveal written then); unresolved with every card shown → ``settle`` at
  once (key: the round id);
- no open shoe → ``commit`` once the latest round is resolved and its last card shown (key: the
  ended shoe's id), unless paused, waiting for a client seed or for company (an empty table
  commits no shoe: the idle close would otherwise spend a shoe of the chain each time);
- the latest round resolved, the company present, not paused → ``open`` at the later of its
  resolution and its last card shown + ``pause_seconds`` (a shoe's first round: at its commit)
  (key: shoe id and round number);
- else none (waiting for company, paused, waiting for a seed)."""

from __future__ import annotations

from dataclasses import replace

from baccarat.squeeze import live_steps
from baccarat_api.clock import seconds_after
from baccarat_api.ports.documents import ClockDoc, LiveSqueeze, TickDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.scheduler import Tick
from baccarat_api.service.window import WAITING


def derive(live: LiveRecord, at: str) -> TickDoc | None:
    """The table's next step as of ``at`` (``None``: an operator table, paused, waiting for
    company or a client seed)."""
    drawing = draw_step(live)
    clock = live.clock
    if clock is None or drawing is not None:
        return drawing
    betting = live.betting
    if (
        betting is not None
        and betting["status"] in WAITING
        and betting["shoe_id"] == live.open_shoe_id
    ):
        return TickDoc(step="close", key=betting["opened_at"], due=betting["closes_at"])
    last = live.last_round
    if last is not None and not last["resolved"]:
        return _squeeze_step(last["round_id"], live.squeeze, at)
    if last is not None and (face_down := _reveal_step(last["round_id"], live.squeeze, at)):
        return face_down
    if clock["paused"]:
        return None
    if live.open_shoe_id is None:
        return _commit_step(live, clock, at)
    return _open_step(live, clock, at)


def draw_step(live: LiveRecord) -> TickDoc | None:
    """A bacc-pf-v2 round locked and not drawn: ``draw`` at its beacon round's time (key: the
    round id) — at an operator table too (its only time-driven step). The step, until the
    beacon is verified, tries again every ``BEACON_RETRY_SECONDS`` (its own timer) and voids
    the round at its ``void_at``."""
    last = live.last_round
    if last is None or last["resolved"] or "draw_at" not in last:
        return None
    return TickDoc(step="draw", key=last["round_id"], due=last["draw_at"])


def _squeeze_step(round_id: str, sq: LiveSqueeze | None, at: str) -> TickDoc:
    """An unresolved round's next step: reveal the first step still face down (or opened by
    the system and not reported yet), else settle — due when its last card was shown."""
    face_down = _reveal_step(round_id, sq, at)
    if face_down is not None:
        return face_down
    return TickDoc(step="settle", key=round_id, due=_shown_at(round_id, sq, at) or at)


def _reveal_step(round_id: str, sq: LiveSqueeze | None, at: str) -> TickDoc | None:
    """The round's first squeeze step still face down, or opened by the system and not
    reported yet: ``reveal`` at its ``reveal_by`` (``None``: every card shown and reported, or
    no squeeze of that round — e.g. voided)."""
    if sq is None or sq["round_id"] != round_id:
        return None
    for s in live_steps(sq, at):
        unreported = s.status == "revealed" and s.by_system and s.step not in sq["noticed"]
        if s.status == "squeezing" or unreported:
            assert s.reveal_by is not None
            return TickDoc(step="reveal", key=f"{round_id}:{s.step}", due=s.reveal_by)
    return None


def _shown_at(round_id: str, sq: LiveSqueeze | None, at: str) -> str | None:
    """When the round's last card shown by ``at`` was shown (its deal, or its latest reveal);
    ``None`` when the live squeeze is not that round's (none, or another round's)."""
    if sq is None or sq["round_id"] != round_id:
        return None
    shown = sq["dealt_at"]
    for s in live_steps(sq, at):
        if s.revealed_at is not None:
            shown = max(shown, s.revealed_at)
    return shown


def _company(live: LiveRecord, clock: ClockDoc) -> bool:
    """The profile's company is at the table: a seated bettor (and the player-banker where the
    table needs one)."""
    return live.seats != {} and not (clock["needs_banker"] and live.banker is None)


def _commit_step(live: LiveRecord, clock: ClockDoc, at: str) -> TickDoc | None:
    if clock["waiting"] == "no_client_seed" or not _company(live, clock):
        return None  # an empty table commits no shoe (nor burns one per idle close)
    ended = "first" if live.last_round is None else live.last_round["shoe_id"]
    return TickDoc(step="commit", key=ended, due=_ready_at(live, clock, at))


def _open_step(live: LiveRecord, clock: ClockDoc, at: str) -> TickDoc | None:
    if not _company(live, clock):
        return None  # waiting for company: the presence change that completes it re-derives
    shoe_id = live.open_shoe_id
    assert shoe_id is not None
    last = live.last_round
    ready = _ready_at(live, clock, at)
    if last is not None and last["shoe_id"] == shoe_id:
        number = int(last["round_number"]) + 1
        due = seconds_after(ready, clock["pause_seconds"])
    else:
        number, due = 1, ready  # a shoe's first round: at its commit
    return TickDoc(step="open", key=f"{shoe_id}:{number}", due=due)


def _ready_at(live: LiveRecord, clock: ClockDoc, at: str) -> str:
    """When the table became ready for its next window or shoe: its latest round resolved (or
    a shoe committed) and that round's last card shown — a round nobody bet on is settled at
    its deal, its cards shown later."""
    ready = clock.get("resolved_at", at)
    last = live.last_round
    shown = None if last is None else _shown_at(last["round_id"], live.squeeze, at)
    return ready if shown is None else max(ready, shown)


def clock_after(before: LiveRecord, after: LiveRecord, at: str) -> LiveRecord:
    """``after`` (a running table's live state after a change at ``at``) with its clock's
    ``resolved_at`` moved when the change resolved the latest round or committed a shoe (then
    no longer waiting for a client seed), and its next step derived again."""
    if after.clock is None:  # an operator table: only a locked round's draw
        drawing = draw_step(after)
        return after if drawing == after.tick else replace(after, tick=drawing)
    if _became_ready(before, after):
        clock = ClockDoc(**after.clock)
        clock["resolved_at"] = at
        if after.open_shoe_id is not None:
            clock["waiting"] = None
        after = replace(after, clock=clock)
    return replace(after, tick=derive(after, at))


def _became_ready(before: LiveRecord, after: LiveRecord) -> bool:
    if after.open_shoe_id is not None and after.open_shoe_id != before.open_shoe_id:
        return True
    last, was = after.last_round, before.last_round
    if last is None or not last["resolved"]:
        return False
    return was is None or was["round_id"] != last["round_id"] or not was["resolved"]


def tick_of(live: LiveRecord | None) -> Tick | None:
    """The stored next step of ``live`` as a :class:`Tick` (``None``: none)."""
    if live is None or live.tick is None:
        return None
    t = live.tick
    return Tick(
        operator_id=live.operator_id,
        table_id=live.table_id,
        step=t["step"],
        key=t["key"],
        due=t["due"],
    )
