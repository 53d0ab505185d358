"""Void a round: every stake goes back, once, and the round can never be settled.

``POST /v1/rounds/{round_id}/void {reason}`` stores a void record — settlement-shaped, every
line's net 0 (grade ``void``), ``voided: true`` with the reason — in the round's settlement
slot, with the same condition a settlement has (no settlement yet), so a round ends settled or
voided, never both, whoever comes first. Voiding again returns the same record; a settled round
answers 409 ``round_settled``; settling a voided round answers 409 ``round_voided``. The void is
public in the shoe's proof (the round's cards stay there, marked voided), and nothing is ever
deleted: the round, its cards and its void record all stay.

Round trips (DynamoDB): GetItem round + ONE TransactWriteItems (round update + its public
copy in the proof partition) = 2; 1 when the round is already voided. With an
``Idempotency-Key``: BatchGetItem (round + key record) + the same transaction carrying the
record = 2; a replay is 1."""

from __future__ import annotations

from typing import Any

from baccarat.bets import BetType
from baccarat.profiles import TableConfig
from baccarat_api.clock import now
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.service import idempotency
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import SettlementOut
from baccarat_api.service.reading import round_record


def is_void(settlement: dict[str, Any] | None) -> bool:
    return settlement is not None and bool(settlement.get("voided"))


def voided(r: RoundRecord) -> DomainError:
    """409: a voided round can never be settled."""
    doc = r.settlement or {}
    return DomainError(
        "round_voided",
        f"round {r.round_id} was voided; a voided round can never be settled",
        details={"void_reason": doc.get("void_reason"), "voided_at": doc.get("settled_at")},
    )


def settled(r: RoundRecord) -> DomainError:
    """409: a settled round cannot be voided."""
    return DomainError(
        "round_settled",
        f"round {r.round_id} is settled; a settled round cannot be voided",
        details={"settled_at": r.settled_at},
    )


def void_record(r: RoundRecord, reason: str, voided_at: str) -> dict[str, Any]:
    """The void record: shaped like a settlement, with every locked stake returned (net 0)."""
    config = TableConfig.from_dict(r.config)
    bets = r.bets or []
    pb = r.player_banker
    covers = config.profile.player_banker_covers if pb is not None else frozenset()
    lines = [
        {
            "index": i,
            "bettor_id": b["bettor_id"],
            "type": b["type"],
            "stake": b["amount"],
            "grade": "void",
            "multiplier": "0",
            "gross_win": 0,
            "commission": 0,
            "net": 0,
            "covered_by": "player_banker" if BetType(b["type"]) in covers else "house",
        }
        for i, b in enumerate(bets)
    ]
    stakes: dict[str, int] = {}
    for b in bets:
        stakes[b["bettor_id"]] = stakes.get(b["bettor_id"], 0) + b["amount"]
    bettors = [
        {"id": who, "role": "bettor", "stake": s, "gross": 0, "commission": 0, "net": 0}
        for who, s in stakes.items()
    ]
    balances = {b["bettor_id"]: b["balance"] for b in bets if b.get("balance") is not None}
    nets = dict.fromkeys(stakes, 0)
    pb_out = None
    if pb is not None:
        pb_out = {
            "id": pb["bettor_id"],
            "role": "player_banker",
            "stake": 0,
            "gross": 0,
            "commission": 0,
            "net": 0,
        }
        nets[pb["bettor_id"]] = 0
        balances[pb["bettor_id"]] = pb["balance"]
    return {
        "round_id": r.round_id,
        "shoe_id": r.ref.shoe.shoe_id,
        "round_number": r.round_number,
        "profile": config.profile.name,
        "tier": config.tier.id,
        "banking": config.banking.value,
        "rounding": config.rounding.value,
        "result": r.facts["result"],
        "lines": lines,
        "bettors": bettors,
        "player_banker": pb_out,
        "house": {"covered": 0, "commission": 0, "take": 0},
        "nets": nets,
        "eligibility": {
            "below_min_balance": [],
            "player_banker_below_min_balance": None,
            "balances_after": balances,
            "idle_bettors": [],
            "idle_round_limit": config.profile.idle_round_limit,
        },
        "settled_at": voided_at,
        "auto_settled": False,
        "voided": True,
        "void_reason": reason,
    }


def void_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    *,
    reason: str,
    idem: IdempotencyRequest | None = None,
) -> SettlementOut:
    r = round_record(repo, operator_id, round_id, idem)
    if r.settlement is not None:
        if is_void(r.settlement):  # voiding again returns the same record
            return SettlementOut.model_validate(r.settlement)
        raise settled(r)
    voided_at = now()
    doc = void_record(r, reason, voided_at)
    try:
        repo.void_round(r, doc, voided_at, idempotency.record(idem, operator_id, doc))
    except ConditionFailed as exc:
        idempotency.check_duplicate(exc)
        existing = exc.existing
        if not isinstance(existing, RoundRecord) or existing.settlement is None:
            raise lost_race() from None
        if is_void(existing.settlement):
            return SettlementOut.model_validate(existing.settlement)
        raise settled(existing) from None
    return SettlementOut.model_validate(doc)
