"""FastAPI dependencies: the operator behind the request's key, the container's runtime, and the
error responses each route documents."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from fastapi import Depends, Path, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.openapi.models import Schema
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema

from baccarat_api.http.auth import authenticate, authorizer_operator
from baccarat_api.http.errors import status_of
from baccarat_api.http.player import scope
from baccarat_api.http.ratelimit import check
from baccarat_api.http.threads import call_blocking
from baccarat_api.limits import BETTOR_ID_PATTERN
from baccarat_api.observability import logger
from baccarat_api.runtime import Runtime, get_runtime
from baccarat_api.service import tokens
from baccarat_api.service.callers import Caller, Player
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import RESERVED_SCHEMA, ErrorOut, check_bettor_id
from baccarat_api.service.tokens import PREFIX

#: A bettor's id in a path (slips, spectators, watchers): the same rule as in a body, reserved
#: names included (``400 invalid_request``).
Bettor = Annotated[
    str,
    Path(
        pattern=f"^{BETTOR_ID_PATTERN}$",
        description="the bettor's id",
        json_schema_extra=dict(RESERVED_SCHEMA),
    ),
    AfterValidator(check_bettor_id),
]

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="OperatorKey",
    description="Authorization: Bearer <operator key>",
)


async def runtime() -> Runtime:
    # async: nothing blocks here, and a sync dependency would take a worker thread
    return get_runtime()


def player_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer bpt1.…`` header (a player or lobby token), or
    ``None`` (an operator key, or no header)."""
    scheme, _, value = (authorization or "").partition(" ")
    value = value.strip()
    return value if scheme.lower() == "bearer" and value.startswith(PREFIX) else None


async def _operator(request: Request, rt: Runtime) -> str:
    operator_id = authorizer_operator(request.scope.get("aws.event"))
    if operator_id is None:
        header = request.headers.get("authorization")
        operator_id = await call_blocking(authenticate, header, rt.repo, rt.key_cache)
    logger.thread_safe_append_keys(operator_id=operator_id)
    check(rt.limiter, operator_id)
    return operator_id


async def current_operator(
    request: Request,
    rt: Annotated[Runtime, Depends(runtime)],
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The operator of the request, then its rate limit (429 ``rate_limited``).

    In AWS the HttpApi Lambda authorizer has checked the key (:mod:`baccarat_api.http.authorizer`)
    and API Gateway hands its ``operator_id`` over in the event; without it (``make run``, a
    direct invoke) the same :func:`authenticate` runs here (in a worker thread: it may read
    DynamoDB; on the loop under Lambda: :mod:`baccarat_api.http.threads`): 401 in the error
    envelope. A player or lobby token is refused here, before anything is read: 403
    ``token_route_forbidden`` (an operator-only route).

    Async on purpose: the operator id joins the request's logging context in the request's own
    task, which the handler's worker thread then copies (a sync dependency runs in a thread of
    its own whose context changes are lost)."""
    if player_token(request.headers.get("authorization")) is not None:
        raise DomainError("token_route_forbidden", "this route takes an operator key only")
    return await _operator(request, rt)


Rt = Annotated[Runtime, Depends(runtime)]
OperatorId = Annotated[str, Depends(current_operator)]


def _player(rt: Runtime, token: str, method: str, path: str, params: dict[str, Any]) -> Player:
    """Verified (401), scoped to this route (403, before any read of the table), unrevoked
    (401 ``token_revoked``: the table's ``TOKENS`` item, read strongly consistent)."""
    player = tokens.verify(rt.repo, rt.vault, token)
    scope(player, method, path, params)
    tokens.check_revoked(rt.repo, player)
    return player


async def current_caller(
    request: Request,
    rt: Rt,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    """The caller of a route a player or lobby token may call (``http/player.py``): the
    operator behind a key, or the person behind a token, scope-checked for the route before
    it runs. The operator's rate limit counts the tokens' requests too."""
    token = player_token(request.headers.get("authorization"))
    if token is None:
        return Caller(await _operator(request, rt))
    path = getattr(request.scope.get("route"), "path", request.url.path)
    params = dict(request.path_params)
    player = await call_blocking(_player, rt, token, request.method, path, params)
    logger.thread_safe_append_keys(operator_id=player.operator_id, token_jti=player.jti)
    check(rt.limiter, player.operator_id)
    return Caller(player.operator_id, player)


CallerDep = Annotated[Caller, Depends(current_caller)]


def errors(*codes: str) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error codes a route can answer (grouped by status; a code
    not in the catalogue is a bet refusal, 422). Every route can answer a schema error, a body
    past the size limit and our own failures; every authenticated route the rate limit.

    The body is named by reference (``ErrorOut``, put in the document by :func:`error_schemas`),
    not given as a ``model``: FastAPI would build a model field for every status of every route
    at each cold start for a body it never serializes (errors are answered by the handlers of
    :mod:`baccarat_api.http.app`)."""
    by_status: dict[int, list[str]] = {}
    # every authenticated route refuses a player token it is not open to (403)
    limited = ("rate_limited", "token_route_forbidden") if "unauthorized" in codes else ()
    common = ("invalid_request", "payload_too_large", "internal_error", "unavailable")
    for code in (*codes, *limited, *common):
        by_status.setdefault(status_of(code), []).append(code)
    return {
        status: {
            "description": "error codes: " + ", ".join(sorted(set(names))),
            "content": {"application/json": {"schema": {"$ref": _ERROR_REF}}},
        }
        for status, names in sorted(by_status.items())
    }


_ERROR_REF = f"#/components/schemas/{ErrorOut.__name__}"


def error_schemas() -> dict[str, Any]:
    """The JSON schemas :func:`errors` refers to (``ErrorOut`` and what it holds), as the
    OpenAPI document's ``components/schemas`` entries."""
    # as FastAPI renders a response model's: pydantic's generator, then through the document's
    # own Schema model (its key order)
    generator = GenerateJsonSchema(ref_template="#/components/schemas/{model}")
    core = TypeAdapter(ErrorOut).core_schema
    _, definitions = generator.generate_definitions(inputs=[("error", "serialization", core)])
    return {
        name: jsonable_encoder(Schema.model_validate(d), by_alias=True, exclude_none=True)
        for name, d in definitions.items()
    }


_T = TypeVar("_T")


def unless_not_modified(
    body: _T, etag: str, response: Response, if_none_match: str | None
) -> _T | Response:
    """``304`` (no body) when ``If-None-Match`` names ``etag``; else ``body`` with its ``ETag``."""
    if if_none_match is not None and etag in (t.strip() for t in if_none_match.split(",")):
        return Response(status_code=304, headers={"ETag": etag})
    response.headers["ETag"] = etag
    return body
