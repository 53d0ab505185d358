"""``make run`` stops on Ctrl-C and on SIGTERM within 5 s, and leaves nothing behind.

The real command (``make run``, its own DynamoDB Local, moto's server for KMS) on a free port, in a
session of its own as in a terminal; then either Ctrl-C (SIGINT to the terminal's foreground
process group: make and python; java runs in a session of its own and is stopped by the runner)
or SIGTERM to make alone (what a process manager sends; make passes it on). Within 5 s of the
signal: make has exited, every process it started — python, the DynamoDB Local watchdog, java —
is gone, and no port it served (the API, DynamoDB Local, moto) still answers."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest
from support.local_server import descendants, free_port, is_java, local_server, running

STOP_SECONDS = 5.0


def answers(url: str) -> bool:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((host, int(port))) == 0


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")
@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM"])
def test_make_run_stops_within_5_s_with_every_child_gone(how: str) -> None:
    port = free_port()
    command = ["make", "-s", "--no-print-directory", "run"]
    with local_server({"PORT": str(port)}, command=command) as server:
        make = server.proc
        below = descendants(make.pid)
        if os.environ.get("BACKEND", "").strip().lower() != "moto":
            assert server.engine.startswith("DynamoDB Local 1."), server.banner
            assert any(is_java(args) for args in below.values()), below
        urls = [server.url, server.dynamodb_url, server.moto_url]
        assert all(answers(url) for url in urls)
        began = time.monotonic()
        if how == "Ctrl-C":
            os.killpg(make.pid, signal.SIGINT)
        else:
            make.send_signal(signal.SIGTERM)
        deadline = began + STOP_SECONDS
        while time.monotonic() < deadline:
            with contextlib.suppress(subprocess.TimeoutExpired):
                make.wait(timeout=0.05)
            if make.returncode is not None and not any(running(pid) for pid in below):
                break
        took = time.monotonic() - began
        left = {pid: args for pid, args in below.items() if running(pid)}
        assert make.returncode is not None, f"make still running after {took:.1f} s"
        assert not left, f"still running after {took:.1f} s: {left}"
        assert not any(answers(url) for url in urls)
        print(f"\n{how}: make run stopped in {took:.2f} s, {len(below)} processes gone")
