"""What a verifier checks beyond the cards: every settlement recomputed, every round's
lifecycle marks, the voids' replaced settlements, the interventions, which shoe the proof is of
and the table configuration it names. Each check returns the mismatches it found."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import proofdoc
from .interventions import INTERVENTION_FIELDS, as_claimed, interventions
from .proofbook import SPEC_V11, check_book, with_book
from .rules import ShoeRules
from .verdict import Mismatch

#: The settlement fields :func:`check_settlement` recomputes (``eligibility``, ``settled_at`` and
#: the ids are bookkeeping, not money, and are not compared).
SETTLEMENT_FIELDS = proofdoc.SETTLEMENT_MONEY_FIELDS


def first_difference(path: str, expected: Any, found: Any) -> tuple[str, Any, Any] | None:
    """The first leaf where ``found`` differs from ``expected`` (keys ``found`` has beyond
    ``expected`` are ignored, except in ``nets``, where every participant counts)."""
    if isinstance(expected, Mapping) and isinstance(found, Mapping):
        if path.endswith("nets") and set(expected) != set(found):
            return path, dict(expected), dict(found)
        for key, value in expected.items():
            sub = f"{path}.{key}"
            if key not in found:
                return sub, value, None
            hit = first_difference(sub, value, found[key])
            if hit:
                return hit
        return None
    if isinstance(expected, list) and isinstance(found, list):
        for i, (e, f) in enumerate(zip(expected, found, strict=False)):
            hit = first_difference(f"{path}[{i}]", e, f)
            if hit:
                return hit
        if len(expected) != len(found):
            return f"{path} (count)", len(expected), len(found)
        return None
    if expected != found or type(expected) is not type(found):
        return path, expected, found
    return None


def is_v2(proof: Mapping[str, Any]) -> bool:
    """A v2 proof (assembled from its pages) carries ``interventions``; its bettors are refs."""
    return "interventions" in proof


def is_timestamp(value: Any) -> bool:
    return isinstance(value, str) and proofdoc.TIMESTAMP.fullmatch(value) is not None


# --- money ---------------------------------------------------------------------------------------


def recompute_settlement(
    proof: Mapping[str, Any], round_json: Mapping[str, Any], round_: Any
) -> dict[str, Any] | Mismatch:
    """The settlement ``settle`` gives for the round's public bets and player-banker on the
    re-derived ``round_``, as the proof writes it (v2: bettors by ``bettor_ref``), or the
    :class:`Mismatch` saying why it cannot be computed."""
    from .profiles import TableConfig, TierError

    where = f"round {round_.number}"
    raw_config = proof.get("table_config")
    if not isinstance(raw_config, Mapping):
        return Mismatch(
            where,
            "settlement",
            "the table configuration to recompute it (table_config)",
            raw_config,
        )
    try:
        config = TableConfig.from_dict(raw_config)
    except TierError as exc:
        return Mismatch("shoe", "table_config", "a valid table configuration", str(exc))
    raw_bets = round_json.get("bets") or []
    raw_pb = round_json.get("player_banker")
    v2 = is_v2(proof)
    id_field = "bettor_ref" if v2 else "bettor_id"
    try:
        # no balance is public: the player-banker's only served validation at the deal
        pb = None if raw_pb is None else {id_field: raw_pb[id_field]}
        bets, player_banker = proofdoc.parse_bets(raw_bets, pb, id_field)
    except (KeyError, TypeError, ValueError, AttributeError):
        return Mismatch(where, "settlement bets", "bets in the API's bet format", raw_bets)
    try:
        doc = proofdoc.settlement_doc(config, round_, bets, player_banker)
    except (ValueError, KeyError, TypeError, ArithmeticError) as exc:
        return Mismatch(where, "settlement", "bets that can be settled", str(exc))
    if not v2:
        return doc
    public = proofdoc.public_settlement(doc, lambda ref: ref)
    if "book" in round_json:  # bacc-pf-v1.1: the house's figures include the book's
        public["house"] = with_book(public["house"], round_json["book"])
    return public


def check_settlement(
    proof: Mapping[str, Any], round_json: Mapping[str, Any], round_: Any
) -> list[Mismatch]:
    """Recompute one round's settlement and compare it field by field (the first difference).

    The table is rebuilt with ``TableConfig.from_dict(proof["table_config"])`` (the pay table
    it names), the bets from the round's ``bets`` (API form, in accepted order) and
    ``player_banker``, and :func:`baccarat.settlement.settle` is run on ``round_`` — the round
    re-derived from the seed."""
    where = f"round {round_.number}"
    found = round_json.get("settlement")
    if not isinstance(found, Mapping):
        return [Mismatch(where, "settlement", "an object", found)]
    expected = recompute_settlement(proof, round_json, round_)
    if isinstance(expected, Mismatch):
        return [expected]
    for name in SETTLEMENT_FIELDS:
        if name not in found:
            return [Mismatch(where, f"settlement {name}", expected[name], None)]
        hit = first_difference(f"settlement {name}", expected[name], found[name])
        if hit:
            return [Mismatch(where, hit[0], hit[1], hit[2])]
    return []


def check_replaced(proof: Mapping[str, Any], got: Mapping[str, Any], want: Any) -> list[Mismatch]:
    """v2: a void shows the settlement it replaced; recompute it from the round's public bets."""
    where = f"round {want.number}"
    expected = recompute_settlement(proof, got, want)
    if isinstance(expected, Mismatch):
        return [expected]
    hit = first_difference(
        "void replaced", proofdoc.replaced_amounts(expected), got["void"].get("replaced")
    )
    return [Mismatch(where, hit[0], hit[1], hit[2])] if hit else []


