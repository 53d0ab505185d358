"""Rounds: deal the next round of a shoe, settle it or void it, read one, list them. (Each use
case is imported by its handler: a function imports only the use cases it serves.)"""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.metrics import MetricUnit
from fastapi import APIRouter, Body, Query, Response

from baccarat.validation import Refusal
from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.observability import logger, metrics
from baccarat_api.service import reading
from baccarat_api.service.models import (
    DealRequest,
    LockedRoundOut,
    RoundDetailOut,
    RoundListOut,
    RoundOut,
    RoundStatus,
    SettlementOut,
    SettleRequest,
    VoidRequest,
)
from baccarat_api.service.models.receipts import ReceiptOut, SettlementBettorsOut
from baccarat_api.service.v2_rounds import wait_until

router = APIRouter(route_class=JsonRoute)

#: The deal's other success: a bacc-pf-v2 round locked (its cards follow).
_LOCKED: dict[int | str, dict[str, Any]] = {
    202: {"description": "bacc-pf-v2: the round locked, its cards to follow"}
}
INSTANT = "a UTC day (YYYY-MM-DD: its start) or time (YYYY-MM-DDTHH:MM:SS[.mmm]Z)"


@router.post(
    "/v1/shoes/{shoe_id}/rounds",
    status_code=201,
    response_model=RoundOut | LockedRoundOut,
    operation_id="deal_round",
    summary="Deal the shoe's next round with its bets (validated and locked before any card)",
    description="201: the round dealt. 202 (a bacc-pf-v2 table): the round locked — its cards "
    "are drawn once its beacon round exists (GET /v1/rounds/{round_id}, the feed, push).",
    tags=["rounds"],
    responses=_LOCKED
    | errors(
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
        "auto_dealing",
        "round_locked",
        *IDEM_ERRORS,
        *(r.value for r in Refusal),
    ),
)
def deal(
    shoe_id: str, body: DealRequest, operator: OperatorId, rt: Rt, idem: Idem, response: Response
) -> RoundOut | LockedRoundOut:
    from baccarat_api.service.dealing import deal_round

    out = deal_round(rt.repo, rt.shoes, operator, shoe_id, body, idem)
    if isinstance(out, LockedRoundOut):  # bacc-pf-v2: the cards follow
        response.status_code = 202
        metrics.add_metric(name="RoundsLocked", unit=MetricUnit.Count, value=1)
        logger.info("round locked", extra={"round_id": out.round_id, "beacon": out.beacon.round})
        return out
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


@router.post(
    "/v1/rounds/{round_id}/settlement",
    response_model=SettlementOut,
    operation_id="settle_round",
    summary="Settle the round with the bets locked at its deal (no body; exactly once)",
    tags=["rounds"],
    responses=errors(
        "unauthorized",
        "not_found",
        "round_voided",
        "round_locked",
        "concurrent_update",
        *IDEM_ERRORS,
    ),
)
def settle(
    round_id: str,
    operator: OperatorId,
    rt: Rt,
    idem: Idem,
    body: Annotated[SettleRequest | None, Body()] = None,
) -> SettlementOut:
    # the body is validated (none, or {}: a settlement takes no bets) and carries nothing
    from baccarat_api.service.settling import settle_round

    out = settle_round(rt.repo, operator, round_id, idem)
    metrics.add_metric(name="RoundsSettled", unit=MetricUnit.Count, value=1)
    logger.info(
        "round settled",
        extra={"round_id": round_id, "house_take": out.house.take, "lines": len(out.lines)},
    )
    return out


