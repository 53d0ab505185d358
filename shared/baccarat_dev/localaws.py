"""moto's server as ``make run`` and the concurrency tests use it: one request at a time.

DynamoDB applies each request atomically (a ``TransactWriteItems`` checks every condition and
writes every item as one step; a conditional ``UpdateItem`` likewise). moto's threaded server
does not: two requests handled in parallel threads can interleave inside its backend (two
transactions both pass a version check before either writes, or one's rollback restores a copy
taken before the other's write). That would let concurrent clients of ``make run`` see
anomalies DynamoDB never produces — and hide real ones behind them. So every request to the
local moto server is served under one lock: requests are atomic, as in DynamoDB, while the API
in front of it stays fully concurrent (its reads and writes still interleave between requests,
which is where the service's own races are).

Development-time only (moto is a dev dependency)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server


class AtomicMotoServer(ThreadedMotoServer):
    """:class:`ThreadedMotoServer` whose requests are each handled under one lock."""

    def _server_entry(self) -> None:
        inner = DomainDispatcherApplication(create_backend_app)
        lock = threading.Lock()

        def atomic(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            with lock:
                return list(inner(environ, start_response))

        self._server = make_server(
            self._ip_address, self._port, atomic, True, request_handler=MotoRequestHandler
        )
        self._server_ready_event.set()
        self._server.serve_forever()
