"""Verify a ``bacc-pf-v2`` proof (``docs/bacc-pf-v2.md``, "Verifying a v2 shoe"): after the
pages, the signature and the seed (as v1's, :mod:`baccarat.verify`), in the spec's order — the
header's beacon chain (drand quicknet field for field, or a test beacon shown as such), then each
round: its lock (``bets_locked_at``, order, the book root recomputed from its locked bets and its
book, the beacon round the lock fixes), its beacon (the round, the BLS signature), its cards drawn
again from the cards remaining, its money recomputed; ``beacon_unavailable`` voids apart (no
cards; priced when their beacon is in the proof); the end and the interventions.

The BLS check needs a pairing library, which the core may not import: the caller passes
``beacon_check`` (``baccarat_bls.verify_beacon``); without it the proof does not verify."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import beacon, fairness_v2, proofdoc
from .cards import code
from .interventions import INTERVENTION_FIELDS
from .pf2proof import (
    BEACON_VOID_FIELDS,
    beacon_draw,
    chain_of,
    interventions_v2,
    interventions_v2_text,
    key_of,
    ms_of,
    priced_draw,
    round_input,
    rounds_possible,
)
from .proofchecks import (
    check_commit,
    check_lifecycle,
    check_replaced,
    check_round_book,
    check_table_config,
    first_difference,
    is_timestamp,
    recompute_settlement,
)
from .proofsteps import card_mismatches, field_of, plural, seed_mismatches, seeds_of
from .rules import ShoeRules
from .verdict import BeaconCheck, Mismatch, SettlementCheck, Verdict

NO_BLS = Mismatch(
    "proof",
    "beacon signatures",
    "checked",
    None,
    "the beacons' BLS signatures cannot be checked here (no BLS library): use baccarat verify",
)
_CARD_KEYS = ("start", "player", "banker", "player_total", "banker_total", "result")


def _book_root(proof: Mapping[str, Any], got: Mapping[str, Any]) -> str | None:
    """The book root recomputed from the round's locked seated bets and its book's root."""
    book = got.get("book")
    spectators = fairness_v2.EMPTY_ROOT
    try:
        if book is not None:
            spectators = bytes.fromhex(book["root"])
        round_id = f"{proof.get('shoe_id')}_r{got.get('round_number')}"
        seated = fairness_v2.seated_root(round_id, got.get("bets") or [])
        return fairness_v2.locked_root(seated, spectators).hex()
    except (KeyError, TypeError, ValueError, AttributeError):  # FairnessError is a ValueError
        return None


@dataclass(slots=True)
class _Walk:
    """The rounds walked in order, and what they showed."""

    proof: Mapping[str, Any]
    chain: beacon.Chain
    check_beacon: BeaconCheck | None
    settlement_check: SettlementCheck | None
    key: bytes
    rules: ShoeRules
    inputs: Sequence[fairness_v2.RoundInput]
    bad: list[Mismatch] = field(default_factory=list)
    previous_lock: str | None = None
    previous_deal: str | None = None
    settled: int = 0
    voided: int = 0
    beacon_voids: int = 0
    beacons_verified: int = 0

    def lock(self, where: str, got: Mapping[str, Any]) -> None:
        """``bets_locked_at`` is the lock's, locks in order, the book root and the beacon round
        the lock fixes (the lock before the beacon)."""
        lock = got["lock"]
        at = lock.get("locked_at")
        if not is_timestamp(at):
            self.bad.append(Mismatch(where, "lock.locked_at", "a UTC timestamp", at))
            return
        if got.get("bets_locked_at") != at:
            self.bad.append(Mismatch(where, "bets_locked_at", at, got.get("bets_locked_at")))
        for before, what in ((self.previous_lock, "lock"), (self.previous_deal, "deal")):
            if before is not None and at < before:
                self.bad.append(
                    Mismatch(where, "lock.locked_at", f"not before the previous {what}", at)
                )
        self.previous_lock = at
        root = _book_root(self.proof, got)
        if lock.get("book_root") != root:
            self.bad.append(
                Mismatch(
                    where,
                    "lock.book_root",
                    root,
                    lock.get("book_root"),
                    f"{where}: book root {lock.get('book_root')} is not the root of its locked "
                    f"bets and book ({root})",
                )
            )
        due = beacon.lock_round(self.chain, ms_of(at))
        if lock.get("beacon_round") != due:
            self.bad.append(
                Mismatch(
                    where,
                    "lock.beacon_round",
                    due,
                    lock.get("beacon_round"),
                    f"{where}: lock before beacon: locked at {at}, its beacon round is {due} "
                    f"(the first due {beacon.BEACON_MARGIN_MS} ms or more after the lock), "
                    f"found {lock.get('beacon_round')}",
                )
            )

    def beacon(self, where: str, got: Mapping[str, Any]) -> bool:
        """The round's beacon is the lock's round and BLS-verifies (absent: a beacon void)."""
        doc = got.get("beacon")
        if doc is None:
            return False
        draw = beacon_draw(got, bytes.fromhex(self.chain.chain_hash), where)
        if draw.round != got["lock"].get("beacon_round"):
            self.bad.append(
                Mismatch(where, "beacon.round", got["lock"].get("beacon_round"), draw.round)
            )
        if self.check_beacon is None:
            return True
        seen = beacon.Beacon(self.chain.chain_hash, draw.round, draw.signature, self.chain.is_test)
        if self.check_beacon(self.chain, seen):
            self.beacons_verified += 1
            return True
        name = beacon.label(self.chain)
        self.bad.append(
            Mismatch(
                where,
                "beacon.signature",
                f"a BLS signature of round {draw.round} by the {name}",
                doc.get("signature"),
                f"{where}: beacon round {draw.round}'s signature does not verify under the "
                f"{name}'s public key",
            )
        )
        return False

    def dealt(self, where: str, got: Mapping[str, Any], want: Any) -> None:
        """Cards, lifecycle (locked before the deal, dealt once the beacon round was due),
        money."""
        self.bad.extend(card_mismatches(where, got, want))
        dealt = got.get("dealt_at")
        view = {**got, "bets_locked_at": dealt}  # v1's "locked at the deal" is v2's lock check
        self.bad.extend(
            check_lifecycle(where, view, self.previous_deal, self.proof.get("ended_at"))
        )
        if not isinstance(dealt, str) or not is_timestamp(dealt):
            return
        self.previous_deal = dealt
        # the beacon's round: an integer (checked by the draw), the lock's when they agree
        due = beacon.round_time(self.chain, max(1, got["beacon"]["round"]))
        locked = got["lock"].get("locked_at")
        if (is_timestamp(locked) and dealt <= locked) or ms_of(dealt) < due:
            self.bad.append(
                Mismatch(where, "dealt_at", "after the lock, once its beacon round was due", dealt)
            )
        if got.get("void") is not None:
            self.voided += 1
            if self.settlement_check is not None and isinstance(got["void"], Mapping):
                self.bad.extend(check_replaced(self.proof, got, want))
        elif self.settlement_check is not None and got.get("settlement") is not None:
            self.bad.extend(self.settlement_check(self.proof, got, want))
            self.settled += 1

    def beacon_void(self, where: str, got: Mapping[str, Any], index: int, beacon_ok: bool) -> None:
        """No cards, no deal, voided after the lock; priced exactly when its beacon is here."""
        self.beacon_voids += 1
        for k in ("dealt_at", "settlement", *_CARD_KEYS):
            if got.get(k) is not None:
                self.bad.append(
                    Mismatch(
                        where,
                        k,
                        None,
                        got[k],
                        f"{where}: a beacon_unavailable void has no "
                        f"cards, deal or settlement, found {k}",
                    )
                )
        void, at = got["void"], got.get("voided_at")
        if got.get("voided") is not True:
            self.bad.append(Mismatch(where, "voided", True, got.get("voided")))
        locked = got["lock"].get("locked_at")
        due = ms_of(str(locked)) + beacon.BEACON_WAIT_MS if is_timestamp(locked) else None
        early = is_timestamp(at) and due is not None and ms_of(str(at)) < due
        if not is_timestamp(at) or early or void.get("voided_at") != at:
            self.bad.append(
                Mismatch(
                    where,
                    "voided_at",
                    f"its void's, {beacon.BEACON_WAIT_MS // 1000} s or more after the lock",
                    at,
                    f"{where}: a beacon_unavailable void is voided no sooner than "
                    f"{beacon.BEACON_WAIT_MS // 1000} s after its lock ({locked}), found {at}",
                )
            )
        elif is_timestamp(at):
            self.previous_deal = at  # the next round locks after this one ended
        if got.get("beacon") is None and not self.chain.is_test:
            self.bad.append(
                Mismatch(
                    where,
                    "beacon",
                    f"beacon round {got['lock'].get('beacon_round')}",
                    None,
                    f"{where}: a beacon_unavailable void on {self.chain.name} without its beacon "
                    f"round {got['lock'].get('beacon_round')}: drand keeps every round, so a "
                    f"final proof carries it and the void's price (an unpriced void would be a "
                    f"veto nobody sees the cost of)",
                )
            )
        expected = None
        if got.get("beacon") is not None and beacon_ok:
            draw = beacon_draw(got, bytes.fromhex(self.chain.chain_hash), where)
            would = priced_draw(self.key, self.rules, self.inputs, index, draw).round
            priced = recompute_settlement(self.proof, got, would)
            if isinstance(priced, Mismatch):
                self.bad.append(priced)
                return
            expected = proofdoc.replaced_amounts(priced)
        hit = first_difference("void replaced", expected, void.get("replaced"))
        if hit:
            self.bad.append(Mismatch(where, *hit))

    def walk(self, rounds: Sequence[Any], shoe: fairness_v2.ShoeV2) -> None:
        for i, (got, drawn) in enumerate(zip(rounds, shoe.draws, strict=False)):
            where = f"round {i + 1}"
            self.lock(where, got)
            ok = self.beacon(where, got)
            self.bad.extend(check_round_book(self.proof, where, got))
            if drawn is None:
                self.beacon_void(where, got, i, ok)
            else:
                self.dealt(where, got, drawn.round)


def _shoe_mismatches(proof: Mapping[str, Any], shoe: fairness_v2.ShoeV2, n: int) -> list[Mismatch]:
    """The header's cut card, burn and first round as drawn; the end as the rules say."""
    exposed = None if shoe.burn_exposed is None else code(shoe.burn_exposed)
    checks = (
        ("cut_index", shoe.cut_index),
        ("burn", len(shoe.burned)),
        ("burn_exposed", exposed),
        ("first_round_start", shoe.first_start),
    )
    bad = [Mismatch("shoe", k, v, proof.get(k)) for k, v in checks if proof.get(k) != v]
    end = proof.get("end_reason")
    if end not in proofdoc.END_REASONS:
        bad.append(Mismatch("shoe", "end_reason", f"one of {proofdoc.END_REASONS}", end))
    if len(shoe.draws) < n:
        bad.append(
            Mismatch(
                "shoe",
                "number of rounds",
                len(shoe.draws),
                n,
                f"the shoe ended by its rules after round {len(shoe.draws)}; the proof has "
                f"{n} rounds",
            )
        )
    elif end == "rules" and not shoe.ended_by_rules:
        bad.append(
            Mismatch(
                "shoe",
                "end_reason",
                "closed",
                end,
                f"end_reason is rules, but by its rules the shoe had not ended after round {n}",
            )
        )
    return bad


