"""Request bodies as strict JSON: an object that names a key twice, anywhere in the body, is
refused (400 ``invalid_request``) instead of silently keeping the last value
(``{"amount": 100000000, "amount": 1000}`` would stake 1000). The one place bodies are parsed:
every route is a :class:`JsonRoute` (``APIRouter(route_class=JsonRoute)``; ``create_app``
refuses a route that is not), whose request parses with ``object_pairs_hook``. A route that
declares no body refuses one (anything but nothing or ``{}``: 400 ``invalid_request``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.routing import compile_path, get_name
from starlette.types import Receive, Scope, Send

from baccarat_api.http.threads import on_loop


class BadBody(HTTPException):
    """A body refused before its model sees it (answered 400 ``invalid_request``, ``problem``
    its ``details.errors`` type; raised as the framework's own HTTP error so that FastAPI
    passes it through unchanged)."""

    problem = "invalid_body"


class DuplicateKey(BadBody):
    """A JSON object of the body names ``key`` twice."""

    problem = "duplicate_key"

    def __init__(self, key: str) -> None:
        super().__init__(400, detail=f"body: duplicate key {key!r} in a JSON object")
        self.key = key


class UnexpectedBody(BadBody):
    """A route that takes no body was sent one."""

    problem = "no_body_expected"

    def __init__(self) -> None:
        super().__init__(400, detail="body: this route takes no body (send none, or {})")


class TooDeep(BadBody):
    """A body nested deeper than the parser goes (a few KB of ``[`` is enough)."""

    problem = "too_deep"

    def __init__(self) -> None:
        super().__init__(400, detail="body: JSON nested too deeply")


def _no_body(raw: bytes) -> bool:
    """Nothing, or an empty JSON object however it is spaced (``{}``, ``{ }``, ``{\\n}``).
    Anything else — also a body nested too deeply to parse — is a body."""
    if not raw.strip():
        return True
    try:
        return bool(json.loads(raw) == {})
    except (ValueError, RecursionError):  # (UnicodeDecodeError too; RecursionError: 4 KB of [)
        return False


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads(body: bytes | str) -> Any:
    """``json.loads`` that refuses duplicate keys (:class:`DuplicateKey`) and a body nested too
    deeply (:class:`TooDeep`: the parser's ``RecursionError`` is no server error)."""
    try:
        return json.loads(body, object_pairs_hook=_unique)
    except RecursionError:
        raise TooDeep from None


class JsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = loads(await self.body())
        return self._json


class JsonRoute(APIRoute):
    """An API route whose body is parsed by :func:`loads`, its endpoint served through
    :func:`baccarat_api.http.threads.on_loop` (on the event loop under Lambda, else in a worker
    thread), and its state built when first needed.

    FastAPI builds a route's state when the route is declared: the endpoint's dependencies
    analysed, a model field for every parameter, body and response. A function serves one
    route per request but declares all of its own (the read function fourteen): at a cold
    start, that is ≈ 2 ms per route never called. So a declared route holds only what matching
    a request needs (its path pattern and methods); the rest is built the first time the route
    handles a request, or anything else asks for it (the OpenAPI document reads every route:
    ``make openapi`` builds them all, and fails as a declaration would)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        served = on_loop(endpoint)
        self._declared: tuple[str, Callable[..., Any], dict[str, Any]] | None = (
            path,
            served,
            kwargs,
        )
        self._lock = threading.Lock()
        # what Starlette's matching reads; APIRoute's own construction sets the same again
        self.path, self.endpoint = path, served
        self.path_regex, self.path_format, self.param_convertors = compile_path(path)
        self.methods = {method.upper() for method in kwargs.get("methods") or ("GET",)}
        self.name = kwargs.get("name") or get_name(endpoint)

    def _build(self) -> None:
        with self._lock:
            declared, self._declared = self._declared, None
            if declared is not None:
                path, endpoint, kwargs = declared
                super().__init__(path, endpoint, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # only for what is not set yet: everything APIRoute sets, until it is built
        if name.startswith("__") or self.__dict__.get("_declared") is None:
            raise AttributeError(name)
        self._build()
        return getattr(self, name)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._declared is not None:
            self._build()
        await super().handle(scope, receive, send)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()
        # a route that takes no body refuses one that says something (docs/api.md: requests
        # are strict) — FastAPI would ignore it: a close or a watcher's PUT sent with fields
        # it does not take succeeded; nothing, or ``{}``, is still no body
        changes = (self.methods or set()) - {"GET", "HEAD", "OPTIONS"}
        bodiless = self.body_field is None and bool(changes)

        async def strict(request: Request) -> Response:
            parsed = JsonRequest(request.scope, request.receive)
            if bodiless and not _no_body(await parsed.body()):
                raise UnexpectedBody
            return await handle(parsed)

        return strict
