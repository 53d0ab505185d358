"""The betting window and its book: open it, place or replace a bettor's slip, cancel it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from baccarat.validation import Refusal
from baccarat_api.http.deps import Bettor, CallerDep, OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.http.player import TOKEN_ERRORS
from baccarat_api.service import betting
from baccarat_api.service.models import BookOut, BookPageOut, SlipRequest

router = APIRouter(route_class=JsonRoute, tags=["rounds", "betting"])


@router.post(
    "/v1/tables/{table_id}/betting",
    response_model=BookOut,
    operation_id="open_betting",
    summary="Open betting for the next round of the open shoe (until now + betting_seconds)",
    responses=errors(
        "unauthorized", "not_found", "no_open_shoe", "company_required", "round_unsettled",
        "betting_in_progress", "auto_dealing", "concurrent_update", *IDEM_ERRORS,
    ),
)  # fmt: skip
def open_betting(table_id: str, operator: OperatorId, rt: Rt, idem: Idem) -> BookOut:
    return betting.open_betting(rt.repo, operator, table_id, idem)


@router.put(
    "/v1/tables/{table_id}/bets/{bettor_id}",
    response_model=BookOut,
    operation_id="place_slip",
    summary="Confirm the bettor's slip for the open window (replaces an earlier one)",
    responses=errors(*TOKEN_ERRORS,
        "unauthorized", "not_found", "betting_closed", "not_at_table", "concurrent_update",
        "round_mismatch",
        *(r.value for r in Refusal),
    ),
)  # fmt: skip
def place_slip(
    table_id: str, bettor_id: Bettor, body: SlipRequest, caller: CallerDep, rt: Rt
) -> BookOut:
    return betting.place_slip(rt.repo, caller.operator_id, table_id, bettor_id, body)


@router.delete(
    "/v1/tables/{table_id}/bets/{bettor_id}",
    response_model=BookOut,
    operation_id="cancel_slip",
    summary="Cancel the bettor's slip while betting is open",
    responses=errors(
        *TOKEN_ERRORS, "unauthorized", "not_found", "betting_closed", "concurrent_update"
    ),
)
def cancel_slip(table_id: str, bettor_id: Bettor, caller: CallerDep, rt: Rt) -> BookOut:
    return betting.cancel_slip(rt.repo, caller.operator_id, table_id, bettor_id)


@router.get(
    "/v1/tables/{table_id}/book",
    response_model=BookPageOut,
    operation_id="get_book",
    summary="The current window's book: the seats' slips and spectators' slips, paged",
    responses=errors("unauthorized", "not_found", "invalid_cursor"),
)
def get_book(
    table_id: str,
    operator: OperatorId,
    rt: Rt,
    after: Annotated[
        str | None,
        Query(max_length=64, description="the next of the page before (none: from the start)"),
    ] = None,
) -> BookPageOut:
    return betting.book_page(rt.repo, operator, table_id, after)
