"""The public randomness beacon a ``bacc-pf-v2`` round's cards wait for: drand ``quicknet`` (the
League of Entropy) or, on ``make run`` and in tests, a local **test beacon** of the same kind.

A beacon chain publishes, every period, a round: a number and a BLS signature of that number
(``bls-unchained-g1-rfc9380``: the signature is a compressed G1 point, 48 bytes; the chain's
public key a compressed G2 point, 96 bytes; the signed message is :func:`message` — SHA-256 of the
round as 8 bytes big-endian — hashed to G1 with :data:`DST`). Nobody can know a round's signature
before a threshold of the chain's operators make it, and there is one valid signature per round,
so a value fixed by a round that does not exist yet is unknowable and ungrindable.

Here, stdlib only: the chains as data, round ↔ time, the beacon round of a lock, the record
(:class:`Beacon`) and the parsing of drand's JSON. The BLS check itself needs a pairing library:
it is :func:`baccarat_bls.verify_beacon`, used by the service's adapters and by ``baccarat verify``.

Times are integer milliseconds since the Unix epoch. Round 1 is at the chain's genesis; round
``r`` at ``genesis + (r - 1) × period`` (drand's ``TimeOfRound``); a moment belongs to the last
round at or before it (drand's ``CurrentRound``); before genesis there is no round (0).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SCHEME = "bls-unchained-g1-rfc9380"
#: RFC 9380 hash-to-G1 domain separation tag of the scheme (drand's, for ``quicknet``).
DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
SIGNATURE_BYTES = 48
PUBLIC_KEY_BYTES = 96
ROUND_MAX = 2**64 - 1

#: The beacon round of a lock is the first round whose time is at least this long after the lock.
#: One quicknet period (3 s): the lock record must reach watchers before that round exists — the
#: lock's transaction commits it (tens of milliseconds), then the push message and the feed (from
#: the table's stream: typically under a second, more under load) carry it — and the margin also
#: covers the clocks' disagreement (ours and drand's nodes' NTP-synced: far under a second) and a
#: relay serving a round a little early. 1 s would be the floor; 3 s leaves the stream room. The
#: wait is 3 to 6 s per round (4.5 s on average; ``make bench``'s "beacon" measures it).
BEACON_MARGIN_MS = 3_000
#: A locked round whose beacon round is not verified this long after its lock is voided
#: ``beacon_unavailable`` — never sooner: the verifiers refuse a beacon void dated before its
#: lock plus this wait (10 quicknet rounds: a relay failover and a short outage).
BEACON_WAIT_MS = 30_000

_HEX = re.compile(r"\A[0-9a-f]*\Z")


class BeaconError(ValueError):
    """A chain description or a beacon document that is not well formed (not: not verified)."""


def _check_hex(value: object, size: int, what: str) -> bytes:
    if not isinstance(value, str) or len(value) != 2 * size or not _HEX.match(value):
        raise BeaconError(f"{what}: {size} bytes of lower-case hex")
    return bytes.fromhex(value)


@dataclass(frozen=True, slots=True)
class Chain:
    """A beacon chain: what a verifier pins. ``is_test`` is a local test beacon, never drand."""

    name: str
    chain_hash: str
    public_key: bytes
    genesis_ms: int
    period_ms: int
    is_test: bool
    scheme: str = SCHEME

    def __post_init__(self) -> None:
        if len(self.public_key) != PUBLIC_KEY_BYTES:
            raise BeaconError(f"a public key is {PUBLIC_KEY_BYTES} bytes")
        if self.period_ms <= 0 or self.genesis_ms < 0:
            raise BeaconError("a chain's period is positive and its genesis not before 1970")
        _check_hex(self.chain_hash, 32, "chain hash")


#: drand ``quicknet``: https://api.drand.sh/52db9ba7…/info (the League of Entropy's relays).
QUICKNET = Chain(
    name="quicknet",
    chain_hash="52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    public_key=bytes.fromhex(
        "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c"
        "8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb"
        "5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"
    ),
    genesis_ms=1_692_803_367_000,
    period_ms=3_000,
    is_test=False,
)

#: drand's public relays of ``quicknet``, tried in this order.
QUICKNET_RELAYS = (
    "https://api.drand.sh",
    "https://api2.drand.sh",
    "https://api3.drand.sh",
    "https://drand.cloudflare.com",
)

_TEST_HASH_TAG = b"bacc-test-beacon-v1"


def label(chain: Chain) -> str:
    """How a verifier names a chain: "drand quicknet" only for quicknet itself (its hash, its
    key, not flagged a test), "test beacon" for anything else."""
    return "drand quicknet" if chain == QUICKNET else "test beacon"


def local_chain(public_key: bytes, genesis_ms: int, period_ms: int) -> Chain:
    """A local test beacon's chain. Its hash is SHA-256 of ``bacc-test-beacon-v1`` ‖ the public
    key ‖ genesis (ms, 8 bytes big-endian) ‖ period (ms, 8 bytes): its own, never quicknet's."""
    digest = hashlib.sha256(
        _TEST_HASH_TAG + public_key + genesis_ms.to_bytes(8, "big") + period_ms.to_bytes(8, "big")
    ).hexdigest()
    return Chain("test", digest, public_key, genesis_ms, period_ms, is_test=True)


# -------------------------------------------------------------------------------------------------
# Round and time


