"""``sam build`` of template.yaml for this machine's architecture, one way for the build test
(tests/infra/test_sam_build.py) and the artifact benchmark (benchmarks/artifacts.py); moto's
server for the KMS of the built functions (the build test's, the sam local recipe's)."""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from baccarat_dev.template import REPO_ROOT, TEMPLATE

ARCH = "x86_64" if platform.machine().lower() in ("x86_64", "amd64") else "arm64"


def sam_build(build_dir: Path, cache_dir: Path) -> subprocess.CompletedProcess[str]:
    """Build into ``build_dir`` (sam's cache in ``cache_dir``, kept between runs) with this venv's
    ``sam``, its Python first on ``PATH``, no telemetry; output captured, 20 minutes at most."""
    sam = Path(sys.executable).with_name("sam")
    env = {
        **os.environ,
        "SAM_CLI_TELEMETRY": "0",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.run(
        [
            str(sam), "build",
            "--template-file", str(TEMPLATE),
            "--build-dir", str(build_dir),
            "--cache-dir", str(cache_dir),
            "--cached",
            "--parameter-overrides", f"Architecture={ARCH}",
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )  # fmt: skip


def slimmed(build_dir: Path, into: Path) -> Path:
    """A copy of ``build_dir`` slimmed by scripts/slim_build.py, as ``make build`` ships it."""
    spec = importlib.util.spec_from_file_location(
        "slim_build", REPO_ROOT / "scripts" / "slim_build.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(build_dir, into, symlinks=True)
    module.slim(into)
    return into


@contextmanager
def moto_server() -> Iterator[str]:
    """moto's server (every service) on a free loopback port, empty: its URL, stopped
    afterwards. (moto keeps its state per process, shared by every server and ``mock_aws`` of
    it: a server started after another test's starts from nothing only once reset.)"""
    import urllib.request

    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    urllib.request.urlopen(urllib.request.Request(f"{url}/moto-api/reset", method="POST")).close()
    try:
        yield url
    finally:
        server.stop()
