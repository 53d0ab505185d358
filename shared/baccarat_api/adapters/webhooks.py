"""The webhook ports' adapters: POST with the standard library (:class:`HttpSender`: no
redirects followed, a bounded answer read, the whole exchange within the timeout) and the
delivery wake-up on SQS (:class:`SqsWakeup`: a message naming the operator's feed shard, delayed).

Public addresses only: an operator's URL is fetched from inside our network, so a loopback,
private, link-local, shared or reserved address is refused (a port scan of our side otherwise);
the connection goes to the address checked (no DNS rebinding). ``allow_private``
(``WEBHOOK_PRIVATE_ADDRESSES``, set by ``make run``) lifts this for a receiver on this machine."""

from __future__ import annotations

import contextlib
import functools
import http.client
import ipaddress
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from baccarat_api.ports.webhooks import Sent, wake_message

#: SQS's longest message delay.
MAX_DELAY_SECONDS = 900


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is an answer (not a 2xx: retried), never followed


class NotPublic(OSError):
    """The webhook host is (or resolves to) an address that is not globally routable."""


#: IPv6 ranges Python 3.11's ``is_global`` calls global although they are not, or that carry
#: an IPv4 address a gateway forwards to: NAT64 (well-known and local-use prefixes: an AWS
#: IPv6 subnet's DNS64/NAT64 reaches the VPC's private IPv4 addresses through them), the
#: deprecated IPv4-compatible ``::a.b.c.d``, the IPv4-translated ``::ffff:0:a.b.c.d`` (SIIT:
#: a translator decides where) and site-local ``fec0::/10``.
_NOT_GLOBAL_V6 = tuple(
    ipaddress.ip_network(n)
    for n in ("64:ff9b::/96", "64:ff9b:1::/48", "::/96", "::ffff:0:0:0/96", "fec0::/10")
)
#: IPv4 ranges 3.11's ``is_global`` calls global although they are not: the IETF protocol
#: assignments ``192.0.0.0/24`` (RFC 6890; only some of it is in its private list).
_NOT_GLOBAL_V4 = (ipaddress.ip_network("192.0.0.0/24"),)


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour  # (Teredo's 2001::/32 is not global)
        if embedded is not None:
            return _public(str(embedded))
        if any(ip in net for net in _NOT_GLOBAL_V6):
            return False
    elif any(ip in net for net in _NOT_GLOBAL_V4):
        return False
    return ip.is_global and not ip.is_multicast


def _public_connection(
    address: tuple[str, int], timeout: Any = None, source: Any = None
) -> socket.socket:
    """``socket.create_connection`` to a globally routable address of the host only."""
    host, port = address
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    ips = [info[4][0] for info in found]
    refused = [ip for ip in ips if not _public(str(ip))]
    if not ips or refused:
        raise NotPublic(f"refused: {host} is not a public address ({', '.join(map(str, refused))})")
    family, kind, proto, _, where = found[0]
    sock = socket.socket(family, kind, proto)
    try:
        if isinstance(timeout, int | float):  # (else the default timeout)
            sock.settimeout(timeout)
        sock.connect(where)
    except BaseException:
        sock.close()
        raise
    return sock


class _Deadline:
    """One POST's whole-exchange deadline (a timeout per socket read would let a receiver
    trickling its answer a byte at a time hold a POST for as long as it liked). Every socket
    the POST connects is watched; when the time is up a timer shuts them down — a blocked read
    (plain or TLS) returns at once — and the POST counts as not answered, whatever was read so
    far. Connecting takes at most the time left."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def left(self) -> float:
        return self.ends - time.monotonic()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _connector(deadline: _Deadline, guard: bool) -> Callable[..., socket.socket]:
    """``http.client``'s ``_create_connection`` for one POST: public addresses only unless not
    ``guard``; the connect given at most the deadline's time left; the socket watched."""

    def connect(address: tuple[str, int], timeout: Any = None, source: Any = None) -> socket.socket:
        left = deadline.left()
        if left <= 0:
            raise TimeoutError("no time left to connect")
        wait = min(timeout, left) if isinstance(timeout, int | float) else left
        if guard:
            sock = _public_connection(address, wait, source)
        else:
            sock = socket.create_connection(address, wait, source)
        deadline.watch(sock)
        return sock

    return connect


class _Http(http.client.HTTPConnection):
    def __init__(self, *args: Any, connect: Callable[..., socket.socket], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = connect


class _Https(http.client.HTTPSConnection):
    def __init__(self, *args: Any, connect: Callable[..., socket.socket], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = connect


class _HttpHandler(urllib.request.HTTPHandler):
    def __init__(self, connect: Callable[..., socket.socket]) -> None:
        super().__init__()
        self.connect = connect

    def http_open(self, req: Any) -> Any:
        return self.do_open(functools.partial(_Http, connect=self.connect), req)


class _HttpsHandler(urllib.request.HTTPSHandler):
    def __init__(self, connect: Callable[..., socket.socket]) -> None:
        super().__init__()
        self.connect = connect

    def https_open(self, req: Any) -> Any:
        return self.do_open(
            functools.partial(_Https, connect=self.connect),
            req,
            context=self._context,  # type: ignore[attr-defined]
        )


class HttpSender:
    """POSTs a delivery; ``timeout``: seconds the WHOLE exchange may take (connect, send, the
    answer's status, headers and first 64 KiB), after which it is abandoned: ``Sent(None,
    "no answer: …")``, a failed try like a refused connection."""

    def __init__(self, timeout: float, *, allow_private: bool = False) -> None:
        self.timeout = timeout
        self.allow_private = allow_private

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        with _Deadline(self.timeout) as deadline:
            sent = self._post(url, body, headers, deadline)
        if deadline.expired:
            return Sent(None, f"no answer: TimeoutError: no whole answer within {self.timeout:g} s")
        return sent

    def _post(self, url: str, body: bytes, headers: dict[str, str], deadline: _Deadline) -> Sent:
        connect = _connector(deadline, guard=not self.allow_private)
        opener = urllib.request.build_opener(
            _NoRedirect, _HttpHandler(connect), _HttpsHandler(connect)
        )
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with opener.open(request, timeout=self.timeout) as answer:
                answer.read(64 * 1024)
                return Sent(int(answer.status))
        except urllib.error.HTTPError as exc:
            return Sent(int(exc.code))
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return Sent(None, f"no answer: {type(reason).__name__}: {reason}"[:200])
        except (http.client.HTTPException, ValueError) as exc:
            # not an HTTP answer (BadStatusLine, LineTooLong, …) or a host no resolver takes
            # (an empty or 64+ character label: UnicodeError): a failed delivery like any other,
            # retried and parked, not an exception that fails the shard's whole pass
            return Sent(None, f"no answer: {type(exc).__name__}: {exc}"[:200])


class SqsWakeup:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self.sqs, self.queue_url = sqs, queue_url

    def later(
        self, operator_id: str, shard: int, delay_seconds: int, retry: bool = False, due_ms: int = 0
    ) -> None:
        self.sqs.send_message(
            QueueUrl=self.queue_url,
            MessageBody=json.dumps(wake_message(operator_id, shard, retry, due_ms)),
            DelaySeconds=max(0, min(MAX_DELAY_SECONDS, int(delay_seconds))),
        )


class NoWakeup:
    """Where nothing needs waking (``make run``: its loop goes over every shard)."""

    def later(
        self, operator_id: str, shard: int, delay_seconds: int, retry: bool = False, due_ms: int = 0
    ) -> None:
        return None
