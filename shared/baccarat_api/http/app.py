"""The FastAPI app factory: routers in, one error envelope out.

Each Lambda function serves ``create_app(function_router(name))``; ``make run`` serves them all.
Every answer that is not a success is ``{"error": {"code", "message", "retryable", "details",
"request_id"}}`` — domain errors, schema violations (400 ``invalid_request``, never FastAPI's
422), unknown routes (404, no trailing-slash redirects), storage throttling (503) and anything
unexpected (500). Logging context is per request (powertools' ``thread_safe_*`` keys), so
concurrent requests never share a correlation or operator id."""

from __future__ import annotations

import os
import uuid
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baccarat_api.http.contract import refine
from baccarat_api.http.cors import PublicCors
from baccarat_api.http.deps import error_schemas
from baccarat_api.http.errors import HttpError, body_of, headers_for, status_for
from baccarat_api.http.json_body import BadBody, JsonRoute
from baccarat_api.limits import MAX_BODY_BYTES
from baccarat_api.observability import logger
from baccarat_api.ports.repository import ConditionFailed, StoreUnavailable
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import REPLAYED_HEADER, Replayed

API_TITLE = "Baccarat engine API"
API_VERSION = "1.0.0"


def request_id_of(request: Request) -> str:
    rid = request.scope.get("state", {}).get("request_id")
    return str(rid) if rid else "-"


def _error(request: Request, exc: DomainError) -> JSONResponse:
    return JSONResponse(
        body_of(exc, request_id_of(request)),
        status_code=status_for(exc),
        headers=headers_for(exc) or None,
    )


