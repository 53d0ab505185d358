"""CORS for the public routes and the player routes.

The public routes: ``Access-Control-Allow-Origin: *`` on every answer of
``GET /v1/shoes/{shoe_id}/proof``, ``GET /v1/signing-keys``, ``GET /v1/tables/{table_id}/
fairness`` and ``GET /v1/shoes/{shoe_id}/rounds/{n}/book`` (their errors included), so a page
from anywhere — the browser verifier opened from
``file://`` (origin ``null``) or another site — can fetch a proof and its keys and read the
error when there is none yet. Only those: every other route needs an operator key and is not
meant for browsers. No credentials are involved (the route takes none), and a plain GET
needs no preflight.

The player routes (:data:`baccarat_api.http.player.PLAYER_ROUTES`, docs/design/browsers.md §1):
a browser holding a player or lobby token calls them from the operator's page, so their
preflight is answered here (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``:
204, the methods a token may use on that path, the headers a client sends, cached 600 s) and
every answer there carries ``Access-Control-Allow-Origin: *`` (errors too). ``*`` is safe: the
token is a header, never a cookie — no ambient credential, no CSRF. Every other path is
unchanged: no ``Access-Control-Allow-Origin`` (a browser cannot read an operator route), and an
``OPTIONS`` there stays 405."""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baccarat_api.http.player import PLAYER_ROUTES

PUBLIC_ROUTES = re.compile(
    r"^/v1/(shoes/[^/]+/proof|signing-keys|tables/[^/]+/fairness|shoes/[^/]+/rounds/\d+/book)$"
)
CORS_HEADERS = (
    (b"access-control-allow-origin", b"*"),
    (b"access-control-expose-headers", b"x-request-id, retry-after, etag"),
)


PREFLIGHT_HEADERS = (
    (
        b"access-control-allow-headers",
        b"authorization, content-type, idempotency-key, if-none-match",
    ),
    (b"access-control-max-age", b"600"),
)


def _template_re(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\{\w+\\}", "[^/]+", re.escape(path)) + "$")


#: (path pattern, the player methods of that path), one per player path.
_PLAYER_PATHS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (_template_re(path), ", ".join(sorted({r.method for r in PLAYER_ROUTES if r.path == path})))
    for path in sorted({r.path for r in PLAYER_ROUTES})
)


def player_methods(path: str) -> str | None:
    """The methods a token may call on ``path`` (``"DELETE, PUT"``), or ``None``: not a player
    path."""
    found = sorted({m for pattern, methods in _PLAYER_PATHS if pattern.fullmatch(path)
                    for m in methods.split(", ")})  # fmt: skip
    return ", ".join(found) or None


class PublicCors:
    """Pure ASGI middleware (outermost, so errors answered by inner layers get it too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        methods = player_methods(path) if path else None
        if methods is not None and _preflight(scope):
            await _answer_preflight(methods, send)
            return
        player = methods is not None and scope.get("method") in methods.split(", ")
        if not player and (not path or not PUBLIC_ROUTES.fullmatch(path)):
            await self.app(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() not in {name for name, _ in CORS_HEADERS}
                ]
                message["headers"] = [*headers, *CORS_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_cors)


def _preflight(scope: Scope) -> bool:
    if scope.get("method") != "OPTIONS":
        return False
    names = {k.lower() for k, _ in scope.get("headers", [])}
    return b"origin" in names and b"access-control-request-method" in names


async def _answer_preflight(methods: str, send: Send) -> None:
    headers = [
        *CORS_HEADERS,
        (b"access-control-allow-methods", methods.encode()),
        *PREFLIGHT_HEADERS,
    ]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
