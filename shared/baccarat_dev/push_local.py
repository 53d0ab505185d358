"""``make run``'s push channel: the AppSync Events WebSocket protocol's subset that browsers and
the TypeScript client use (docs/api.md "Push"; docs/design/browsers.md §2), served on the local
server's app at ``/event/realtime`` — Lambda cannot hold a WebSocket, so this lives in the
development room and never ships.

The subset: subprotocols ``aws-appsync-event-ws`` and ``header-<base64url JSON>`` (its
``Authorization`` authorizes the connection); ``connection_init`` → ``connection_ack``
(``connectionTimeoutMs``) or ``connection_error``; ``ka`` every ``BACCARAT_PUSH_KA_SECONDS``
(10); ``subscribe {id, channel, authorization?}`` → ``subscribe_success`` / ``subscribe_error``;
``data {id, event}`` (``event``: the message's JSON text); ``unsubscribe`` →
``unsubscribe_success`` / ``unsubscribe_error``; anything else → ``error``. Publishing is not
offered on the socket (in AWS it is IAM's, the push function's).

Who may connect and subscribe is :func:`baccarat_api.http.push_authorizer.authorize_subscribe`,
the check AppSync's authorizer runs. Messages come from :func:`baccarat_api.jobs.push.on_records`
over DynamoDB Local's stream (``baccarat_dev/local.py``) through :class:`LocalPublisher` into
the in-process :class:`Hub`."""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from baccarat_api.http.push_authorizer import PushAccess, authorize_subscribe

PATH = "/event/realtime"
PROTOCOL = "aws-appsync-event-ws"
#: How long the poller's thread waits for a broadcast to be handed to every socket.
PUBLISH_WAIT_SECONDS = 30.0

Authorize = Callable[[str | None, str | None], PushAccess]


def ka_seconds() -> float:
    return float(os.environ.get("BACCARAT_PUSH_KA_SECONDS", "10"))


def timeout_ms() -> int:
    return int(os.environ.get("BACCARAT_PUSH_TIMEOUT_MS", "30000"))


def header_authorization(protocols: Sequence[str]) -> str | None:
    """The ``Authorization`` of the ``header-<base64url JSON>`` subprotocol, if any."""
    for p in protocols:
        if p.startswith("header-"):
            raw = p[len("header-") :]
            try:
                doc = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
            except (binascii.Error, ValueError):
                return None
            value = doc.get("Authorization") if isinstance(doc, dict) else None
            return value if isinstance(value, str) else None
    return None


def _error(kind: str, message: str) -> list[dict[str, str]]:
    return [{"errorType": kind, "message": message}]


