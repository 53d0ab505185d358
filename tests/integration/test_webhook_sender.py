"""The webhook sender POSTs to public addresses only (regression: an operator's
URL of ``http://169.254.169.254/…``, ``http://localhost:…`` or a private address was POSTed to
from inside our network, and the retry route answered its status — a port scan of our side).
A receiver on this machine is reached only where ``WEBHOOK_PRIVATE_ADDRESSES`` allows it
(``make run``)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from baccarat_api.adapters import webhooks
from baccarat_api.adapters.webhooks import HttpSender
from baccarat_api.settings import Settings


@pytest.fixture
def receiver() -> Iterator[tuple[int, list[bytes]]]:
    got: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            got.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return None

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], got
    finally:
        server.shutdown()
        server.server_close()


def test_a_receiver_on_a_private_address_is_not_posted_to(
    receiver: tuple[int, list[bytes]],
) -> None:
    port, got = receiver
    sender = HttpSender(2.0)
    for url in (f"http://127.0.0.1:{port}/hook", f"http://localhost:{port}/hook"):
        sent = sender.post(url, b'{"n":1}', {"Content-Type": "application/json"})
        assert (sent.ok, sent.status) == (False, None)
        assert "is not a public address" in sent.error
    assert got == []  # nothing reached it
    allowed = HttpSender(2.0, allow_private=True)
    assert allowed.post(f"http://127.0.0.1:{port}/hook", b'{"n":2}', {}).status == 204
    assert got == [b'{"n":2}']


@pytest.mark.parametrize(
    "address",
    ["169.254.169.254", "10.0.0.8", "172.16.4.4", "192.168.1.1", "100.64.0.1", "0.0.0.0",
     "::1", "::ffff:127.0.0.1", "fd00::1", "fe80::1",
     # IPv6 forms of private IPv4 addresses Python 3.11's is_global calls global: NAT64
     # (an AWS IPv6 subnet's NAT64 reaches the VPC's 10.x), 6to4, IPv4-compatible; site-local
     "64:ff9b::a00:8", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a00:8", "2002:a9fe:a9fe::1",
     "2002:a00:8::1", "::a9fe:a9fe", "::7f00:1", "fec0::1",
     # IPv4-translated ::ffff:0:a.b.c.d (SIIT: a translator decides where, like NAT64), and
     # the IETF protocol assignments 192.0.0.0/24 (3.11's is_global calls 192.0.0.8 global)
     "::ffff:0:a00:8", "::ffff:0:a9fe:a9fe", "::ffff:0:5db8:d822", "192.0.0.8", "192.0.0.1",
     "192.0.0.255", "::ffff:192.0.0.8"],
)  # fmt: skip
def test_a_host_resolving_to_a_non_public_address_is_refused_before_connecting(
    monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    """Whatever the URL names, the address it resolves to decides (a public-looking name may
    resolve to the metadata service), and no connection is opened."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sockaddr = (address, 80, 0, 0) if family == socket.AF_INET6 else (address, 80)
    monkeypatch.setattr(
        webhooks.socket, "getaddrinfo",
        lambda *a, **k: [(family, socket.SOCK_STREAM, 6, "", sockaddr)],
    )  # fmt: skip

    def no_socket(*args: object, **kwargs: object) -> None:
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(webhooks.socket, "socket", no_socket)
    for scheme in ("http", "https"):
        sent = HttpSender(2.0).post(f"{scheme}://hooks.example.com/x", b"{}", {})
        assert sent.status is None and "is not a public address" in sent.error


def test_private_addresses_are_off_unless_the_environment_allows_them() -> None:
    base = {"STATE_TABLE": "s", "CONFIG_TABLE": "c"}
    assert Settings.from_env(base).webhook_private_addresses is False
    on = Settings.from_env({**base, "WEBHOOK_PRIVATE_ADDRESSES": "true"})
    assert on.webhook_private_addresses is True


@pytest.mark.parametrize(
    ("address", "public"),
    [("93.184.216.34", True), ("2606:4700:4700::1111", True), ("::ffff:93.184.216.34", True),
     ("2002:5db8:d822::1", True), ("64:ff9b::5db8:d822", False), ("2001:0:4136:e378::1", False)],
)  # fmt: skip
def test_the_guard_lets_public_addresses_through(address: str, public: bool) -> None:
    """The refusals above are not a guard that refuses everything: a public address, also in
    its IPv4-mapped and 6to4 forms, passes (NAT64 stays refused: the gateway decides where)."""
    assert webhooks._public(address) is public


@pytest.fixture
def garbage_receiver() -> Iterator[int]:
    """A TCP server answering every request with a line that is not an HTTP status line."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(b"NOPE not http\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        server.close()


def test_a_receiver_answering_no_http_is_a_failed_delivery_not_an_exception(
    garbage_receiver: int,
) -> None:
    """A BadStatusLine escaped post(): the delivery pass failed as a whole (the shard's event
    never counted as an attempt, never parked, redelivered until dead-lettered) and the retry
    route answered 500."""
    sent = HttpSender(2.0, allow_private=True).post(
        f"http://127.0.0.1:{garbage_receiver}/hook", b"{}", {}
    )
    assert (sent.ok, sent.status) == (False, None)
    assert "BadStatusLine" in sent.error


@pytest.mark.parametrize("host", ["a..example.com", "a" * 64 + ".example.com"])
def test_a_host_no_resolver_takes_is_a_failed_delivery_not_an_exception(host: str) -> None:
    """PUT /v1/webhook's pattern takes these hosts; resolving them raised UnicodeError (not an
    OSError) out of post(), failing the shard's whole delivery pass."""
    sent = HttpSender(2.0).post(f"https://{host}/hook", b"{}", {})
    assert (sent.ok, sent.status) == (False, None)
    assert "UnicodeError" in sent.error
