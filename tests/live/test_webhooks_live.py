"""Signed webhooks end to end on DynamoDB Local: tables write events, the state table's stream
feeds the indexer, the delivery loop (the code DeliveryFunction runs) POSTs each event to a
local HTTP receiver that fails its first deliveries (500s) and once does not answer in time.
Every event arrives, every signature verifies (HMAC-SHA256 of "<t>.<body>" with the secret's
UTF-8 bytes), and after de-duplication by event_id each table's events are in order."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import boto3

from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.adapters.webhooks import HttpSender
from baccarat_api.jobs.delivery import run_forever
from baccarat_api.jobs.feed_indexer import on_records
from baccarat_api.service import events, webhooks
from baccarat_dev.streams import StreamPoller

OP = "hook-op"
TABLES = [f"tbl_{i:016x}" for i in range(6)]
EVENTS = 60
FAIL_FIRST = 5  # answered 500
HANG_ON = 8  # the 8th delivery gets no answer within the sender's timeout


class Receiver(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, bytes]]] = []
    count = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with Receiver.lock:
            Receiver.count += 1
            n = Receiver.count
        if n == HANG_ON:
            time.sleep(1.5)  # the sender gave up at 0.5 s; it will send this one again
        if n <= FAIL_FIRST:
            self.send_response(500)
            self.end_headers()
            return
        with Receiver.lock:
            Receiver.received.append((self.headers["Baccarat-Signature"], body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def verify(secret: str, header: str, body: bytes) -> bool:
    parts = dict(p.split("=", 1) for p in header.split(","))
    mac = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    return hmac.compare_digest(mac.hexdigest(), parts["v1"])


def test_every_event_arrives_signed_and_in_order_through_failures(
    dynamodb_local: Any, dynamodb_local_tables: dict[str, str]
) -> None:
    names = dynamodb_local_tables
    client = boto3.client("dynamodb", **dynamodb_local.client_kwargs())
    repo = DynamoRepository(client, names["StateTable"], names["ConfigTable"])
    vault = MemoryVault()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    secret = webhooks.set_webhook(repo, vault, OP, url).secret
    streams = boto3.client("dynamodbstreams", **dynamodb_local.client_kwargs())
    poller = StreamPoller(
        client, streams, names["StateTable"], lambda r: on_records(repo, r), every=0.05
    )
    stop = threading.Event()
    delivery = threading.Thread(
        target=run_forever,
        args=(repo, vault, HttpSender(timeout=0.5, allow_private=True), lambda: [OP], stop),
        kwargs={"every": 0.05, "scale": 0.002},  # 10 s → 20 ms; 24 h → 173 s
    )
    poller.start()
    delivery.start()
    try:
        rnd = random.Random(3)
        for i in range(EVENTS):
            table = rnd.choice(TABLES)
            live = repo.load(OP, live=table).live
            ev = events.emit(live, OP, table, "2026-01-01T00:00:00.000Z",
                             [("watcher_joined", {"bettor_id": f"w{i}"})])  # fmt: skip
            repo.emitting("test event", [], ev)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with Receiver.lock:
                ids = {json.loads(b)["event_id"] for _, b in Receiver.received}
            if len(ids) == EVENTS:
                break
            time.sleep(0.2)
    finally:
        stop.set()
        poller.stop.set()
        delivery.join(timeout=10)
        server.shutdown()
    with Receiver.lock:
        received = list(Receiver.received)
    assert Receiver.count >= EVENTS + FAIL_FIRST  # the failures were retried
    assert all(verify(secret, header, body) for header, body in received)
    assert not any(verify(secret + "x", header, body) for header, body in received)
    seen: set[str] = set()
    per_table: dict[str, list[int]] = {}
    for _, body in received:  # de-duplicated by event_id, in arrival order
        doc = json.loads(body)
        if doc["event_id"] in seen:
            continue
        seen.add(doc["event_id"])
        per_table.setdefault(doc["table_id"], []).append(doc["seq"])
    assert len(seen) == EVENTS
    for table, seqs in per_table.items():
        assert seqs == list(range(1, len(seqs) + 1)), table
    assert len(received) > len(seen)  # the one that hung was delivered twice
    assert repo.webhook_failures(OP, 10) == []


def test_a_webhook_removed_can_be_set_again_over_dynamodb_local(dynamodb_local_api: Any) -> None:
    """On the real engine through WebhooksFunction's handler: after a DELETE
    a PUT answered 409 ``concurrent_update`` for ever (an if-absent Put of the removed item's
    key). Now every PUT after a DELETE answers a new secret, and the webhook is set."""
    api = dynamodb_local_api
    assert api.call("PUT", "/v1/webhook", {"url": "https://example.com/a"}).status == 200
    for n in range(3):
        assert api.call("DELETE", "/v1/webhook").status == 204
        assert api.call("DELETE", "/v1/webhook").status == 404  # removed: nothing to remove
        put = api.call("PUT", "/v1/webhook", {"url": f"https://example.com/b{n}"})
        assert put.status == 200, put.body
        assert put.body["url"] == f"https://example.com/b{n}"
        replaced = api.call("PUT", "/v1/webhook", {"url": f"https://example.com/c{n}"})
        assert replaced.status == 200 and replaced.body["secret"] != put.body["secret"]
    assert api.get("/v1/webhook/failures").status == 200
