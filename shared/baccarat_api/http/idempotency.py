"""The ``Idempotency-Key`` header of every POST, as a FastAPI dependency (the rules are in
:mod:`baccarat_api.service.idempotency`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from baccarat_api.service.idempotency import HEADER, MAX_KEY_LENGTH, IdempotencyRequest, request_for


async def idempotency_request(
    request: Request,
    key: Annotated[
        str | None,
        Header(
            alias=HEADER,
            description=(
                f"optional, 1 to {MAX_KEY_LENGTH} printable ASCII characters (e.g. a UUID): a "
                "retry with the same key and body answers the original response for 24 h "
                "(header Idempotent-Replayed: true); the same key with another body → 422 "
                "idempotency_key_reused; a duplicate while the first is in flight → 409 "
                "idempotency_in_progress (retryable)"
            ),
        ),
    ] = None,
) -> IdempotencyRequest | None:
    if key is None:
        return None
    route = request.scope.get("route")
    status = getattr(route, "status_code", None) or 200
    return request_for(key, request.method, request.url.path, await request.body(), status)


#: A route parameter: the request's idempotency key, fingerprinted (``None`` without one).
Idem = Annotated[IdempotencyRequest | None, Depends(idempotency_request)]

#: The error codes the header adds to a route (for its OpenAPI ``responses``).
IDEM_ERRORS = ("idempotency_in_progress", "idempotency_key_reused")
