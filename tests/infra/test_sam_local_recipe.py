"""docs/sam-local.md, executed: every command of its ``sh`` blocks, in order, in one bash session
in a copy of the repository, each command's output compared with the expected lines under it.

There is no Docker here, so three things stand in (the rest runs as written: ``make install``,
``make build``, the exports, ``baccarat sam-local …``, ``baccarat operator create``,
``make sam-local``, ``examples/play_shoe.py``):

* ``docker …`` is recorded, not run; the page's ``docker run`` lines are read instead: their
  images must be the ones :mod:`baccarat_dev.samlocal` names, on its network, with the
  container names and ports ``infra/sam-local-env.json`` points the functions at. The engines
  themselves run here: DynamoDB Local (the same 1.25.1, from its npm package) and moto's server
  (the image's code, from PyPI), and the URLs the page publishes them on (loopback ports, the
  container names) are rewritten to theirs.
* ``sam local invoke`` / ``sam local start-api`` are :mod:`support.sam_local`: the functions of
  ``.aws-sam/build`` in clean interpreters, their environment resolved by SAM's own code from
  the page's ``--env-vars`` file, SAM's own API Gateway emulation (routes, authorizer) in front.
* ``make`` never reinstalls the virtualenv (the copy shares this one: ``-o .venv/.installed``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support.sam_build import moto_server

from baccarat_dev import samlocal
from baccarat_dev.template import REPO_ROOT

DOC = REPO_ROOT / "docs" / "sam-local.md"
TESTS = REPO_ROOT / "tests"
#: Where the page's sam local start-api listens (SAM's default port).
API_URL = "http://127.0.0.1:3000"


@dataclass
class Step:
    command: str
    expected: list[str] = field(default_factory=list)
    line: int = 0


def steps(text: str) -> list[Step]:
    """The commands of the page's ``sh`` blocks with the ``# …`` lines after each."""
    found: list[Step] = []
    block = False
    pending = ""
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            block = line.strip() == "```sh" and not block
            continue
        if not block or not line.strip():
            continue
        if line.startswith("#"):
            assert found and not pending, f"docs/sam-local.md:{number}: output before a command"
            found[-1].expected.append(line[2:] if line.startswith("# ") else line[1:])
            continue
        pending += line.rstrip("\\") + (" " if line.endswith("\\") else "")
        if not line.endswith("\\"):
            found.append(Step(pending.strip(), line=number))
            pending = ""
    return found


@dataclass
class Container:
    name: str
    network: str
    image: str
    args: list[str]
    host_url: str  # as this shell reaches it
    container_url: str  # as the function containers reach it


def docker_runs(recipe: list[Step]) -> list[Container]:
    """The page's ``docker run -d --rm --name N --network NET -p H:P:C IMAGE ARGS`` lines."""
    out = []
    for step in recipe:
        words = shlex.split(step.command)
        if words[:2] != ["docker", "run"]:
            continue
        options: dict[str, str] = {}
        rest = words[2:]
        while rest and rest[0].startswith("-"):
            option = rest.pop(0)
            if option not in ("-d", "--rm"):
                options[option] = rest.pop(0)
        host, host_port, container_port = options["-p"].split(":")
        out.append(
            Container(
                name=options["--name"],
                network=options["--network"],
                image=rest[0],
                args=rest[1:],
                host_url=f"http://{host}:{host_port}",
                container_url=f"http://{options['--name']}:{container_port}",
            )
        )
    return out


def pattern(expected: str, api_url: str) -> re.Pattern[str]:
    text = expected.replace(API_URL, api_url)
    return re.compile(".*?".join(re.escape(part) for part in text.split("…")))


def mismatch(step: Step, output: list[str], api_url: str) -> str | None:
    """Each expected line must match an output line, in order (other lines may come between):
    ``None``, or what did not."""
    lines = iter(output)
    for expected in step.expected:
        wanted = pattern(expected, api_url)
        if not any(wanted.fullmatch(line.rstrip()) for line in lines):
            shown = "\n".join(f"    {line[:300]}" for line in output[-30:])
            return (
                f"docs/sam-local.md:{step.line} `{step.command[:90]}`: no line matches "
                f"{expected!r} (in order); its output:\n{shown}"
            )
    return None


PREAMBLE = r"""
set -u -o pipefail
docker() { printf '%s\n' "$*" >> "$SAMSHIM_DIR/docker.log"; }
make() { command make -o .venv/.installed "$@"; }
sam() {
  if [[ "${1:-} ${2:-}" == "local invoke" ]]; then
    shift 2
    PYTHONPATH="$SAMSHIM_TESTS" "$SAMSHIM_PYTHON" -m support.sam_local invoke "$@"
  elif [[ "${1:-} ${2:-}" == "local start-api" ]]; then
    shift 2
    PYTHONPATH="$SAMSHIM_TESTS" "$SAMSHIM_PYTHON" -m support.sam_local start-api "$@" \
      --samshim-port-file "$SAMSHIM_DIR/api.port" >"$SAMSHIM_DIR/api.out" 2>"$SAMSHIM_DIR/api.log" &
    echo $! > "$SAMSHIM_DIR/api.pid"
    for _ in $(seq 1200); do
      [[ -s "$SAMSHIM_DIR/api.port" ]] && break
      kill -0 $! 2>/dev/null || { cat "$SAMSHIM_DIR/api.log" >&2; return 1; }
      sleep 0.1
    done
    [[ -s "$SAMSHIM_DIR/api.port" ]] || return 1
    export SAM_LOCAL_API_URL="http://127.0.0.1:$(cat "$SAMSHIM_DIR/api.port")"
    cat "$SAMSHIM_DIR/api.out"
  else
    command sam "$@"
  fi
}
"""


