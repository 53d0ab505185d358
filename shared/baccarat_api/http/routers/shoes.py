"""Shoes: commit a table's next shoe, close it early, read it. (Each use case is imported by its
handler: a function imports only the use cases it serves.)"""

from __future__ import annotations

from aws_lambda_powertools.metrics import MetricUnit
from fastapi import APIRouter

from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.observability import logger, metrics
from baccarat_api.service import reading
from baccarat_api.service.models import CommitShoeRequest, ShoeOut, ShoeStateOut

router = APIRouter(route_class=JsonRoute)


@router.post(
    "/v1/tables/{table_id}/shoes",
    status_code=201,
    response_model=ShoeOut,
    operation_id="commit_shoe",
    summary="Commit the table's next shoe (409 while it has an open shoe)",
    tags=["tables and shoes"],
    responses=errors(
        "unauthorized",
        "not_found",
        "shoe_open",
        "chain_exhausted",
        "client_seeds_queued",
        *IDEM_ERRORS,
    ),
)
def commit_shoe(
    table_id: str, body: CommitShoeRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> ShoeOut:
    from baccarat_api.service import tables

    out = tables.commit_shoe(rt.repo, rt.vault, operator, table_id, body.client_seed, idem)
    metrics.add_metric(name="ShoesCommitted", unit=MetricUnit.Count, value=1)
    logger.info("shoe committed", extra={"shoe_id": out.shoe_id, "client_hash": out.client_hash})
    return out


@router.post(
    "/v1/shoes/{shoe_id}/close",
    response_model=ShoeStateOut,
    operation_id="close_shoe",
    summary="End the shoe early and reveal it",
    tags=["tables and shoes"],
    responses=errors("unauthorized", "not_found", "shoe_ended", "concurrent_update", *IDEM_ERRORS),
)
def close_shoe(shoe_id: str, operator: OperatorId, rt: Rt, idem: Idem) -> ShoeStateOut:
    from baccarat_api.service import tables

    out = tables.close_shoe(rt.repo, rt.vault, operator, shoe_id, idem)
    metrics.add_metric(name="ShoesClosed", unit=MetricUnit.Count, value=1)
    logger.info("shoe closed", extra={"shoe_id": shoe_id, "rounds_dealt": out.rounds_dealt})
    return out


@router.get(
    "/v1/shoes/{shoe_id}",
    response_model=ShoeStateOut,
    operation_id="get_shoe",
    summary="Status, rounds dealt, cards remaining, history and roads; server_seed once ended",
    tags=["read"],
    responses=errors("unauthorized", "not_found"),
)
def get_shoe(shoe_id: str, operator: OperatorId, rt: Rt) -> ShoeStateOut:
    return reading.get_shoe(rt.repo, operator, shoe_id)
