"""Verify a published shoe proof against bacc-pf-v1 alone.

A proof (the API's ``GET /v1/shoes/{shoe_id}/proof``) carries the table anchor, the shoe number,
the client seed and its hash, the rules, the revealed ``server_seed`` and every dealt round. This
module re-derives the shoe from those inputs and reports the first thing that does not match, in
plain words. Settlements carried by the proof are recomputed by :mod:`baccarat.settlement` from
what the proof carries with them: the table configuration (``table_config``, the
:meth:`~baccarat.profiles.TableConfig.to_dict` form), the round's bets and player-banker as
settled (``bets``, ``player_banker``) and the re-derived round (never the proof's own cards); see
:func:`check_settlement`. A round marked ``voided`` returned every stake and carries no
settlement."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import code, codes
from .fairness import SPEC, FairnessError, client_hash, derive_shoe, verify_link
from .rules import ShoeRules, UnsafeRulesError


@dataclass(frozen=True, slots=True)
class Mismatch:
    where: str
    field: str
    expected: Any
    found: Any

    def __str__(self) -> str:
        return f"{self.where}, {self.field}: expected {self.expected!r}, found {self.found!r}"


@dataclass(slots=True)
class Verdict:
    ok: bool
    summary: str
    mismatches: list[Mismatch] = field(default_factory=list)
    rounds_checked: int = 0
    settlements_checked: int = 0

    def line(self) -> str:
        if self.ok:
            return f"verified: {self.summary}"
        first = self.mismatches[0] if self.mismatches else None
        return f"NOT verified: {first if first else self.summary}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "verified": self.ok,
            "verdict": self.line(),
            "rounds_checked": self.rounds_checked,
            "settlements_checked": self.settlements_checked,
            "mismatches": [
                {"where": m.where, "field": m.field, "expected": m.expected, "found": m.found}
                for m in self.mismatches
            ],
        }


class ProofError(ValueError):
    """The proof is not readable as a bacc-pf-v1 proof (missing or malformed field)."""


def _get(proof: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in proof:
        raise ProofError(f"the proof has no {key!r}")
    value = proof[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ProofError(f"the proof's {key!r} has the wrong type")
    return value


def _hex32(proof: Mapping[str, Any], key: str) -> bytes:
    text = _get(proof, key, str)
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise ProofError(f"the proof's {key!r} is not hex") from None
    if len(raw) != 32:
        raise ProofError(f"the proof's {key!r} is not 32 bytes")
    return raw


def _hand_codes(value: Any) -> Any:
    """Round hands may be given as a list of codes or as ``{"cards": [...], ...}``."""
    if isinstance(value, Mapping):
        return value.get("cards")
    return value


def _hand_total(value: Any, fallback: Any) -> Any:
    if isinstance(value, Mapping) and "total" in value:
        return value["total"]
    return fallback


SettlementCheck = Callable[[Mapping[str, Any], Mapping[str, Any], Any], list[Mismatch]]

#: The settlement fields :func:`check_settlement` recomputes (``eligibility``, ``settled_at`` and
#: the ids are bookkeeping, not money, and are not compared).
SETTLEMENT_FIELDS = (
    "round_number",
    "profile",
    "tier",
    "banking",
    "rounding",
    "result",
    "lines",
    "bettors",
    "player_banker",
    "house",
    "nets",
)


def _first_difference(path: str, expected: Any, found: Any) -> tuple[str, Any, Any] | None:
    """The first leaf where ``found`` differs from ``expected`` (keys ``found`` has beyond
    ``expected`` are ignored, except in ``nets``, where every participant counts)."""
    if isinstance(expected, Mapping) and isinstance(found, Mapping):
        if path.endswith("nets") and set(expected) != set(found):
            return path, dict(expected), dict(found)
        for key, value in expected.items():
            sub = f"{path}.{key}"
            if key not in found:
                return sub, value, None
            hit = _first_difference(sub, value, found[key])
            if hit:
                return hit
        return None
    if isinstance(expected, list) and isinstance(found, list):
        for i, (e, f) in enumerate(zip(expected, found, strict=False)):
            hit = _first_difference(f"{path}[{i}]", e, f)
            if hit:
                return hit
        if len(expected) != len(found):
            return f"{path} (count)", len(expected), len(found)
        return None
    if expected != found or type(expected) is not type(found):
        return path, expected, found
    return None


def check_settlement(
    proof: Mapping[str, Any], round_json: Mapping[str, Any], round_: Any
) -> list[Mismatch]:
    """Recompute one round's settlement and compare it field by field (the first difference).

    The table is rebuilt with ``TableConfig.from_dict(proof["table_config"])``, the bets from the
    round's ``bets`` (API form, in accepted order) and ``player_banker``, and
    :func:`baccarat.settlement.settle` is run on ``round_`` — the round re-derived from the seed.
    """
    from .bets import PlayerBanker, bets_from_json
    from .profiles import TableConfig, TierError
    from .settlement import settle

    where = f"round {round_.number}"
    found = round_json.get("settlement")
    if not isinstance(found, Mapping):
        return [Mismatch(where, "settlement", "an object", found)]
    raw_config = proof.get("table_config")
    if not isinstance(raw_config, Mapping):
        return [
            Mismatch(where, "settlement", "the table configuration to recompute it (table_config)",
                     raw_config)
        ]  # fmt: skip
    try:
        config = TableConfig.from_dict(raw_config)
    except TierError as exc:
        return [Mismatch("shoe", "table_config", "a valid table configuration", str(exc))]
    raw_bets = round_json.get("bets") or []
    raw_pb = round_json.get("player_banker")
    try:
        bets = bets_from_json(raw_bets)
        pb = (
            None
            if raw_pb is None
            # its balance only served validation: a proof does not publish it
            else PlayerBanker(bettor_id=str(raw_pb["bettor_id"]), balance=raw_pb.get("balance", 0))
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return [Mismatch(where, "settlement bets", "bets in the API's bet format", raw_bets)]
    try:
        settled = settle(config, round_, bets, pb)
    except (ValueError, KeyError, TypeError, ArithmeticError) as exc:
        return [Mismatch(where, "settlement", "bets that can be settled", str(exc))]
    expected = {"round_number": round_.number, **settled.as_dict(), "nets": settled.nets()}
    for name in SETTLEMENT_FIELDS:
        if name not in found:
            return [Mismatch(where, f"settlement {name}", expected[name], None)]
        hit = _first_difference(f"settlement {name}", expected[name], found[name])
        if hit:
            return [Mismatch(where, hit[0], hit[1], hit[2])]
    return []


def verify_proof(
    proof: Mapping[str, Any], settlement_check: SettlementCheck | None = check_settlement
) -> Verdict:
    """Check everything a proof claims. ``settlement_check(proof, round_json, round)`` is called
    for each round carrying a settlement: by default :func:`check_settlement` recomputes it
    (``None`` checks the cards only)."""
    try:
        return _verify(proof, settlement_check)
    except (ProofError, FairnessError, UnsafeRulesError) as exc:
        return Verdict(ok=False, summary=f"unreadable proof: {exc}")


def _check_table_config(raw: Mapping[str, Any], rules: ShoeRules) -> list[Mismatch]:
    """The proof's table configuration must parse and be the one of the shoe's rules."""
    from .profiles import TableConfig, TierError

    try:
        config = TableConfig.from_dict(raw)
    except TierError as exc:
        return [Mismatch("shoe", "table_config", "a valid table configuration", str(exc))]
    if config.profile.shoe_rules != rules:
        return [
            Mismatch(
                "shoe",
                f"table_config profile {config.profile.name!r}",
                f"a profile dealing {rules.as_dict()}",
                config.profile.shoe_rules.as_dict(),
            )
        ]
    return []


def _verify(proof: Mapping[str, Any], settlement_check: SettlementCheck | None) -> Verdict:  # noqa: C901 (named in pyproject.toml)
    bad: list[Mismatch] = []
    spec = _get(proof, "spec", str)
    if spec != SPEC:
        return Verdict(ok=False, summary=f"unknown spec {spec!r}; this verifier knows {SPEC}")
    anchor = _hex32(proof, "anchor")
    secret = _hex32(proof, "server_seed")
    number = _get(proof, "shoe_number", int)
    seed = _get(proof, "client_seed", str)
    r = _get(proof, "rules", Mapping)
    try:
        rules = ShoeRules(
            int(r["decks"]),
            int(r["burn"]),
            int(r["cut_min"]),
            int(r["cut_max"]),
            int(r["round_limit"]),
        )
    except (KeyError, TypeError, ValueError):
        raise ProofError("the proof's 'rules' are incomplete") from None
    if not verify_link(secret, number, anchor):
        bad.append(
            Mismatch(
                "seed chain",
                "server_seed",
                f"a seed reaching the anchor in {number} steps",
                proof["server_seed"],
            )
        )
    c_hash = client_hash(seed).hex()
    if proof.get("client_hash", c_hash) != c_hash:
        bad.append(Mismatch("shoe", "client_hash", c_hash, proof.get("client_hash")))
    shoe = derive_shoe(secret, seed, number, rules)
    if "cut_index" in proof and proof["cut_index"] != shoe.cut_index:
        bad.append(Mismatch("shoe", "cut_index", shoe.cut_index, proof["cut_index"]))
    if "burn_exposed" in proof:
        exposed = None if shoe.burn_exposed is None else code(shoe.burn_exposed)
        if proof["burn_exposed"] != exposed:
            bad.append(Mismatch("shoe", "burn_exposed", exposed, proof["burn_exposed"]))
    rounds = _get(proof, "rounds", list)
    if len(rounds) > len(shoe.rounds):
        bad.append(Mismatch("shoe", "number of rounds", len(shoe.rounds), len(rounds)))
    closed_early = proof.get("end_reason") in ("closed", "closed_early")
    if not closed_early and len(rounds) < len(shoe.rounds):
        bad.append(
            Mismatch(
                "shoe",
                "number of rounds (the shoe ended by its rules)",
                len(shoe.rounds),
                len(rounds),
            )
        )
    raw_config = proof.get("table_config")
    if isinstance(raw_config, Mapping) and settlement_check is not None:
        bad.extend(_check_table_config(raw_config, rules))
    settled = voided = 0
    for i, (got, want) in enumerate(zip(rounds, shoe.rounds, strict=False), start=1):
        where = f"round {i}"
        if not isinstance(got, Mapping):
            raise ProofError(f"{where} is not an object")
        checks: list[tuple[str, Any, Any]] = [
            ("round_number", want.number, got.get("round_number", want.number)),
            ("start", want.start, got.get("start")),
            ("player cards", codes(want.player), _hand_codes(got.get("player"))),
            ("banker cards", codes(want.banker), _hand_codes(got.get("banker"))),
            (
                "player total",
                want.player_total,
                _hand_total(got.get("player"), got.get("player_total")),
            ),
            (
                "banker total",
                want.banker_total,
                _hand_total(got.get("banker"), got.get("banker_total")),
            ),
            ("result", want.result.value, got.get("result")),
        ]
        bad.extend(Mismatch(where, name, e, f) for name, e, f in checks if e != f)
        if got.get("voided") is True:
            voided += 1
            if got.get("settlement") is not None:
                bad.append(
                    Mismatch(where, "settlement", "none (the round was voided)", "a settlement")
                )
            void = got.get("void")
            nets = void.get("nets") if isinstance(void, Mapping) else None
            if isinstance(nets, Mapping):  # a void returns every stake: nobody wins or loses
                bad.extend(
                    Mismatch(where, f"void nets.{who}", 0, net)
                    for who, net in nets.items()
                    if net != 0
                )
        elif settlement_check is not None and got.get("settlement") is not None:
            bad.extend(settlement_check(proof, got, want))
            settled += 1
    n = min(len(rounds), len(shoe.rounds))
    summary = (
        f"{SPEC} shoe {number}: server seed reaches the anchor, client hash, "
        f"{n} round{'s' if n != 1 else ''} and {settled} settlement{'s' if settled != 1 else ''} "
        f"re-derived and matching"
        + (f", {voided} voided round{'s' if voided != 1 else ''}" if voided else "")
        + (" (shoe closed early)" if closed_early else "")
    )
    return Verdict(
        ok=not bad, summary=summary, mismatches=bad, rounds_checked=n, settlements_checked=settled
    )
