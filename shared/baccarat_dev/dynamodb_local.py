"""DynamoDB Local (Amazon's own DynamoDB engine, a Java program) as a child process.

    with DynamoDBLocal() as ddb:          # finds (or installs) the jar, starts it, waits
        boto3.client("dynamodb", **ddb.client_kwargs())

The jar comes from ``scripts/ensure-dynamodb-local.sh`` (into ``.venv/dynamodb-local/``) or from
``DYNAMODB_LOCAL_DIR``. It runs in memory with ``-sharedDb`` (one database for every access key
and region) on a free port; it has no bind-address option, so clients here use 127.0.0.1.
Standard library only; Linux and macOS (POSIX ``sh``)."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

REPO_ROOT = Path(__file__).resolve().parents[2]
ENSURE_SCRIPT = REPO_ROOT / "scripts" / "ensure-dynamodb-local.sh"
JAR = "DynamoDBLocal.jar"
LIB = "DynamoDBLocal_lib"  # the jars and the sqlite4java native libraries
ENV_DIR = "DYNAMODB_LOCAL_DIR"
MIN_JAVA = 17

# Runs "$@" (java) with stdin from /dev/null, and ends it when our stdin (the pipe from the
# parent) reaches end-of-file: the parent closed it or died. Exits with java's status. A SIGTERM
# to the group ends java and the watcher; this shell ignores it (trap '' TERM, set after both
# started) so that it outlives java and reaps it and the watcher: nothing is left orphaned (some
# init processes take seconds to reap orphans).
_WATCHDOG = r"""
exec 3<&0
"$@" </dev/null 3<&- &
child=$!
{ while read -r _; do :; done; kill -TERM "$child" 2>/dev/null; n=0
  while kill -0 "$child" 2>/dev/null && [ "$n" -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
  kill -KILL "$child" 2>/dev/null; } <&3 &
watcher=$!
exec 3<&-
trap '' TERM
wait "$child"
status=$?
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
exit "$status"
"""


class DynamoDBLocalUnavailable(RuntimeError):
    """DynamoDB Local cannot run here (no Java >= 17, no jar, or it did not start)."""


def java_major_version(java: str = "java") -> int | None:
    """The major version of ``java`` (``17`` for 17.0.15, ``8`` for 1.8.0), or ``None`` when
    there is no such program or it does not say."""
    path = shutil.which(java)
    if path is None:
        return None
    try:
        done = subprocess.run(
            [path, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r'version "(\d+)(?:\.(\d+))?', done.stderr + done.stdout)
    if found is None:
        return None
    major = int(found[1])
    return int(found[2] or 0) if major == 1 else major


def java_available(java: str = "java") -> bool:
    """Whether ``java`` is a Java runtime that can run DynamoDB Local (>= 17)."""
    major = java_major_version(java)
    return major is not None and major >= MIN_JAVA


def locate_emulator(script: Path = ENSURE_SCRIPT) -> Path:
    """The folder holding ``DynamoDBLocal.jar`` (and ``DynamoDBLocal_lib/``):
    ``$DYNAMODB_LOCAL_DIR`` when set, else the one ``scripts/ensure-dynamodb-local.sh``
    prints (it unpacks the pinned package into the cache on first use; later calls only
    check). Raises :class:`DynamoDBLocalUnavailable` when there is none."""
    configured = os.environ.get(ENV_DIR)
    if configured:
        folder = Path(configured)
        if not (folder / JAR).is_file():
            raise DynamoDBLocalUnavailable(f"{ENV_DIR}={configured} holds no {JAR}")
        return folder
    if not script.is_file():
        raise DynamoDBLocalUnavailable(f"no {script} (set {ENV_DIR} to a folder with {JAR})")
    env = {k: v for k, v in os.environ.items() if k != "ALLOW_NO_DYNAMODB_LOCAL"}
    done = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines or not (Path(lines[-1]) / JAR).is_file():
        raise DynamoDBLocalUnavailable(
            f"{script.name} failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}"
        )
    return Path(lines[-1])


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (DynamoDB Local refuses ``-port 0``)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class DynamoDBLocal:
    """One DynamoDB Local process: :meth:`start` (or ``with``) launches it on a free port and
    returns once it answers HTTP; :meth:`stop` ends it and everything it started.

    Stopping is reliable: java runs in its own process group under a small ``sh`` watchdog that
    holds the read end of a pipe whose write end only this process has. :meth:`DynamoDBLocal.stop`
    ends the whole group (SIGTERM, then SIGKILL); if this process dies without stopping it (SIGKILL,
    a crash), the pipe closes, the watchdog sees end-of-file and ends java. Unlike
    ``prctl(PR_SET_PDEATHSIG)`` this does not depend on which thread started it and works on macOS.
    (A child made with a bare ``os.fork()`` inherits the pipe and keeps java alive until it exits.)
    """

    def __init__(
        self,
        emulator: Path | None = None,
        *,
        java: str = "java",
        jvm_options: Sequence[str] = (),
        host: str = "127.0.0.1",
        start_timeout: float = 60.0,
    ) -> None:
        self.emulator = emulator
        self.java = java
        self.jvm_options = tuple(jvm_options)
        self.host = host
        self.start_timeout = start_timeout
        self.port: int | None = None
        self.startup_seconds: float | None = None  # launch → first HTTP answer, last start
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> str:
        """Start it (a few times on fresh ports if the chosen one was taken meanwhile) and
        return the endpoint URL."""
        if self._proc is not None:
            raise RuntimeError("DynamoDB Local is already running")
        if not java_available(self.java):
            raise DynamoDBLocalUnavailable(f"DynamoDB Local needs Java >= {MIN_JAVA} ({self.java})")
        if self.emulator is None:
            self.emulator = locate_emulator()
        last = ""
        for _attempt in range(3):
            last = self._launch(self.emulator, free_port(self.host))
            if not last:
                return self.endpoint_url
            if "BindException" not in last and "Address already in use" not in last:
                break
        raise DynamoDBLocalUnavailable(f"DynamoDB Local did not start:\n{last}")

    def _launch(self, emulator: Path, port: int) -> str:
        """One try: '' once it answers, else what it printed (it has been stopped)."""
        java = shutil.which(self.java) or self.java
        command = [
            java,
            f"-Djava.library.path={emulator / LIB}",
            *self.jvm_options,
            "-jar",
            str(emulator / JAR),
            "-inMemory",
            "-sharedDb",
            "-disableTelemetry",
            "-port",
            str(port),
        ]
        self._log = tempfile.TemporaryFile(prefix="dynamodb-local-")  # noqa: SIM115 (closed in stop)
        began = time.monotonic()
        self._proc = subprocess.Popen(
            ["/bin/sh", "-c", _WATCHDOG, "dynamodb-local", *command],
            cwd=emulator,
            stdin=subprocess.PIPE,  # the watchdog's pipe: never written, closed at stop/death
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() ends java and watchdog
        )
        self.port = port
        deadline = began + self.start_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break
            if self._answers():
                self.startup_seconds = time.monotonic() - began
                return ""
            time.sleep(0.05)
        printed = self.output() or f"(no output; not answering after {self.start_timeout} s)"
        self.stop()
        return printed

    def _answers(self) -> bool:
        assert self.port is not None
        connection = http.client.HTTPConnection(self.host, self.port, timeout=2)
        try:
            connection.request("GET", "/")
            connection.getresponse().read()  # any answer (400 without credentials) is ready
            return True
        except OSError:
            return False
        finally:
            connection.close()

    def stop(self, timeout: float = 10.0) -> None:
        """End the process group (SIGTERM, SIGKILL after ``timeout``) and wait until no process
        of it is left. Idempotent."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _end_group(proc, timeout)
            if proc.stdin is not None:
                proc.stdin.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> DynamoDBLocal:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what callers use -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def endpoint_url(self) -> str:
        if self._proc is None or self.port is None:
            raise RuntimeError("DynamoDB Local is not running")
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """The watchdog's pid, which is also the process group's id (java is in that group)."""
        return None if self._proc is None else self._proc.pid

    def java_pid(self) -> int | None:
        """The java process's pid (the watchdog's child), where ``pgrep`` exists; else None."""
        if self._proc is None or shutil.which("pgrep") is None:
            return None
        done = subprocess.run(
            ["pgrep", "-P", str(self._proc.pid), "java"], capture_output=True, text=True
        )
        pids = [int(p) for p in done.stdout.split()]
        return pids[0] if pids else None

    def client_kwargs(self, region: str = "us-east-1") -> dict[str, str]:
        """Keyword arguments for ``boto3.client("dynamodb", ...)`` (any key works: -sharedDb)."""
        return {
            "endpoint_url": self.endpoint_url,
            "region_name": region,
            "aws_access_key_id": "local",
            "aws_secret_access_key": "local",
        }

    @property
    def version(self) -> str:
        """The version its start-up banner names (``1.25.1``), or ``"?"``."""
        found = re.search(r"^Version:\s*(\S+)", self.output(), re.MULTILINE)
        return found[1] if found else "?"

    def output(self) -> str:
        """What DynamoDB Local printed so far (its banner, errors)."""
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode(errors="replace")


def _end_group(proc: subprocess.Popen[bytes], timeout: float) -> None:
    pgid = proc.pid  # start_new_session: the leader's pid is the group id
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.05)
            if proc.returncode is not None and not _group_alive(pgid):
                return
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=1)


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs. Zombies do not count: java is orphaned
    when its watchdog ends first, and some init processes (containers, micro-VMs) take seconds
    to reap orphans — it has exited all the same."""
    proc = Path("/proc")
    if proc.is_dir():  # Linux: look at every process's state and group
        for stat in proc.glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended meanwhile
            if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m baccarat_dev.dynamodb_local``: start one, print its URL, run until Ctrl-C."""
    del argv
    with DynamoDBLocal() as ddb:
        print(f"DynamoDB Local at {ddb.endpoint_url} (pid {ddb.pid}); Ctrl-C stops it", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
    return 0


if __name__ == "__main__":
    sys.exit(main())
