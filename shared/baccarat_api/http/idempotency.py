"""The ``Idempotency-Key`` header of every POST, as a FastAPI dependency (the rules are in
:mod:`baccarat_api.service.idempotency`)."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Annotated

from fastapi import Depends, Header, Request

from baccarat_api.service.idempotency import HEADER, MAX_KEY_LENGTH, IdempotencyRequest, request_for
from baccarat_api.service.tokens import unverified_claims


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
    idem = request_for(key, request.method, request.url.path, await request.body(), status)
    return None if idem is None else scoped(idem, request.headers.get("authorization"))


def scoped(idem: IdempotencyRequest, authorization: str | None) -> IdempotencyRequest:
    """A player token's key, scoped by its person as well as its operator (the records are the
    operator's): one person cannot replay another's stored answer. The claims are read
    unverified: a token whose MAC fails is refused before the key is used."""
    scheme, _, value = (authorization or "").partition(" ")
    claims = unverified_claims(value.strip()) if scheme.lower() == "bearer" else None
    if claims is None:
        return idem
    subject = f"{claims.get('tbl', '')}/{claims.get('sub', '')}/{claims['role']}"
    digest = hashlib.sha256(f"{subject}\n{idem.key_hash}".encode()).hexdigest()
    return dataclasses.replace(idem, key_hash=digest)


#: A route parameter: the request's idempotency key, fingerprinted (``None`` without one).
Idem = Annotated[IdempotencyRequest | None, Depends(idempotency_request)]

#: The error codes the header adds to a route (for its OpenAPI ``responses``).
IDEM_ERRORS = ("idempotency_in_progress", "idempotency_key_reused")