def check_table_config(raw: Mapping[str, Any], rules: ShoeRules) -> list[Mismatch]:
    """The proof's table configuration must parse (its pay table a published version of its
    profile) and be the one of the shoe's rules."""
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


# --- which shoe --------------------------------------------------------------------------------


def check_subject(proof: Mapping[str, Any], asked: str | None) -> tuple[list[Mismatch], str]:
    """Is the proof the shoe asked for? Its signed header names the table and the shoe
    (``shoe_id`` = ``{table_id}_s{shoe_number}``): (mismatches, the verdict's words for it)."""
    table, shoe, number = proof.get("table_id"), proof.get("shoe_id"), proof.get("shoe_number")
    bad: list[Mismatch] = []
    if asked is not None and shoe != asked:
        bad.append(
            Mismatch(
                "proof",
                "shoe_id",
                asked,
                shoe,
                f"this is the proof of shoe {shoe} (table {table}), not of the shoe asked for, "
                f"{asked}: a proof verifies only the shoe it was signed for",
            )
        )
    own = f"{table}_s{number}"
    if shoe != own:
        bad.append(
            Mismatch(
                "proof",
                "shoe_id",
                own,
                shoe,
                f"the proof's shoe_id {shoe} is not shoe {number} of its table {table} ({own})",
            )
        )
    how = (
        "the shoe asked for"
        if asked is not None and not bad
        else "not the shoe asked for"
        if asked is not None
        else "no shoe was named to check it against"
    )
    return bad, f"table {table}, shoe {shoe} ({how})"


# --- lifecycle -----------------------------------------------------------------------------------


