"""ES256 (ECDSA on P-256 with SHA-256) verification with ``cryptography``, in the shape
:data:`baccarat.verify.SignatureCheck` wants: ``check(public_jwk, message, r_s) -> bool``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baccarat.cli import CliError
from baccarat.proofdoc import b64url_decode


def check(jwk: Mapping[str, Any], message: bytes, signature: bytes) -> bool:
    """Does ``signature`` (64 bytes, ``r ‖ s``) verify over ``message`` with the P-256 public key
    ``jwk`` (``{"kty": "EC", "crv": "P-256", "x", "y"}``)? A key that is not a P-256 point never
    verifies anything."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    except ImportError:
        raise CliError(
            "checking the proof's ES256 signature needs the 'cryptography' package: "
            "pip install 'baccarat-engine[verify]'"
        ) from None
    if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256" or len(signature) != 64:
        return False
    try:
        x, y = (b64url_decode(jwk[c]) for c in ("x", "y"))
        if len(x) != 32 or len(y) != 32:
            return False
        key = ec.EllipticCurvePublicNumbers(
            int.from_bytes(x, "big"), int.from_bytes(y, "big"), ec.SECP256R1()
        ).public_key()
    except (KeyError, TypeError, ValueError):  # not base64url, or not a point on the curve
        return False
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    try:
        key.verify(encode_dss_signature(r, s), message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True
