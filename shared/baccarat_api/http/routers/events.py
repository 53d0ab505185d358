"""Events: one table's, in order (ETag / 304), and the operator's feed across its tables."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Response

from baccarat_api.http.deps import CallerDep, OperatorId, Rt, errors, unless_not_modified
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.http.player import TOKEN_ERRORS
from baccarat_api.limits import DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE
from baccarat_api.service import events, feed
from baccarat_api.service.models import EventsPageOut, FeedPageOut

router = APIRouter(route_class=JsonRoute, tags=["read"])


@router.get(
    "/v1/tables/{table_id}/events",
    response_model=EventsPageOut,
    operation_id="table_events",
    summary="The table's events after a sequence number, in order (ETag / If-None-Match: 304)",
    responses={
        304: {"description": "the page is unchanged since the ETag sent in If-None-Match"},
        **errors(*TOKEN_ERRORS, "unauthorized", "not_found"),
    },
)
def table_events(
    table_id: str,
    caller: CallerDep,
    rt: Rt,
    response: Response,
    after: Annotated[
        int, Query(ge=0, le=10**12 - 1, description="the last seq you have (0: from the start)")
    ] = 0,
    limit: Annotated[
        int,
        Query(ge=1, le=MAX_EVENTS_PAGE, description=f"most events (max {MAX_EVENTS_PAGE})"),
    ] = DEFAULT_EVENTS_PAGE,
    if_none_match: Annotated[str | None, Header()] = None,
) -> EventsPageOut | Response:
    page, etag = events.table_events(rt.repo, caller.operator_id, table_id, after, limit)
    return unless_not_modified(page, etag, response, if_none_match)


@router.get(
    "/v1/events",
    response_model=FeedPageOut,
    operation_id="operator_events",
    summary="Every event of every table of yours, after a cursor (settlements with their money)",
    description=(
        "Each table's events in their order, each once (`event_id`); `round_settled`, "
        "`round_auto_settled` and `round_voided` carry the round's full money in "
        "`settlement`. Pass `next_after` back as `after`: a page never skips or repeats an "
        "event, whatever is written meanwhile. A page stops at `limit` events, "
        f"{feed.MAX_MONEY_EVENTS_PAGE} money events or ~1 MB."
    ),
    responses=errors("unauthorized", "invalid_cursor"),
)
def operator_events(
    operator: OperatorId,
    rt: Rt,
    after: Annotated[
        str | None,
        # a malformed cursor (any shape, any length) is the service's 422 invalid_cursor
        Query(description="the `next_after` of the page before (none: from the first event)"),
    ] = None,
    limit: Annotated[
        int,
        Query(ge=1, le=feed.MAX_FEED_PAGE, description=f"most events (max {feed.MAX_FEED_PAGE})"),
    ] = feed.DEFAULT_FEED_PAGE,
) -> FeedPageOut:
    return feed.operator_events(rt.repo, operator, after, limit)
