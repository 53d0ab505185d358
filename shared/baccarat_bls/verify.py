"""``e(signature, g2) == e(H(message(round)), public_key)``, with every encoding checked: the
signature a canonical compressed G1 point in the prime-order subgroup and not the identity, the
public key likewise on G2. Canonical matters beyond validity: a round's randomness is SHA-256 of
the signature's *bytes*, so a second encoding of the same point must not pass."""

from __future__ import annotations

from functools import lru_cache

import py_arkworks_bls12381 as ark

from baccarat.beacon import (
    DST,
    PUBLIC_KEY_BYTES,
    SCHEME,
    SIGNATURE_BYTES,
    Beacon,
    BeaconError,
    Chain,
    message,
)

_G2_NEG = -ark.G2Point()
_ONE = ark.GT.one()


def verify_beacon(chain: Chain, beacon: Beacon) -> bool:
    """Whether ``beacon`` is a round of ``chain``: its chain hash and test flag are the chain's
    and its signature verifies under the chain's public key. Never raises on bad input."""
    if beacon.chain_hash != chain.chain_hash or beacon.is_test != chain.is_test:
        return False
    if chain.scheme != SCHEME:
        return False
    return verify_signature(chain.public_key, beacon.round, beacon.signature)


def verify_signature(public_key: bytes, round_: int, signature: bytes) -> bool:
    """Whether ``signature`` is the BLS signature of round ``round_`` under ``public_key``."""
    try:
        msg = message(round_)
        key = _public_key(bytes(public_key))
        sig = _point(signature)
    except (BeaconError, ValueError, TypeError):  # BeaconError is a ValueError; said for clarity
        return False
    hashed = ark.G1Point.hash_to_curve(msg, DST)
    return bool(ark.GT.multi_pairing([sig, hashed], [_G2_NEG, key]) == _ONE)


@lru_cache(maxsize=8)
def _public_key(raw: bytes) -> ark.G2Point:
    if len(raw) != PUBLIC_KEY_BYTES:
        raise BeaconError("public key length")
    key = ark.G2Point.from_compressed_bytes(raw)  # on the curve, in the subgroup
    if key == ark.G2Point.identity() or bytes(key.to_compressed_bytes()) != raw:
        raise BeaconError("public key: the identity or not canonical")
    return key


def _point(raw: bytes) -> ark.G1Point:
    if len(raw) != SIGNATURE_BYTES:
        raise BeaconError("signature length")
    point = ark.G1Point.from_compressed_bytes(bytes(raw))  # on the curve, in the subgroup
    if point == ark.G1Point.identity() or bytes(point.to_compressed_bytes()) != raw:
        raise BeaconError("signature: the identity or not canonical")
    return point