class Connection:
    """One socket: its subscriptions (id → channel) and one sender at a time."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.subs: dict[str, str] = {}
        self.sending = asyncio.Lock()

    async def send_text(self, *texts: str) -> None:
        async with self.sending:
            for text in texts:
                await self.ws.send_text(text)

    async def send(self, doc: dict[str, Any]) -> None:
        await self.send_text(json.dumps(doc, separators=(",", ":")))


class Hub:
    """Channel → its subscriptions, on the server's event loop."""

    def __init__(self) -> None:
        self.channels: dict[str, dict[tuple[int, str], Connection]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    def add(self, conn: Connection, sub_id: str, channel: str) -> None:
        conn.subs[sub_id] = channel
        self.channels.setdefault(channel, {})[(id(conn), sub_id)] = conn

    def remove(self, conn: Connection, sub_id: str) -> bool:
        channel = conn.subs.pop(sub_id, None)
        if channel is None:
            return False
        subs = self.channels.get(channel, {})
        subs.pop((id(conn), sub_id), None)
        if not subs:
            self.channels.pop(channel, None)
        return True

    def drop(self, conn: Connection) -> None:
        for sub_id in list(conn.subs):
            self.remove(conn, sub_id)

    async def broadcast(self, channel: str, messages: Sequence[str]) -> None:
        """``data`` of each message, in order, to every subscription of ``channel``."""
        events = [json.dumps(m) for m in messages]
        subs = list(self.channels.get(channel, {}).items())

        async def deliver(sub_id: str, conn: Connection) -> None:
            head = '{"type":"data","id":' + json.dumps(sub_id) + ',"event":'
            try:
                await conn.send_text(*(head + e + "}" for e in events))
            except Exception:  # a socket gone: its own handler drops it
                return

        await asyncio.gather(*(deliver(sub_id, conn) for (_, sub_id), conn in subs))

    def publish(self, channel: str, messages: Sequence[str]) -> None:
        """From another thread (the stream poller): broadcast and wait until handed over."""
        loop = self.loop
        if loop is None or channel not in self.channels or loop.is_closed():
            return  # nobody has subscribed to it
        future = asyncio.run_coroutine_threadsafe(self.broadcast(channel, messages), loop)
        future.result(timeout=PUBLISH_WAIT_SECONDS)


class LocalPublisher:
    """:class:`~baccarat_api.ports.push.Publisher` into the in-process :class:`Hub`."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def publish(self, channel: str, messages: Sequence[str]) -> None:
        self.hub.publish(channel, messages)


class Session:
    """The protocol on one accepted socket."""

    def __init__(self, hub: Hub, conn: Connection, authorize: Authorize, auth: str | None):
        self.hub, self.conn, self.authorize, self.auth = hub, conn, authorize, auth
        self.ready = False
        self.ka: asyncio.Task[None] | None = None

    async def keep_alive(self) -> None:
        every = ka_seconds()
        while True:
            await self.conn.send({"type": "ka"})
            await asyncio.sleep(every)

    async def on_init(self) -> bool:
        access = await run_in_threadpool(self.authorize, self.auth, None)
        if not access.ok:
            await self.conn.send(
                {
                    "type": "connection_error",
                    "errors": _error("UnauthorizedException", str(access.error)),
                }
            )
            return False
        self.ready = True
        await self.conn.send({"type": "connection_ack", "connectionTimeoutMs": timeout_ms()})
        self.ka = asyncio.create_task(self.keep_alive())
        return True

    async def on_subscribe(self, msg: dict[str, Any]) -> None:
        sub_id, channel = msg.get("id"), msg.get("channel")
        if not isinstance(sub_id, str) or not sub_id or not isinstance(channel, str):
            await self.conn.send(
                {"type": "subscribe_error", "id": sub_id,
                 "errors": _error("BadRequestException", "subscribe needs an id and a channel")}
            )  # fmt: skip
            return
        given = msg.get("authorization")
        auth = given.get("Authorization") if isinstance(given, dict) else None
        access = await run_in_threadpool(self.authorize, auth or self.auth, channel)
        if not self.ready or not access.ok or sub_id in self.conn.subs:
            why = access.error if not access.ok else "connection_init first, and a new id"
            await self.conn.send(
                {"type": "subscribe_error", "id": sub_id,
                 "errors": _error("UnauthorizedException", str(why))}
            )  # fmt: skip
            return
        self.hub.add(self.conn, sub_id, channel)
        await self.conn.send({"type": "subscribe_success", "id": sub_id})

    async def on_unsubscribe(self, msg: dict[str, Any]) -> None:
        sub_id = msg.get("id")
        if isinstance(sub_id, str) and self.hub.remove(self.conn, sub_id):
            await self.conn.send({"type": "unsubscribe_success", "id": sub_id})
        else:
            await self.conn.send(
                {"type": "unsubscribe_error", "id": sub_id,
                 "errors": _error("UnknownOperationException", "no such subscription")}
            )  # fmt: skip

    async def on_message(self, text: str) -> bool:
        """Handle one client message; ``False`` closes the socket."""
        try:
            msg = json.loads(text)
        except ValueError:
            msg = None
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "connection_init":
            return await self.on_init()
        if kind == "subscribe" and isinstance(msg, dict):
            await self.on_subscribe(msg)
        elif kind == "unsubscribe" and isinstance(msg, dict):
            await self.on_unsubscribe(msg)
        elif kind == "publish" and isinstance(msg, dict):
            await self.conn.send(
                {"type": "publish_error", "id": msg.get("id"),
                 "errors": _error("UnauthorizedException", "publishing is the server's")}
            )  # fmt: skip
        else:
            await self.conn.send(
                {"type": "error", "errors": _error("UnsupportedOperation", f"{kind!r}")}
            )
        return True


def endpoint(hub: Hub, authorize: Authorize = authorize_subscribe) -> Any:
    """The WebSocket endpoint serving ``hub``."""

    async def serve(ws: WebSocket) -> None:
        protocols = list(ws.scope.get("subprotocols") or [])
        if PROTOCOL not in protocols:
            await ws.close(code=1002)  # before accept: the handshake is refused
            return
        hub.loop = asyncio.get_running_loop()
        await ws.accept(subprotocol=PROTOCOL)
        conn = Connection(ws)
        session = Session(hub, conn, authorize, header_authorization(protocols))
        try:
            while await session.on_message(await ws.receive_text()):
                pass
            await ws.close(code=4401)
        except WebSocketDisconnect:
            pass
        finally:
            hub.drop(conn)
            if session.ka is not None:
                session.ka.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await session.ka

    return serve


def mount(app: Any, hub: Hub, authorize: Authorize = authorize_subscribe) -> None:
    """Serve the push channel on ``app`` (a Starlette or FastAPI app) at :data:`PATH`."""
    app.router.add_websocket_route(PATH, endpoint(hub, authorize))
