"""The steps every proof verification takes, whatever its fairness spec: the proof's fields
read and typed, the seeds it states checked (the server seed reaches the anchor, the client
hash), a round's cards compared with the re-derived round. :mod:`baccarat.verify` (v1) and
:mod:`baccarat.pf2verify` (bacc-pf-v2) both walk them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import codes
from .fairness import client_hash, verify_link
from .rules import ShoeRules
from .verdict import Mismatch, ProofError


def field_of(proof: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in proof:
        raise ProofError(f"the proof has no {key!r}")
    value = proof[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ProofError(f"the proof's {key!r} has the wrong type")
    return value


def hex32(proof: Mapping[str, Any], key: str) -> bytes:
    text = field_of(proof, key, str)
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise ProofError(f"the proof's {key!r} is not hex") from None
    if len(raw) != 32:
        raise ProofError(f"the proof's {key!r} is not 32 bytes")
    return raw


def hand_codes(value: Any) -> Any:
    """Round hands may be given as a list of codes or as ``{"cards": [...], ...}``."""
    if isinstance(value, Mapping):
        return value.get("cards")
    return value


def hand_total(value: Any, fallback: Any) -> Any:
    if isinstance(value, Mapping) and "total" in value:
        return value["total"]
    return fallback


@dataclass(frozen=True, slots=True)
class Seeds:
    """What the shoe is derived from, as the proof states it."""

    anchor: bytes
    secret: bytes
    number: int
    client_seed: str
    rules: ShoeRules


def seeds_of(proof: Mapping[str, Any]) -> Seeds:
    anchor, secret = hex32(proof, "anchor"), hex32(proof, "server_seed")
    number, seed = field_of(proof, "shoe_number", int), field_of(proof, "client_seed", str)
    try:
        rules = ShoeRules.from_dict(field_of(proof, "rules", Mapping))
    except (KeyError, TypeError):
        raise ProofError("the proof's 'rules' are incomplete") from None
    return Seeds(anchor, secret, number, seed, rules)


def seed_mismatches(proof: Mapping[str, Any], s: Seeds) -> list[Mismatch]:
    """The server seed reaches the anchor; the client hash is the client seed's."""
    bad: list[Mismatch] = []
    if not verify_link(s.secret, s.number, s.anchor):
        want = f"a seed reaching the anchor in {s.number} steps"
        bad.append(Mismatch("seed chain", "server_seed", want, proof["server_seed"]))
    c_hash = client_hash(s.client_seed).hex()
    if proof.get("client_hash", c_hash) != c_hash:
        bad.append(Mismatch("shoe", "client_hash", c_hash, proof.get("client_hash")))
    return bad


def card_mismatches(where: str, got: Mapping[str, Any], want: Any) -> list[Mismatch]:
    """One round's number, start, cards, totals and result against the re-derived round."""
    player_total = hand_total(got.get("player"), got.get("player_total"))
    banker_total = hand_total(got.get("banker"), got.get("banker_total"))
    checks: list[tuple[str, Any, Any]] = [
        ("round_number", want.number, got.get("round_number", want.number)),
        ("start", want.start, got.get("start")),
        ("player cards", codes(want.player), hand_codes(got.get("player"))),
        ("banker cards", codes(want.banker), hand_codes(got.get("banker"))),
        ("player total", want.player_total, player_total),
        ("banker total", want.banker_total, banker_total),
        ("result", want.result.value, got.get("result")),
    ]
    return [Mismatch(where, name, e, f) for name, e, f in checks if e != f]


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
