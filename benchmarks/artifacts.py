"""Artifact size of every function: ``sam build`` into a temporary directory (this machine's
architecture; sam's cache kept in .aws-sam/ between runs), then each function's own directory plus
the layers it uses, unzipped and zipped (what Lambda downloads), as sam builds it and after
``scripts/slim_build.py`` (bytecode compiled, unused botocore models removed). Also: what the
layers hold that no function imports, and anything for development that must not be there."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from baccarat_dev.template import REPO_ROOT, load
from tests.support.sam_build import ARCH, sam_build

CACHE = REPO_ROOT / ".aws-sam" / f"bench-cache-{ARCH}"
#: Nothing of these may be in a layer (development and test tools, type stubs).
BANNED = ("uvicorn", "moto", "yaml", "pytest", "hypothesis", "httpx", "mypy_boto3", "boto3_stubs")


@dataclass
class Build:
    directory: Path
    seconds: float


def timed_build(into: Path) -> Build:
    t0 = time.perf_counter()
    result = sam_build(into, CACHE)
    if result.returncode != 0:
        raise RuntimeError("sam build failed:\n" + (result.stdout + result.stderr)[-3000:])
    return Build(into, time.perf_counter() - t0)


def tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def zipped_size(paths: list[Path]) -> int:
    """Bytes of one deflated zip of these directories (as Lambda gets a function or a layer)."""

    class Counter(io.RawIOBase):
        n = 0

        def writable(self) -> bool:
            return True

        def write(self, b: bytes) -> int:  # type: ignore[override]
            self.n += len(b)
            return len(b)

    sink = Counter()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:  # type: ignore[arg-type]
        for root in paths:
            for p in sorted(root.rglob("*")):
                if p.is_file():
                    z.write(p, p.relative_to(root))
    return sink.n


def functions_and_layers(build: Path) -> dict[str, list[str]]:
    """Function logical id → the layers it uses (template Globals + its own)."""
    t = load()
    glob = t["Globals"]["Function"].get("Layers", [])
    out: dict[str, list[str]] = {}
    for logical_id, res in t["Resources"].items():
        if res.get("Type") != "AWS::Serverless::Function" or not (build / logical_id).is_dir():
            continue
        layers = res["Properties"].get("Layers", glob)
        out[logical_id] = [x["Ref"] for x in layers if isinstance(x, dict) and "Ref" in x]
    return out


def sizes(build: Path) -> dict[str, tuple[int, int]]:
    """Artifact (function dir or layer) → (unzipped, zipped) bytes."""
    out: dict[str, tuple[int, int]] = {}
    for d in sorted(p for p in build.iterdir() if p.is_dir()):
        out[d.name] = (tree_size(d), zipped_size([d]))
    return out


def contents(build: Path) -> list[str]:
    lines = []
    for layer in ("DependenciesLayer", "SharedLayer"):
        python = build / layer / "python"
        if not python.is_dir():
            continue
        names = sorted(p.name for p in python.iterdir())
        banned = [n for n in names if n.lower().startswith(BANNED)]
        tests = [str(p.relative_to(python)) for p in python.rglob("tests") if p.is_dir()]
        caches = sum(1 for _ in python.rglob("__pycache__"))
        dist = sum(tree_size(p) for p in python.glob("*.dist-info"))
        lines.append(
            f"{layer}: {len(names)} entries; development tools: {banned or 'none'}; "
            f"test directories: {tests[:4] or 'none'}; __pycache__ dirs: {caches}; "
            f"dist-info {dist / 1e3:.0f} kB"
        )
    return lines


def mb(n: int) -> str:
    return f"{n / 1e6:7.2f} MB"


def run(keep: Path) -> tuple[list[str], Path | None]:
    """Build into ``keep``/built, slim a copy into ``keep``/slim; returns the lines and the slim
    build directory (for the cold-start section), or None if sam is not usable here."""
    try:
        build = timed_build(keep / "built")
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
        return [f"## Artifact size: sam build failed here ({str(exc)[:300]})"], None
    built = sizes(build.directory)
    slim_dir = keep / "slim"
    shutil.copytree(build.directory, slim_dir)
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        import slim_build
    finally:
        sys.path.pop(0)
    slim_build.slim(slim_dir)
    slim = sizes(slim_dir)
    lines = [
        f"## Artifact size (sam build for {ARCH} in {build.seconds:.0f} s, cached; function "
        "dir + its layers; zipped = deflate, what Lambda downloads)",
        f"{'function':<24}{'as built: unzipped':>19}{'zipped':>11}"
        f"{'slimmed: unzipped':>19}{'zipped':>11}",
    ]
    for fn, layers in functions_and_layers(build.directory).items():
        parts = [fn, *layers]
        b = [sum(built[p][i] for p in parts if p in built) for i in (0, 1)]
        s = [sum(slim[p][i] for p in parts if p in slim) for i in (0, 1)]
        lines.append(f"{fn:<24}{mb(b[0]):>19}{mb(b[1]):>11}{mb(s[0]):>19}{mb(s[1]):>11}")
    for layer in ("DependenciesLayer", "SharedLayer"):
        if layer in built:
            lines.append(
                f"  of which {layer:<14}{mb(built[layer][0]):>19}{mb(built[layer][1]):>11}"
                f"{mb(slim[layer][0]):>19}{mb(slim[layer][1]):>11}"
            )
    lines.append(
        "slimmed = scripts/slim_build.py: .pyc compiled (unchecked-hash), botocore models "
        f"kept only for {', '.join(sorted(slim_build.services_used()))}"
    )
    lines += contents(build.directory)
    return lines, slim_dir
