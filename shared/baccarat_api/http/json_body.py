"""Request bodies as strict JSON: an object that names a key twice, anywhere in the body, is
refused (400 ``invalid_request``) instead of silently keeping the last value
(``{"amount": 100000000, "amount": 1000}`` would stake 1000). The one place bodies are parsed:
every route is a :class:`JsonRoute` (``APIRouter(route_class=JsonRoute)``; ``create_app``
refuses a route that is not), whose request parses with ``object_pairs_hook``."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from baccarat_api.http.threads import on_loop


class DuplicateKey(HTTPException):
    """A JSON object of the body names ``key`` twice (answered 400 ``invalid_request``; raised
    as the framework's own HTTP error so that FastAPI passes it through unchanged)."""

    def __init__(self, key: str) -> None:
        super().__init__(400, detail=f"body: duplicate key {key!r} in a JSON object")
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads(body: bytes | str) -> Any:
    """``json.loads`` that refuses duplicate keys (:class:`DuplicateKey`)."""
    return json.loads(body, object_pairs_hook=_unique)


class JsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = loads(await self.body())
        return self._json


class JsonRoute(APIRoute):
    """An API route whose body is parsed by :func:`loads`, its endpoint served through
    :func:`baccarat_api.http.threads.on_loop` (on the event loop under Lambda, else in a worker
    thread)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, on_loop(endpoint), **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handle(JsonRequest(request.scope, request.receive))

        return strict
