"""examples/play_shoe.py's HTTP client follows docs/api.md's retry recipe: a retryable error (or
a lost connection) is retried with the SAME Idempotency-Key, a non-retryable one is not, and each
POST has its own key. (The example's whole game is played against the local server in
tests/live/browser/test_api_proof.py.)"""

from __future__ import annotations

import http.server
import importlib.util
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "play_shoe.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("play_shoe", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


class Scripted(http.server.BaseHTTPRequestHandler):
    """Answers POSTs from a script of (status, body, headers); records what it was sent."""

    script: list[tuple[int, dict[str, Any], dict[str, str]]]
    seen: list[dict[str, str]]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.seen.append({k.lower(): v for k, v in self.headers.items()})
        status, body, headers = self.script.pop(0)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, type[Scripted]]]:
    handler = type("Handler", (Scripted,), {"script": [], "seen": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def _error(code: str, retryable: bool) -> dict[str, Any]:
    return {"error": {"code": code, "message": code, "retryable": retryable, "details": {}}}


def test_retryable_errors_are_retried_with_the_same_key(
    example: ModuleType, server: tuple[str, type[Scripted]]
) -> None:
    url, handler = server
    handler.script += [
        (503, _error("unavailable", True), {}),
        (409, _error("concurrent_update", True), {}),
        (201, {"round_id": "r1"}, {}),
        (201, {"round_id": "r2"}, {}),
    ]
    client = example.Client(url, "bk_test")
    try:
        assert client.post("/v1/shoes/s/rounds", {"bets": []}) == {"round_id": "r1"}
        assert client.post("/v1/shoes/s/rounds", {"bets": []}) == {"round_id": "r2"}
    finally:
        client.close()
    keys = [h["idempotency-key"] for h in handler.seen]
    assert len(keys) == 4 and len(set(keys[:3])) == 1 and keys[3] != keys[0]
    assert all(h["authorization"] == "Bearer bk_test" for h in handler.seen)


def test_non_retryable_errors_are_not_retried(
    example: ModuleType, server: tuple[str, type[Scripted]]
) -> None:
    url, handler = server
    handler.script += [(409, _error("shoe_ended", False), {})]
    client = example.Client(url, "bk_test")
    try:
        with pytest.raises(example.ApiFailure) as caught:
            client.post("/v1/shoes/s/rounds", {"bets": []})
    finally:
        client.close()
    assert caught.value.status == 409 and caught.value.error["code"] == "shoe_ended"
    assert len(handler.seen) == 1


def test_gives_up_after_its_attempts(
    example: ModuleType, server: tuple[str, type[Scripted]]
) -> None:
    url, handler = server
    handler.script += [(503, _error("unavailable", True), {})] * 2
    client = example.Client(url, "bk_test", attempts=2)
    try:
        with pytest.raises(example.ApiFailure, match="unavailable"):
            client.post("/v1/tables", {"profile": "star-city"})
    finally:
        client.close()
    assert len(handler.seen) == 2
