"""CORS for the public routes: ``Access-Control-Allow-Origin: *`` on every answer of
``GET /v1/shoes/{shoe_id}/proof``, ``GET /v1/signing-keys``, ``GET /v1/tables/{table_id}/
fairness`` and ``GET /v1/shoes/{shoe_id}/rounds/{n}/book`` (their errors included), so a page
from anywhere — the browser verifier opened from
``file://`` (origin ``null``) or another site — can fetch a proof and its keys and read the
error when there is none yet. Only those: every other route needs an operator key and is not
meant for browsers. No credentials are involved (the route takes none), and a plain GET
needs no preflight."""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PUBLIC_ROUTES = re.compile(
    r"^/v1/(shoes/[^/]+/proof|signing-keys|tables/[^/]+/fairness|shoes/[^/]+/rounds/\d+/book)$"
)
CORS_HEADERS = (
    (b"access-control-allow-origin", b"*"),
    (b"access-control-expose-headers", b"x-request-id, retry-after, etag"),
)


class PublicCors:
    """Pure ASGI middleware (outermost, so errors answered by inner layers get it too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not PUBLIC_ROUTES.fullmatch(scope.get("path", "")):
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
