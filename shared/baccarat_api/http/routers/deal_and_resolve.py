"""deal-and-resolve: deal the next round of a shoe."""

from __future__ import annotations

from aws_lambda_powertools.metrics import MetricUnit
from fastapi import APIRouter

from baccarat.validation import Refusal
from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.observability import logger, metrics
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.models import DealRequest, RoundOut

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
