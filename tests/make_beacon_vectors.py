"""Make the test beacon's vectors: ``tests/vectors/test_beacon.json`` — a local test beacon
(``baccarat_dev.beacon_local``) with a fixed key, its chain (info) and three of its rounds, so the
Python and the JavaScript verifiers are checked on the same test-beacon signatures
(``tests/unit/test_beacon_bls.py``, ``web/test/drand.test.js``; the real quicknet rounds are
``tests/vectors/quicknet.json``, copied from drand's answers, never made here).

    .venv/bin/python tests/make_beacon_vectors.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from baccarat.beacon import chain_info_json
from baccarat_dev.beacon_local import LocalBeacon

OUT = Path(__file__).resolve().parent / "vectors" / "test_beacon.json"
SECRET = 0x0BACCA7
GENESIS_MS = 1_764_547_200_000  # 2025-12-01T00:00:00Z
PERIOD_MS = 3_000
ROUNDS = (1, 2, 1000)


def vectors() -> dict[str, Any]:
    beacon = LocalBeacon(secret=SECRET, period_ms=PERIOD_MS, genesis_ms=GENESIS_MS)
    return {
        "about": "A local test beacon (baccarat_dev/beacon_local.py) with the fixed secret key "
        f"{SECRET:#x}: its info and rounds. Never drand: its chain hash is its own.",
        "info": chain_info_json(beacon.chain),
        "rounds": [beacon.sign(r).to_json() for r in ROUNDS],
    }


def main() -> None:
    OUT.write_text(json.dumps(vectors(), indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
