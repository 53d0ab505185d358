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


# --- --auto: who a request is counted for, and how late each step was ----------------------


@pytest.fixture(scope="module")
def auto_table() -> ModuleType:
    spec = importlib.util.spec_from_file_location("auto_table", EXAMPLE.with_name("auto_table.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_auto_counts_slips_and_reveals_as_the_bettors_and_the_rest_as_the_operator(
    auto_table: ModuleType,
) -> None:
    class Echo:
        def request(self, method: str, path: str, body: Any = None) -> Any:
            return {}

    api = auto_table.Counted(Echo())
    api.phase = "play"
    api.request("PUT", "/v1/tables/tbl_a/bets/alice", {})
    api.post("/v1/rounds/tbl_a_s1_r1/reveal", {})
    api.get("/v1/tables/tbl_a/events?after=0")
    api.post("/v1/tables/tbl_a/betting")
    api.post("/v1/rounds/tbl_a_s1_r1/settlement")
    assert api.counts == {"play": {"bettor": 2, "reader": 1, "operator": 2}}


def ev(kind: str, at: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "at": f"2026-01-01T00:00:{at}Z", "data": data}


def test_auto_measures_each_time_driven_step_against_its_deadline(auto_table: ModuleType) -> None:
    events = [
        ev("shoe_committed", "00.000", shoe_number=1),
        ev("betting_opened", "00.100", closes_at="2026-01-01T00:00:02.100Z"),  # first: not timed
        ev("betting_closed", "02.150"),
        ev("round_dealt", "02.160"),
        ev("squeeze_revealed", "03.120", by="system", revealed_at="2026-01-01T00:00:03.100Z"),
        ev("squeeze_revealed", "03.500", by="alice", revealed_at="2026-01-01T00:00:03.500Z"),
        ev("round_settled", "03.530"),
        ev("betting_opened", "04.600", closes_at="2026-01-01T00:00:06.600Z"),  # pause 1 s
        ev("betting_closed", "06.600"),
        ev("round_dealt", "06.600"),
        ev("shoe_ended", "06.600"),
        ev("round_settled", "06.700"),  # nobody squeezes: settled 100 ms after closes_at
        ev("shoe_committed", "06.720", shoe_number=2),
    ]
    late = {
        step: [round(v * 1000) for v in values]
        for step, values in auto_table.lateness(events, 1).items()
    }
    assert late == {
        "close": [50, 0],
        "reveal": [20],
        "settle": [30, 100],
        "open": [70],
        "commit": [20],
    }