def _deal_mismatches(
    where: str, got: Mapping[str, Any], dealt: str, previous_deal: str | None, ended_at: Any
) -> list[Mismatch]:
    """Bets locked at the deal; deals in order, none after the shoe ended."""
    bad: list[Mismatch] = []
    locked = got.get("bets_locked_at")
    if locked != dealt:
        bad.append(
            Mismatch(
                where,
                "bets_locked_at",
                dealt,
                locked,
                f"{where}: bets_locked_at {locked!r} is not its dealt_at {dealt!r} (bets are "
                "locked when the cards are dealt, never after)",
            )
        )
    if previous_deal is not None and dealt < previous_deal:
        bad.append(
            Mismatch(where, "dealt_at", f"not before the previous round's {previous_deal}", dealt)
        )
    if is_timestamp(ended_at) and dealt > ended_at:
        bad.append(Mismatch(where, "dealt_at", f"not after the shoe ended ({ended_at})", dealt))
    return bad


def _resolution_mismatches(where: str, got: Mapping[str, Any]) -> list[Mismatch]:
    """Settled or voided, not both; ``voided`` says which."""
    settlement, void = got.get("settlement"), got.get("void")
    bad: list[Mismatch] = []
    if settlement is not None and void is not None:
        bad.append(Mismatch(where, "settlement", "none (the round was voided)", "a settlement"))
    elif settlement is None and void is None:
        bad.append(
            Mismatch(
                where,
                "settlement",
                "a settlement or a void",
                None,
                f"{where} is neither settled nor voided (a final proof resolves every round)",
            )
        )
    if got.get("voided") is not (void is not None):
        bad.append(Mismatch(where, "voided", void is not None, got.get("voided")))
    return bad


def _mark_mismatches(
    where: str, got: Mapping[str, Any], name: str, doc: Any, label: str, dealt: str
) -> list[Mismatch]:
    """The round's ``name`` mark (``settled_at`` / ``voided_at``): set exactly when ``doc`` (its
    settlement / void) is, not before the deal, and equal to the document's own."""
    at = got.get(name)
    if doc is None:
        return [] if at is None else [Mismatch(where, name, None, at)]
    bad: list[Mismatch] = []
    if not is_timestamp(at):
        bad.append(Mismatch(where, name, "a UTC timestamp", at))
    elif isinstance(at, str) and at < dealt:
        bad.append(Mismatch(where, name, f"not before it was dealt ({dealt})", at))
    if isinstance(doc, Mapping) and doc.get(name, at) != at:
        bad.append(Mismatch(where, f"{label} {name}", at, doc.get(name)))
    return bad


def _void_shape_mismatches(where: str, void: Any) -> list[Mismatch]:
    if not isinstance(void, Mapping):
        return [Mismatch(where, "void", "{reason, note, voided_at, replaced}", void)]
    bad: list[Mismatch] = []
    if void.get("reason") not in proofdoc.VOID_REASONS:
        bad.append(
            Mismatch(where, "void reason", f"one of {proofdoc.VOID_REASONS}", void.get("reason"))
        )
    if void.get("note") is not None and not isinstance(void.get("note"), str):
        bad.append(Mismatch(where, "void note", "a string or null", void.get("note")))
    return bad


def check_round_book(
    proof: Mapping[str, Any], where: str, got: Mapping[str, Any]
) -> list[Mismatch]:
    """A round's ``book``: only in a bacc-pf-v1.1 proof, where it must be well formed
    (:func:`baccarat.proofbook.check_book`)."""
    if "book" not in got:
        return []
    if proof.get("spec") not in (SPEC_V11, "bacc-pf-v2"):
        return [
            Mismatch(
                where,
                "book",
                None,
                "a book",
                f"{where} carries a book, which only a {SPEC_V11} proof may (or a bacc-pf-v2 one)",
            )
        ]
    return check_book(where, got["book"])