async def _domain_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DomainError)
    status = status_for(exc)
    if status >= 500:
        logger.warning("request failed", extra={"code": exc.code, "status": status})
    return _error(request, exc)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [
        {
            "loc": [str(part) for part in e.get("loc", ())],
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in exc.errors()
    ]
    first = problems[0] if problems else {"loc": [], "msg": "invalid request"}
    where = ".".join(p for p in first["loc"] if p != "body") or "request"
    return _error(
        request,
        HttpError("invalid_request", f"{where}: {first['msg']}", details={"errors": problems}),
    )


def _allowed_methods(request: Request) -> str:
    """Every method the app routes for this path (several routes may share one: PUT and
    DELETE of a seat), not only the first route's."""
    path = request.url.path
    methods: set[str] = set()
    router = request.scope.get("router") or request.app.router
    pending = list(router.routes)
    while pending:
        route = pending.pop()
        inner = getattr(route, "original_router", route)  # FastAPI's included routers
        pending += list(getattr(inner, "routes", None) or ()) if inner is not route else []
        regex = getattr(route, "path_regex", None)
        if regex is not None and getattr(route, "methods", None) and regex.match(path):
            methods |= set(route.methods)
    methods.discard("HEAD")
    return ", ".join(sorted(methods))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if isinstance(exc, BadBody):
        problem = {"loc": ["body"], "msg": str(exc.detail), "type": exc.problem}
        err = HttpError("invalid_request", str(exc.detail), details={"errors": [problem]})
    elif exc.status_code == 404:
        err = HttpError("not_found", "no such route", details={"path": request.url.path})
    elif exc.status_code == 405:
        err = HttpError(
            "method_not_allowed",
            f"{request.method} is not allowed here",
            # every method of the path (RFC 9110), not only the first matching route's
            headers={
                "Allow": _allowed_methods(request) or dict(exc.headers or {}).get("Allow", "")
            },
        )
    elif exc.status_code == 413:
        err = HttpError("payload_too_large", f"at most {MAX_BODY_BYTES} bytes")
    elif exc.status_code < 500:
        err = HttpError("invalid_request", str(exc.detail), status=exc.status_code)
    else:
        err = HttpError("internal_error", status=exc.status_code)
    return _error(request, err)


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    logger.warning("dependency unavailable", extra={"reason": str(exc)})
    return _error(request, DomainError("unavailable"))


async def _replayed(request: Request, exc: Exception) -> JSONResponse:
    """An ``Idempotency-Key`` retry: the stored response, as it was first answered (serialized
    by the route's response model, as the first answer was)."""
    assert isinstance(exc, Replayed)
    body: Any = exc.body
    route = request.scope.get("route")
    model = getattr(route, "response_model", None)
    # (a bacc-pf-v2 deal's 202, its locked round, is not the route's model: answered as stored)
    same = exc.status == (getattr(route, "status_code", None) or 200)
    if same and isinstance(model, type) and issubclass(model, BaseModel):
        body = model.model_validate(body).model_dump(mode="json")
    return JSONResponse(body, status_code=exc.status, headers={REPLAYED_HEADER: "true"})


async def _condition_failed(request: Request, exc: Exception) -> JSONResponse:
    return _error(request, DomainError("concurrent_update"))


class RequestContext:
    """Pure ASGI middleware: the request id (API Gateway's ``requestContext.requestId`` under
    Lambda, else a generated one) for the error envelope, the logs and an ``x-request-id``
    header; the body size limit; and the last line of defence that turns any unhandled exception
    into a 500 envelope instead of a Lambda error."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.in_lambda = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        event = scope.get("aws.event") or {}
        rid = (event.get("requestContext") or {}).get("requestId") or str(uuid.uuid4())
        scope.setdefault("state", {})["request_id"] = rid
        if not self.in_lambda:  # in Lambda, inject_lambda_context does this per invocation
            # this request's task only (each ASGI request runs in a task of its own, and the
            # worker threads of its sync handlers copy the task's context)
            logger.thread_safe_clear_keys()
            logger.thread_safe_append_keys(correlation_id=rid)
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        try:
            length = next((v for k, v in scope.get("headers", []) if k == b"content-length"), b"")
            if length.isdigit() and int(length) > MAX_BODY_BYTES:
                err = HttpError("payload_too_large", f"at most {MAX_BODY_BYTES} bytes")
                response = JSONResponse(body_of(err, rid), status_code=status_for(err))
                await response(scope, receive, send_with_id)
                return
            await self.app(scope, _bounded_receive(receive), send_with_id)
        except Exception:
            logger.exception("unhandled error")
            if started:
                raise
            response = JSONResponse(body_of(HttpError("internal_error"), rid), status_code=500)
            await response(scope, receive, send_with_id)


def _bounded_receive(receive: Receive) -> Receive:
    """``receive`` that refuses a body growing past :data:`MAX_BODY_BYTES` (a chunked upload,
    or a Content-Length that lies): 413 ``payload_too_large`` through the HTTP error handler."""
    seen = 0

    async def bounded() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES:
                raise StarletteHTTPException(413)
        return message

    return bounded


def _drop_default_validation_responses(schema: dict[str, Any]) -> dict[str, Any]:
    """FastAPI documents a 422 ``HTTPValidationError`` on every route; this API answers schema
    violations with 400 ``invalid_request`` in the one envelope instead. (A route's own 422 —
    refused bets, an invalid table — stays documented.)"""
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            if "HTTPValidationError" in str(responses.get("422", {})):
                del responses["422"]
    schemas = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    return schema


def create_app(*routers: APIRouter, docs: bool = False) -> FastAPI:
    app = FastAPI(
        title=API_TITLE,
        version=API_VERSION,
        description=(
            "Provably fair baccarat (bacc-pf-v1): tables, shoes committed before any card is "
            "dealt, rounds, settlements and public proofs. JSON, snake_case; amounts are "
            "integers in minor units. Every error is "
            '`{"error": {"code", "message", "retryable", "details", "request_id"}}`.'
        ),
        docs_url="/docs" if docs else None,
        redoc_url=None,
        openapi_url="/openapi.json" if docs else None,
        # /v1/tiers/ is not /v1/tiers: 404, never a 307 to http://<whatever Host said>/v1/tiers
        redirect_slashes=False,
    )
    # The routers' own routes, as they are: ``include_router`` would wrap each router and, on the
    # first request, build every route's state (dependencies, model fields) a second time for
    # the including app — work a cold start pays for nothing (no prefix, tags or dependencies
    # are added here).
    for router in routers:
        app.router.routes.extend(router.routes)
    loose = [
        r.path
        for router in routers
        for r in router.routes
        if isinstance(r, APIRoute) and not isinstance(r, JsonRoute)
    ]
    if loose:
        raise TypeError(f"routes without strict JSON (APIRouter(route_class=JsonRoute)): {loose}")
    app.add_exception_handler(DomainError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(StoreUnavailable, _unavailable)
    app.add_exception_handler(ConditionFailed, _condition_failed)
    app.add_exception_handler(Replayed, _replayed)
    app.add_middleware(RequestContext)
    app.add_middleware(PublicCors)  # outermost: CORS on every answer of the public proof

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            schemas = schema.setdefault("components", {}).setdefault("schemas", {})
            schemas.update(error_schemas())
            schema["components"]["schemas"] = dict(sorted(schemas.items()))
            app.openapi_schema = refine(_drop_default_validation_responses(schema))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