def round_time(chain: Chain, round_: int) -> int:
    """The moment (ms) round ``round_`` (≥ 1) is due."""
    if round_ < 1:
        raise BeaconError("rounds are numbered from 1")
    return chain.genesis_ms + (round_ - 1) * chain.period_ms


def round_at(chain: Chain, t_ms: int) -> int:
    """The round current at ``t_ms``: the last one due at or before it (0 before genesis)."""
    if t_ms < chain.genesis_ms:
        return 0
    return (t_ms - chain.genesis_ms) // chain.period_ms + 1


def first_round_at_or_after(chain: Chain, t_ms: int) -> int:
    """The first round due at or after ``t_ms``."""
    if t_ms <= chain.genesis_ms:
        return 1
    return -(-(t_ms - chain.genesis_ms) // chain.period_ms) + 1


def lock_round(chain: Chain, lock_ms: int, margin_ms: int = BEACON_MARGIN_MS) -> int:
    """The beacon round of a lock at ``lock_ms``: the first round due at or after the lock time
    plus the margin (:data:`BEACON_MARGIN_MS`)."""
    return first_round_at_or_after(chain, lock_ms + margin_ms)


def lock_before_round(chain: Chain, lock_ms: int, round_: int) -> bool:
    """Whether a lock at ``lock_ms`` is before ``round_`` was due (a verifier's order check)."""
    return lock_ms < round_time(chain, round_)


# -------------------------------------------------------------------------------------------------
# The signed message and the beacon


def message(round_: int) -> bytes:
    """What the chain signs for a round: SHA-256 of the round, 8 bytes big-endian."""
    if not 0 <= round_ <= ROUND_MAX:
        raise BeaconError("a round is an unsigned 64-bit integer")
    return hashlib.sha256(round_.to_bytes(8, "big")).digest()


def randomness(signature: bytes) -> bytes:
    """A round's randomness: SHA-256 of its signature (drand's definition)."""
    return hashlib.sha256(signature).digest()


@dataclass(frozen=True, slots=True)
class Beacon:
    """One round of a chain, as published (verified or not: :func:`baccarat_bls.verify_beacon`)."""

    chain_hash: str
    round: int
    signature: bytes
    is_test: bool

    @property
    def randomness(self) -> bytes:
        return randomness(self.signature)

    def to_json(self) -> dict[str, Any]:
        """drand's ``/public/{round}`` answer for it."""
        return {
            "round": self.round,
            "randomness": self.randomness.hex(),
            "signature": self.signature.hex(),
        }


def beacon_from_json(chain: Chain, doc: Mapping[str, Any]) -> Beacon:
    """A ``/public/{round}`` answer of ``chain`` as a :class:`Beacon`; refuses a malformed one
    (a round not a positive integer, a signature not 48 bytes of lower-case hex, a randomness
    given that is not SHA-256 of the signature). The signature is *not* verified here."""
    round_ = doc.get("round")
    if type(round_) is not int or not 1 <= round_ <= ROUND_MAX:
        raise BeaconError("round: a positive 64-bit integer")
    signature = _check_hex(doc.get("signature"), SIGNATURE_BYTES, "signature")
    given = doc.get("randomness")
    if given is not None and given != randomness(signature).hex():
        raise BeaconError("randomness: not SHA-256 of the signature")
    return Beacon(chain.chain_hash, round_, signature, chain.is_test)


def chain_info_json(chain: Chain) -> dict[str, Any]:
    """drand's ``/info`` answer for ``chain`` (period and genesis in seconds, as drand writes
    them; a test beacon's sub-second period adds ``period_ms``)."""
    info: dict[str, Any] = {
        "public_key": chain.public_key.hex(),
        "period": chain.period_ms // 1000,
        "genesis_time": chain.genesis_ms // 1000,
        "hash": chain.chain_hash,
        "schemeID": chain.scheme,
        "metadata": {"beaconID": chain.name},
    }
    if chain.is_test:
        info |= {"period_ms": chain.period_ms, "genesis_ms": chain.genesis_ms}
    return info


def chain_from_info(info: Mapping[str, Any]) -> Chain:
    """The chain a ``/info`` answer describes: quicknet when its hash is quicknet's and it says
    exactly quicknet's parameters, else a test beacon whose hash must be its own
    (:func:`local_chain`); anything else is refused. Never trusts a claimed hash."""
    key = _check_hex(info.get("public_key"), PUBLIC_KEY_BYTES, "public_key")
    if info.get("schemeID") != SCHEME:
        raise BeaconError(f"schemeID: only {SCHEME}")
    if info.get("hash") == QUICKNET.chain_hash:
        if info_is_quicknets(info, key):
            return QUICKNET
        raise BeaconError("quicknet's hash with other parameters")
    genesis, period = info.get("genesis_ms"), info.get("period_ms")
    if type(genesis) is not int or type(period) is not int:
        raise BeaconError("a test beacon's info gives genesis_ms and period_ms")
    chain = local_chain(key, genesis, period)
    if info.get("hash") != chain.chain_hash:
        raise BeaconError("hash: not the test beacon's own")
    return chain


def info_is_quicknets(info: Mapping[str, Any], key: bytes) -> bool:
    """Whether an ``/info`` answer states quicknet's key, genesis and period."""
    return (
        key == QUICKNET.public_key
        and info.get("genesis_time") == QUICKNET.genesis_ms // 1000
        and info.get("period") == QUICKNET.period_ms // 1000
    )
