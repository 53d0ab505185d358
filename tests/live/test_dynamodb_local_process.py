"""DynamoDB Local as a process (:mod:`baccarat_dev.dynamodb_local` and
scripts/ensure-dynamodb-local.sh): what it runs, that it stops with nothing left behind — also
when its parent is killed — and that the installer reuses its cache without npm."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import boto3
import pytest

from baccarat_dev.dynamodb_local import (
    ENSURE_SCRIPT,
    DynamoDBLocal,
    DynamoDBLocalUnavailable,
    java_major_version,
    locate_emulator,
)


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie waiting to be reaped is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in {"Z", "X"}


def wait_gone(pid: int, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_runs_the_pinned_version_in_memory_shared(dynamodb_local: DynamoDBLocal) -> None:
    assert dynamodb_local.version == "1.25.1"
    banner = dynamodb_local.output()
    for line in ("Version:\t1.25.1", "InMemory:\ttrue", "SharedDb:\ttrue", "DbPath:\tnull"):
        assert line in banner, banner
    assert f"Port:\t{dynamodb_local.port}" in banner


def test_started_from_a_thread_that_ends_and_stopped_with_nothing_left(
    dynamodb_local: DynamoDBLocal,
) -> None:
    """The thread that started it may end (no parent-death signal tied to it); stop() ends the
    whole process group and is idempotent."""
    engine = DynamoDBLocal(dynamodb_local.emulator)
    starter = threading.Thread(target=engine.start)
    starter.start()
    starter.join(timeout=120)
    try:
        assert engine.running
        time.sleep(1)  # well past the thread's end
        java, group = engine.java_pid(), engine.pid
        assert java is not None and group is not None and alive(java)
        assert os.getpgid(java) == group
        client = boto3.client("dynamodb", **engine.client_kwargs())
        assert client.list_tables()["ResponseMetadata"]["HTTPStatusCode"] == 200
    finally:
        engine.stop()
    assert not alive(java)
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)
    engine.stop()
    assert not engine.running
    with pytest.raises(RuntimeError):
        _ = engine.endpoint_url


def test_java_ends_when_its_parent_is_killed(dynamodb_local: DynamoDBLocal) -> None:
    """SIGKILL leaves no chance to clean up: the watchdog sees its pipe close and ends java."""
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import time
                from pathlib import Path
                from baccarat_dev.dynamodb_local import DynamoDBLocal
                engine = DynamoDBLocal(Path({str(dynamodb_local.emulator)!r}))
                engine.start()
                print(engine.java_pid(), flush=True)
                time.sleep(300)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        java = int(parent.stdout.readline())
        assert alive(java)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
    assert wait_gone(java), f"java {java} outlived its killed parent"


def test_no_jar_in_the_configured_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DYNAMODB_LOCAL_DIR", str(tmp_path))
    with pytest.raises(DynamoDBLocalUnavailable, match=r"holds no DynamoDBLocal\.jar"):
        locate_emulator()


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize(
    ("says", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('java version "1.8.0_402"', 8),
        ("no version here", None),
    ],
)
def test_java_major_version(tmp_path: Path, says: str, major: int | None) -> None:
    java = executable(tmp_path / "java", f"#!/bin/sh\necho '{says}' >&2\n")
    assert java_major_version(str(java)) == major


def test_installer_reuses_its_cache_without_npm(
    dynamodb_local: DynamoDBLocal, tmp_path: Path
) -> None:
    """Once unpacked, the installer only checks: an npm that fails loudly is never called."""
    called = tmp_path / "npm-called"
    executable(tmp_path / "npm", f"#!/bin/sh\ntouch {called}\nexit 99\n")
    if os.environ.get("DYNAMODB_LOCAL_DIR"):
        pytest.skip("DYNAMODB_LOCAL_DIR is set: the session's engine is not the cache's")
    env = dict(os.environ)
    env["PATH"] = f"{tmp_path}{os.pathsep}{env['PATH']}"
    done = subprocess.run(
        ["bash", str(ENSURE_SCRIPT)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder == dynamodb_local.emulator
    assert (folder / "DynamoDBLocal.jar").is_file()
    assert list((folder / "DynamoDBLocal_lib").glob("libsqlite4java-linux-*.so"))
    assert not called.exists()
