"""A change of a table's live state, end to end: read the table and its live state, decide,
write the change with its events conditionally on the live state's ``seq`` (lost to another
change: decided again), a retried request replaying the first answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from baccarat_api.ports.records import LiveRecord, TableRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.ports.writes import Emit, Write
from baccarat_api.service import idempotency
from baccarat_api.service.events import Change, LiveMoved, complete, emit, retrying
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.reading import table_live

#: What a decision returns: the events and the live state's changed fields, or ``None``
#: (nothing to change).
Decision = tuple[list[Change], dict[str, Any]] | None

T = TypeVar("T")


def commit(
    repo: Repository,
    what: str,
    ev: Emit,
    out: T,
    operator_id: str,
    idem: IdempotencyRequest | None,
    writes: Sequence[Write] = (),
) -> T:
    """``out``, once the live change ``ev`` (with ``writes``) is written with ``out`` recorded
    as the answer to ``idem``; :class:`~.events.LiveMoved` when the live state moved since it
    was read (a duplicate that lost replays the first answer on its next attempt)."""
    ev = complete(repo, ev)
    stored = (
        idempotency.record(repo.clock(), idem, operator_id, idempotency.answer(out))
        if idem
        else None
    )
    try:
        repo.table_change(what, ev, writes, idem=stored)
    except ConditionFailed:
        raise LiveMoved from None
    return out


def live_change(
    repo: Repository,
    operator_id: str,
    table_id: str,
    decide: Callable[[TableRecord, LiveRecord], Decision],
    view: Callable[[str, LiveRecord | None], T],
    idem: IdempotencyRequest | None = None,
) -> T:
    """Read the table and its live state, ``decide`` (raises a refusal, or returns the events
    and changes), write them conditionally on ``seq``; lost to another change: decided again.
    Answers ``view`` of the live state after (as read, when nothing changed). With ``idem``
    (a POST's key) the key's record is read with the live state (a live one is replayed) and
    written with the change."""

    def attempt() -> T:
        table, live = table_live(repo, operator_id, table_id, idem)
        decision = decide(table, live or LiveRecord(operator_id, table_id))
        if decision is None:
            return view(table_id, live)
        reported, changes = decision
        ev = emit(live, operator_id, table_id, repo.clock(), reported, **changes)
        return commit(repo, "live", ev, view(table_id, ev.after), operator_id, idem)

    return idempotency.replaying_refusals(repo, operator_id, idem, lambda: retrying(attempt))
