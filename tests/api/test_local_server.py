"""``make run`` as a user meets it: the runner starts moto and the API, prints the URL and a key,
serves every route over HTTP, and stops cleanly on Ctrl-C (SIGINT)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import httpx

from baccarat.verify import verify_proof
from baccarat_api.template import REPO_ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_make_run_serves_the_whole_api_and_stops_on_ctrl_c() -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "BACCARAT_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "baccarat_api.local", "--port", str(port)],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    banner = ""
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while "Ctrl-C" not in banner and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            banner += line
        match = re.search(r"operator key\s+(\S+)", banner)
        assert match, banner
        key = match[1]
        url = f"http://127.0.0.1:{port}"
        assert url in banner
        headers = {"authorization": f"Bearer {key}"}
        with httpx.Client(base_url=url, headers=headers, timeout=10) as http:
            for _ in range(100):  # uvicorn binds right after the banner
                try:
                    r = http.get("/v1/tiers")
                    break
                except httpx.ConnectError:
                    time.sleep(0.1)
            assert r.status_code == 200 and r.json()["tiers"]
            table = http.post(
                "/v1/tables",
                json={"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house"},
            ).json()
            shoe = http.post(
                f"/v1/tables/{table['table_id']}/shoes", json={"client_seed": "local"}
            ).json()
            dealt = http.post(f"/v1/shoes/{shoe['shoe_id']}/rounds")
            assert dealt.status_code == 201
            assert dealt.headers["x-request-id"]
            missing = http.get("/v1/shoes/tbl_aaaaaaaaaaaaaaaa_s1")
            assert missing.status_code == 404
            assert missing.json()["error"]["request_id"] == missing.headers["x-request-id"]
            assert http.post(f"/v1/shoes/{shoe['shoe_id']}/close").status_code == 200
            proof = httpx.get(f"{url}/v1/shoes/{shoe['shoe_id']}/proof").json()
            assert verify_proof(proof).ok
            assert http.get("/docs").status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, banner + out
    with socket.socket() as s:  # the port is free again
        s.bind(("127.0.0.1", port))
