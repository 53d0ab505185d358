"""Slim a ``sam build`` directory for Lambda (run between ``sam build`` and ``sam deploy``).

``python scripts/slim_build.py [.aws-sam/build]``

1. **Bytecode.** ``sam build`` ships sources only, and Lambda's code directories are read-only,
   so without ``.pyc`` files every cold start compiles every module it imports (boto3, botocore,
   pydantic, fastapi …) again. This compiles the layers and the functions once, with
   ``--invalidation-mode unchecked-hash``: a ``.pyc`` is used without comparing source
   timestamps (which the deployment zip does not keep exactly). Bytecode depends on the Python
   version only (3.11, as the runtime), not on the architecture.
2. **botocore's API models.** botocore carries the model of every AWS service (≈ 27 MB of the
   ≈ 50 MB dependencies layer); the functions create clients for a few. The services kept are
   found in the shipped code (every ``client("<service>")`` in shared/baccarat and
   shared/baccarat_api — the SharedLayer's packages, never the development one —, functions/
   and infra/) plus
   the ones the SDKs need themselves (sts, and xray for the X-Ray SDK); the rest are removed.
3. **pydantic's bundled v1 API** (``pydantic/v1``), which nothing shipped imports: FastAPI
   imports it when it registers the first route, only to refuse v1 models (≈ 20 ms of every API
   cold start, 23 modules), and takes its absence as "no v1 model can exist" (its own code path
   for a pydantic without ``v1``); pydantic itself imports it only for a v1-style custom type
   (``__get_validators__``), which the API has none of. The build is refused if shipped code
   (the SharedLayer's packages, functions/) names ``pydantic.v1``.
4. Stale ``__pycache__`` directories (from local runs) are removed before compiling.

Nothing else changes: the same packages, the same versions, the same code.
"""

from __future__ import annotations

import compileall
import py_compile
import re
import shutil
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Services the SDKs themselves may create clients for.
SDK_SERVICES = frozenset({"sts", "xray"})
_CLIENT = re.compile(r"""\.client\(\s*["']([a-z0-9-]+)["']""")


def services_used(roots: tuple[Path, ...] = ()) -> frozenset[str]:
    shipped = (REPO_ROOT / "shared" / "baccarat", REPO_ROOT / "shared" / "baccarat_api")
    roots = roots or (*shipped, REPO_ROOT / "functions", REPO_ROOT / "infra")
    found = set(SDK_SERVICES)
    for root in roots:
        for path in root.rglob("*.py"):
            found.update(_CLIENT.findall(path.read_text(encoding="utf-8", errors="replace")))
    return frozenset(found)


#: Parts of the dependencies that nothing shipped imports (paths under a layer's python/).
UNUSED = ("pydantic/v1",)
_PYDANTIC_V1 = re.compile(r"\bpydantic\.v1\b|\bfrom\s+pydantic\s+import\s+(\([^)]*)?\bv1\b")


def uses_pydantic_v1(roots: tuple[Path, ...] = ()) -> list[Path]:
    """The shipped sources that name ``pydantic.v1`` (none may, for it is not shipped)."""
    shipped = (REPO_ROOT / "shared" / "baccarat", REPO_ROOT / "shared" / "baccarat_api")
    roots = roots or (*shipped, REPO_ROOT / "functions")
    return [
        path
        for root in roots
        for path in sorted(root.rglob("*.py"))
        if _PYDANTIC_V1.search(path.read_text(encoding="utf-8", errors="replace"))
    ]


def prune_unused(python_dir: Path) -> int:
    """Remove :data:`UNUSED` from a layer's ``python/``; returns the bytes removed."""
    removed = 0
    for part in UNUSED:
        target = python_dir / part
        if target.is_dir():
            removed += size(target)
            shutil.rmtree(target)
    return removed


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def prune_botocore(python_dir: Path, keep: frozenset[str]) -> int:
    """Remove the API models of services not in ``keep``; returns the bytes removed."""
    data = python_dir / "botocore" / "data"
    removed = 0
    if not data.is_dir():
        return 0
    for service in data.iterdir():
        if service.is_dir() and service.name not in keep:
            removed += size(service)
            shutil.rmtree(service)
    return removed


def compile_tree(root: Path) -> None:
    for cache in list(root.rglob("__pycache__")):
        shutil.rmtree(cache)
    ok = compileall.compile_dir(
        str(root),
        quiet=2,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        workers=1,
    )
    if not ok:
        raise SystemExit(f"compileall failed under {root}")


def slim(build_dir: Path) -> dict[str, tuple[int, int]]:
    """Slim every layer and function directory of ``build_dir``; name → (bytes before, after)."""
    keep = services_used()
    offenders = uses_pydantic_v1()
    if offenders:
        raise SystemExit(f"pydantic.v1 is not shipped, but these import it: {offenders}")
    out: dict[str, tuple[int, int]] = {}
    for artifact in sorted(p for p in build_dir.iterdir() if p.is_dir()):
        before = size(artifact)
        python_dir = artifact / "python"
        if python_dir.is_dir():
            prune_botocore(python_dir, keep)
            prune_unused(python_dir)
        compile_tree(artifact)
        out[artifact.name] = (before, size(artifact))
    return out


def main(argv: list[str]) -> int:
    build_dir = Path(argv[0] if argv else REPO_ROOT / ".aws-sam" / "build")
    if not (build_dir / "template.yaml").is_file():
        print(f"{build_dir} is not a sam build directory (run sam build first)", file=sys.stderr)
        return 2
    print(f"botocore models kept: {', '.join(sorted(services_used()))}")
    for name, (before, after) in slim(build_dir).items():
        print(f"{name:<28}{before / 1e6:8.2f} MB → {after / 1e6:8.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
