"""Public proofs (no key): a shoe's signed proof, the signing keys, a table's fairness summary
and the browser verifier page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.responses import HTMLResponse

from baccarat import proofdoc
from baccarat_api.http.deps import Rt, errors
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.http.pages import page_responses
from baccarat_api.service import proofs
from baccarat_api.service.models import FairnessOut, ProofPageOut, SigningKeysOut
from baccarat_api.service.models.bookpages import PublicBookPageOut

#: A final proof's page never changes.
IMMUTABLE = "public, max-age=31536000, immutable"

router = APIRouter(route_class=JsonRoute, tags=["read"])


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
    beacon = lambda: rt.beacon  # noqa: E731 (built only for a v2 shoe's beacon void)
    served = proofs.proof_page(rt.repo, rt.vault, rt.shoes.ref_key, shoe_id, page, beacon)
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
    "/verify",
    response_class=HTMLResponse,
    operation_id="verify_page",
    tags=["verify"],
    summary="The browser verifier: one page, no key (/verify?proof=<proof URL> checks a proof)",
    responses=page_responses("the verifier page"),
)
def verify_page() -> HTMLResponse:
    from baccarat_api.http.verifier import verifier_page

    page = verifier_page()
    return HTMLResponse(page.html, headers=page.headers)


@router.get(
    "/v1/shoes/{shoe_id}/rounds/{round_number}/book",
    response_model=PublicBookPageOut,
    operation_id="get_book_page",
    summary="A page of a round's public book of spectators' slips (no key)",
    description=(
        "At a `bet_behind: book` table: page `k` (`?page=k`, from 0) of round `round_number`'s "
        "book — leaves `[100k, 100k + 100)` in bettor-ref order, each with its money; bound by "
        "the proof round's `book.root` (`baccarat verify --books` checks every page). 404 "
        "`settlement_pending` (retryable) until the round is settled and that page written; "
        "404 `not_found` for an unknown shoe or round, a round without a book, a page out of "
        "range. A written page never changes (cacheable, immutable)."
    ),
    responses=errors("not_found", "settlement_pending"),
)
def get_book_page(
    shoe_id: str, round_number: int, rt: Rt, page: Annotated[int, Query(ge=0)] = 0
) -> Response:
    body = proofs.book_page(rt.repo, shoe_id, round_number, page)
    return Response(body, media_type="application/json", headers={"cache-control": IMMUTABLE})
