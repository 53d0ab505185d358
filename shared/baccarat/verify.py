"""Verify a published shoe proof against bacc-pf-v1 alone (``docs/bacc-pf-v1.md``): re-derive
the shoe from the proof's seed, client seed and rules, and report the first thing that does not
match, in plain words.

* **v2** (:mod:`baccarat.proofdoc`): the pages and their signed manifest
  (:mod:`baccarat.proofpages`), then the cards, the money (recomputed from ``table_config``, the
  public bets and the re-derived round, never the proof's own cards), every round's lifecycle
  marks and the ``interventions`` (:mod:`baccarat.proofchecks`).
* **v1** (one object, no pages, no signature): cards and money only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import proofdoc
from .beacon import BeaconError
from .cards import code
from .fairness import SPEC, FairnessError, Shoe, derive_shoe
from .fairness_v2 import SPEC as SPEC_PF2
from .pf2verify import verify_pf2
from .proofbook import SPEC_V11
from .proofbytes import ProofFormatError
from .proofchecks import SETTLEMENT_FIELDS as SETTLEMENT_FIELDS
from .proofchecks import (
    check_commit,
    check_interventions,
    check_lifecycle,
    check_replaced,
    check_round_book,
    check_subject,
    check_table_config,
    is_timestamp,
    is_v2,
)
from .proofchecks import check_settlement as check_settlement
from .proofchecks import recompute_settlement as recompute_settlement
from .proofpages import Incomplete, assemble, check_signature
from .proofpages import proof_pages as proof_pages
from .proofsteps import card_mismatches, field_of, plural, seed_mismatches, seeds_of
from .rules import UnsafeRulesError
from .verdict import UNSIGNED as UNSIGNED
from .verdict import BeaconCheck as BeaconCheck
from .verdict import Mismatch as Mismatch
from .verdict import ProofError as ProofError
from .verdict import SettlementCheck as SettlementCheck
from .verdict import SignatureCheck as SignatureCheck
from .verdict import Verdict as Verdict

# --- the steps of one verification --------------------------------------------------------------


def _shoe_mismatches(proof: Mapping[str, Any], shoe: Shoe, v2: bool) -> list[Mismatch]:
    """The shoe's cut card, burn and first round as derived; a v2 proof's end reason."""
    bad: list[Mismatch] = []
    if "cut_index" in proof and proof["cut_index"] != shoe.cut_index:
        bad.append(Mismatch("shoe", "cut_index", shoe.cut_index, proof["cut_index"]))
    if "burn_exposed" in proof:
        exposed = None if shoe.burn_exposed is None else code(shoe.burn_exposed)
        if proof["burn_exposed"] != exposed:
            bad.append(Mismatch("shoe", "burn_exposed", exposed, proof["burn_exposed"]))
    if not v2:
        return bad
    for name, value in (("burn", shoe.burn_count), ("first_round_start", shoe.first_start)):
        if proof.get(name) != value:
            bad.append(Mismatch("shoe", name, value, proof.get(name)))
    end_reason = proof.get("end_reason")
    if end_reason not in proofdoc.END_REASONS:
        bad.append(Mismatch("shoe", "end_reason", f"one of {proofdoc.END_REASONS}", end_reason))
    return bad


def _closed_early(proof: Mapping[str, Any], v2: bool) -> bool:
    return proof.get("end_reason") in (("closed",) if v2 else ("closed", "closed_early"))


def _count_mismatches(n_proof: int, n_shoe: int, closed_early: bool) -> list[Mismatch]:
    """No more rounds than the shoe deals, and fewer only when it was closed early."""
    if n_proof > n_shoe:
        return [Mismatch("shoe", "number of rounds", n_shoe, n_proof)]
    if not closed_early and n_proof < n_shoe:
        return [Mismatch("shoe", "number of rounds (the shoe ended by its rules)", n_shoe, n_proof)]
    return []


def _v1_void_mismatches(where: str, got: Mapping[str, Any]) -> list[Mismatch]:
    """v1: a voided round carries no settlement and returned every stake."""
    bad: list[Mismatch] = []
    if got.get("settlement") is not None:
        bad.append(Mismatch(where, "settlement", "none (the round was voided)", "a settlement"))
    void = got.get("void")
    nets = void.get("nets") if isinstance(void, Mapping) else None
    if isinstance(nets, Mapping):  # a void returns every stake: nobody wins or loses
        bad.extend(
            Mismatch(where, f"void nets.{who}", 0, net) for who, net in nets.items() if net != 0
        )
    return bad


@dataclass(slots=True)
class _Rounds:
    """The rounds walked so far: what they showed and how many were settled and voided."""

    proof: Mapping[str, Any]
    settlement_check: SettlementCheck | None
    v2: bool
    bad: list[Mismatch]
    settled: int = 0
    voided: int = 0
    books: int = 0
    previous_deal: str | None = None

    def money(self, got: Mapping[str, Any], want: Any) -> None:
        """A settled round's settlement, recomputed."""
        if self.settlement_check is not None and got.get("settlement") is not None:
            self.bad.extend(self.settlement_check(self.proof, got, want))
            self.settled += 1

    def v2_round(self, where: str, got: Mapping[str, Any], want: Any) -> None:
        """Lifecycle marks, then the void's replaced settlement or the settlement."""
        self.bad.extend(check_lifecycle(where, got, self.previous_deal, self.proof.get("ended_at")))
        self.bad.extend(check_round_book(self.proof, where, got))
        self.books += "book" in got
        if is_timestamp(got.get("dealt_at")):
            self.previous_deal = got["dealt_at"]
        if got.get("void") is None:
            self.money(got, want)
            return
        self.voided += 1
        if self.settlement_check is not None and isinstance(got["void"], Mapping):
            self.bad.extend(check_replaced(self.proof, got, want))

    def walk(self, rounds: list[Any], shoe: Shoe) -> None:
        for i, (got, want) in enumerate(zip(rounds, shoe.rounds, strict=False), start=1):
            where = f"round {i}"
            if not isinstance(got, Mapping):
                raise ProofError(f"{where} is not an object")
            self.bad.extend(card_mismatches(where, got, want))
            if self.v2:
                self.v2_round(where, got, want)
            elif got.get("voided") is True:
                self.voided += 1
                self.bad.extend(_v1_void_mismatches(where, got))
            else:
                self.money(got, want)


