"""Records → the JSON the API returns. A shoe's secret appears only in views of an ended shoe."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from baccarat.cards import code
from baccarat.fairness import SPEC, derive_shoe
from baccarat.rules import ShoeRules
from baccarat_api.ports.records import ENDED, ProofRecord, RoundRecord, ShoeRecord, TableRecord


def table_view(t: TableRecord) -> dict[str, Any]:
    from baccarat.profiles import TableConfig

    config = TableConfig.from_dict(t.config)
    return {
        "table_id": t.table_id,
        "profile": t.profile,
        "tier": t.tier_id,
        "banking": t.banking,
        "rules": t.rules,
        "anchor": t.anchor,
        "chain_length": t.chain_length,
        "next_shoe_number": t.next_shoe_number,
        "open_shoe_id": t.open_shoe_id,
        "banker_pays": config.banker_pays_choice,
        "dragon_table": config.dragon_choice,
        "rounding": config.rounding.value,
        "pay_table": config.pay_table.describe(),
        "created_at": t.created_at,
        "settle_deadline_seconds": t.settle_deadline_seconds,
    }


def shoe_view(s: ShoeRecord) -> dict[str, Any]:
    """The commitment: everything fixed before any card is dealt (never the secret)."""
    return {
        "shoe_id": s.shoe_id,
        "table_id": s.table_id,
        "shoe_number": s.shoe_number,
        "client_seed": s.client_seed,
        "client_hash": s.client_hash,
        "rules": s.rules,
        "anchor": s.anchor,
        "status": s.status,
    }


def shoe_state_view(s: ShoeRecord) -> dict[str, Any]:
    from baccarat.roads import RoundSummary, roads

    road = roads(RoundSummary(**r) for r in s.results).as_dict()
    history = road.pop("history")
    ended = s.status == ENDED
    return {
        **shoe_view(s),
        "rounds_dealt": s.rounds_dealt,
        "cards_remaining": ShoeRules.from_dict(s.rules).size - s.cursor,
        "last_round_id": f"{s.shoe_id}_r{s.rounds_dealt}" if s.rounds_dealt else None,
        "history": history,
        "roads": road,
        "end_reason": s.end_reason,
        "ended_at": s.ended_at,
        "server_seed": s.server_seed if ended else None,
        "created_at": s.created_at,
    }


def round_view(r: RoundRecord, *, with_settlement: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "round_id": r.round_id,
        "shoe_id": r.ref.shoe.shoe_id,
        "table_id": r.table_id,
        **r.facts,
        "bets": r.bets,
        "player_banker": r.player_banker,
        "squeeze": r.squeeze,
        "shoe_status": r.shoe_status,
        "created_at": r.created_at,
        "settle_by": r.settle_by,
        "prev_hash": r.prev_hash,
        "round_hash": r.round_hash,
    }
    if with_settlement:
        out["settlement"] = r.settlement
    return out


@lru_cache(maxsize=32)
def _derived_proof(
    server_seed: str, client_seed: str, shoe_number: int, rules: tuple[int, ...]
) -> dict[str, Any]:
    shoe = derive_shoe(bytes.fromhex(server_seed), client_seed, shoe_number, ShoeRules(*rules))
    return {
        "cut_index": shoe.cut_index,
        "burn": shoe.burn_count,
        "burn_exposed": None if shoe.burn_exposed is None else code(shoe.burn_exposed),
        "first_round_start": shoe.first_start,
        "rounds": shoe.rounds_json(),
    }


def _proof_round(derived: dict[str, Any], p: ProofRecord) -> dict[str, Any]:
    """A proof round: the re-derived cards and, when the round was settled (or voided), its
    public money record — the settlement and the bets and player-banker it was computed from."""
    out = dict(derived)
    public = p.rounds.get(derived["round_number"])
    out["voided"] = public is not None and public.void is not None
    out["void"] = None if public is None else public.void
    settlement = None if public is None else public.settlement
    inputs = (None if public is None else public.inputs) or {}
    out["settlement"] = _public_settlement(settlement)
    out["bets"] = _public_bets(inputs.get("bets")) if settlement is not None else None
    pb = inputs.get("player_banker") if settlement is not None else None
    out["player_banker"] = None if pb is None else {"bettor_id": pb["bettor_id"]}
    return out


#: What a proof shows of a bet: all its settlement is computed from, nothing private
#: (balances, levels and personal limits only served validation when the bet was accepted).
PUBLIC_BET_FIELDS = ("bettor_id", "role", "seat", "type", "amount")


def _public_bets(bets: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    if bets is None:
        return None
    return [{k: b[k] for k in PUBLIC_BET_FIELDS if k in b} for b in bets]


def _public_settlement(settlement: dict[str, Any] | None) -> dict[str, Any] | None:
    """The settlement without the balances after the round (eligibility is the operator's)."""
    if settlement is None:
        return None
    return {k: v for k, v in settlement.items() if k != "eligibility"}


def proof_view(p: ProofRecord) -> dict[str, Any]:
    """All a third party needs to check the shoe with the spec alone, and each settlement with
    the table's configuration."""
    rules = ShoeRules.from_dict(p.rules)
    derived = _derived_proof(
        p.server_seed,
        p.client_seed,
        p.shoe_number,
        (rules.decks, rules.burn, rules.cut_min, rules.cut_max, rules.round_limit),
    )
    return {
        "spec": SPEC,
        "shoe_id": p.shoe_id,
        "table_id": p.table_id,
        "anchor": p.anchor,
        "shoe_number": p.shoe_number,
        "client_seed": p.client_seed,
        "client_hash": p.client_hash,
        "rules": p.rules,
        "server_seed": p.server_seed,
        "end_reason": p.end_reason,
        "ended_at": p.ended_at,
        "cut_index": derived["cut_index"],
        "burn": derived["burn"],
        "burn_exposed": derived["burn_exposed"],
        "first_round_start": derived["first_round_start"],
        "table_config": p.config,
        "rounds": [_proof_round(r, p) for r in derived["rounds"][: p.rounds_dealt]],
    }
