"""The suite's files, heaviest first, for ``pytest-xdist``'s ``--dist loadfile``.

xdist hands whole files to its workers in collection order (the suite passes
``--no-loadscope-reorder``; xdist's own reorder sorts by the NUMBER of tests of a file, which
puts the live tier's one-test, one-minute files last and leaves the other worker idle at the
end). Sorting the files by how long each took (longest processing time first) lets the short
files fill in at the end instead. Tests inside a file keep their order.

The weights are seconds per file of one suite run (``tests/file_durations.json``, relative
figures: only the order matters; today's come from a run of the whole suite on this 2-core
machine, otherwise idle). A file not listed weighs its tier's
default: a new live or infra file is likely slow, a new unit file quick. Refresh the weights
after a suite run with ``--junitxml``:

    .venv/bin/python -m support.ordering JUNIT.xml > tests/file_durations.json   # from tests/
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
WEIGHTS = TESTS / "file_durations.json"
#: Seconds a file not in WEIGHTS counts for, by tier (its first folder under tests/).
TIER_DEFAULT = {"live": 150.0, "infra": 150.0, "sam_local": 150.0, "integration": 20.0, "unit": 2.0}


def load_weights(path: Path = WEIGHTS) -> dict[str, float]:
    """File (path relative to the repository, ``tests/…``) → seconds; empty when absent."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in data.items()}


def weight(file: str, weights: dict[str, float]) -> float:
    """The seconds ``file`` (``tests/<tier>/…``) is expected to take."""
    if file in weights:
        return weights[file]
    parts = file.split("/")
    return TIER_DEFAULT.get(parts[1] if len(parts) > 2 else "", 1.0)


def heaviest_first(items: Sequence[Any], weights: dict[str, float]) -> list[Any]:
    """``items`` (pytest items, or anything with a ``nodeid``) grouped by file, the files in
    decreasing weight (equal weights: in their first item's order), each file's items in their
    order."""
    files: dict[str, list[Any]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    order = sorted(files, key=lambda f: -weight(f, weights))  # stable: ties keep their order
    return [item for f in order for item in files[f]]


def durations_from_junit(junit: Path) -> dict[str, float]:
    """Seconds per test file (setup, call and teardown of its tests) from a junit XML report,
    largest first, rounded to tenths."""
    totals: dict[str, float] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        modules = [p for p in parts if not p[:1].isupper()]  # drop test classes
        if not modules:
            continue
        file = "/".join(modules) + ".py"
        totals[file] = totals.get(file, 0.0) + float(case.get("time") or 0)
    return {f: round(s, 1) for f, s in sorted(totals.items(), key=lambda kv: -kv[1])}


if __name__ == "__main__":
    json.dump(durations_from_junit(Path(sys.argv[1])), sys.stdout, indent=0)
    sys.stdout.write("\n")
