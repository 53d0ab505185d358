"""What a proof verification finds: each :class:`Mismatch` and the :class:`Verdict`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .beacon import Beacon, Chain
from .interventions import interventions_text


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One thing that does not match; ``message`` (when set) words it in place of the default
    ``where, field: expected …, found …``."""

    where: str
    field: str
    expected: Any
    found: Any
    message: str | None = None

    def __str__(self) -> str:
        if self.message:
            return self.message
        return f"{self.where}, {self.field}: expected {self.expected!r}, found {self.found!r}"


@dataclass(slots=True)
class Verdict:
    """Whether a proof verified, in one line, with every mismatch found."""

    ok: bool
    summary: str
    mismatches: list[Mismatch] = field(default_factory=list)
    rounds_checked: int = 0
    settlements_checked: int = 0
    #: How the signature was checked (v2), e.g. ``signed by key … (ES256, 2 pages)``; None: none.
    signature: str | None = None
    #: The interventions as re-derived from the rounds and the seed (v2 proofs).
    interventions: dict[str, Any] | None = None
    #: What the proof is of, as signed (v2): its table and shoe, and whether that is the shoe
    #: asked for, e.g. ``table tbl_…, shoe tbl_…_s2 (the shoe asked for)``; None: unreadable.
    subject: str | None = None
    #: The beacon a bacc-pf-v2 proof's rounds waited for: "drand quicknet" or "test beacon".
    beacon: str | None = None
    #: The interventions in words when they are not v1's (bacc-pf-v2: the beacon voids apart).
    interventions_words: str | None = None

    def line(self) -> str:
        about = f"; {self.subject}" if self.subject else ""
        if self.ok:
            return f"verified: {self.summary}{about}"
        first = self.mismatches[0] if self.mismatches else None
        return f"NOT verified: {first if first else self.summary}{about}"

    def interventions_line(self) -> str | None:
        """``interventions: <the one line>`` (v2 proofs), or None."""
        if self.interventions is None:
            return None
        if self.interventions_words is not None:
            return f"interventions: {self.interventions_words}"
        return f"interventions: {interventions_text(self.interventions)}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "verified": self.ok,
            "verdict": self.line(),
            "rounds_checked": self.rounds_checked,
            "settlements_checked": self.settlements_checked,
            "signature": self.signature,
            "interventions": self.interventions,
            "interventions_line": self.interventions_line(),
            "subject": self.subject,
            **({"beacon": self.beacon} if self.beacon else {}),
            "mismatches": [
                {"where": m.where, "field": m.field, "expected": m.expected, "found": m.found}
                | ({"message": m.message} if m.message else {})
                for m in self.mismatches
            ],
        }


class ProofError(ValueError):
    """The proof is not readable as a bacc-pf-v1 proof (missing or malformed field)."""


#: ``signature_check(public_jwk, message, r_s) -> bool``: does the 64-byte ES256 signature
#: ``r ‖ s`` verify over ``message`` with the P-256 public key ``public_jwk``? (The core has no
#: ECDSA: the caller brings one, e.g. ``baccarat_verify.es256.check``.)
SignatureCheck = Callable[[Mapping[str, Any], bytes, bytes], bool]

UNSIGNED = Mismatch(
    "proof",
    "signature",
    "a signature",
    None,
    "unsigned proof: it carries no signature, so nothing shows who published it or that it is "
    "unchanged (an old v1 proof's cards and money can still be checked with --allow-unsigned)",
)


#: ``beacon_check(chain, beacon) -> bool``: does a beacon's BLS signature verify under its
#: chain's key (``baccarat_bls.verify_beacon``; the core has no pairing)?
BeaconCheck = Callable[[Chain, Beacon], bool]

#: ``settlement_check(proof, round_json, round) -> mismatches``: what checks a settled round.
SettlementCheck = Callable[[Mapping[str, Any], Mapping[str, Any], Any], list[Mismatch]]