@router.post(
    "/v1/rounds/{round_id}/void",
    response_model=SettlementOut,
    operation_id="void_round",
    summary="Void the round within its void window: every stake returned, once, never settled",
    tags=["rounds"],
    responses=errors(
        "unauthorized",
        "not_found",
        "round_settled",
        "void_window_closed",
        "round_locked",
        "concurrent_update",
        *IDEM_ERRORS,
    ),
)
def void(
    round_id: str, body: VoidRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> SettlementOut:
    from baccarat_api.service.voiding import void_round

    out = void_round(rt.repo, operator, round_id, reason=body.reason, note=body.note, idem=idem)
    metrics.add_metric(name="RoundsVoided", unit=MetricUnit.Count, value=1)
    logger.info("round voided", extra={"round_id": round_id, "lines": len(out.lines)})
    return out


@router.get(
    "/v1/rounds/{round_id}",
    response_model=RoundDetailOut | LockedRoundOut,
    operation_id="get_round",
    summary="The round and its settlement, if any",
    description="A bacc-pf-v2 round locked and not drawn yet answers status locked with "
    "Retry-After (seconds to its beacon round); voided beacon_unavailable, status voided.",
    tags=["read"],
    responses=errors("unauthorized", "not_found"),
)
def get_round(
    round_id: str, operator: OperatorId, rt: Rt, response: Response
) -> RoundDetailOut | LockedRoundOut:
    out = reading.get_round(rt.repo, operator, round_id)
    if isinstance(out, LockedRoundOut) and out.status == "locked":
        response.headers["Retry-After"] = str(wait_until(out.beacon.expected_at, rt.repo.clock()))
    return out


@router.get(
    "/v1/rounds",
    response_model=RoundListOut,
    operation_id="list_rounds",
    summary="The operator's rounds dealt in a time range: state and money, paged (reconciliation)",
    tags=["read"],
    responses=errors("unauthorized", "invalid_range", "invalid_cursor"),
)
def list_rounds(
    operator: OperatorId,
    rt: Rt,
    table_id: Annotated[
        str | None, Query(max_length=64, description="only this table's rounds")
    ] = None,
    start: Annotated[
        str | None,
        Query(alias="from", max_length=30, description=f"dealt at or after: {INSTANT}"),
    ] = None,
    end: Annotated[
        str | None,
        Query(
            alias="to",
            max_length=30,
            description=f"dealt before: {INSTANT} (default: the end of from's day)",
        ),
    ] = None,
    status: Annotated[RoundStatus | None, Query(description="only rounds in this state")] = None,
    cursor: Annotated[
        str | None, Query(description="next_cursor of the previous page (malformed: 422)")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="rounds per page at most")] = 100,
) -> RoundListOut:
    from baccarat_api.service.reconciliation import list_rounds

    return list_rounds(
        rt.repo, operator, table_id=table_id, start=start, end=end, status=status,
        cursor=cursor, limit=limit,
    )  # fmt: skip


@router.get(
    "/v1/rounds/{round_id}/receipts/{bettor_id}",
    response_model=ReceiptOut,
    operation_id="get_receipt",
    summary="A spectator's receipt of a book round: its slip, inclusion path and money",
    tags=["read"],
    responses=errors("unauthorized", "not_found", "settlement_pending", "not_in_book"),
)
def get_receipt(round_id: str, bettor_id: str, operator: OperatorId, rt: Rt) -> ReceiptOut:
    from baccarat_api.service import receipts

    return receipts.get_receipt(rt.repo, operator, round_id, bettor_id)


@router.get(
    "/v1/rounds/{round_id}/settlement/bettors",
    response_model=SettlementBettorsOut,
    operation_id="settlement_bettors",
    summary="A page of a book round's spectators' money (100 a page, in book order)",
    tags=["read"],
    responses=errors("unauthorized", "not_found", "settlement_pending", "not_in_book"),
)
def settlement_bettors(
    round_id: str,
    operator: OperatorId,
    rt: Rt,
    page: Annotated[int, Query(ge=0, le=10_000, description="the page, from 0")] = 0,
) -> SettlementBettorsOut:
    from baccarat_api.service import receipts

    return receipts.settlement_bettors(rt.repo, operator, round_id, page)
