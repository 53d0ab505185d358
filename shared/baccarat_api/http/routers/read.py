"""read: every GET route (one DynamoDB round trip each, at the documented limits; the proof, the
signing keys, a table's fairness summary and the verifier page need no key)."""

from __future__ import annotations

from typing import Annotated, TypeVar

from fastapi import APIRouter, Header, Query, Response
from fastapi.responses import HTMLResponse

from baccarat import proofdoc
from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.ids import SHOE_NUMBER
from baccarat_api.limits import DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE
from baccarat_api.service import events, feed, proofs, reading, table_state
from baccarat_api.service.models import (
    AuditOut,
    DailyReportOut,
    EventsPageOut,
    FairnessOut,
    FeedPageOut,
    ProofPageOut,
    RoundDetailOut,
    RoundListOut,
    RoundStatus,
    ShoeStateOut,
    SigningKeysOut,
    TableOut,
    TableStateOut,
    TiersOut,
)

#: A final proof's page never changes.
IMMUTABLE = "public, max-age=31536000, immutable"

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
    response_model=ProofPageOut,
    operation_id="get_shoe_proof",
    summary="A page of the shoe's final, signed public proof (no key)",
    description=(
        "Page 1, or page `k` with `?page=k` (each at most ~1 MB; `page.next` links the next). "
        "409 `shoe_not_closed` (retryable, `Retry-After`; details: table, rounds dealt, voids "
        "so far, `close_by`) while the shoe is open; 404 `not_found` for an unknown shoe and a "
        "page out of range; 409 `proof_pending` (retryable, `Retry-After`) once it has ended "
        "with rounds not yet settled or voided. A final proof never changes (cacheable, "
        "immutable)."
    ),
    responses=errors("not_found", "shoe_not_closed", "proof_pending"),
)
def get_proof(
    shoe_id: str, rt: Rt, page: Annotated[int, Query(ge=1, le=proofdoc.MAX_PAGES)] = 1
) -> Response:
    served = proofs.proof_page(rt.repo, rt.vault, rt.shoes.ref_key, shoe_id, page)
    return Response(
        served.body,
        media_type="application/json",
        headers={"cache-control": IMMUTABLE, "etag": f'"{served.etag}"'},
    )


@router.get(
    "/v1/signing-keys",
    response_model=SigningKeysOut,
    operation_id="signing_keys",
    summary="The public keys that sign proofs (a JWK set; no key)",
    responses=errors(),
)
def signing_keys(rt: Rt, response: Response) -> SigningKeysOut:
    # short: a new key is listed (and a retired key's not_after moves) when it signs
    response.headers["cache-control"] = "public, max-age=300"
    return proofs.signing_keys(rt.repo, rt.vault)


@router.get(
    "/v1/tables/{table_id}/fairness",
    response_model=FairnessOut,
    operation_id="table_fairness",
    summary="Every ended shoe of the table with a final proof: its interventions, and totals",
    description=(
        "Public (no key). Newest shoe first, `limit` a page; `next_cursor` (pass as `cursor`) "
        "gives older ones. `totals` sums every listed shoe's interventions (`closed_early`: how "
        "many shoes closed early). `open_shoe` (first page): the table's open shoe as far as it "
        "went — rounds dealt, its voids so far and what they replaced — without any card."
    ),
    responses=errors("not_found", "invalid_cursor"),
)
def table_fairness(
    table_id: str,
    rt: Rt,
    response: Response,
    # a malformed cursor is the service's 422 invalid_cursor, as on every route with a cursor
    cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page")] = None,
    limit: Annotated[int, Query(ge=1, le=proofs.MAX_FAIRNESS_LIMIT)] = proofs.FAIRNESS_LIMIT,
) -> FairnessOut:
    response.headers["cache-control"] = "public, max-age=60"
    return proofs.fairness(rt.repo, table_id, cursor, limit)


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


_T = TypeVar("_T")


def _conditional(
    body: _T, etag: str, response: Response, if_none_match: str | None
) -> _T | Response:
    """``304`` (no body) when ``If-None-Match`` names ``etag``; else ``body`` with its ``ETag``."""
    if if_none_match is not None and etag in (t.strip() for t in if_none_match.split(",")):
        return Response(status_code=304, headers={"ETag": etag})
    response.headers["ETag"] = etag
    return body


@router.get(
    "/v1/tables/{table_id}/events",
    response_model=EventsPageOut,
    operation_id="table_events",
    summary="The table's events after a sequence number, in order (ETag / If-None-Match: 304)",
    responses={
        304: {"description": "the page is unchanged since the ETag sent in If-None-Match"},
        **errors("unauthorized", "not_found"),
    },
)
def table_events(
    table_id: str,
    operator: OperatorId,
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
    page, etag = events.table_events(rt.repo, operator, table_id, after, limit)
    return _conditional(page, etag, response, if_none_match)


@router.get(
    "/v1/tables/{table_id}/state",
    response_model=TableStateOut,
    operation_id="table_state",
    summary="The table now: presence, phase and deadline, book, squeeze, shoe, last seq (ETag)",
    responses={
        304: {"description": "the state is unchanged since the ETag sent in If-None-Match"},
        **errors("unauthorized", "not_found"),
    },
)
def get_table_state(
    table_id: str,
    operator: OperatorId,
    rt: Rt,
    response: Response,
    if_none_match: Annotated[str | None, Header()] = None,
) -> TableStateOut | Response:
    state, etag = table_state.table_state(rt.repo, operator, table_id)
    return _conditional(state, etag, response, if_none_match)


# --- the operator feed (issue 14) -------------------------------------------------------------


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


# --- reconciliation ----------------------------------------------------------------------------

DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
INSTANT = "a UTC day (YYYY-MM-DD: its start) or time (YYYY-MM-DDTHH:MM:SS[.mmm]Z)"


@router.get(
    "/v1/rounds",
    response_model=RoundListOut,
    operation_id="list_rounds",
    summary="The operator's rounds dealt in a time range: state and money, paged (reconciliation)",
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
