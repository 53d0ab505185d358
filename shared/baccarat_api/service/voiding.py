"""Void a round: every stake goes back, once, and the round can never be settled — bounded in
time and priced in public.

``POST /v1/rounds/{round_id}/void {reason, note?}`` is accepted only for a round that is neither
settled nor voided, within the table's ``void_window_seconds`` after its deal (0: the table
allows no voids); otherwise 409 ``void_window_closed``. ``reason`` is one of
:data:`baccarat.proofdoc.VOID_REASONS`. The stored void is ``{reason, note, voided_at,
replaced}``, ``replaced`` being exactly the settlement the void replaced (its ``nets`` and the
house's take, from the money computed at the deal), which the shoe's proof shows. It is written
with the same condition a settlement has (neither yet), so a round ends settled or voided,
never both, whoever comes first. Voiding again returns the same void; a settled round answers
409 ``round_settled``; settling a voided round answers 409 ``round_voided``. Nothing is ever
deleted: the round, its cards and its void all stay.

Round trips (DynamoDB): GetItem round + ONE conditional UpdateItem = 2; 1 when the round is
already voided. With an ``Idempotency-Key``: BatchGetItem (round + key record) + one
TransactWriteItems carrying the record = 2; a replay is 1."""

from __future__ import annotations

from dataclasses import replace

from baccarat.profiles import TableConfig
from baccarat.proofdoc import replaced
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.service import idempotency
from baccarat_api.service.betting import after_resolution
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.events import LiveMoved, emit, money_summary, retrying
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import SettlementOut
from baccarat_api.service.money import void_out
from baccarat_api.service.reading import round_live
from baccarat_api.service.reveals import face_down
from baccarat_api.service.writeids import write_id


def voided(r: RoundRecord) -> DomainError:
    """409: a voided round can never be settled."""
    void = r.void or {}
    return DomainError(
        "round_voided",
        f"round {r.round_id} was voided; a voided round can never be settled",
        details={"void_reason": void.get("reason"), "voided_at": void.get("voided_at")},
    )


def settled(r: RoundRecord) -> DomainError:
    """409: a settled round cannot be voided."""
    return DomainError(
        "round_settled",
        f"round {r.round_id} is settled; a settled round cannot be voided",
        details={"settled_at": r.settled_at},
    )


def _window_closed(r: RoundRecord, at: str) -> DomainError | None:
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
        raise settled(r)
    voided_at = repo.clock()
    closed = _window_closed(r, voided_at)
    if closed is not None:
        raise closed
    void = {"reason": reason, "note": note, "voided_at": voided_at, "replaced": replaced(r.money)}
    seq = 0 if live is None else live.seq
    wid = write_id(operator_id, "void", round_id, {"reason": reason, "note": note}, idem, seq)
    record = idempotency.record(repo.clock(), idem, operator_id, round_id=round_id)
    summary = money_summary(r)
    # voided while a card is face down: what the void replaced is the outcome — the event (the
    # feed, webhooks) does not tell it (null); the shoe's proof prices it, once the shoe ends
    hidden = face_down(r, voided_at) is not None
    voided_event = (
        "round_voided",
        {
            "round_id": r.round_id,
            "reason": reason,
            "nets": None if hidden else summary["nets"],
            "house_take": None if hidden else summary["house_take"],
        },
    )
    removed, moved = after_resolution(TableConfig.from_dict(r.config), live, r, voided=True)
    if live is not None and live.squeeze is not None and live.squeeze["round_id"] == r.round_id:
        moved["squeeze"] = None  # the void ends its squeeze: no system reveal reported after it
    ev = emit(live, operator_id, r.table_id, voided_at, [voided_event, *removed], **moved)
    try:
        repo.void_round(r, void, record, write_id=wid, emit=ev)
    except (ConditionFailed, OutcomeUnknown) as exc:
        current = reread(repo, r, exc)
        if current is None or not current.resolved:
            if isinstance(exc, OutcomeUnknown):
                raise
            idempotency.check_duplicate(exc)
            if current is not None:
                raise LiveMoved from None  # the round is unresolved: another change at the table
            raise lost_race() from None
        if current.void is not None:
            return void_out(current)  # ours, or a void that came first: voiding again
        raise settled(current) from None
    return void_out(replace(r, void=void, resolve_write_id=wid))
