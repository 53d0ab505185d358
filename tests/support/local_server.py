"""The local server as a user runs it (``make run``: ``python -m baccarat_dev.local``, uvicorn in
front of DynamoDB Local and moto's server for KMS — or of moto alone with ``BACKEND=moto``) on a
free loopback port, for the tests that talk to it over HTTP.

``local_server(dynamodb=engine)`` serves on an already running DynamoDB Local (the worker's
``dynamodb_local`` fixture: one java per pytest worker, not one per server) under table names of
its own; without it the server starts its own engine, exactly as ``make run`` does.

Importable from every test folder: ``tests/`` is on pytest's ``pythonpath`` (pyproject.toml)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


def descendants(pid: int) -> dict[int, str]:
    """pid → command line of every process below ``pid`` (``ps``; Linux and macOS)."""
    rows = subprocess.run(["ps", "-ww", "-eo", "pid=,ppid=,args="], capture_output=True, text=True)
    children: dict[int, list[tuple[int, str]]] = {}
    for row in rows.stdout.splitlines():
        child, parent, *args = row.split(None, 2)
        children.setdefault(int(parent), []).append((int(child), args[0] if args else ""))
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child, args in children.get(todo.pop(), []):
            found[child] = args
            todo.append(child)
    return found


def is_java(args: str) -> bool:
    """Whether a command line is DynamoDB Local's java (not its ``sh`` watchdog)."""
    return Path(args.split()[0]).name == "java" and "DynamoDBLocal.jar" in args


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped is not; Linux /proc)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    url: str
    port: int
    key: str  # the operator key the banner shows
    moto_url: str  # moto's server: KMS (and DynamoDB with BACKEND=moto)
    dynamodb_url: str  # the DynamoDB engine: DynamoDB Local, or moto's server
    engine: str  # what the banner names: "DynamoDB Local 1.25.1", "DynamoDB Local (shared)", "moto"
    tables: dict[str, str]  # logical id (StateTable, ConfigTable) → table name
    banner: str  # what it printed up to "Ctrl-C"
    proc: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)  # every line printed after the banner


@contextmanager
def local_server(
    env: Mapping[str, str] | None = None,
    probe: str = "/v1/tiers",
    *,
    dynamodb: Any = None,
    command: list[str] | None = None,
) -> Iterator[LocalServer]:
    """Start the local server (no ``AWS_*``/``BACCARAT_*`` variables of ours, then ``env``), wait
    for its banner and for uvicorn to answer ``GET probe``, keep its pipe drained into
    ``output``; on exit stop it as a terminal's Ctrl-C does (SIGINT to its process group: it runs
    in a session of its own) and wait for it (killed after 20 s).

    ``dynamodb``: a running :class:`~baccarat_dev.dynamodb_local.DynamoDBLocal` to serve on
    (unless ``BACKEND=moto`` asks for the all-moto setup); ``command``: what to run instead of
    ``python -m baccarat_dev.local --port N`` (e.g. ``make run``, with ``PORT`` in ``env``)."""
    port = int((env or {}).get("PORT") or free_port())
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "BACCARAT_"))}
    if dynamodb is not None and environ.get("BACKEND") != "moto":
        environ["BACCARAT_DYNAMODB_URL"] = dynamodb.endpoint_url
        environ["BACCARAT_LOCAL_TABLE_PREFIX"] = f"srv-{uuid.uuid4().hex[:8]}"
    # the push job's stream poll (make run: every 0.05 s, 16 % of a core on an idle server):
    # every 0.5 s here unless a test names it — only the push tests wait on it
    environ["BACCARAT_PUSH_POLL_SECONDS"] = "0.5"
    environ.update(env or {})
    proc = subprocess.Popen(
        command or [sys.executable, "-m", "baccarat_dev.local", "--port", str(port)],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
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
        dynamodb_at = re.search(r"^  DynamoDB\s+(.+?) at (\S+)$", banner, re.MULTILINE)
        moto = re.search(r"^  KMS\s+moto at (\S+)$", banner, re.MULTILINE)
        tables = re.search(r"^  tables\s+(\S+), (\S+)$", banner, re.MULTILINE)
        assert key and dynamodb_at and moto and tables, banner
        server = LocalServer(
            url=f"http://127.0.0.1:{port}",
            port=port,
            key=key[1],
            moto_url=moto[1],
            dynamodb_url=dynamodb_at[2],
            engine=dynamodb_at[1],
            tables={"StateTable": tables[1], "ConfigTable": tables[2]},
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
        with contextlib.suppress(ProcessLookupError):  # Ctrl-C in a terminal: the whole group
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if drain is not None:
            drain.join(timeout=10)


def table_feed(http: Any, table_id: str) -> list[dict[str, Any]]:
    """Every event of the table so far, read page by page from ``GET …/events`` (an
    ``httpx.Client`` on the server); their ``seq`` is checked gap-free from 1."""
    events: list[dict[str, Any]] = []
    while True:
        page = http.get(
            f"/v1/tables/{table_id}/events", params={"after": len(events), "limit": 100}
        ).json()
        events += page["events"]
        if not page["more"]:
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # gap-free
            return events
