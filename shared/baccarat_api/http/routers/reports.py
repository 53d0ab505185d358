"""Reports: a UTC day's rounds and money, per table and in total (reconciliation)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.service.models import DailyReportOut

router = APIRouter(route_class=JsonRoute, tags=["read"])

DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


@router.get(
    "/v1/reports/daily",
    response_model=DailyReportOut,
    operation_id="daily_report",
    summary="Per table and in total: every round dealt on a UTC day, by state, and its money",
    responses=errors("unauthorized", "invalid_range"),
)
def daily_report(
    operator: OperatorId,
    rt: Rt,
    date: Annotated[str, Query(pattern=DAY_PATTERN, description="the UTC day, YYYY-MM-DD")],
) -> DailyReportOut:
    from baccarat_api.service.reconciliation import daily_report

    return daily_report(rt.repo, operator, date)
