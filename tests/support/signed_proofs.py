"""Signed v2 proofs for tests, made with the core's own ``baccarat.proofdoc`` and the published
TEST ONLY key pair (``tests/vectors/TEST-ONLY-proof-signing-key.json``).

The service does not serve v2 proofs yet; until it does, tests turn what it serves today (a v1
proof, plus each round's deal time and bets from ``GET /v1/rounds/{id}``) into the pages it will
serve: :func:`private_from_api` then :func:`signed_pages` (``proofdoc.final_pages``: refs,
lifecycle marks, interventions, pages, signature)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from baccarat import proofdoc

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
KEY_FILE = VECTORS / "TEST-ONLY-proof-signing-key.json"
#: The ref key of every test table (a table's real one is 32 random bytes, KMS-sealed).
TEST_REF_KEY = hashlib.sha256(b"bacc-ref-v1 example ref key - never use in production").digest()
SIGNED_AT = "2025-06-01T13:00:00.000Z"


_KEY_DOC: dict[str, Any] = json.loads(KEY_FILE.read_text(encoding="utf-8"))
#: The TEST ONLY public key, as ``GET /v1/signing-keys`` lists a key.
TEST_PUBLIC_JWK: dict[str, Any] = _KEY_DOC["public_jwk"]
TEST_KEY_ID: str = TEST_PUBLIC_JWK["kid"]
#: The JWK set ``GET /v1/signing-keys`` would serve for it.
TEST_KEYS: dict[str, Any] = {"keys": [TEST_PUBLIC_JWK]}


def sign_with_test_key(message: bytes) -> bytes:
    """ES256 over ``message`` with the TEST ONLY private key: ``r ‖ s`` (64 bytes), converted
    from the DER ``cryptography`` returns by ``proofdoc.raw_signature``, as KMS's will be."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    d = int.from_bytes(proofdoc.b64url_decode(_KEY_DOC["private_jwk"]["d"]), "big")
    key = ec.derive_private_key(d, ec.SECP256R1())
    return proofdoc.raw_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))


def signed_pages(
    private: Mapping[str, Any],
    *,
    budget: int = proofdoc.PAGE_BUDGET,
    signer: Callable[[bytes], bytes] = sign_with_test_key,
    signed_at: str = SIGNED_AT,
) -> list[dict[str, Any]]:
    """The private final proof → its signed public pages (the test key and ref key)."""
    return proofdoc.final_pages(
        private,
        ref_key=TEST_REF_KEY,
        signer=signer,
        key_id=TEST_KEY_ID,
        signed_at=signed_at,
        budget=budget,
    )


def resign(pages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Pages edited after signing, signed again: what a dishonest signer could publish."""
    return proofdoc.sign(pages, sign_with_test_key, TEST_KEY_ID, SIGNED_AT)


def private_from_api(
    proof: Mapping[str, Any], rounds: Mapping[int, Mapping[str, Any]]
) -> dict[str, Any]:
    """Today's public proof (v1) plus each round's operator view (``GET /v1/rounds/{id}``: its
    ``dealt_at``, bets and player-banker) → the private final proof ``public_proof`` reads."""
    out = dict(proof)
    out["rounds"] = []
    for r in proof["rounds"]:
        record = rounds[r["round_number"]]
        row = {**r, "dealt_at": record["dealt_at"], "bets": record["bets"]}
        row["player_banker"] = record["player_banker"]
        if r.get("voided"):
            row["settlement"] = None
        out["rounds"].append(row)
    return out


def sign_keeping(
    pages: Sequence[Mapping[str, Any]], previous: Sequence[Mapping[str, Any]] | None
) -> list[dict[str, Any]]:
    """``pages`` signed with the TEST ONLY key at :data:`SIGNED_AT` — with the ``previous``
    pages' signature when their manifest is the same (ECDSA is randomised: a vector script run
    again then changes nothing)."""
    manifest = proofdoc.manifest(pages, TEST_KEY_ID, SIGNED_AT)
    kept = previous[0]["signature"] if previous else None
    signer: Callable[[bytes], bytes] = sign_with_test_key
    if kept and kept["manifest"] == manifest:

        def signer(_: bytes) -> bytes:
            return proofdoc.b64url_decode(kept["value"])

    return proofdoc.sign(pages, signer, TEST_KEY_ID, SIGNED_AT)
