"""The local server as a user runs it (``make run``: ``python -m baccarat_dev.local``, uvicorn in
front of moto's server) on a free loopback port, for the tests that talk to it over HTTP.

Importable from every test folder: ``tests/`` is on pytest's ``pythonpath`` (pyproject.toml)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    url: str
    port: int
    key: str  # the operator key the banner shows
    moto_url: str
    banner: str  # what it printed up to "Ctrl-C"
    proc: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)  # every line printed after the banner


@contextmanager
def local_server(
    env: Mapping[str, str] | None = None, probe: str = "/v1/tiers"
) -> Iterator[LocalServer]:
    """Start the local server (no ``AWS_*``/``BACCARAT_*`` variables of ours, then ``env``), wait
    for its banner and for uvicorn to answer ``GET probe``, keep its pipe drained into
    ``output``; on exit stop it with Ctrl-C (SIGINT) and wait for it (killed after 20 s)."""
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "BACCARAT_"))}
    environ.update(env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "baccarat_dev.local", "--port", str(port)],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    drain: threading.Thread | None = None
    try:
        assert proc.stdout is not None
        stdout = proc.stdout
        banner = ""
        deadline = time.monotonic() + 60
        while "Ctrl-C" not in banner and time.monotonic() < deadline:
            line = stdout.readline()
            if not line:
                break
            banner += line
        key = re.search(r"operator key\s+(\S+)", banner)
        moto = re.search(r"moto \(DynamoDB \+ KMS\) at (\S+)", banner)
        assert key and moto, banner
        server = LocalServer(
            url=f"http://127.0.0.1:{port}",
            port=port,
            key=key[1],
            moto_url=moto[1],
            banner=banner,
            proc=proc,
        )
        drain = threading.Thread(target=lambda: server.output.extend(stdout), daemon=True)
        drain.start()
        for _ in range(100):  # uvicorn binds right after the banner
            try:
                httpx.get(server.url + probe, timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield server
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if drain is not None:
            drain.join(timeout=10)
