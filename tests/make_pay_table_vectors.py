"""Add new published pay-table versions to ``tests/vectors/pay_tables.json`` (docs/bacc-pf-v1.md,
"Pay tables").

    .venv/bin/python tests/make_pay_table_vectors.py

A published version never changes: versions already in the file are kept as they are, and a
version of the core whose values differ from the file's is refused (a payout change is a new
version, ``<profile>@<n+1>``, made current in ``paytables.CURRENT``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from baccarat.audit import canonical
from baccarat.paytables import CURRENT, PUBLISHED, describe_version, legacy_version

OUT = Path(__file__).resolve().parent / "vectors" / "pay_tables.json"


def entry(doc: dict[str, Any]) -> dict[str, Any]:
    """A version's description and the SHA-256 of its canonical bytes."""
    return {"table": doc, "sha256": hashlib.sha256(canonical(doc)).hexdigest()}


def build(previous: dict[str, Any] | None) -> dict[str, Any]:
    versions: dict[str, Any] = dict(previous["versions"]) if previous else {}
    for version, table in PUBLISHED.items():
        made = entry(describe_version(table))
        if version in versions and versions[version] != made:
            raise SystemExit(f"{version} is published with other values: make a new version")
        versions.setdefault(version, made)
    return {
        "spec": "bacc-pf-v1",
        "about": "every published pay table (docs/bacc-pf-v1.md, 'Pay tables'): net win per "
        "unit staked as exact fractions; made by tests/make_pay_table_vectors.py",
        "legacy": {profile: legacy_version(profile) for profile in CURRENT},
        "versions": versions,
    }


def main() -> None:
    previous = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else None
    doc = build(previous)
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
