"""settle-bets: settle a round's bets, exactly once."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.metrics import MetricUnit
from fastapi import APIRouter, Body

from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.observability import logger, metrics
from baccarat_api.service.models import (
    RevealOut,
    RevealRequest,
    SettlementOut,
    SettleRequest,
    VoidRequest,
)
from baccarat_api.service.settling import settle_round
from baccarat_api.service.squeezing import reveal_round
from baccarat_api.service.voiding import void_round

router = APIRouter(route_class=JsonRoute, tags=["rounds"])


@router.post(
    "/v1/rounds/{round_id}/settlement",
    response_model=SettlementOut,
    operation_id="settle_round",
    summary="Settle the round with the bets locked at its deal (no body; exactly once)",
    responses=errors(
        "unauthorized",
        "not_found",
        "round_voided",
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
    responses=errors(
        "unauthorized",
        "not_found",
        "round_settled",
        "void_window_closed",
        "concurrent_update",
        *IDEM_ERRORS,
    ),
)
def void(
    round_id: str, body: VoidRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> SettlementOut:
    out = void_round(rt.repo, operator, round_id, reason=body.reason, note=body.note, idem=idem)
    metrics.add_metric(name="RoundsVoided", unit=MetricUnit.Count, value=1)
    logger.info("round voided", extra={"round_id": round_id, "lines": len(out.lines)})
    return out


@router.post(
    "/v1/rounds/{round_id}/reveal",
    response_model=RevealOut,
    operation_id="reveal_cards",
    summary="The squeezer opens their face-down cards of a step (before its reveal_by)",
    responses=errors(
        "unauthorized", "not_found", "not_squeezer", "already_revealed", "reveal_out_of_order",
        "reveal_deadline_passed", "no_draws", "round_voided", "concurrent_update", *IDEM_ERRORS,
    ),
)  # fmt: skip
def reveal(
    round_id: str, body: RevealRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> RevealOut:
    return reveal_round(rt.repo, operator, round_id, body.bettor_id, body.step, idem)
