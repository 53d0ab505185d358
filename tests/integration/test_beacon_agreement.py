"""The two BLS checks of a beacon agree: ``baccarat_bls`` (Python, py-arkworks-bls12381) and
``web/drand.js`` (the browser's, @noble/curves) give the same verdict on every case — the real
quicknet rounds (``tests/vectors/quicknet.json``), the test beacon's (``test_beacon.json``), and
each of them tampered: a random bit of the signature flipped, the next or previous round, the
other chain, the malformed encodings, random bytes. One node process checks them all."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from baccarat import beacon
from baccarat.beacon import QUICKNET, Beacon, Chain
from baccarat_bls import verify_beacon

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

_JUDGE = """
const D = require(process.argv[1]);
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map((c) => D.verifyBeacon(c.chain, c.beacon))));
"""


def _chain_json(chain: Chain) -> dict[str, Any]:
    return {
        "chain_hash": chain.chain_hash,
        "public_key": chain.public_key.hex(),
        "is_test": chain.is_test,
        "scheme": chain.scheme,
    }


def _flip(signature: bytes, rng: random.Random) -> bytes:
    bit = rng.randrange(48 * 8)
    out = bytearray(signature)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def _cases() -> list[tuple[Chain, Beacon, bool]]:
    rng = random.Random(28)
    quick = json.loads((VECTORS / "quicknet.json").read_text(encoding="utf-8"))
    kept = json.loads((VECTORS / "test_beacon.json").read_text(encoding="utf-8"))
    local = beacon.chain_from_info(kept["info"])
    genuine = [(QUICKNET, beacon.beacon_from_json(QUICKNET, v)) for v in quick["rounds"]]
    genuine += [(local, beacon.beacon_from_json(local, v)) for v in kept["rounds"]]
    cases: list[tuple[Chain, Beacon, bool]] = []
    for chain, good in genuine:
        other = local if chain is QUICKNET else QUICKNET
        cases += [
            (chain, good, True),
            (
                chain,
                Beacon(good.chain_hash, good.round, _flip(good.signature, rng), good.is_test),
                False,
            ),
            (chain, Beacon(good.chain_hash, good.round + 1, good.signature, good.is_test), False),
            (chain, Beacon(good.chain_hash, good.round - 1, good.signature, good.is_test), False),
            (other, Beacon(other.chain_hash, good.round, good.signature, other.is_test), False),
        ]
    r1000 = genuine[1][1]
    for name, hex_ in quick["malformed_signatures"].items():
        if name != "about":
            cases.append(
                (QUICKNET, Beacon(r1000.chain_hash, 1000, bytes.fromhex(hex_), False), False)
            )
    for _ in range(4):
        cases.append((QUICKNET, Beacon(r1000.chain_hash, 1000, rng.randbytes(48), False), False))
    return cases


def test_python_and_the_browser_agree_on_every_beacon() -> None:
    cases = _cases()
    ours = [verify_beacon(chain, b) for chain, b, _ in cases]
    assert ours == [expected for _, _, expected in cases]
    payload = [
        {
            "chain": _chain_json(chain),
            "beacon": {
                "chain_hash": b.chain_hash,
                "round": b.round,
                "signature": b.signature.hex(),
                "is_test": b.is_test,
            },
        }
        for chain, b, _ in cases
    ]
    out = subprocess.run(
        [str(NODE), "-e", _JUDGE, str(ROOT / "web" / "drand.js")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(out.stdout) == ours