def copy_project(into: Path) -> Path:
    """The project's files (tracked and untracked, not ignored) as they are now, mtimes kept;
    ``.venv`` a link to this one."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    root = into / "repo"
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    (root / ".venv").symlink_to(REPO_ROOT / ".venv")
    return root


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture
def dynamodb_url(dynamodb_local: Any) -> Iterator[str]:
    """The session's DynamoDB Local, without the page's tables before and after."""
    import boto3

    client = boto3.client("dynamodb", **dynamodb_local.client_kwargs())
    names = {samlocal.local_table_name(t) for t in ("StateTable", "ConfigTable")}

    def drop() -> None:
        for name in names & set(client.list_tables()["TableNames"]):
            client.delete_table(TableName=name)

    drop()
    yield str(dynamodb_local.endpoint_url)
    drop()


def test_the_recipe_runs_as_written(tmp_path: Path, dynamodb_url: str, moto_url: str) -> None:
    recipe = steps(DOC.read_text(encoding="utf-8"))
    containers = docker_runs(recipe)
    engines = {samlocal.DYNAMODB_IMAGE: dynamodb_url, samlocal.MOTO_IMAGE: moto_url}
    assert sorted(c.image for c in containers) == sorted(engines), "the page's images"
    assert {c.container_url for c in containers} == set(samlocal.CONTAINER_ENDPOINTS.values())
    assert {c.network for c in containers} == {samlocal.NETWORK}
    assert f"docker network create {samlocal.NETWORK}" in [s.command for s in recipe]
    (dynamodb,) = [c for c in containers if c.image == samlocal.DYNAMODB_IMAGE]
    assert {"-sharedDb", "-inMemory"} <= set(dynamodb.args)  # any credentials, one database
    host_urls = {c.host_url: engines[c.image] for c in containers}
    container_urls = {c.container_url: engines[c.image] for c in containers}

    root = copy_project(tmp_path)
    state = tmp_path / "state"
    for folder in (state / "out", state / "err", tmp_path / "home"):
        folder.mkdir(parents=True)
    script = [PREAMBLE, f"cd {shlex.quote(str(root))}"]
    for number, step in enumerate(recipe):
        command = step.command.replace(API_URL, "$SAM_LOCAL_API_URL")
        for old, new in host_urls.items():
            command = command.replace(old, new)
        script.append(
            f'{{ {command}\n}} >"$SAMSHIM_DIR/out/{number}" 2>"$SAMSHIM_DIR/err/{number}" '
            f'|| {{ echo {number} > "$SAMSHIM_DIR/failed"; exit 1; }}'
        )
    env = {
        **network_settings(),
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        "SAM_CLI_TELEMETRY": "0",
        "SAMSHIM_DIR": str(state),
        "SAMSHIM_TESTS": str(TESTS),
        "SAMSHIM_PYTHON": sys.executable,
        "SAMSHIM_REWRITE": json.dumps(container_urls),
    }
    # its own process group: on a timeout, everything it started ends with it
    bash = subprocess.Popen(
        ["bash", "-c", "\n".join(script)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, stderr = bash.communicate(timeout=900)
        api_port = (state / "api.port").read_text() if (state / "api.port").exists() else "3000"
    finally:
        if bash.poll() is None:
            os.killpg(bash.pid, signal.SIGKILL)
            bash.wait()
        if (state / "api.pid").exists():
            stop(int((state / "api.pid").read_text()))

    def output(number: int) -> list[str]:
        out = (state / "out" / str(number)).read_text(encoding="utf-8", errors="replace")
        err = (state / "err" / str(number)).read_text(encoding="utf-8", errors="replace")
        return out.splitlines() + err.splitlines()

    if bash.returncode != 0:
        failed = int((state / "failed").read_text()) if (state / "failed").exists() else -1
        step = recipe[failed] if failed >= 0 else Step("?")
        shown = "\n".join(output(failed)[-60:]) if failed >= 0 else stderr[-3000:]
        log = (state / "api.log").read_text()[-3000:] if (state / "api.log").exists() else ""
        raise AssertionError(
            f"docs/sam-local.md:{step.line} failed: {step.command}\n{shown}\n{stderr[-2000:]}"
            f"\n{log}"
        )
    api_url = f"http://127.0.0.1:{api_port}"
    wrong = [mismatch(step, output(n), api_url) for n, step in enumerate(recipe)]
    assert not any(wrong), "\n".join(w for w in wrong if w)
    recorded = (state / "docker.log").read_text().splitlines()
    docker = [s.command.removeprefix("docker ") for s in recipe if s.command[:7] == "docker "]
    assert recorded == docker  # every docker command of the page was reached


def network_settings() -> dict[str, str]:
    """What this machine's shell tells pip (``make build`` installs the dependencies layer) about
    its index, certificates and proxies — a developer's shell has them too. (HOME is a fresh one:
    no AWS configuration of this machine may reach the page's commands.)"""
    names = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NO_PROXY")
    out = {
        k: v
        for k, v in os.environ.items()
        if k.startswith("PIP_") or k in names or k.lower().endswith("_proxy")
    }
    user_config = Path.home() / ".config" / "pip" / "pip.conf"
    if "PIP_CONFIG_FILE" not in out and user_config.is_file():
        out["PIP_CONFIG_FILE"] = str(user_config)
    return out


def stop(pid: int) -> None:
    """End the stand-in start-api (it ends its function interpreters) and wait for it."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
