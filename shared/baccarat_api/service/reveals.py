"""The squeeze plan's pure rules: its steps as they stand at a moment, what a table shows of
them, and whether every card of a round is shown (nothing that depends on the outcome is shown
or moved before)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from baccarat.squeeze import step_hands, timeline
from baccarat_api.limits import DEFAULT_SQUEEZE_SECONDS
from baccarat_api.ports.documents import LiveSqueeze
from baccarat_api.ports.records import RoundRecord, ShoeRecord
from baccarat_api.service.errors import DomainError


def squeeze_seconds(shoe: ShoeRecord) -> int:
    """THE accessor of the ``squeeze_seconds`` a round is dealt with: the table's setting,
    copied to the shoe at its commit."""
    return int(shoe.squeeze_seconds)


def plan_seconds(plan: Mapping[str, Any]) -> int:
    return int(plan.get("squeeze_seconds", DEFAULT_SQUEEZE_SECONDS))


def squeeze_view(
    plan: Mapping[str, Any] | None,
    dealt_at: str,
    reveals: Sequence[Mapping[str, Any]],
    at: str | None,
) -> dict[str, Any] | None:
    """The plan as stored plus ``steps``: each step's status, ``reveal_by``, ``revealed_at`` and
    per hand its squeezer and who opened it (``at``: the moment; the deal's answer uses the deal
    time, so a replay is byte for byte the first answer)."""
    if plan is None:
        return None
    steps = timeline(step_hands(plan), dealt_at, plan_seconds(plan), reveals, at)
    return {**plan, "steps": {s.step: s.as_dict() for s in steps}}


def shown_plan(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A :func:`squeeze_view` as a table may show it: until the initial step is revealed, no
    ``draws`` (in the plan or its steps) — whether third cards come, and to which hand, gives
    the face-down initial cards away; and while the player's third card is face down, no
    banker third card — whether the banker draws depends on the player's third card (banker 6
    draws on a 6 or 7 only)."""
    if view is None:
        return None
    if view["steps"].get("initial", {}).get("status") not in (None, "revealed"):
        steps = {k: v for k, v in view["steps"].items() if k != "draws"}
        return {**view, "draws": [], "steps": steps}
    draws = view["steps"].get("draws")
    if draws is None or draws["hands"].get("player", {"opened": True})["opened"] is not None:
        return view
    hands = {h: v for h, v in draws["hands"].items() if h != "banker"}
    return {
        **view,
        "draws": [c for c in view["draws"] if c["hand"] != "banker"],
        "steps": {**view["steps"], "draws": {**draws, "hands": hands}},
    }


def face_down(r: RoundRecord, at: str) -> dict[str, Any] | None:
    """THE test of "every card of the round is shown at the table" at ``at``: ``None`` when
    they are (no plan, every step revealed by its squeezers or by the system at its
    ``reveal_by``), else the step still face down — ``{step, status,
    reveal_by}`` (the counting step; the system reveals it at ``reveal_by``; a voided round
    too: its squeezers may no longer reveal, the system does then). Nothing that depends on the
    round's outcome is shown or moved until this is ``None``."""
    if r.squeeze is None:
        return None
    for s in timeline(step_hands(r.squeeze), r.dealt_at, plan_seconds(r.squeeze), r.reveals, at):
        if s.status != "revealed":
            return {"step": s.step, "status": s.status, "reveal_by": s.reveal_by}
    return None


def cards_not_shown(r: RoundRecord, pending: dict[str, Any], at: str, what: str) -> DomainError:
    """409 ``cards_not_shown`` (retryable): ``what`` waits until every card of ``r`` is shown;
    ``details``: the step still face down and its ``reveal_by`` (when the system reveals it:
    retry then, or after the squeezers' reveals)."""
    reveal_by = pending["reveal_by"]
    wait = None
    if reveal_by is not None:
        ms = (_moment(reveal_by) - _moment(at)).total_seconds()
        wait = max(1, math.ceil(ms))
    return DomainError(
        "cards_not_shown",
        f"round {r.round_id}: {what} once every card is shown; its {pending['step']} cards are "
        f"still face down (the system reveals them at {reveal_by})",
        details={"round_id": r.round_id, **pending},
        retry_after=wait,
    )


def _moment(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def live_squeeze(r: RoundRecord) -> LiveSqueeze | None:
    """The live state's copy of a round's squeeze (set by its deal, moved by its reveals)."""
    if r.squeeze is None:
        return None
    return {
        "round_id": r.round_id,
        "dealt_at": r.dealt_at,
        "seconds": plan_seconds(r.squeeze),
        "hands": step_hands(r.squeeze),
        "reveals": list(r.reveals),
        "noticed": [],
    }


def cards_shown(r: RoundRecord, at: str) -> bool:
    """Whether every card of the round is shown at the table at ``at`` (:func:`face_down`)."""
    return face_down(r, at) is None