def check_lifecycle(
    where: str, got: Mapping[str, Any], previous_deal: str | None, ended_at: Any
) -> list[Mismatch]:
    """v2: when the round was dealt, that its bets were locked then, and that it was resolved
    (settled or voided, not both) after it."""
    dealt = got.get("dealt_at")
    if not is_timestamp(dealt):
        return [Mismatch(where, "dealt_at", "a UTC timestamp (…T…Z, milliseconds)", dealt)]
    assert isinstance(dealt, str)
    settlement, void = got.get("settlement"), got.get("void")
    return [
        *_deal_mismatches(where, got, dealt, previous_deal, ended_at),
        *_resolution_mismatches(where, got),
        *_mark_mismatches(where, got, "settled_at", settlement, "settlement", dealt),
        *_mark_mismatches(where, got, "voided_at", void, "void", dealt),
        *([] if void is None else _void_shape_mismatches(where, void)),
    ]


# --- the automatic commit ------------------------------------------------------------------------


def _commit_order(proof: Mapping[str, Any], rounds: Sequence[Any]) -> list[tuple[str, str, Any]]:
    """What must come in order: the seed given, the commit, the first deal, the end."""
    given, committed = proof["client_seed_given_at"], proof["committed_at"]
    first = rounds[0].get("dealt_at") if rounds and isinstance(rounds[0], Mapping) else None
    order = [("client_seed_given_at", "not after committed_at", given, committed)]
    if is_timestamp(first):
        order.append(("committed_at", "not after round 1's dealt_at", committed, first))
    if is_timestamp(proof.get("ended_at")):
        order.append(("committed_at", "not after ended_at", committed, proof["ended_at"]))
    return [
        (name, f"{want} ({later})", value) for name, want, value, later in order if value > later
    ]


def check_commit(
    proof: Mapping[str, Any], rounds: Sequence[Any]
) -> tuple[list[Mismatch], str | None]:
    """A shoe the running table committed itself (``committed_by: "clock"``): its client seed
    was given before the commit (``client_seed_given_at`` ≤ ``committed_at``), and the commit
    came before the first deal and the end. The mismatches, and the line a verifier shows
    (``None``: the operator committed the shoe, no field present)."""
    present = [k for k in proofdoc.COMMIT_FIELDS if k in proof]
    if not present:
        return [], None
    where = "automatic commit"
    missing = [k for k in proofdoc.COMMIT_FIELDS if k not in present]
    if missing:
        return [
            Mismatch(where, k, "present with the other commit fields", None) for k in missing
        ], None
    bad = []
    if proof["committed_by"] != "clock":
        bad.append(Mismatch(where, "committed_by", "clock", proof["committed_by"]))
    stamps = ("committed_at", "client_seed_given_at")
    bad += [
        Mismatch(where, k, "a UTC timestamp (…T…Z, milliseconds)", proof[k])
        for k in stamps
        if not is_timestamp(proof[k])
    ]
    if bad:
        return bad, None
    bad = [Mismatch(where, name, want, value) for name, want, value in _commit_order(proof, rounds)]
    note = (
        f"committed by the table itself at {proof['committed_at']} with a client seed given "
        f"in advance at {proof['client_seed_given_at']}"
    )
    return bad, note


# --- interventions -------------------------------------------------------------------------------


def check_interventions(
    proof: Mapping[str, Any], rounds: Sequence[Any], possible: int
) -> tuple[list[Mismatch], dict[str, Any]]:
    """The header's ``interventions`` against those recomputed from the rounds and the seed
    (``possible``: the rounds the re-derived shoe deals): (mismatches, the recomputed ones)."""
    end_reason = str(proof.get("end_reason"))
    recomputed = interventions(end_reason, [r for r in rounds if isinstance(r, Mapping)], possible)
    recomputed["rounds_dealt"] = len(rounds)
    claimed = proof.get("interventions")
    if not isinstance(claimed, Mapping):
        return [Mismatch("shoe", "interventions", recomputed, claimed)], recomputed
    expected = as_claimed(recomputed, claimed)
    for name in INTERVENTION_FIELDS:
        if name not in expected:
            continue
        hit = first_difference(f"interventions.{name}", expected[name], claimed.get(name))
        if hit:
            return [Mismatch("shoe", hit[0], hit[1], hit[2])], recomputed
    return [], recomputed
