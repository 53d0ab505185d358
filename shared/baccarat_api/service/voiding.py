"""Void a round: every stake goes back, once, and the round can never be settled.

Accepted for a round neither settled nor voided, within its table's ``void_window_seconds`` after
the deal (0: no voids; else 409 ``void_window_closed``), for one of
:data:`baccarat.proofdoc.VOID_REASONS`. The void stores what it replaced (the money fixed at the
deal), which the shoe's proof shows, under the condition a settlement has — so a round ends
settled or voided, never both. Voiding again answers the same void; a settled round answers 409
``round_settled``. Nothing is deleted.

Round trips: read the round + one conditional write = 2 (1 when already voided); with an
``Idempotency-Key`` the record rides in the same read and write."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from baccarat.profiles import TableConfig
from baccarat.proofdoc import replaced_amounts
from baccarat_api.ports.documents import Replaced, Void
from baccarat_api.ports.records import LiveRecord, RoundRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.writes import Emit
from baccarat_api.service import book_presence, idempotency, settle_chunks
from baccarat_api.service.after_round import after_resolution
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.events import LiveMoved, complete, emit, money_summary, retrying
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import SettlementOut
from baccarat_api.service.money import void_out
from baccarat_api.service.reading import round_live
from baccarat_api.service.reveals import face_down
from baccarat_api.service.writeids import write_id


def voided_error(r: RoundRecord) -> DomainError:
    """409: a voided round can never be settled."""
    void = r.void
    return DomainError(
        "round_voided",
        f"round {r.round_id} was voided; a voided round can never be settled",
        details={
            "void_reason": None if void is None else void["reason"],
            "voided_at": None if void is None else void["voided_at"],
        },
    )


def settled_error(r: RoundRecord) -> DomainError:
    """409: a settled round cannot be voided."""
    return DomainError(
        "round_settled",
        f"round {r.round_id} is settled; a settled round cannot be voided",
        details={"settled_at": r.settled_at},
    )


def _window_closed_error(r: RoundRecord, at: str) -> DomainError | None:
    deadline = r.void_by
    if deadline is not None and at <= deadline:
        return None
    why = (
        "voids are disabled at this table"
        if deadline is None
        else f"its void window ended at {deadline}"
    )
    return DomainError(
        "void_window_closed",
        f"round {r.round_id} can no longer be voided: {why}",
        details={"void_window_seconds": r.void_window_seconds, "void_by": deadline},
    )


def reread(repo: Repository, r: RoundRecord, exc: Exception) -> RoundRecord | None:
    """The round as it is after a settlement or void write that lost its condition (brought
    back by the failed write itself) or whose outcome is unknown (one more GetItem)."""
    if isinstance(exc, ConditionFailed) and isinstance(exc.existing, RoundRecord):
        return exc.existing
    return repo.get_round(r.operator_id, r.ref)


def _answer(r: RoundRecord) -> dict[str, object]:
    return void_out(r).model_dump(mode="json")


def void_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    *,
    reason: str,
    note: str | None = None,
    idem: IdempotencyRequest | None = None,
) -> SettlementOut:
    """Reports ``round_voided``."""
    return retrying(lambda: _void_round(repo, operator_id, round_id, reason, note, idem))


def _void_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    reason: str,
    note: str | None,
    idem: IdempotencyRequest | None,
) -> SettlementOut:
    r, live = round_live(repo, operator_id, round_id, idem, _answer)
    if r.void is not None:  # voiding again returns the same void
        return void_out(r)
    if r.settled_at is not None:
        raise settled_error(r)
    voided_at = repo.clock()
    closed = _window_closed_error(r, voided_at)
    if closed is not None:
        raise closed
    void: Void = {
        "reason": reason,
        "note": note,
        "voided_at": voided_at,
        "replaced": cast(Replaced, replaced_amounts(r.money)),
    }
    if r.book is not None:  # every slip of the locked book refunded: its totals replaced
        void["replaced"]["book_totals"] = r.book["totals"]
    seq = 0 if live is None else live.seq
    wid = write_id(operator_id, "void", round_id, {"reason": reason, "note": note}, idem, seq)
    record = idempotency.record(repo.clock(), idem, operator_id, round_id=round_id)
    ev = complete(repo, _void_events(r, live, void), replace(r, void=void))
    try:
        repo.void_round(r, void, record, write_id=wid, emit=ev)
    except (ConditionFailed, OutcomeUnknown) as exc:
        return _answer_after_lost_write(repo, r, exc)
    voided = replace(r, void=void, resolve_write_id=wid)
    settle_chunks.start(repo, voided)  # a book round: its voided receipts and pages, in chunks
    book_presence.after_resolution(repo, voided, ev)
    return void_out(voided)


def _void_events(r: RoundRecord, live: LiveRecord | None, void: Void) -> Emit:
    """``round_voided`` — its nets and house take ``null`` while a card is face down (what the
    void replaced is the outcome; the shoe's proof prices it once the shoe ends) —, the
    presence it moves, and the end of the round's squeeze (no system reveal after a void)."""
    summary = money_summary(r)
    hidden = face_down(r, void["voided_at"]) is not None
    data: dict[str, Any] = {
        "round_id": r.round_id,
        "reason": void["reason"],
        "nets": None if hidden else summary["nets"],
        "house_take": None if hidden else summary["house_take"],
    }
    if r.book is not None:  # a book round: the book's totals it replaces, priced as the nets
        data["book_totals"] = None if hidden else r.book["totals"]
    voided_event = ("round_voided", data)
    removed, moved = after_resolution(TableConfig.from_dict(r.config), live, r, voided=True)
    if live is not None and live.squeeze is not None and live.squeeze["round_id"] == r.round_id:
        moved["squeeze"] = None
    events = [voided_event, *removed]
    return emit(live, r.operator_id, r.table_id, void["voided_at"], events, **moved)


def _answer_after_lost_write(repo: Repository, r: RoundRecord, exc: Exception) -> SettlementOut:
    """A void whose write lost or timed out: the void found (ours, or one that came first:
    voiding again), or 409 ``round_settled``."""
    current = resolved_round(repo, r, exc)
    if current.void is not None:
        return void_out(current)
    raise settled_error(current) from None


def resolved_round(repo: Repository, r: RoundRecord, exc: Exception) -> RoundRecord:
    """The round resolved, as a settlement or void whose write lost its condition or timed out
    finds it (:func:`reread`); still unresolved: the error — the outcome unknown, the same
    ``Idempotency-Key`` in flight, the table moved (:class:`LiveMoved`: computed again) or a
    lost race."""
    current = reread(repo, r, exc)
    if current is not None and current.resolved:
        return current
    if isinstance(exc, OutcomeUnknown):
        raise exc
    assert isinstance(exc, ConditionFailed)
    idempotency.check_duplicate(exc)
    if current is not None:
        raise LiveMoved from None  # the round is unresolved: another change at the table
    raise lost_race() from None
