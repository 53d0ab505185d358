"""The committed proof vectors (``tests/vectors/proof_v2.json``, ``proof_v2_sample.json``) are
what the core computes today, and the sample's signature verifies with the TEST ONLY public key.
The JavaScript verifier checks the same files independently (web/test/proof_v2.test.js)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import make_proof_vectors

from baccarat import proofdoc
from baccarat.verify import verify
from baccarat_verify import es256

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


V = _load("proof_v2.json")
SAMPLE = _load("proof_v2_sample.json")


def test_the_committed_vectors_are_what_the_core_computes() -> None:
    vectors, sample = make_proof_vectors.build()
    assert vectors == V, "stale: run .venv/bin/python tests/make_proof_vectors.py"
    assert sample == SAMPLE, "stale: run .venv/bin/python tests/make_proof_vectors.py"


def test_canonical_vector_written_by_hand() -> None:
    c = V["canonical"]
    out = proofdoc.proof_bytes(c["input"])
    assert out.decode("utf-8") == c["canonical"]
    assert len(out) == c["bytes"] and hashlib.sha256(out).hexdigest() == c["sha256"]
    # the astral key sorts after U+FFFD (code points), not before it (UTF-16 code units)
    text = c["canonical"]
    assert text.index('"\ufffd":') < text.index('"😀":')


def test_signature_vector_verifies() -> None:
    s = V["signature"]
    jwk = s["public_jwk"]
    assert proofdoc.b64url(hashlib.sha256(s["thumbprint_input"].encode()).digest()) == s["key_id"]
    assert proofdoc.jwk_thumbprint(jwk) == s["key_id"] == jwk["kid"]
    message = s["manifest_canonical"].encode("utf-8")
    assert proofdoc.proof_bytes(s["manifest"]) == message
    assert es256.check(jwk, message, proofdoc.b64url_decode(s["value"]))
    assert not es256.check(
        jwk, message.replace(b"13:00", b"13:01"), proofdoc.b64url_decode(s["value"])
    )
    pages = SAMPLE["pages"]
    assert [proofdoc.page_hash(p) for p in pages] == s["page_sha256"] == s["manifest"]["pages"]
    verdict = verify(pages, keys={"keys": [jwk]}, signature_check=es256.check)
    assert verdict.ok, verdict.line()


def test_page_split_vector() -> None:
    split = V["page_split"]
    pages = SAMPLE["pages"]
    header = proofdoc.header_of(pages[0])
    rounds = [r for p in pages for r in p["rounds"]]
    assert len(proofdoc.proof_bytes({**header, "rounds": []})) == split["header_bytes"]
    assert [len(proofdoc.proof_bytes(r)) for r in rounds] == split["round_bytes"]
    groups = proofdoc.split(header, rounds, split["budget"])
    assert [[r["round_number"] for r in g] for g in groups] == split["pages"]
    # the rule, by hand: a page takes rounds while header + rounds + commas stay within budget
    by_hand, size = [[]], split["header_bytes"]
    for number, n in enumerate(split["round_bytes"], start=1):
        grow = n + (1 if by_hand[-1] else 0)
        if by_hand[-1] and size + grow > split["budget"]:
            by_hand.append([])
            size, grow = split["header_bytes"], n
        by_hand[-1].append(number)
        size += grow
    assert by_hand == split["pages"]


def test_bettor_ref_and_der_and_text_vectors() -> None:
    key = bytes.fromhex(V["bettor_refs"]["ref_key"])
    assert key == hashlib.sha256(b"bacc-ref-v1 example ref key - never use in production").digest()
    for case in V["bettor_refs"]["cases"]:
        assert proofdoc.bettor_ref(key, case["table_id"], case["bettor_id"]) == case["bettor_ref"]
    for case in V["raw_signature"]:
        assert proofdoc.raw_signature(bytes.fromhex(case["der"])).hex() == case["r_s"]
    for case in V["interventions_text"]:
        assert proofdoc.interventions_text(case["interventions"]) == case["text"]


def test_the_sample_is_the_private_proof_made_public() -> None:
    s = V["sample"]
    public = proofdoc.public_proof(s["private_proof"], bytes.fromhex(s["ref_key"]))
    pages = proofdoc.paginate(public, s["budget"])
    assert [proofdoc.unsigned_page(p) for p in SAMPLE["pages"]] == pages
