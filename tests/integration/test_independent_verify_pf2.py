"""The two verifiers of a ``bacc-pf-v2`` proof — ``baccarat verify`` (``baccarat.pf2verify``) and
the browser's (``web/verify.js`` → ``web/verify-v2.js``), written apart — agree on any one change
to the signed sample (tests/vectors/pf2_sample_proof.json): a beacon's signature, a beacon round,
a lock time, a book root, a locked bet, a card, a payout, a void's price — or nothing changed.
Both verdicts agree, and when both fail they name the same round first. One node process checks
the whole batch; each side remembers a beacon's BLS answer after checking it once itself."""

from __future__ import annotations

import copy
import datetime as dt
import json
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from baccarat import beacon, pf2proof, proofdoc
from baccarat.verify import verify
from baccarat_bls import verify_beacon

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "vectors" / "pf2_sample_proof.json"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

#: Reads a list of proofs (page lists) on stdin, prints [{verified, reason}] as the page finds.
RUNNER = """
const web = process.argv[1];
const Drand = require(web + '/drand.js');
const seen = new Map();
globalThis.BaccaratDrand = { ...Drand, verifyBeacon(chain, b) {
  const k = [chain.chain_hash, chain.public_key, b.round, b.signature].join('/');
  if (!seen.has(k)) seen.set(k, Drand.verifyBeacon(chain, b));
  return seen.get(k);
} };
const V = require(web + '/verify.js');
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', async () => {
  const out = [];
  for (const pages of JSON.parse(text)) {
    const r = await V.verifyProof(pages, { allowUnsigned: true });
    out.push({ verified: r.verified, reason: r.reason });
  }
  process.stdout.write(JSON.stringify(out));
});
"""

PAGES: list[dict[str, Any]] = [
    proofdoc.unsigned_page(p) for p in json.loads(SAMPLE.read_text(encoding="utf-8"))["pages"]
]
CHAIN = pf2proof.chain_of(PAGES[0]["beacon"])


@cache
def _bls(round_: int, signature: bytes) -> bool:
    return verify_beacon(CHAIN, beacon.Beacon(CHAIN.chain_hash, round_, signature, True))


def _check(chain: beacon.Chain, b: beacon.Beacon) -> bool:
    return chain == CHAIN and b.chain_hash == CHAIN.chain_hash and _bls(b.round, b.signature)


def _rounds(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for p in pages for r in p["rounds"]]


def _change(pages: list[dict[str, Any]], number: int, what: str, k: int) -> None:
    r = _rounds(pages)[number - 1]
    if what == "signature" and "beacon" in r:
        sig = bytearray.fromhex(r["beacon"]["signature"])
        sig[k % len(sig)] ^= 1 << (k % 8)
        r["beacon"]["signature"] = sig.hex()
    elif what == "beacon_round":
        r["lock"]["beacon_round"] += 1 + k % 2
        if "beacon" in r:
            r["beacon"]["round"] = r["lock"]["beacon_round"]
    elif what == "locked_at":
        later = pf2proof.ms_of(r["lock"]["locked_at"]) + 1_000 * (1 + k % 9)
        text = dt.datetime.fromtimestamp(later / 1000, dt.UTC).isoformat(timespec="milliseconds")
        r["lock"]["locked_at"] = r["bets_locked_at"] = text.replace("+00:00", "Z")
    elif what == "book_root":
        root = bytearray.fromhex(r["lock"]["book_root"])
        root[k % 32] ^= 0x40
        r["lock"]["book_root"] = root.hex()
    elif what == "bet" and r["bets"]:
        r["bets"][k % len(r["bets"])]["amount"] += 100
    elif what == "card" and r.get("player"):
        r["player"][-1] = "AS" if r["player"][-1] != "AS" else "2S"
    elif what == "net" and r.get("settlement") and r["settlement"]["lines"]:
        r["settlement"]["lines"][k % len(r["settlement"]["lines"])]["net"] += 1
    elif what == "replaced" and isinstance(r.get("void"), dict) and r["void"]["replaced"]:
        r["void"]["replaced"]["house_take"] -= 1


WHAT = ("signature", "beacon_round", "locked_at", "book_root", "bet", "card", "net", "replaced")
changes = st.tuples(
    st.integers(1, len(_rounds(PAGES))), st.sampled_from((*WHAT, "nothing")), st.integers(0, 400)
)


def _first_round(reason: str) -> str:
    return reason.split(":")[0].split(",")[0]


@settings(max_examples=examples(0.01))
@given(batch=st.lists(changes, min_size=8, max_size=12))
def test_both_verifiers_agree_on_any_one_change_to_a_v2_proof(
    batch: list[tuple[int, str, int]],
) -> None:
    proofs, ours = [], []
    for number, what, k in batch:
        pages = copy.deepcopy(PAGES)
        _change(pages, number, what, k)
        proofs.append(pages)
        ours.append(verify(pages, require_signature=False, beacon_check=_check))
    out = subprocess.run(
        [str(NODE), "-e", RUNNER, str(ROOT / "web")],
        input=json.dumps(proofs),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    for (number, what, _), py, js in zip(batch, ours, json.loads(out.stdout), strict=True):
        assert py.ok is js["verified"], (number, what, py.line(), js["reason"])
        if not py.ok and py.mismatches:
            assert _first_round(str(py.mismatches[0])) == _first_round(js["reason"]), (
                number, what, str(py.mismatches[0]), js["reason"]
            )  # fmt: skip
