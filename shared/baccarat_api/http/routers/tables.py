"""Tables: create one, read it, the tiers it can be opened at, its live state and its audit;
pause and resume a running one.
(Each use case is imported by its handler: a function imports only the use cases it serves.)"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.metrics import MetricUnit
from fastapi import APIRouter, Header, Query, Response
from fastapi.responses import HTMLResponse

from baccarat_api.http.deps import CallerDep, OperatorId, Rt, errors, unless_not_modified
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.http.pages import page_responses
from baccarat_api.http.player import TOKEN_ERRORS
from baccarat_api.ids import SHOE_NUMBER
from baccarat_api.limits import DEFAULT_LOBBY_PAGE, MAX_LOBBY_PAGE
from baccarat_api.observability import logger, metrics
from baccarat_api.service import reading
from baccarat_api.service.models import (
    AuditOut,
    ClientSeedOut,
    ClientSeedRequest,
    CreateTableRequest,
    LobbyOut,
    TableClockOut,
    TableOut,
    TableStateOut,
    TiersOut,
)

router = APIRouter(route_class=JsonRoute)

#: ``?shoe=``: a shoe number as in shoe ids; ``?checkpoint=``: a bacc-audit-v1 hash.
SHOE_NUMBER_PATTERN = f"^{SHOE_NUMBER}$"
HASH_PATTERN = "^[0-9a-f]{64}$"


@router.post(
    "/v1/tables",
    status_code=201,
    response_model=TableOut,
    operation_id="create_table",
    summary="Create a table and draw its seed chain (the anchor is returned)",
    tags=["tables and shoes"],
    responses=errors(
        "unauthorized",
        "invalid_table",
        "no_beacon",
        "unknown_currency",
        "currency_mismatch",
        "table_number_taken",
        "concurrent_update",
        *IDEM_ERRORS,
    ),
)
def create_table(body: CreateTableRequest, operator: OperatorId, rt: Rt, idem: Idem) -> TableOut:
    from baccarat_api.service import tables

    beacon = rt.beacon.chain if body.fairness == "bacc-pf-v2" else None
    out = tables.create_table(rt.repo, rt.vault, operator, body, idem, beacon)
    metrics.add_metric(name="TablesCreated", unit=MetricUnit.Count, value=1)
    logger.info("table created", extra={"table_id": out.table_id, "anchor": out.anchor})
    return out


@router.get(
    "/v1/tiers",
    response_model=TiersOut,
    operation_id="list_tiers",
    summary="The tiers (stake levels) tables can be opened at",
    tags=["read"],
    responses=errors("unauthorized"),
)
def list_tiers(operator: OperatorId, rt: Rt) -> TiersOut:
    return reading.list_tiers(rt.repo)


@router.get(
    "/v1/tables/{table_id}",
    response_model=TableOut,
    operation_id="get_table",
    tags=["read"],
    responses=errors("unauthorized", "not_found"),
)
def get_table(table_id: str, operator: OperatorId, rt: Rt) -> TableOut:
    return reading.get_table(rt.repo, operator, table_id)


@router.get(
    "/v1/tables/{table_id}/audit",
    response_model=AuditOut,
    operation_id="audit_table",
    summary="Verify one shoe's part of the table's hash chain of round records (bounded reads)",
    tags=["read"],
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


@router.get(
    "/v1/tables/{table_id}/state",
    response_model=TableStateOut,
    operation_id="table_state",
    summary="The table now: presence, phase and deadline, book, squeeze, shoe, last seq (ETag)",
    tags=["read"],
    responses={
        304: {"description": "the state is unchanged since the ETag sent in If-None-Match"},
        **errors(*TOKEN_ERRORS, "unauthorized", "not_found"),
    },
)
def get_table_state(
    table_id: str,
    caller: CallerDep,
    rt: Rt,
    response: Response,
    if_none_match: Annotated[str | None, Header()] = None,
) -> TableStateOut | Response:
    from baccarat_api.service.table_state import table_state

    state, etag = table_state(
        rt.repo, caller.operator_id, table_id, caller.player, rt.settings.push_url
    )
    return unless_not_modified(state, etag, response, if_none_match)


@router.post(
    "/v1/tables/{table_id}/pause",
    response_model=TableClockOut,
    operation_id="pause_table",
    summary="Pause a running table: the round in flight finishes, no new window opens",
    tags=["tables and shoes"],
    responses=errors(
        "unauthorized", "not_found", "not_auto_dealing", "concurrent_update", *IDEM_ERRORS
    ),
)
def pause_table(table_id: str, operator: OperatorId, rt: Rt, idem: Idem) -> TableClockOut:
    from baccarat_api.service import table_clock

    return table_clock.pause(rt.repo, operator, table_id, idem)


@router.post(
    "/v1/tables/{table_id}/resume",
    response_model=TableClockOut,
    operation_id="resume_table",
    summary="Resume a paused running table: its next step is due again",
    tags=["tables and shoes"],
    responses=errors(
        "unauthorized", "not_found", "not_auto_dealing", "concurrent_update", *IDEM_ERRORS
    ),
)
def resume_table(table_id: str, operator: OperatorId, rt: Rt, idem: Idem) -> TableClockOut:
    from baccarat_api.service import table_clock

    return table_clock.resume(rt.repo, operator, table_id, idem)


@router.post(
    "/v1/tables/{table_id}/client-seeds",
    status_code=201,
    response_model=ClientSeedOut,
    operation_id="give_client_seed",
    summary="Give a running table a client seed in advance, for its next shoe without one",
    tags=["tables and shoes"],
    responses=errors(
        "unauthorized",
        "not_found",
        "not_auto_dealing",
        "client_seed_queue_full",
        "chain_exhausted",
        "concurrent_update",
        *IDEM_ERRORS,
    ),
)
def give_client_seed(
    table_id: str, body: ClientSeedRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> ClientSeedOut:
    from baccarat_api.service.client_seeds import give

    out = give(rt.repo, operator, table_id, body.client_seed, idem)
    logger.info("client seed given", extra={"table_id": table_id, "client_hash": out.client_hash})
    return out


@router.get(
    "/v1/tables",
    response_model=LobbyOut,
    operation_id="list_tables",
    summary="The lobby: the operator's numbered tables in number order, a page at a time (ETag)",
    tags=["read"],
    responses={
        304: {"description": "the page is unchanged since the ETag sent in If-None-Match"},
        **errors("unauthorized", "invalid_cursor"),
    },
)
def list_tables(
    caller: CallerDep,
    rt: Rt,
    response: Response,
    limit: Annotated[
        int, Query(ge=1, le=MAX_LOBBY_PAGE, description="tables per page (default 25, max 50)")
    ] = DEFAULT_LOBBY_PAGE,
    after: Annotated[
        str | None,
        Query(description="the `next` of the previous page (opaque)"),
    ] = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> LobbyOut | Response:
    from baccarat_api.service.lobby import list_tables

    page, etag = list_tables(rt.repo, caller.operator_id, limit, after)
    response.headers["Cache-Control"] = "max-age=2"
    return unless_not_modified(page, etag, response, if_none_match)


@router.get(
    "/lobby",
    response_class=HTMLResponse,
    operation_id="lobby_page",
    tags=["lobby"],
    summary="The lobby page: no key (/lobby#token=<token>&api=<API URL> lists the tables)",
    responses=page_responses("the lobby page"),
)
def lobby_page() -> HTMLResponse:
    from baccarat_api.http.lobby_page import lobby_page

    page = lobby_page()
    return HTMLResponse(page.html, headers=page.headers)


@router.get(
    "/table",
    response_class=HTMLResponse,
    operation_id="table_page",
    tags=["lobby"],
    summary="The table page people play at: no key (/table#token=<player token>&lang=zh|en"
    "&lobby=<lobby URL>)",
    responses=page_responses("the table page"),
)
def table_page() -> HTMLResponse:
    from baccarat_api.http.table_page import table_page

    page = table_page()
    return HTMLResponse(page.html, headers=page.headers)