def _check_interventions(
    proof: Mapping[str, Any], rounds: Sequence[Any], possible: int | None
) -> tuple[list[Mismatch], dict[str, Any]]:
    recomputed = interventions_v2(str(proof.get("end_reason")), rounds, possible)
    claimed = proof.get("interventions")
    claimed = claimed if isinstance(claimed, Mapping) else {}
    for name in (*INTERVENTION_FIELDS, *BEACON_VOID_FIELDS):
        hit = first_difference(f"interventions.{name}", recomputed[name], claimed.get(name))
        if hit:
            return [Mismatch("shoe", *hit)], recomputed
    return [], recomputed


def verify_pf2(
    proof: Mapping[str, Any],
    settlement_check: SettlementCheck | None,
    check_beacon: BeaconCheck | None,
) -> Verdict:
    """The cards, beacons and money of an assembled ``bacc-pf-v2`` proof. Raises
    ``ProofFormatError`` / ``ProofError`` / ``BeaconError`` on an unreadable one."""
    seeds = seeds_of(proof)
    bad = seed_mismatches(proof, seeds)
    if proof.get("fairness") != fairness_v2.SPEC:
        bad.append(Mismatch("shoe", "fairness", fairness_v2.SPEC, proof.get("fairness")))
    chain = chain_of(proof.get("beacon"))
    rounds = field_of(proof, "rounds", list)
    chain_hash = bytes.fromhex(chain.chain_hash)
    for i, r in enumerate(rounds, 1):
        if not isinstance(r, Mapping):
            raise proofdoc.ProofFormatError(f"round {i} is not an object")
    inputs = [round_input(r, chain_hash, f"round {i}") for i, r in enumerate(rounds, 1)]
    key, rules = key_of(proof)
    shoe = fairness_v2.shoe_from_key_v2(key, rules, inputs, until_end=True)
    bad.extend(_shoe_mismatches(proof, shoe, len(rounds)))
    raw_config = proof.get("table_config")
    if isinstance(raw_config, Mapping) and settlement_check is not None:
        bad.extend(check_table_config(raw_config, rules))
    walk = _Walk(proof, chain, check_beacon, settlement_check, key, rules, inputs, bad)
    walk.walk(rounds, shoe)
    if check_beacon is None:
        bad.insert(0, NO_BLS)
    iv_bad, recomputed = _check_interventions(proof, rounds, rounds_possible(shoe, rules))
    bad.extend(iv_bad)
    commit_bad, commit_note = check_commit(proof, rounds)
    bad.extend(commit_bad)
    summary = _summary(proof, chain, walk, len(shoe.rounds))
    return Verdict(
        ok=not bad,
        summary=summary if commit_note is None else f"{summary}; {commit_note}",
        mismatches=bad,
        rounds_checked=len(shoe.rounds),
        settlements_checked=walk.settled,
        interventions=recomputed,
        interventions_words=interventions_v2_text(recomputed),
        beacon=beacon.label(chain),
    )


def _summary(proof: Mapping[str, Any], chain: beacon.Chain, walk: _Walk, dealt: int) -> str:
    name = beacon.label(chain)
    beacons = f"{plural(walk.beacons_verified, 'beacon round')} of " + (
        "a test beacon (NOT drand: its own key)" if chain.is_test else name
    )
    voids = f", {plural(walk.voided, 'voided round')} priced" if walk.voided else ""
    if walk.beacon_voids:
        voids += f", {walk.beacon_voids} beacon_unavailable (apart)"
    books = sum(1 for r in proof.get("rounds") or [] if isinstance(r, Mapping) and "book" in r)
    if books:
        where = "its round's book root" if books == 1 else "their rounds' book roots"
        voids += f", {plural(books, 'book')} of spectators' slips in {where}"
    return (
        f"bacc-pf-v2 shoe {proof.get('shoe_number')}: server seed reaches the anchor, client "
        f"hash, {beacons} BLS-verified, each round's beacon round fixed by its lock, "
        f"{plural(dealt, 'round')} drawn from the remaining cards, book roots and "
        f"{plural(walk.settled, 'settlement')} re-derived and matching{voids}"
    )
