"""``sam build`` of template.yaml for this machine's architecture, one way for the build test
(tests/infra/test_sam_build.py) and the artifact benchmark (benchmarks/artifacts.py)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
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
