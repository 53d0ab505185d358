"""docs/sam-local.md, executed for real: every command of its ``sh`` blocks, in order, in one
bash session in a copy of the repository, each command's output compared with the expected lines
under it — Docker, the images (AWS's when their registries answer, else the stand-ins built here:
scripts/sam-local-images.sh), the engines in containers, the real SAM CLI's ``sam local invoke``
for every event and ``sam local start-api`` with examples/play_shoe.py playing a whole shoe.

What the page leaves to a developer's hands, and the test does instead:

* ``sam local start-api`` runs in a second terminal on the page: here it runs in the background
  (its output to a file) and the next command waits until it serves; "Ctrl-C stops it" is a
  SIGINT before step 6's first ``docker`` command.
* ``make`` never reinstalls the virtualenv (the copy shares this one: ``-o .venv/.installed``).

Its own tier (``-m sam_local``, ``make sam-local-test``): it needs root or a running Docker, and
a few minutes; ``make test`` runs it next to the other tiers."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from baccarat_dev import samlocal
from baccarat_dev.template import REPO_ROOT

DOC = REPO_ROOT / "docs" / "sam-local.md"
#: The containers and the network the page starts (the ones it stops in step 6).
CONTAINERS = ("dynamodb-local", "moto")


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


def pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in expected.split("…")))


def mismatch(step: Step, output: list[str]) -> str | None:
    """Each expected line must match an output line, in order (other lines may come between):
    ``None``, or what did not."""
    lines = iter(output)
    for expected in step.expected:
        wanted = pattern(expected)
        if not any(wanted.fullmatch(line.rstrip()) for line in lines):
            shown = "\n".join(f"    {line[:300]}" for line in output[-30:])
            return (
                f"docs/sam-local.md:{step.line} `{step.command[:90]}`: no line matches "
                f"{expected!r} (in order); its output:\n{shown}"
            )
    return None


PREAMBLE = r"""
set -u -o pipefail
make() { command make -o .venv/.installed "$@"; }
sam() {
  if [[ "${1:-} ${2:-}" == "local start-api" ]]; then
    # the page's second terminal: in the background, the next command once it serves (job
    # control on: a background job of a script ignores SIGINT, Ctrl-C, otherwise)
    set -m
    command sam "$@" >"$RECIPE_DIR/api.out" 2>&1 &
    echo $! > "$RECIPE_DIR/api.pid"
    set +m
    for _ in $(seq 600); do
      curl -s -o /dev/null http://127.0.0.1:3000/v1/tiers && break
      kill -0 $! 2>/dev/null || { cat "$RECIPE_DIR/api.out" >&2; return 1; }
      sleep 0.5
    done
    curl -s -o /dev/null http://127.0.0.1:3000/v1/tiers \
      || { cat "$RECIPE_DIR/api.out" >&2; return 1; }
    cat "$RECIPE_DIR/api.out"
  else
    command sam "$@"
  fi
}
ctrl_c() {  # what the developer's Ctrl-C does to sam local start-api
  [[ -s "$RECIPE_DIR/api.pid" ]] || return 0
  local pid; pid=$(cat "$RECIPE_DIR/api.pid")
  kill -INT "$pid" 2>/dev/null || return 0
  for _ in $(seq 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null || true
  # and, as a developer's next look would, until the containers SAM removes are gone (Docker
  # finishes a moment after SAM exits); step 6 removes those left after 30 s
  local sams="label=sam.cli.container.type"
  for _ in $(seq 60); do
    [[ -z $(docker ps -aq --filter "$sams" --filter network=baccarat-local) ]] && return 0
    sleep 0.5
  done
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


def docker_leftovers() -> None:
    """The page's containers and network (and SAM's function containers on it) from an earlier
    run that did not reach step 6."""
    if shutil.which("docker") is None:
        return
    on_network = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"network={samlocal.NETWORK}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    ).stdout.split()
    for command in (
        ["docker", "rm", "-f", *on_network],
        ["docker", "rm", "-f", *CONTAINERS],  # stopped ones are on no network
        ["docker", "network", "rm", samlocal.NETWORK],
    ):
        subprocess.run(command, capture_output=True, timeout=120, check=False)


@pytest.fixture
def clean_docker() -> Iterator[None]:
    docker_leftovers()
    yield
    docker_leftovers()


def test_the_recipe_runs_as_written(tmp_path: Path, clean_docker: None) -> None:
    recipe = steps(DOC.read_text(encoding="utf-8"))
    commands = [s.command for s in recipe]
    assert any(c.startswith("sam local start-api ") for c in commands)
    printed = samlocal.commands(REPO_ROOT, "$ARCH")
    invoked = [c for c in commands if c.startswith("sam local invoke ")]
    assert set(invoked) == {c for c in printed if c.startswith("sam local invoke ")}, (
        "every event of every function, invoked"
    )
    start_api = next(n for n, c in enumerate(commands) if c.startswith("sam local start-api "))
    # the page's Ctrl-C: before its first docker command after start-api
    stop_at = next(n for n, c in enumerate(commands) if c.startswith("docker ") and n > start_api)

    root = copy_project(tmp_path)
    state = tmp_path / "state"
    for folder in (state / "out", state / "err", tmp_path / "home"):
        folder.mkdir(parents=True)
    script = [PREAMBLE, f"cd {shlex.quote(str(root))}"]
    for number, step in enumerate(recipe):
        if number == stop_at:
            script.append("ctrl_c")
        script.append(
            f'{{ {step.command}\n}} >"$RECIPE_DIR/out/{number}" 2>"$RECIPE_DIR/err/{number}" '
            f'|| {{ echo {number} > "$RECIPE_DIR/failed"; exit 1; }}'
        )
    env = {
        **network_settings(),
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        "SAM_CLI_TELEMETRY": "0",
        "RECIPE_DIR": str(state),
    }
    # the machine's DynamoDB Local, when the shell names one (scripts/ensure-dynamodb-local.sh)
    if os.environ.get("DYNAMODB_LOCAL_DIR"):
        env["DYNAMODB_LOCAL_DIR"] = os.environ["DYNAMODB_LOCAL_DIR"]
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
        _, stderr = bash.communicate(timeout=2400)
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
        log = (state / "api.out").read_text()[-3000:] if (state / "api.out").exists() else ""
        raise AssertionError(
            f"docs/sam-local.md:{step.line} failed: {step.command}\n{shown}\n{stderr[-2000:]}"
            f"\n{log}"
        )
    wrong = [mismatch(step, output(n)) for n, step in enumerate(recipe)]
    assert not any(wrong), "\n".join(w for w in wrong if w)
    # which images ran (AWS's or the stand-ins): in the report (make sam-local-test: -rP)
    for n, step in enumerate(recipe):
        if "sam-local-images.sh" in step.command:
            print("\n".join(output(n)))


def network_settings() -> dict[str, str]:
    """What this machine's shell tells pip (``make build`` installs the dependencies layer, the
    images' build installs awslambdaric and moto) about its index, certificates and proxies — a
    developer's shell has them too. (HOME is a fresh one: no AWS configuration of this machine may
    reach the page's commands.)"""
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
    """End sam local start-api (it stops its containers) if the recipe did not."""
    try:
        os.kill(pid, signal.SIGINT)
    except ProcessLookupError:
        return
    for _ in range(600):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
