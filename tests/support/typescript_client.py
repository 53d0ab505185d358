"""The TypeScript client (clients/typescript) for the tests that build and run it: its folder, its
installed tools, and a runner.

Its npm packages are installed by ``scripts/ensure-typescript-client.sh`` (``make test`` runs it
first). Where they are not installed the tests that need them are skipped, or fail when
``BACC_REQUIRE_TS_CLIENT=1`` (``make test`` sets it, as it does for the browser and DynamoDB
Local)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "typescript"
BIN = CLIENT / "node_modules" / ".bin"
REQUIRE = "BACC_REQUIRE_TS_CLIENT"


def require_client() -> None:
    """Skip (or fail, when the client is required here) unless node and the packages are there."""
    missing = None
    if shutil.which("node") is None:
        missing = "node is not installed"
    elif not (BIN / "tsc").exists() or not (BIN / "tsx").exists():
        missing = "its npm packages are not installed: run scripts/ensure-typescript-client.sh"
    if missing is None:
        return
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"the TypeScript client is required ({REQUIRE}=1): {missing}", pytrace=False)
    pytest.skip(f"TypeScript client unavailable: {missing}")


def run(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``command`` in the client's folder; its first word is one of the client's tools
    (``node_modules/.bin/<word>``: tsc, tsx …) or else a program on PATH (node)."""
    require_client()
    tool = BIN / command[0]
    environ = {**os.environ, **(env or {})}
    return subprocess.run(
        [str(tool) if tool.exists() else command[0], *command[1:]],
        cwd=CLIENT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def output(proc: subprocess.CompletedProcess[str]) -> str:
    """What a run printed, for an assertion's message (the ends of both streams)."""
    return f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
