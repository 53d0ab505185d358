"""Settle a round, exactly once, with the money computed at its deal.

A settlement takes no bets: they were locked at the deal and their money computed then
(:mod:`.money`). Settling stamps when (and whether by the system) with one conditional write
that holds only while the round is neither settled nor voided: settling again answers the stored
settlement, a voided round answers 409 ``round_voided``. A write that lost or timed out
re-reads the round and answers the settlement there — its own or the winner's, the same money.
The sweep settles through here too (``auto=True``). A book round's settlement creates its
fan-out's progress in the same write, then sends its chunks (:mod:`.settle_chunks`).

Round trips: read the round + one conditional write (which brings the winner's round back when
it loses) = 2; 1 when already settled; with an ``Idempotency-Key`` the record rides in the same
read and write."""

from __future__ import annotations

from dataclasses import replace

from baccarat.profiles import TableConfig
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.service import book_presence, idempotency, settle_chunks
from baccarat_api.service.after_round import after_resolution
from baccarat_api.service.events import complete, emit, retrying, settled_event
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import SettlementOut
from baccarat_api.service.money import settlement_out
from baccarat_api.service.reading import round_live
from baccarat_api.service.reveals import cards_not_shown, face_down
from baccarat_api.service.voiding import resolved_round, voided_error
from baccarat_api.service.writeids import write_id


def _answer(r: RoundRecord) -> dict[str, object]:
    return settlement_out(r).model_dump(mode="json")


def settle_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    idem: IdempotencyRequest | None = None,
    *,
    auto: bool = False,
) -> SettlementOut:
    """Settle the round with its locked bets. ``auto``: the auto-settlement sweep settling a
    round past its deadline (the settlement says ``auto_settled: true``). Reports
    ``round_settled`` (``round_auto_settled`` when ``auto``)."""
    return retrying(lambda: _settle_round(repo, operator_id, round_id, idem, auto))


def _settle_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    idem: IdempotencyRequest | None,
    auto: bool,
) -> SettlementOut:
    r, live = round_live(repo, operator_id, round_id, idem, _answer)
    if r.void is not None:
        raise voided_error(r)
    if r.settled_at is not None:
        return settlement_out(r)
    at = repo.clock()
    pending = face_down(r, at)
    if pending is not None:  # nothing of the outcome moves before the table shows it
        raise cards_not_shown(r, pending, at, "it is settled")
    seq = 0 if live is None else live.seq
    wid = write_id(operator_id, "settle", round_id, {"auto": auto}, idem, seq)
    settled = replace(r, settled_at=at, auto_settled=auto, resolve_write_id=wid)
    assert settled.settled_at is not None
    record = idempotency.record(repo.clock(), idem, operator_id, round_id=round_id)
    removed, moved = after_resolution(TableConfig.from_dict(r.config), live, r, voided=False)
    reported = [settled_event(r, auto), *removed]
    ev = emit(live, operator_id, r.table_id, settled.settled_at, reported, **moved)
    ev = complete(repo, ev, settled)
    try:
        repo.save_settlement(r, settled.settled_at, auto, record, write_id=wid, emit=ev)
    except (ConditionFailed, OutcomeUnknown) as exc:
        return _answer_after_lost_write(repo, r, exc)
    settle_chunks.start(repo, settled)  # a book round: its receipts and pages, in chunks
    book_presence.after_resolution(repo, settled, ev)
    return settlement_out(settled)


def _answer_after_lost_write(repo: Repository, r: RoundRecord, exc: Exception) -> SettlementOut:
    """A settlement whose write lost or timed out: the settlement found (ours, or the
    winner's: the same money), or 409 ``round_voided``."""
    current = resolved_round(repo, r, exc)
    if current.void is not None:
        raise voided_error(current) from None
    return settlement_out(current)
