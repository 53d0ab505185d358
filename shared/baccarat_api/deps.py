"""FastAPI dependencies: the operator behind the request's key, the container's runtime, and the
error responses each route documents."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .auth import authenticate
from .errors import CODES
from .models import ErrorOut
from .observability import logger
from .runtime import Runtime, get_runtime

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="OperatorKey",
    description="Authorization: Bearer <operator key>",
)


def runtime() -> Runtime:
    return get_runtime()


def current_operator(
    request: Request,
    rt: Annotated[Runtime, Depends(runtime)],
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The operator id of ``Authorization: Bearer <key>``, or 401 in the error envelope."""
    operator_id = authenticate(request.headers.get("authorization"), rt.repo, rt.key_cache)
    logger.append_keys(operator_id=operator_id)
    return operator_id


Rt = Annotated[Runtime, Depends(runtime)]
OperatorId = Annotated[str, Depends(current_operator)]


def errors(*codes: str) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error codes a route can answer (grouped by status; a code
    not in the catalogue is a bet refusal, 422)."""
    by_status: dict[int, list[str]] = {}
    for code in (*codes, "invalid_request", "internal_error", "unavailable"):
        by_status.setdefault(CODES[code][0] if code in CODES else 422, []).append(code)
    return {
        status: {"model": ErrorOut, "description": "error codes: " + ", ".join(sorted(set(names)))}
        for status, names in sorted(by_status.items())
    }