def _summary(number: int, n: int, walked: _Rounds, closed_early: bool) -> str:
    voids = ""
    if walked.voided:
        voids = f", {plural(walked.voided, 'voided round')}"
        if walked.v2 and walked.settlement_check:
            voids += " (the settlement each replaced re-derived)"
    if walked.books:
        voids += f", {plural(walked.books, 'book')} of spectators' slips (root and totals)"
    spec = str(walked.proof.get("spec"))
    return (
        f"{spec} shoe {number}: server seed reaches the anchor, client hash, "
        f"{plural(n, 'round')} and {plural(walked.settled, 'settlement')} re-derived and "
        f"matching{voids}"
        + (", every round's bets locked at its deal" if walked.v2 and n else "")
        + (" (shoe closed early)" if closed_early else "")
    )


def _verify(
    proof: Mapping[str, Any],
    settlement_check: SettlementCheck | None,
    beacon_check: BeaconCheck | None = None,
) -> Verdict:
    """The cards and money of one proof (assembled from its pages for v2); a bacc-pf-v2 shoe's
    are :func:`baccarat.pf2verify.verify_pf2`'s."""
    v2 = is_v2(proof)
    spec = field_of(proof, "spec", str)
    if v2 and spec == SPEC_PF2:
        return verify_pf2(proof, settlement_check, beacon_check)
    if spec != SPEC and not (v2 and spec == SPEC_V11):
        return Verdict(
            ok=False, summary=f"unknown spec {spec!r}; this verifier knows {SPEC} and {SPEC_V11}"
        )
    seeds = seeds_of(proof)
    bad = seed_mismatches(proof, seeds)
    shoe = derive_shoe(seeds.secret, seeds.client_seed, seeds.number, seeds.rules)
    bad.extend(_shoe_mismatches(proof, shoe, v2))
    rounds = field_of(proof, "rounds", list)
    closed_early = _closed_early(proof, v2)
    bad.extend(_count_mismatches(len(rounds), len(shoe.rounds), closed_early))
    raw_config = proof.get("table_config")
    if isinstance(raw_config, Mapping) and settlement_check is not None:
        bad.extend(check_table_config(raw_config, seeds.rules))
    walked = _Rounds(proof, settlement_check, v2, bad)
    walked.walk(rounds, shoe)
    recomputed: dict[str, Any] | None = None
    if v2:
        iv_bad, recomputed = check_interventions(proof, rounds, len(shoe.rounds))
        bad.extend(iv_bad)
    commit_bad, commit_note = check_commit(proof, rounds)
    bad.extend(commit_bad)
    n = min(len(rounds), len(shoe.rounds))
    summary = _summary(seeds.number, n, walked, closed_early)
    return Verdict(
        ok=not bad,
        summary=summary if commit_note is None else f"{summary}; {commit_note}",
        mismatches=bad,
        rounds_checked=n,
        settlements_checked=walked.settled,
        interventions=recomputed,
    )


