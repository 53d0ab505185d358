"""The running table's steps, each when its tick is delivered: re-read the table, act only if
the tick is still its next step and due (then through the use case the operator would call,
conditional on the live state's ``seq``), else do nothing. And the operator's control of a
running table: pause (the round in flight finishes, no new window opens, no shoe is
committed) and resume.

A tick delivered twice finds the state moved on (its key stale); late, it acts late, once;
after the table changed (someone left, the shoe was closed, the round voided, the table
paused) the step derived now is another one, or the use case refuses and the window is
cancelled. A lost tick is found again by the sweep from the live state's own ``tick``
(:func:`~.ticks.tick_of`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from baccarat_api.clock import seconds_after
from baccarat_api.ids import parse_table_id
from baccarat_api.limits import BEACON_RETRY_SECONDS
from baccarat_api.ports.beacon import BeaconSource
from baccarat_api.ports.documents import ClockDoc, TickDoc
from baccarat_api.ports.records import LiveRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.scheduler import Scheduler, Tick
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service import betting, client_seeds, drawing, squeezing, ticks
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.errors import DomainError, not_found
from baccarat_api.service.events import ATTEMPTS
from baccarat_api.service.idempotency import IdempotencyRequest, Replayed
from baccarat_api.service.live import Decision, live_change
from baccarat_api.service.models import DealRequest, TableClockOut
from baccarat_api.service.settling import settle_round
from baccarat_api.service.table_state import clock_view

#: What delivering a tick did: the step was taken; the tick was no longer the table's next step
#: (or the table changed: nothing written); it is not due yet (deliver again later); a draw
#: waits for its beacon (its own timer tries again).
Outcome = Literal["done", "stale", "early", "waiting"]
#: A step's own answer: an :data:`Outcome`, or "again" (the table moved between the read and
#: the step's decision: read it and decide again).
_StepOut = Literal["done", "stale", "early", "again", "waiting"]


def run_tick(
    repo: Repository,
    shoes: ShoeSource,
    vault: SecretVault,
    tick: Tick,
    beacon: BeaconSource | None = None,
) -> Outcome:
    """Take the step ``tick`` names if it is still the table's next step and due: the live
    state read again (strongly consistent) and the step derived from it now. ``beacon``: the
    deployment's, for a bacc-pf-v2 round's ``draw``."""
    for _ in range(ATTEMPTS):
        live = repo.load(tick["operator_id"], live=tick["table_id"]).live
        if live is None:
            return "stale"
        now = repo.clock()
        current = ticks.derive(live, now)
        if current is None or (current["step"], current["key"]) != (tick["step"], tick["key"]):
            return "stale"
        if current["due"] > now:
            return "early"
        if current["step"] == "draw":
            out = _draw(repo, shoes, beacon, live, current)
        else:
            out = _STEPS[current["step"]](repo, shoes, vault, live, current)
        if out != "again":
            return out
    return "stale"  # the table kept changing: the change that moved it derived its next step


def _close(
    repo: Repository, shoes: ShoeSource, vault: SecretVault, live: LiveRecord, tick: TickDoc
) -> _StepOut:
    """Deal the window from its book at its ``closes_at`` (``betting_closed``,
    ``round_dealt``…); a deal refused for good (e.g. ``company_required``: someone left)
    cancels the window (``betting_cancelled``)."""
    window = live.betting
    assert window is not None
    opened_at = window["opened_at"]
    request = DealRequest(from_book=True, round_number=window["round_number"])
    try:
        deal_round(repo, shoes, live.operator_id, window["shoe_id"], request, window=opened_at)
    except Replayed:
        return "stale"
    except DomainError as exc:
        if exc.code == "no_betting_window":
            return "stale"  # dealt or replaced meanwhile
        if exc.retryable:
            raise
        cancelled = betting.cancel_window(
            repo, live.operator_id, live.table_id, opened_at, live.seq, exc.code, repo.clock(),
            due=False,
        )  # fmt: skip
        return "done" if cancelled else "again"  # the table moved since it was read: decide again
    return "done"


def _draw(
    repo: Repository,
    shoes: ShoeSource,
    beacon: BeaconSource | None,
    live: LiveRecord,
    tick: TickDoc,
) -> _StepOut:
    """Draw the locked round with its beacon, or void it once its wait is over
    (:func:`.drawing.draw`); its beacon not there yet: the same step again in
    ``BEACON_RETRY_SECONDS`` (its own timer; the sweep would find it too)."""
    out = drawing.draw(repo, shoes, beacon, live.operator_id, tick["key"])
    if out != "wait":
        return out
    scheduler: Scheduler | None = getattr(repo, "scheduler", None)
    if scheduler is not None:
        due = seconds_after(repo.clock(), BEACON_RETRY_SECONDS)
        scheduler.schedule(Tick(operator_id=live.operator_id, table_id=live.table_id,
                                step="draw", key=tick["key"], due=due))  # fmt: skip
    return "waiting"


def _reveal(
    repo: Repository, shoes: ShoeSource, vault: SecretVault, live: LiveRecord, tick: TickDoc
) -> Outcome:
    """Write the system's reveal of the step now; if that shows every card, settle at once."""
    round_id, step = tick["key"].rsplit(":", 1)
    if not squeezing.system_reveal(repo, live.operator_id, round_id, step):
        return "stale"
    after = repo.load(live.operator_id, live=live.table_id).live
    nxt = None if after is None else ticks.derive(after, repo.clock())
    if nxt is not None and nxt["step"] == "settle" and nxt["key"] == round_id:
        _settle(repo, shoes, vault, live, nxt)
    return "done"


