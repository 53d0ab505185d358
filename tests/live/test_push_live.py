"""The push channel on the local server (``make run``'s stand-in for AppSync Events) with a real
``websockets`` client: a table action reaches its table's subscribers once, in ``seq`` order,
and nobody else; every message is a ``PushMessage``; a connection or subscription without a
valid key, or to a channel not the table's current one, is refused; ``ka`` arrives."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import httpx
import pytest
from support.local_server import LocalServer, local_server
from support.push_client import init, open_socket, receive, subscribe

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.service.models.push import PUSH_MESSAGE, PushEvents
from baccarat_api.service.push import rotate
from baccarat_dev.local import DEMO_OPERATOR

TABLE = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}


@pytest.fixture(scope="module")
def server(shared_dynamodb: Any) -> Iterator[LocalServer]:
    env = {
        "RATE_LIMIT_PER_SECOND": "0",
        "BACCARAT_SWEEP_SECONDS": "0",
        "BACCARAT_PUSH_KA_SECONDS": "0.5",
        "BACCARAT_PUSH_TIMEOUT_MS": "3000",
        "BACCARAT_PUSH_POLL_SECONDS": "0.05",  # make run's
    }
    with local_server(env, dynamodb=shared_dynamodb) as served:
        yield served


@pytest.fixture
def http(server: LocalServer) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {server.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as client:
        yield client


def new_table(http: httpx.Client) -> str:
    r = http.post("/v1/tables", json=TABLE)
    assert r.status_code == 201, r.text
    return str(r.json()["table_id"])


def state(http: httpx.Client, table_id: str) -> dict[str, Any]:
    r = http.get(f"/v1/tables/{table_id}/state")
    assert r.status_code == 200, r.text
    return dict(r.json())


def drain(ws: Any, seconds: float) -> list[dict[str, Any]]:
    """Every message but ``ka`` arriving within ``seconds``."""
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            got.append(receive(ws, left))
        except TimeoutError:
            break
    return got


def test_an_action_reaches_its_table_subscribers_once_in_seq_order(
    server: LocalServer, http: httpx.Client
) -> None:
    a, b = new_table(http), new_table(http)
    sa, sb = state(http, a), state(http, b)
    assert sa["push_url"] == server.url.replace("http://", "ws://") + "/event/realtime"
    assert sa["push_url"] in server.banner
    assert sa["push_channel"] == f"/tables/{a}/e1"
    with open_socket(server.url, server.key) as wa, open_socket(server.url, server.key) as wb:
        assert init(wa)["type"] == "connection_ack"
        assert init(wb)["type"] == "connection_ack"
        assert subscribe(wa, sa["push_channel"]) == {"type": "subscribe_success", "id": "s1"}
        assert subscribe(wb, sb["push_channel"], "other") == {
            "type": "subscribe_success",
            "id": "other",
        }
        for n in range(6):
            r = http.put(f"/v1/tables/{a}/watchers/w{n}")
            assert r.status_code == 200, r.text
        seqs: list[int] = []
        deadline = time.monotonic() + 10
        while len(seqs) < 6 and time.monotonic() < deadline:
            msg = receive(wa, deadline - time.monotonic())
            assert msg["type"] == "data" and msg["id"] == "s1", msg
            pushed = PUSH_MESSAGE.validate_json(msg["event"])  # the schema of every message
            assert isinstance(pushed, PushEvents) and pushed.table_id == a
            seqs += [e.seq for e in pushed.events]
            assert all(e.type == "watcher_joined" for e in pushed.events)
        late = drain(wa, 0.6)  # nothing twice, nothing more
        assert seqs == [1, 2, 3, 4, 5, 6] and late == []
        assert drain(wb, 0.3) == []  # another table's subscriber gets nothing of it


def test_a_connection_without_a_valid_key_is_refused(server: LocalServer) -> None:
    for key in (None, "not-a-key", server.key + "x"):
        with open_socket(server.url, key) as ws:
            answer = init(ws)
            assert answer["type"] == "connection_error", (key, answer)
            assert answer["errors"][0]["errorType"] == "UnauthorizedException"


def test_a_subscription_to_a_channel_not_the_current_one_of_an_own_table_is_refused(
    server: LocalServer, http: httpx.Client
) -> None:
    a = new_table(http)
    with open_socket(server.url, server.key) as ws:
        init(ws)
        for n, channel in enumerate(
            [f"/tables/{a}/e2", "/tables/tbl_0000000000000000/e1", "/default/x", "/tables/*"]
        ):
            answer = subscribe(ws, channel, f"s{n}")
            assert answer["type"] == "subscribe_error" and answer["id"] == f"s{n}", answer
        # a subscription's own authorization is checked too
        bad = subscribe(ws, f"/tables/{a}/e1", "bad", authorization="Bearer nope")
        assert bad["type"] == "subscribe_error"
        assert subscribe(ws, f"/tables/{a}/e1", "good")["type"] == "subscribe_success"
        ws.send(json.dumps({"type": "unsubscribe", "id": "good"}))
        assert receive(ws) == {"type": "unsubscribe_success", "id": "good"}


def test_the_ack_names_the_timeout_and_ka_arrives(server: LocalServer) -> None:
    with open_socket(server.url, server.key) as ws:
        ack = init(ws)
        assert ack == {"type": "connection_ack", "connectionTimeoutMs": 3000}
        kas = [receive(ws, 2.0, skip_ka=False) for _ in range(2)]
        assert kas == [{"type": "ka"}, {"type": "ka"}]


def test_a_rotation_ends_the_old_channel_and_its_subscribers_move_on(
    server: LocalServer, http: httpx.Client
) -> None:
    """What a revocation does to the channel (service/push.py ``rotate``, called here directly
    on the server's tables): ``push_rotated`` then ``rotate`` on the old channel; the old one
    refuses new subscriptions, the new one carries the table's next events."""
    a = new_table(http)
    client = boto3.client(
        "dynamodb",
        endpoint_url=server.dynamodb_url,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    repo = DynamoRepository(client, server.tables["StateTable"], server.tables["ConfigTable"])
    with open_socket(server.url, server.key) as ws:
        init(ws)
        assert subscribe(ws, f"/tables/{a}/e1")["type"] == "subscribe_success"
        assert rotate(repo, DEMO_OPERATOR, a) == 2
        got = [PUSH_MESSAGE.validate_json(m["event"]) for m in (receive(ws), receive(ws))]
        assert [m.type for m in got] == ["events", "rotate"]
        assert isinstance(got[0], PushEvents) and got[0].events[0].type == "push_rotated"
        assert got[0].events[0].data == {"epoch": 2}
        assert got[1].model_dump() == {
            "type": "rotate", "table_id": a, "channel": f"/tables/{a}/e2"
        }  # fmt: skip
        assert subscribe(ws, f"/tables/{a}/e1", "again")["type"] == "subscribe_error"
        assert subscribe(ws, state(http, a)["push_channel"], "new")["type"] == "subscribe_success"
        assert http.put(f"/v1/tables/{a}/watchers/w9").status_code == 200
        moved = receive(ws)
        assert moved["id"] == "new"  # the old subscription's channel is over
        (event,) = PushEvents.model_validate_json(moved["event"]).events
        assert (event.seq, event.type) == (2, "watcher_joined")


def test_a_table_token_subscribes_to_its_own_table_only(
    server: LocalServer, http: httpx.Client
) -> None:
    a, b = new_table(http), new_table(http)
    r = http.post(f"/v1/tables/{a}/tokens", json={"bettor_id": "wes", "role": "watcher"})
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    with open_socket(server.url, None) as ws:
        ws.send(json.dumps({"type": "connection_init"}))
        assert receive(ws)["type"] == "connection_error"  # no key, no token
    with open_socket(server.url, key=None, authorization=f"Bearer {token}") as ws:
        assert init(ws)["type"] == "connection_ack"
        assert subscribe(ws, f"/tables/{b}/e1", "b")["type"] == "subscribe_error"
        assert subscribe(ws, f"/tables/{a}/e1", "a")["type"] == "subscribe_success"
        assert http.put(f"/v1/tables/{a}/watchers/wes").status_code == 200
        got = receive(ws)
        assert got["id"] == "a"
        (event,) = PushEvents.model_validate_json(got["event"]).events
        assert (event.type, event.data) == ("watcher_joined", {"bettor_id": "wes"})


def test_a_chat_line_is_pushed_as_posted_after_the_events(
    server: LocalServer, http: httpx.Client
) -> None:
    a = new_table(http)
    with open_socket(server.url, server.key) as ws:
        init(ws)
        assert subscribe(ws, f"/tables/{a}/e1")["type"] == "subscribe_success"
        assert http.put(f"/v1/tables/{a}/watchers/wes").status_code == 200
        hostile = '<img src=x onerror="alert(1)">'
        posted = http.post(f"/v1/tables/{a}/chat", json={"bettor_id": "wes", "text": hostile})
        assert posted.status_code == 201, posted.text
        got = [PUSH_MESSAGE.validate_json(receive(ws)["event"]) for _ in range(2)]
        assert [m.type for m in got] == ["events", "chat"]
        chat = got[1].model_dump()
        assert chat == {"type": "chat", "table_id": a, "message": posted.json()}  # as typed
