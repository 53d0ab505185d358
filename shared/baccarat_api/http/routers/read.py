"""read: every GET route (one DynamoDB round trip each; the proof and the verifier page need no
key)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.ids import SHOE_NUMBER
from baccarat_api.service import reading
from baccarat_api.service.models import (
    AuditOut,
    ProofOut,
    RoundDetailOut,
    ShoeStateOut,
    TableOut,
    TiersOut,
)

router = APIRouter(route_class=JsonRoute, tags=["read"])

#: ``?shoe=``: a shoe number as in shoe ids; ``?checkpoint=``: a bacc-audit-v1 hash.
SHOE_NUMBER_PATTERN = f"^{SHOE_NUMBER}$"
HASH_PATTERN = "^[0-9a-f]{64}$"


@router.get(
    "/v1/tiers",
    response_model=TiersOut,
    operation_id="list_tiers",
    summary="The tiers (stake levels) tables can be opened at",
    responses=errors("unauthorized"),
)
def list_tiers(operator: OperatorId, rt: Rt) -> TiersOut:
    return reading.list_tiers(rt.repo)


@router.get(
    "/v1/tables/{table_id}",
    response_model=TableOut,
    operation_id="get_table",
    responses=errors("unauthorized", "not_found"),
)
def get_table(table_id: str, operator: OperatorId, rt: Rt) -> TableOut:
    return reading.get_table(rt.repo, operator, table_id)


@router.get(
    "/v1/shoes/{shoe_id}",
    response_model=ShoeStateOut,
    operation_id="get_shoe",
    summary="Status, rounds dealt, cards remaining, history and roads; server_seed once ended",
    responses=errors("unauthorized", "not_found"),
)
def get_shoe(shoe_id: str, operator: OperatorId, rt: Rt) -> ShoeStateOut:
    return reading.get_shoe(rt.repo, operator, shoe_id)


@router.get(
    "/v1/shoes/{shoe_id}/proof",
    response_model=ProofOut,
    operation_id="get_shoe_proof",
    summary="Public proof of an ended shoe (no key; 404 until the shoe has ended)",
    responses=errors("not_found"),
)
def get_proof(shoe_id: str, rt: Rt) -> ProofOut:
    return reading.get_proof(rt.repo, shoe_id)


@router.get(
    "/v1/rounds/{round_id}",
    response_model=RoundDetailOut,
    operation_id="get_round",
    summary="The round and its settlement, if any",
    responses=errors("unauthorized", "not_found"),
)
def get_round(round_id: str, operator: OperatorId, rt: Rt) -> RoundDetailOut:
    return reading.get_round(rt.repo, operator, round_id)


@router.get(
    "/verify",
    response_class=HTMLResponse,
    operation_id="verify_page",
    tags=["verify"],
    summary="The browser verifier: one page, no key (/verify?proof=<proof URL> checks a proof)",
    responses={
        200: {"content": {"text/html": {}}, "description": "the verifier page"},
        **{  # errors are JSON in the envelope, whatever this route's own media type
            status: {
                "description": response["description"],
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}
                },
            }
            for status, response in errors().items()
        },
    },
)
def verify_page() -> HTMLResponse:
    from baccarat_api.http.verifier import verifier_page

    page = verifier_page()
    return HTMLResponse(page.html, headers=page.headers)


@router.get(
    "/v1/tables/{table_id}/audit",
    response_model=AuditOut,
    operation_id="audit_table",
    summary="Verify one shoe's part of the table's hash chain of round records (bounded reads)",
    responses=errors("unauthorized", "not_found"),
)
def audit_table(
    table_id: str,
    operator: OperatorId,
    rt: Rt,
    shoe: Annotated[
        str | None,
        Query(
            pattern=SHOE_NUMBER_PATTERN,
            description="the shoe number to check (default: the latest shoe, open or ended)",
        ),
    ] = None,
    checkpoint: Annotated[
        str | None,
        Query(
            pattern=HASH_PATTERN,
            description=(
                "the head of the previous shoe as you verified it earlier (64 lowercase hex): "
                "the shoe's chain must start there (default: that shoe's stored head)"
            ),
        ),
    ] = None,
) -> AuditOut:
    from baccarat_api.service.audit import audit_table

    return audit_table(rt.repo, operator, table_id, int(shoe) if shoe else None, checkpoint)
