"""The TypeScript client (clients/typescript): its generated types are docs/openapi.json's, it
type-checks under tsc strict, its own tests pass (the retry layer against a scripted server,
webhook signatures, the README's excerpts), and its webhook receiver example accepts deliveries
signed here with Python's hmac — the scheme of docs/api.md, computed by another implementation —
and refuses changed, stale and unsigned ones. (The example that plays a shoe runs against the
local server in tests/live/test_typescript_client.py.)"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.typescript_client import BIN, CLIENT, ROOT, output, require_client, run

from baccarat_dev.openapi import render

GENERATED = CLIENT / "src" / "generated" / "openapi.ts"


def test_committed_types_are_generated_from_the_apps_current_document(tmp_path: Path) -> None:
    """Generated from the app's document (not the committed one): stale when either
    docs/openapi.json or the types lag the code — ``make regen`` writes both."""
    document = tmp_path / "openapi.json"
    document.write_text(render(), encoding="utf-8")
    fresh = tmp_path / "openapi.ts"
    proc = run(
        ["node", "scripts/generate.mjs", "--in", str(document), "--out", str(fresh)], timeout=120
    )
    assert proc.returncode == 0, output(proc)
    regenerated = fresh.read_text(encoding="utf-8")
    assert "export interface paths" in regenerated and '"/v1/shoes/{shoe_id}/rounds"' in regenerated
    assert GENERATED.read_text(encoding="utf-8") == regenerated, (
        "clients/typescript/src/generated/openapi.ts is stale against the app: run make regen "
        "(then `npm run typecheck` in clients/typescript) and commit it"
    )


def test_make_regen_writes_the_document_then_the_types_then_web_push_js() -> None:
    plan = subprocess.run(
        ["make", "-n", "regen"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    document, types = plan.find("-m baccarat_dev.openapi"), plan.find("npm run --silent generate")
    push = plan.find("npm run --silent build-push")
    assert 0 <= document < types < push, plan


def test_committed_web_push_js_is_built_from_the_clients_push_ts(tmp_path: Path) -> None:
    """web/push.js (the pages' push client) is src/push.ts as esbuild builds it: never a second
    implementation, never stale — ``make regen`` writes it."""
    fresh = tmp_path / "push.js"
    proc = run(["node", "scripts/build-push.mjs", "--out", str(fresh)], timeout=120)
    assert proc.returncode == 0, output(proc)
    built = fresh.read_text(encoding="utf-8")
    assert "var BaccaratPush = (() => {" in built and "subscribeTable" in built
    assert (ROOT / "web" / "push.js").read_text(encoding="utf-8") == built, (
        "web/push.js is stale against clients/typescript/src/push.ts: run make regen and commit it"
    )


def test_the_client_its_tests_and_its_examples_type_check_strict() -> None:
    proc = run(["tsc", "--noEmit", "-p", "tsconfig.json"], timeout=300)
    assert proc.returncode == 0, output(proc)
    config = (CLIENT / "tsconfig.json").read_text(encoding="utf-8")
    assert '"strict": true' in config and '"examples"' in config


def test_the_clients_own_tests_pass() -> None:
    tests = sorted(str(p.relative_to(CLIENT)) for p in (CLIENT / "test").glob("*.test.ts"))
    assert len(tests) >= 3, tests
    proc = run(["tsx", "--test", *tests], timeout=300)
    assert proc.returncode == 0, output(proc)
    passed = re.search(r"^# pass (\d+)$", proc.stdout, re.M)
    assert passed and int(passed[1]) >= 10 and "\n# fail 0\n" in proc.stdout, output(proc)


# --- the webhook receiver example ----------------------------------------------------------------

SECRET = "whsec_integration_7c1f"


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    """``Baccarat-Signature`` as a sender computes it: HMAC-SHA256(secret, "<t>.<body>"), hex."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


@pytest.fixture
def receiver() -> Iterator[tuple[str, queue.Queue[str]]]:
    """examples/webhook-receiver.ts on a free port: its URL and the lines it prints."""
    require_client()
    proc = subprocess.Popen(
        [str(BIN / "tsx"), "examples/webhook-receiver.ts", "--port", "0"],
        cwd=CLIENT,
        env={**os.environ, "WEBHOOK_SECRET": SECRET},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    stdout = proc.stdout
    threading.Thread(
        target=lambda: [lines.put(line.rstrip("\n")) for line in stdout], daemon=True
    ).start()
    try:
        first = lines.get(timeout=60)
        found = re.match(r"listening on (http://127\.0\.0\.1:\d+)$", first)
        assert found, first
        yield found[1], lines
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_the_webhook_receiver_accepts_python_signed_deliveries_once_and_refuses_the_rest(
    receiver: tuple[str, queue.Queue[str]],
) -> None:
    url, lines = receiver
    now = int(time.time())
    event = {
        "event_id": "evt_0001",
        "type": "round_settled",
        "nets": {"alice": 1881},
        "note": "é ✓",
    }
    body = json.dumps(event, ensure_ascii=False).encode()

    def deliver(payload: bytes, header: str | None) -> tuple[int, str]:
        headers = {"content-type": "application/json"}
        if header is not None:
            headers["Baccarat-Signature"] = header
        status = httpx.post(url, content=payload, headers=headers, timeout=10).status_code
        return status, lines.get(timeout=10)

    good = signature_header(SECRET, now, body)
    assert deliver(body, good) == (200, "accepted evt_0001")
    assert deliver(body, good) == (200, "duplicate evt_0001")  # a retried delivery
    changed = body.replace(b"1881", b"1882")
    assert deliver(changed, good) == (400, "refused signature_mismatch")
    assert deliver(body, signature_header("whsec_other", now, body)) == (
        400,
        "refused signature_mismatch",
    )
    stale = now - 3600
    assert deliver(body, signature_header(SECRET, stale, body)) == (
        400,
        "refused timestamp_outside_tolerance",
    )
    assert deliver(body, None) == (400, "refused missing_header")
    assert deliver(body, "t=1,v1=nothex") == (400, "refused malformed_header")
    other = json.dumps({"event_id": "evt_0002"}).encode()
    assert deliver(other, signature_header(SECRET, now, other)) == (200, "accepted evt_0002")
