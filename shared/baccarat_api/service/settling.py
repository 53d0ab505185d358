"""settle-bets: settle a round, exactly once, with the money computed at its deal.

A settlement takes no bets: they were locked when the round was dealt, and what they won or lost
was computed then (:mod:`.money`). Settling stamps when (and whether by the system) — one
conditional write that holds only if the round is neither settled nor voided; so settling again,
whoever asks, answers the stored settlement, and a voided round is never settled (409
``round_voided``; :mod:`.voiding`). The auto-settlement sweep settles through here too
(``auto=True``).

Round trips (DynamoDB): GetItem round + one conditional UpdateItem (``ReturnValuesOnConditionCheck
Failure=ALL_OLD`` brings back the winner's round in the same call when another request got there
first) = 2; 1 when the round is already settled. With an ``Idempotency-Key``: BatchGetItem (round
+ the key's record) + one TransactWriteItems carrying the record = 2; a replay is 1
(:mod:`.idempotency`)."""

from __future__ import annotations

from dataclasses import replace

from baccarat_api.clock import now
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.service import idempotency
from baccarat_api.service.errors import lost_race
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import SettlementOut
from baccarat_api.service.money import settlement_out
from baccarat_api.service.reading import round_record
from baccarat_api.service.voiding import voided


def settle_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    idem: IdempotencyRequest | None = None,
    *,
    auto: bool = False,
) -> SettlementOut:
    """Settle the round with its locked bets. ``auto``: the auto-settlement sweep settling a
    round past its deadline (the settlement says ``auto_settled: true``)."""
    r = round_record(repo, operator_id, round_id, idem)
    if r.void is not None:
        raise voided(r)
    if r.settled_at is not None:
        return settlement_out(r)
    settled = replace(r, settled_at=now(), auto_settled=auto)
    out = settlement_out(settled)
    try:
        repo.save_settlement(
            r,
            settled.settled_at or "",
            auto,
            idempotency.record(idem, operator_id, out.model_dump()),
        )
    except ConditionFailed as exc:
        idempotency.check_duplicate(exc)
        existing = exc.existing
        if not isinstance(existing, RoundRecord) or not existing.resolved:
            raise lost_race() from None
        if existing.void is not None:
            raise voided(existing) from None
        return settlement_out(existing)
    return out
