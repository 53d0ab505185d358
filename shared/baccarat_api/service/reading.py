"""read: the GET routes, one DynamoDB round trip each (GetItem, or one Query for the tiers).
No KMS: a shoe's secret is stored in clear (and shown) only once the shoe has ended."""

from __future__ import annotations

from typing import Any

from ..errors import not_found
from ..ids import parse_round_id, parse_shoe_id, parse_table_id
from ..repository import Repository
from .views import proof_view, round_view, shoe_state_view, table_view


def list_tiers(repo: Repository) -> dict[str, Any]:
    return {"tiers": repo.list_tiers()}


def get_table(repo: Repository, operator_id: str, table_id: str) -> dict[str, Any]:
    table = repo.get_table(operator_id, table_id) if parse_table_id(table_id) else None
    if table is None:
        raise not_found("table", table_id)
    return table_view(table)


def get_shoe(repo: Repository, operator_id: str, shoe_id: str) -> dict[str, Any]:
    ref = parse_shoe_id(shoe_id)
    shoe = repo.get_shoe(operator_id, ref) if ref else None
    if shoe is None:
        raise not_found("shoe", shoe_id)
    return shoe_state_view(shoe)


def get_round(repo: Repository, operator_id: str, round_id: str) -> dict[str, Any]:
    ref = parse_round_id(round_id)
    rnd = repo.get_round(operator_id, ref) if ref else None
    if rnd is None:
        raise not_found("round", round_id)
    return round_view(rnd, with_settlement=True)


def get_proof(repo: Repository, shoe_id: str) -> dict[str, Any]:
    """Public: no operator key. 404 until the shoe has ended (the proof record is written by the
    transaction that ends it)."""
    proof = repo.get_proof(shoe_id) if parse_shoe_id(shoe_id) else None
    if proof is None:
        raise not_found("proof", shoe_id)
    return proof_view(proof)
