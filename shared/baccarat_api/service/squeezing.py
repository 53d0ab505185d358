"""The squeeze countdown: a squeezer's reveal of a step, and the player-banker's urge.

A step's state (who opened, when, whether the system did at ``reveal_by``) is computed from the
plan, the deal time and the reveals wherever it is read (:mod:`.reveals`), so it is exact
without a write; the system's ``squeeze_revealed`` event is written by the next change at the
table (:func:`~.events.emit`) — at a running table by its clock at ``reveal_by``
(:func:`system_reveal`).

Round trips: a reveal or an urge is BatchGetItem (round or table + live state) +
TransactWriteItems (the change, the live state, the events) = 2."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from baccarat.profiles import Banking, TableConfig
from baccarat.squeeze import RevealRefused, live_steps, step_hands
from baccarat.squeeze import reveal as core_reveal
from baccarat_api.clock import ms_of
from baccarat_api.ids import RoundRef, parse_round_id, parse_shoe_id
from baccarat_api.limits import URGE_COOLDOWN_SECONDS
from baccarat_api.ports.documents import Reveal
from baccarat_api.ports.records import LiveRecord, RoundRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.writes import ABSENT, Update
from baccarat_api.service import idempotency, ticks
from baccarat_api.service.errors import DomainError
from baccarat_api.service.events import SqueezeRevealed, Urged, emit, retrying
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.live import Decision, commit, live_change
from baccarat_api.service.models import RevealOut, UrgeOut
from baccarat_api.service.reading import round_snapshot, table_live
from baccarat_api.service.reveals import plan_seconds, shown_plan, squeeze_view
from baccarat_api.service.window import window_status


def reveal_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    bettor_id: str,
    step: str,
    idem: IdempotencyRequest | None = None,
) -> RevealOut:
    """The squeezer ``bettor_id`` opens their hands of ``step``; reports ``squeeze_revealed``.
    With ``idem`` (its record read with the round, written with the reveal) a retry replays
    the first answer, not 409 ``already_revealed``."""

    def attempt() -> RevealOut:
        snap = round_snapshot(repo, operator_id, round_id, idem, shoe=True)
        r, live = snap.round, snap.live
        assert r is not None
        if r.void is not None:
            raise DomainError("round_voided", f"round {round_id} is voided")
        if r.squeeze is None:
            raise DomainError("no_squeeze", "this round has no reveal plan: nothing to reveal")
        at = repo.clock()
        try:
            record = core_reveal(
                step_hands(r.squeeze),
                r.dealt_at,
                plan_seconds(r.squeeze),
                r.reveals,
                step,
                bettor_id,
                at,
            )
        except RevealRefused as exc:
            raise DomainError(exc.code, str(exc), details=exc.details) from None
        reveals = [*r.reveals, cast(Reveal, record)]
        changes: dict[str, Any] = {}
        sq = None if live is None else live.squeeze
        if sq is not None and sq["round_id"] == round_id:
            sq = {**sq, "reveals": reveals}
            state = next(s for s in live_steps(sq, at) if s.step == step)
            if state.status == "revealed":
                sq = {**sq, "noticed": [*sq["noticed"], step]}
            changes["squeeze"] = sq
        data = SqueezeRevealed(
            round_id=round_id, step=step, by=bettor_id, hands=record["hands"], revealed_at=at
        )
        event = ("squeeze_revealed", data)
        shows = (replace(r, reveals=reveals), snap.shoe)
        ev = emit(live, operator_id, r.table_id, at, [event], shows=shows, **changes)
        moved = Update(
            RoundRecord,
            (r.operator_id, r.table_id, r.shoe_number, r.round_number),
            set={"reveals": reveals},
            # the reveals as read: a BatchGetItem is not isolated from a transaction, so the
            # live state can be read after a winner's reveal and the round before it
            expect={"void": ABSENT, "reveals": r.reveals},
        )
        view = shown_plan(squeeze_view(r.squeeze, r.dealt_at, reveals, at))
        assert view is not None
        out = RevealOut(round_id=round_id, squeeze=view, seq=ev.after.seq)
        return commit(repo, "reveal", ev, out, operator_id, idem, [moved])

    return idempotency.replaying_refusals(repo, operator_id, idem, lambda: retrying(attempt))


def system_reveal(repo: Repository, operator_id: str, round_id: str, step: str) -> bool:
    """Write now the ``squeeze_revealed`` (``by: system``) of ``step`` of the table's latest
    round, opened by the system at its ``reveal_by``: a change of the live state with no event
    of its own (:func:`~.events.emit` reports the system's reveals first). Only while that step
    is the table's next one and past its deadline; else nothing is written (False)."""
    ref = parse_round_id(round_id)
    if ref is None:
        return False
    written: list[bool] = []

    def decide(table: TableRecord, live: LiveRecord) -> Decision:
        written.clear()  # decided again after losing a race: only the write that lands counts
        at = repo.clock()
        tick = ticks.derive(live, at)
        if tick is None or tick["step"] != "reveal" or tick["key"] != f"{round_id}:{step}":
            return None
        if tick["due"] > at:
            return None
        written.append(True)
        return [], {}

    live_change(repo, operator_id, ref.table_id, decide, lambda _t, _l: None)
    return bool(written)


def urge(
    repo: Repository,
    operator_id: str,
    table_id: str,
    bettor_id: str,
    idem: IdempotencyRequest | None = None,
) -> UrgeOut:
    """The player-banker's urge button (seed 000: 荷官可以使用【催促鈕】來提醒其他玩家押注):
    only the seated player-banker of a player-banker table presses it; reports ``urge``. With
    ``idem`` a retry replays the first answer and presses nothing again."""

    def attempt() -> UrgeOut:
        table, live = table_live(repo, operator_id, table_id, idem)
        config = TableConfig.from_dict(table.config)
        if config.banking is not Banking.PLAYER_BANKER:
            raise DomainError(
                "player_banker_not_allowed",
                "this table is banked by the house: it has no player-banker and no urge button",
            )
        banker = None if live is None or live.banker is None else live.banker["bettor_id"]
        if banker != bettor_id:
            raise DomainError(
                "not_player_banker",
                f"only the seated player-banker urges; {bettor_id} is not",
                details={"bettor_id": bettor_id},
            )
        at = repo.clock()
        assert live is not None
        _check_cooldown(live, at)
        data = Urged(bettor_id=bettor_id, round_id=_current_round(live, at))
        ev = emit(live, operator_id, table_id, at, [("urge", data)], urged_at=at)
        out = UrgeOut(table_id=table_id, round_id=data["round_id"], seq=ev.after.seq)
        return commit(repo, "urge", ev, out, operator_id, idem)

    return idempotency.replaying_refusals(repo, operator_id, idem, lambda: retrying(attempt))


def _check_cooldown(live: LiveRecord, at: str) -> None:
    """429 ``urge_cooldown`` while the table's last urge is less than
    :data:`~baccarat_api.limits.URGE_COOLDOWN_SECONDS` old (each press writes a permanent event
    and moves the table's ``seq`` under its deals, slips and settlements), with
    ``retry_after``: whole seconds until a press is taken again. The urge's write is
    conditional on the live state this read (its ``seq``), so presses racing it lose, read
    the new ``urged_at`` and are refused: one event."""
    if live.urged_at is None:
        return
    left_ms = ms_of(live.urged_at) + URGE_COOLDOWN_SECONDS * 1000 - ms_of(at)
    if left_ms <= 0:
        return
    wait = -(-left_ms // 1000)
    raise DomainError(
        "urge_cooldown",
        f"the urge button was pressed at {live.urged_at}; the next press is taken "
        f"{URGE_COOLDOWN_SECONDS} s after it",
        details={"retry_after_seconds": wait, "urged_at": live.urged_at},
        retry_after=wait,
    )


def _current_round(live: LiveRecord, at: str) -> str | None:
    """The round the table is waiting on: the one its open betting window takes bets for, else
    the latest dealt round while its squeeze lasts, else none."""
    betting = live.betting
    if betting is not None and window_status(betting, at) == "open":
        shoe = parse_shoe_id(str(betting["shoe_id"]))
        assert shoe is not None
        return RoundRef(shoe.table_id, shoe.shoe_number, int(betting["round_number"])).round_id
    sq = live.squeeze
    if sq is not None and any(s.status != "revealed" for s in live_steps(sq, at)):
        return str(sq["round_id"])
    return None
