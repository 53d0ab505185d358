"""moto's server as ``make run`` and the concurrency tests use it: one request at a time.

DynamoDB applies each request atomically; moto's threaded server does not (two transactions in
parallel threads can both pass a version check before either writes). That would let concurrent
clients see anomalies DynamoDB never produces — and hide real ones behind them. So every request
to the local moto server is served under one lock, while the API in front of it stays fully
concurrent (its reads and writes still interleave between requests, where the service's own
races are). Development-time only (moto is a dev dependency)."""

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
