"""A proof's bytes: the domain a proof's JSON may hold, its canonical form and SHA-256,
base64url, and the ES256 key and signature formats (JWK, thumbprint, DER → ``r ‖ s``). Standard
library only; the format of ``docs/bacc-pf-v1.md``."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator, Mapping
from typing import Any

from .audit import canonical

#: The only signature algorithm: ECDSA on P-256 with SHA-256, ``r ‖ s`` (IEEE P1363).
ALG = "ES256"
#: Integers a proof may hold (JavaScript reads them exactly).
MAX_SAFE_INTEGER = 2**53 - 1


class ProofFormatError(ValueError):
    """Input this format cannot hold (a float, an unresolved round, an unknown void reason …)."""


# --- canonical bytes and hashes ------------------------------------------------------------------


def _walk(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    yield where, value
    if isinstance(value, Mapping):
        for key, sub in value.items():
            yield from _walk(sub, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for i, sub in enumerate(value):
            yield from _walk(sub, f"{where}[{i}]")


def check_domain(doc: Any) -> None:
    """A proof holds objects with string keys, lists, strings, integers within ±(2^53 − 1),
    ``true``, ``false`` and ``null`` — nothing else (no floats). Raises :class:`ProofFormatError`
    naming the first value outside that domain."""
    stack = [doc]
    pop, extend = stack.pop, stack.extend
    while stack:  # the fast pass (a 7 MB proof in a fraction of a second) …
        value = pop()
        kind = type(value)
        if kind is str or kind is bool or value is None:
            continue
        if kind is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            continue
        if kind is dict and all(type(k) is str for k in value):
            extend(value.values())
            continue
        if kind is list or kind is tuple:
            extend(value)
            continue
        if isinstance(value, str | bool) or (  # subclasses and other mappings, the slow way
            isinstance(value, int) and abs(value) <= MAX_SAFE_INTEGER
        ):
            continue
        if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
            extend(value.values())
            continue
        if isinstance(value, list | tuple):
            extend(value)
            continue
        _explain(doc)  # … and the slow one, only to say where
        raise ProofFormatError(f"a proof holds no {kind.__name__} values")  # pragma: no cover


def _explain(doc: Any) -> None:
    for where, value in _walk(doc, "proof"):
        if isinstance(value, Mapping):
            bad = [k for k in value if not isinstance(k, str)]
            if bad:
                raise ProofFormatError(f"{where}: object keys are strings, found {bad[0]!r}")
        elif isinstance(value, bool) or value is None or isinstance(value, str | list | tuple):
            continue
        elif isinstance(value, int):
            if abs(value) > MAX_SAFE_INTEGER:
                raise ProofFormatError(f"{where}: {value} is beyond ±(2^53 − 1)")
        else:
            raise ProofFormatError(f"{where}: a proof holds no {type(value).__name__} values")


def proof_bytes(doc: Any) -> bytes:
    """``canonical(doc)`` (bacc-audit-v1's canonical form) after :func:`check_domain`."""
    check_domain(doc)
    try:
        return canonical(doc)
    except UnicodeEncodeError:  # a lone surrogate
        raise ProofFormatError("a proof's strings are valid Unicode") from None


def unsigned_page(page: Mapping[str, Any]) -> dict[str, Any]:
    """The page without its ``signature`` member: what its hash covers."""
    return {k: v for k, v in page.items() if k != "signature"}


def page_hash(page: Mapping[str, Any]) -> str:
    """SHA-256 (lowercase hex) of ``canonical(page without "signature")``."""
    return hashlib.sha256(proof_bytes(unsigned_page(page))).hexdigest()


def b64url(raw: bytes) -> str:
    """base64url without padding (RFC 4648 §5)."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """The inverse of :func:`b64url`; raises ``ValueError`` on anything else (padding, ``+``,
    ``/``, whitespace, a non-canonical last character)."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        raise ValueError("not base64url without padding")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url(raw) != text:
        raise ValueError("not the canonical base64url of its bytes")
    return raw


# --- keys ----------------------------------------------------------------------------------------

#: DER SubjectPublicKeyInfo of a P-256 key, up to the 65-byte uncompressed point (0x04 ‖ x ‖ y).
_P256_SPKI_PREFIX = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200")


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 thumbprint of an EC public key: base64url(SHA-256(``{"crv","kty","x","y"}`` in
    that order, no whitespace)) — the ``key_id``."""
    members = {k: jwk[k] for k in ("crv", "kty", "x", "y")}
    if not all(isinstance(v, str) for v in members.values()):
        raise ProofFormatError("a JWK's crv, kty, x and y are strings")
    return b64url(hashlib.sha256(canonical(members)).digest())


def public_jwk(x: bytes, y: bytes) -> dict[str, str]:
    """The ``GET /v1/signing-keys`` entry of the P-256 public key ``(x, y)``."""
    if len(x) != 32 or len(y) != 32:
        raise ProofFormatError("P-256 coordinates are 32 bytes each")
    jwk = {"kty": "EC", "crv": "P-256", "x": b64url(x), "y": b64url(y)}
    return {**jwk, "kid": jwk_thumbprint(jwk), "alg": ALG, "use": "sig"}


def jwk_from_spki(der: bytes) -> dict[str, str]:
    """:func:`public_jwk` of a DER SubjectPublicKeyInfo (what KMS ``GetPublicKey`` returns)."""
    if len(der) != len(_P256_SPKI_PREFIX) + 65 or not der.startswith(_P256_SPKI_PREFIX + b"\x04"):
        raise ProofFormatError("not an uncompressed P-256 SubjectPublicKeyInfo")
    point = der[len(_P256_SPKI_PREFIX) + 1 :]
    return public_jwk(point[:32], point[32:])


def raw_signature(der: bytes) -> bytes:
    """A DER ``ECDSA-Sig-Value`` (``SEQUENCE {INTEGER r, INTEGER s}``, what KMS ``Sign`` returns)
    → the 64-byte ``r ‖ s`` of ES256."""

    def integer(at: int) -> tuple[int, int]:
        if der[at] != 0x02 or der[at + 1] > 33:
            raise ProofFormatError("not a DER ECDSA signature")
        n = der[at + 1]
        return int.from_bytes(der[at + 2 : at + 2 + n], "big"), at + 2 + n

    try:
        if der[0] != 0x30 or der[1] != len(der) - 2:
            raise ProofFormatError("not a DER ECDSA signature")
        r, at = integer(2)
        s, end = integer(at)
    except IndexError:
        raise ProofFormatError("not a DER ECDSA signature") from None
    if end != len(der) or r >= 1 << 256 or s >= 1 << 256:
        raise ProofFormatError("not a DER ECDSA signature over P-256")
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")
