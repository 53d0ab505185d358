"""``make run``'s push channel in process (Starlette's test client, no server, no engine): the
protocol subset's answers, the hub's delivery to the subscriptions of one channel only, in
order, and a stale or foreign channel refused — the check stubbed here (the live tests run the
real one)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from support.push_client import auth_protocol

from baccarat_api.http.push_authorizer import PushAccess
from baccarat_dev.push_local import PATH, PROTOCOL, Hub, header_authorization, mount

GOOD = "Bearer good"


def authorize(authorization: str | None, channel: str | None) -> PushAccess:
    if authorization != GOOD:
        return PushAccess(error="bad key")
    if channel is not None and not channel.startswith("/tables/mine/"):
        return PushAccess("op", "not your table")
    return PushAccess("op")


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, Hub]]:
    monkeypatch.setenv("BACCARAT_PUSH_KA_SECONDS", "60")
    hub = Hub()
    app = Starlette()
    mount(app, hub, authorize)
    with TestClient(app) as c:
        yield c, hub


def connect(c: TestClient, authorization: str | None = GOOD) -> Any:
    return c.websocket_connect(PATH, subprotocols=[PROTOCOL, auth_protocol(authorization)])


def test_the_header_subprotocol_carries_the_authorization() -> None:
    assert header_authorization([PROTOCOL, auth_protocol("Bearer k")]) == "Bearer k"
    assert header_authorization([PROTOCOL, auth_protocol(None)]) is None
    assert header_authorization([PROTOCOL, "header-!!!"]) is None
    assert header_authorization([PROTOCOL]) is None


def test_the_protocol_subset(client: tuple[TestClient, Hub]) -> None:
    c, hub = client
    with connect(c) as ws:
        ws.send_text(json.dumps({"type": "connection_init"}))
        assert ws.receive_json() == {"type": "connection_ack", "connectionTimeoutMs": 30000}
        assert ws.receive_json() == {"type": "ka"}
        ws.send_text(json.dumps({"type": "subscribe", "id": "a", "channel": "/tables/mine/e1"}))
        assert ws.receive_json() == {"type": "subscribe_success", "id": "a"}
        ws.send_text(json.dumps({"type": "subscribe", "id": "a", "channel": "/tables/mine/e1"}))
        assert ws.receive_json()["type"] == "subscribe_error"  # the id is taken
        ws.send_text(json.dumps({"type": "subscribe", "id": "b", "channel": "/tables/other/e1"}))
        refused = ws.receive_json()
        assert refused["type"] == "subscribe_error" and refused["id"] == "b"
        assert refused["errors"][0]["message"] == "not your table"
        ws.send_text(json.dumps({"type": "publish", "id": "p", "channel": "/tables/mine/e1"}))
        assert ws.receive_json()["type"] == "publish_error"  # never a client's
        ws.send_text("not json")
        assert ws.receive_json()["type"] == "error"
        hub.publish("/tables/other/e1", ['{"n":0}'])  # nobody there
        hub.publish("/tables/mine/e1", ['{"n":1}', '{"n":2}'])
        got = [ws.receive_json() for _ in range(2)]
        assert got == [
            {"type": "data", "id": "a", "event": '{"n":1}'},
            {"type": "data", "id": "a", "event": '{"n":2}'},
        ]
        ws.send_text(json.dumps({"type": "unsubscribe", "id": "a"}))
        assert ws.receive_json() == {"type": "unsubscribe_success", "id": "a"}
        ws.send_text(json.dumps({"type": "unsubscribe", "id": "a"}))
        assert ws.receive_json()["type"] == "unsubscribe_error"
        assert hub.channels == {}


def test_a_connection_with_a_refused_key_gets_connection_error(
    client: tuple[TestClient, Hub],
) -> None:
    c, _ = client
    with connect(c, "Bearer bad") as ws:
        ws.send_text(json.dumps({"type": "connection_init"}))
        answer = ws.receive_json()
        assert answer["type"] == "connection_error"
        assert answer["errors"] == [{"errorType": "UnauthorizedException", "message": "bad key"}]