# --- the verdict ---------------------------------------------------------------------------------


def verify_proof(
    proof: Mapping[str, Any], settlement_check: SettlementCheck | None = check_settlement
) -> Verdict:
    """Check the cards and money a proof claims (v1 or v2); a signature is not required and,
    without keys, not checked (:func:`verify` checks it). ``settlement_check(proof, round_json,
    round)`` is called for each round carrying a settlement: by default :func:`check_settlement`
    recomputes it (``None`` checks the cards only)."""
    return verify(proof, require_signature=False, settlement_check=settlement_check)


def _verify_v1(document: Any, settlement_check: SettlementCheck | None, require: bool) -> Verdict:
    verdict = _verify(document, settlement_check)
    if require:
        verdict.mismatches.insert(0, UNSIGNED)
        verdict.ok = False
    verdict.summary += " (unsigned v1 proof: no signature to check)"
    return verdict


def verify(
    document: Any,
    *,
    keys: Mapping[str, Any] | None = None,
    keys_source: str = "the given key set",
    signature_check: SignatureCheck | None = None,
    require_signature: bool = True,
    settlement_check: SettlementCheck | None = check_settlement,
    shoe_id: str | None = None,
    beacon_check: BeaconCheck | None = None,
) -> Verdict:
    """Everything a proof claims: a v2 proof (a page, a list of pages or a bundle) with its
    pages, signature (``keys``: the JWK set ``{"keys": [...]}`` of ``GET /v1/signing-keys``,
    checked with ``signature_check``), cards, money, lifecycle and interventions; or a v1 proof
    (one object), which has no signature: with ``require_signature`` it fails as unsigned.

    ``shoe_id``: the shoe asked for (the id in the proof's URL, or the one the user names): a
    proof of any other shoe — another table's clean signed proof served at this shoe's URL —
    fails, whatever else holds. The verdict names the table and the shoe the proof is of.

    ``beacon_check(chain, beacon)``: the BLS check of a bacc-pf-v2 proof's beacons
    (``baccarat_bls.verify_beacon``); without it such a proof does not verify."""
    try:
        pages = proof_pages(document)
        if pages is None:
            return _verify_v1(document, settlement_check, require_signature)
        try:
            pages, proof, front = assemble(pages)
        except Incomplete as exc:
            return Verdict(ok=False, summary=str(exc), mismatches=[exc.mismatch])
        sig_bad, how = check_signature(
            pages, proof, keys, keys_source, signature_check, require_signature
        )
        verdict = _verify(proof, settlement_check, beacon_check)
        subject_bad, verdict.subject = check_subject(proof, shoe_id)
        verdict.mismatches[:0] = subject_bad + sig_bad + front
        verdict.ok = not verdict.mismatches
        verdict.signature = how
        if how:
            verdict.summary += f"; {how}"
        elif pages[0].get("signature") is None:
            verdict.summary += "; unsigned"
        return verdict
    except (ProofError, FairnessError, UnsafeRulesError, ProofFormatError, BeaconError) as exc:
        return Verdict(ok=False, summary=f"unreadable proof: {exc}")
