"""The pure core (``shared/baccarat``) imports the standard library and nothing else — also its
proof and verification code: ECDSA lives in ``baccarat_verify``."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import baccarat

CORE = Path(baccarat.__file__).resolve().parent


def test_the_core_imports_only_the_standard_library() -> None:
    modules = sorted(f"baccarat.{m.name}" for m in pkgutil.iter_modules([str(CORE)]))
    assert "baccarat.proofdoc" in modules and "baccarat.verify" in modules
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    foreign = sorted(m for m in loaded - set(sys.stdlib_module_names) - {"baccarat"}
                     if not m.startswith("_"))  # fmt: skip
    assert foreign == [], f"the core pulls in {foreign}"
