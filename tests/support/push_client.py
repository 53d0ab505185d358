"""A push channel client for the tests and the bench: the AppSync Events WebSocket subset
(docs/api.md "Push") over ``websockets``' synchronous client."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from websockets.sync.client import ClientConnection, connect
from websockets.typing import Subprotocol

PROTOCOL = "aws-appsync-event-ws"


def auth_protocol(authorization: str | None, host: str = "127.0.0.1") -> str:
    """The ``header-<base64url JSON>`` subprotocol carrying ``Authorization``."""
    doc: dict[str, str] = {"host": host}
    if authorization is not None:
        doc["Authorization"] = authorization
    raw = base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")
    return "header-" + raw


def ws_url(http_url: str) -> str:
    return http_url.replace("http://", "ws://", 1) + "/event/realtime"


def open_socket(
    http_url: str, key: str | None, authorization: str | None = None
) -> ClientConnection:
    """A socket to the local server's push channel, authorized by ``key`` (``None``: none) or
    by ``authorization`` (a whole ``Authorization`` value: a token's)."""
    if authorization is None and key is not None:
        authorization = f"Bearer {key}"
    protocols = [Subprotocol(PROTOCOL), Subprotocol(auth_protocol(authorization))]
    return connect(ws_url(http_url), subprotocols=protocols, open_timeout=10)


def receive(ws: ClientConnection, timeout: float = 5.0, skip_ka: bool = True) -> dict[str, Any]:
    """The next message (``ka`` skipped unless asked), or ``TimeoutError``."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no message")
        msg: dict[str, Any] = json.loads(ws.recv(timeout=left))
        if not (skip_ka and msg.get("type") == "ka"):
            return msg


def init(ws: ClientConnection) -> dict[str, Any]:
    ws.send(json.dumps({"type": "connection_init"}))
    return receive(ws)


def subscribe(
    ws: ClientConnection, channel: str, sub_id: str = "s1", authorization: str | None = None
) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "subscribe", "id": sub_id, "channel": channel}
    if authorization is not None:
        msg["authorization"] = {"Authorization": authorization}
    ws.send(json.dumps(msg))
    return receive(ws)
