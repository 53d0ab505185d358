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
        "void_window_seconds": t.void_window_seconds,
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


def round_view(r: RoundRecord) -> dict[str, Any]:
    """The round as dealt (what the deal answers)."""
    return {
        "round_id": r.round_id,
        "shoe_id": r.ref.shoe.shoe_id,
        "table_id": r.table_id,
        **r.facts,
        "bets": r.bets,
        "player_banker": r.player_banker,
        "squeeze": r.squeeze,
        "shoe_status": r.shoe_status,
        "dealt_at": r.dealt_at,
        "settle_by": r.settle_by,
        "void_by": r.void_by,
        "prev_hash": r.prev_hash,
        "round_hash": r.round_hash,
    }


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


def _proof_round(derived: dict[str, Any], r: RoundRecord | None) -> dict[str, Any]:
    """A proof round: the re-derived cards and, when the round was settled (or voided), its
    public money record — the settlement and the bets and player-banker it was computed from."""
    out = dict(derived)
    settlement = None if r is None else r.settlement
    out["voided"] = r is not None and r.void is not None
    out["void"] = None if r is None else r.void
    out["settlement"] = _public_settlement(settlement)
    out["bets"] = _public_bets(r.bets) if r is not None and settlement is not None else None
    pb = r.player_banker if r is not None and settlement is not None else None
    out["player_banker"] = None if pb is None else {"bettor_id": pb["bettor_id"]}
    return out


#: What a proof shows of a bet: all its settlement is computed from, nothing private
#: (balances, levels and personal limits only served validation when the bet was accepted).
PUBLIC_BET_FIELDS = ("bettor_id", "role", "seat", "type", "amount")


def _public_bets(bets: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    if bets is None:
        return None
    return [{k: b[k] for k in PUBLIC_BET_FIELDS if k in b} for b in bets]


def _unref(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "bettor_ref"}


def _public_settlement(settlement: dict[str, Any] | None) -> dict[str, Any] | None:
    """The settlement without the balances after the round (eligibility is the operator's)
    and without refs (this proof names bettors by id)."""
    if settlement is None:
        return None
    out = {k: v for k, v in settlement.items() if k != "eligibility"}
    out["lines"] = [_unref(line) for line in settlement["lines"]]
    out["bettors"] = [_unref(p) for p in settlement["bettors"]]
    pb = settlement["player_banker"]
    out["player_banker"] = None if pb is None else _unref(pb)
    return out


def proof_view(p: ProofRecord, rounds: list[RoundRecord]) -> dict[str, Any]:
    """All a third party needs to check the shoe with the spec alone, and each settlement with
    the table's configuration."""
    rules = ShoeRules.from_dict(p.rules)
    by_number = {r.round_number: r for r in rounds}
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
        "rounds": [
            _proof_round(d, by_number.get(d["round_number"]))
            for d in derived["rounds"][: p.rounds_dealt]
        ],
    }