def _settle(
    repo: Repository, shoes: ShoeSource, vault: SecretVault, live: LiveRecord, tick: TickDoc
) -> Outcome:
    """Settle the round once every card is shown (``round_settled``)."""
    try:
        settle_round(repo, live.operator_id, tick["key"])
    except DomainError as exc:
        if exc.code in ("round_voided", "not_found", "cards_not_shown"):
            return "stale"
        raise
    return "done"


def _open(
    repo: Repository, shoes: ShoeSource, vault: SecretVault, live: LiveRecord, tick: TickDoc
) -> Outcome:
    """Open the next betting window (``betting_opened``); refused (the company left, the shoe
    ended, a window waits) or paused meanwhile → nothing: the change that caused it derived
    the next step."""
    try:
        out = betting.open_betting(repo, live.operator_id, live.table_id, system=True)
    except DomainError as exc:
        if exc.retryable:
            raise
        return "stale"
    window = out.betting  # the step's window, or (paused meanwhile) the table's last one
    opened = window is not None and f"{window.shoe_id}:{window.round_number}" == tick["key"]
    return "done" if opened else "stale"


def _commit(
    repo: Repository, shoes: ShoeSource, vault: SecretVault, live: LiveRecord, tick: TickDoc
) -> Outcome:
    """Commit the next shoe with the oldest client seed given in advance (``shoe_committed``),
    or report once that none is queued (``table_waiting``): ``client_seeds.commit_next``."""
    try:
        client_seeds.commit_next(repo, vault, live.operator_id, live.table_id)
    except DomainError as exc:
        if exc.retryable:
            raise
        return "stale"
    return "done"


_Step = Callable[[Repository, ShoeSource, SecretVault, LiveRecord, TickDoc], _StepOut]
_STEPS: dict[str, _Step] = {
    "close": _close,
    "reveal": _reveal,
    "settle": _settle,
    "open": _open,
    "commit": _commit,
}


# --- the operator's control --------------------------------------------------------------------


def pause(
    repo: Repository, operator_id: str, table_id: str, idem: IdempotencyRequest | None = None
) -> TableClockOut:
    """Pause a running table (``table_paused``): the round in flight is dealt, revealed and
    settled; no new window opens and no shoe is committed until :func:`resume`. Pausing a
    paused table changes nothing. 409 ``not_auto_dealing`` at an operator table."""
    return _set_paused(repo, operator_id, table_id, True, idem)


def resume(
    repo: Repository, operator_id: str, table_id: str, idem: IdempotencyRequest | None = None
) -> TableClockOut:
    """Resume a paused running table (``table_resumed``): its next step is derived again —
    a window due during the pause opens at once. Resuming a running table changes nothing."""
    return _set_paused(repo, operator_id, table_id, False, idem)


def _set_paused(
    repo: Repository,
    operator_id: str,
    table_id: str,
    paused: bool,
    idem: IdempotencyRequest | None,
) -> TableClockOut:
    if parse_table_id(table_id) is None:
        raise not_found("table", table_id)

    def decide(table: TableRecord, live: LiveRecord) -> Decision:
        clock = live.clock
        if clock is None:
            raise DomainError(
                "not_auto_dealing", "this table is dealt by the operator: it has no clock"
            )
        if clock["paused"] == paused:
            return None
        moved = ClockDoc(**clock)
        moved["paused"] = paused
        return [("table_paused" if paused else "table_resumed", {})], {"clock": moved}

    def view(_table_id: str, live: LiveRecord | None) -> TableClockOut:
        shown = clock_view(live)
        if shown is None:  # an operator table with no live state yet
            raise DomainError(
                "not_auto_dealing", "this table is dealt by the operator: it has no clock"
            )
        return TableClockOut.model_validate(shown)

    return live_change(repo, operator_id, table_id, decide, view, idem)
