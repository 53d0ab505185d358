"""Real local webhook receivers for the delivery tests: :class:`Trickler`, a socket server that
answers ``200`` one byte every ``every`` seconds (a receiver that holds a POST open far beyond
any per-read timeout), and :class:`Quick`, one that answers ``204`` at once. Each records what
it received; the trickler also when it started and finished an answer."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: What the trickler answers (19 bytes: 9.5 s at one byte per 0.5 s), then it closes.
ANSWER = b"HTTP/1.0 200 OK\r\n\r\n"


class Trickler:
    """Accepts POSTs; reads the request whole, then sends :data:`ANSWER` one byte per
    ``every`` seconds. ``answering`` is set when it starts an answer, ``finished`` when it has
    sent one whole, ``cut`` when the client closed the connection mid-answer."""

    def __init__(self, every: float = 0.5) -> None:
        self.every = every
        self.server = socket.create_server(("127.0.0.1", 0))
        self.answering, self.finished, self.cut = (threading.Event() for _ in range(3))
        self.ids: list[str] = []
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))  # fmt: skip
            while len(body) < length:
                body += conn.recv(65536)
            self.ids.append(json.loads(body)["event_id"])
            self.answering.set()
            for i in range(len(ANSWER)):
                if self._stop.wait(self.every):
                    return
                try:
                    conn.sendall(ANSWER[i : i + 1])
                except OSError:
                    self.cut.set()
                    return
            self.finished.set()

    def close(self) -> None:
        self._stop.set()
        self.server.close()


class Quick:
    """Answers every POST ``204`` at once; ``ids``: the event ids received, ``got`` is set at
    the first."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.got = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.ids.append(json.loads(body)["event_id"])
                owner.got.set()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
