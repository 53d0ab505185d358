"""deal-and-resolve: deal the next round of a shoe; the betting window and its book."""

from __future__ import annotations

from aws_lambda_powertools.metrics import MetricUnit
from fastapi import APIRouter

from baccarat.validation import Refusal
from baccarat_api.http.deps import Bettor, OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.observability import logger, metrics
from baccarat_api.service import betting
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.models import BookOut, DealRequest, RoundOut, SlipRequest

router = APIRouter(route_class=JsonRoute, tags=["rounds"])


@router.post(
    "/v1/shoes/{shoe_id}/rounds",
    status_code=201,
    response_model=RoundOut,
    operation_id="deal_round",
    summary="Deal the shoe's next round with its bets (validated and locked before any card)",
    responses=errors(
        "unauthorized",
        "not_found",
        "shoe_ended",
        "round_mismatch",
        "round_too_large",
        "concurrent_update",
        "no_betting_window",
        "bets_or_from_book",
        "betting_in_progress",
        "company_required",
        *IDEM_ERRORS,
        *(r.value for r in Refusal),
    ),
)
def deal(shoe_id: str, body: DealRequest, operator: OperatorId, rt: Rt, idem: Idem) -> RoundOut:
    out = deal_round(rt.repo, rt.shoes, operator, shoe_id, body, idem)
    metrics.add_metric(name="RoundsDealt", unit=MetricUnit.Count, value=1)
    logger.info(
        "round dealt",
        extra={
            "round_id": out.round_id,
            "result": out.result,
            "bets": len(out.bets),
            "shoe_status": out.shoe_status,
        },
    )
    if out.shoe_status == "ended":
        metrics.add_metric(name="ShoesEnded", unit=MetricUnit.Count, value=1)
    return out


# --- the betting window and the book (issue 13) ---------------------------------------------


@router.post(
    "/v1/tables/{table_id}/betting",
    response_model=BookOut,
    operation_id="open_betting",
    summary="Open betting for the next round of the open shoe (until now + betting_seconds)",
    tags=["betting"],
    responses=errors(
        "unauthorized", "not_found", "no_open_shoe", "company_required", "round_unsettled",
        "betting_in_progress", "concurrent_update", *IDEM_ERRORS,
    ),
)  # fmt: skip
def open_betting(table_id: str, operator: OperatorId, rt: Rt, idem: Idem) -> BookOut:
    return betting.open_betting(rt.repo, operator, table_id, idem)


@router.put(
    "/v1/tables/{table_id}/bets/{bettor_id}",
    response_model=BookOut,
    operation_id="place_slip",
    summary="Confirm the bettor's slip for the open window (replaces an earlier one)",
    tags=["betting"],
    responses=errors(
        "unauthorized", "not_found", "betting_closed", "not_at_table", "concurrent_update",
        "round_mismatch",
        *(r.value for r in Refusal),
    ),
)  # fmt: skip
def place_slip(
    table_id: str, bettor_id: Bettor, body: SlipRequest, operator: OperatorId, rt: Rt
) -> BookOut:
    return betting.place_slip(rt.repo, operator, table_id, bettor_id, body)


@router.delete(
    "/v1/tables/{table_id}/bets/{bettor_id}",
    response_model=BookOut,
    operation_id="cancel_slip",
    summary="Cancel the bettor's slip while betting is open",
    tags=["betting"],
    responses=errors("unauthorized", "not_found", "betting_closed", "concurrent_update"),
)
def cancel_slip(table_id: str, bettor_id: Bettor, operator: OperatorId, rt: Rt) -> BookOut:
    return betting.cancel_slip(rt.repo, operator, table_id, bettor_id)
