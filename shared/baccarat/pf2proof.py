"""The public proof of a ``bacc-pf-v2`` shoe (``docs/bacc-pf-v2.md``, "The proof document"):
v1's proof (:mod:`baccarat.proofdoc`) plus the beacon chain in the header and each round's
``lock`` and ``beacon``; a round voided ``beacon_unavailable`` has no cards and is counted apart
from the operator's voids, priced when its beacon came later. Written once for the builder (the
service's final proof) and the verifier (:mod:`baccarat.pf2verify`). Pure, stdlib only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from . import beacon, fairness_v2, proofdoc
from .cards import code
from .fairness import FairnessError, client_hash, round_json, shoe_key
from .fairness_v2 import BeaconDraw, RoundDraw, RoundInput, ShoeV2, shoe_from_key_v2
from .interventions import interventions, voided_nets
from .outcome import Round
from .profiles import TableConfig
from .proofbook import public_book
from .proofbytes import ProofFormatError
from .rules import ShoeRules

SPEC = fairness_v2.SPEC
#: The void a running table writes itself when no verified beacon came in time.
BEACON_VOID = "beacon_unavailable"
#: The header's ``beacon``: the chain every round of the shoe waits for.
CHAIN_FIELDS = ("chain_hash", "public_key", "scheme", "genesis_ms", "period_ms", "test")
#: The header's fields the draw fixes (the private proof need not carry them).
DRAWN_FIELDS = ("cut_index", "burn", "burn_exposed", "first_round_start")
#: A v2 proof's ``interventions`` besides v1's: the beacon voids, apart.
BEACON_VOID_FIELDS = (
    "beacon_voids",
    "beacon_voids_priced",
    "beacon_voided_player_net",
    "beacon_voided_player_banker_net",
)


def chain_json(chain: beacon.Chain) -> dict[str, Any]:
    """The header's ``beacon`` object of ``chain`` (times in milliseconds)."""
    return {
        "chain_hash": chain.chain_hash,
        "public_key": chain.public_key.hex(),
        "scheme": chain.scheme,
        "genesis_ms": chain.genesis_ms,
        "period_ms": chain.period_ms,
        "test": chain.is_test,
    }


def chain_of(doc: Any) -> beacon.Chain:
    """The chain a header's ``beacon`` names, never trusting a claim: quicknet only when every
    field is exactly drand's (``test: false``); a test beacon only when its hash is its own
    (:func:`baccarat.beacon.local_chain`, never quicknet's). Raises ``BeaconError``."""
    if not isinstance(doc, Mapping) or set(doc) != set(CHAIN_FIELDS):
        raise beacon.BeaconError(f"the header's beacon is {{{', '.join(CHAIN_FIELDS)}}}")
    genesis, period, test = doc["genesis_ms"], doc["period_ms"], doc["test"]
    if type(genesis) is not int or type(period) is not int or type(test) is not bool:
        raise beacon.BeaconError("genesis_ms and period_ms are integers, test a boolean")
    if not (0 <= genesis < 2**63 and 0 < period < 2**63):
        raise beacon.BeaconError("genesis_ms is not before 1970 and period_ms is positive")
    if doc["scheme"] != beacon.SCHEME:
        raise beacon.BeaconError(f"scheme: only {beacon.SCHEME}")
    try:
        key = _hex(doc["public_key"], beacon.PUBLIC_KEY_BYTES, "the beacon's public_key")
    except ProofFormatError as exc:
        raise beacon.BeaconError(str(exc)) from None
    if not test:
        if chain_json(beacon.QUICKNET) != dict(doc):
            raise beacon.BeaconError(
                "a beacon not flagged a test beacon must be drand quicknet, field for field"
            )
        return beacon.QUICKNET
    chain = beacon.local_chain(key, genesis, period)
    if doc["chain_hash"] != chain.chain_hash:
        raise beacon.BeaconError("a test beacon's chain_hash is not its own")
    return chain


def ms_of(timestamp: str) -> int:
    """A proof timestamp (``…T…Z``, milliseconds) as milliseconds since the epoch."""
    if not proofdoc.TIMESTAMP.fullmatch(timestamp):
        raise ProofFormatError(f"{timestamp!r} is not a UTC timestamp")
    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)


def is_beacon_void(round_: Mapping[str, Any]) -> bool:
    void = round_.get("void")
    return isinstance(void, Mapping) and void.get("reason") == BEACON_VOID


def _hex(value: Any, size: int | None, what: str) -> bytes:
    try:
        raw = bytes.fromhex(value) if isinstance(value, str) else None
    except ValueError:
        raw = None
    if raw is None or (size is not None and len(raw) != size) or value != raw.hex():
        raise ProofFormatError(f"{what} is not {size or 'some'} bytes of lower-case hex")
    return raw


def round_input(round_: Mapping[str, Any], chain_hash: bytes, where: str) -> RoundInput:
    """What a round's key mixes in, from its ``lock`` and ``beacon``: a round voided
    ``beacon_unavailable`` draws nothing (even with its beacon, fetched later to price it)."""
    lock = round_.get("lock")
    if not isinstance(lock, Mapping):
        raise ProofFormatError(f"{where} has no lock {{locked_at, book_root, beacon_round}}")
    root = _hex(lock.get("book_root"), 32, f"{where}'s lock.book_root")
    if is_beacon_void(round_):
        return RoundInput(root, None)
    return RoundInput(root, beacon_draw(round_, chain_hash, where))


def beacon_draw(round_: Mapping[str, Any], chain_hash: bytes, where: str) -> BeaconDraw:
    doc = round_.get("beacon")
    if not isinstance(doc, Mapping) or type(doc.get("round")) is not int:
        raise ProofFormatError(f"{where} has no beacon {{round, signature}}")
    signature = _hex(doc.get("signature"), None, f"{where}'s beacon.signature")
    try:
        return BeaconDraw(chain_hash, doc["round"], signature).check()
    except FairnessError as exc:
        raise ProofFormatError(f"{where}: {exc}") from None


def key_of(header: Mapping[str, Any]) -> tuple[bytes, ShoeRules]:
    """The shoe key ``K`` (v1's) and the rules, from the revealed header."""
    rules = ShoeRules.from_dict(header["rules"])
    secret = bytes.fromhex(header["server_seed"])
    return shoe_key(secret, client_hash(header["client_seed"]), header["shoe_number"], rules), rules


def priced_draw(
    key: bytes, rules: ShoeRules, inputs: Sequence[RoundInput], index: int, draw: BeaconDraw
) -> RoundDraw:
    """The cards round ``index + 1`` (voided ``beacon_unavailable``) would have had with the
    beacon that came later: drawn, like any round, from the cards remaining after the rounds
    before it — without removing them (it drew nothing)."""
    before = shoe_from_key_v2(key, rules, inputs[:index])
    remaining = list(before.cards[before.cards_drawn :])
    number = index + 1
    return fairness_v2.draw_round(
        fairness_v2.round_key(key, number, inputs[index].book_root, draw),
        remaining,
        number,
        before.cards_drawn,
        burn=bool(rules.burn) and before.cards_drawn == 0,
    )


def rounds_by_number(proof: Mapping[str, Any]) -> tuple[Round | None, ...]:
    """Round ``n``'s cards at index ``n - 1`` of a public ``bacc-pf-v2`` proof, drawn again: a
    ``beacon_unavailable`` void's are those it would have had when its beacon is in the proof
    (what prices it), else ``None``. Raises on an unreadable proof (``ValueError``s)."""
    chain_hash = bytes.fromhex(chain_of(proof["beacon"]).chain_hash)
    rounds = proof["rounds"]
    inputs = [round_input(r, chain_hash, f"round {i}") for i, r in enumerate(rounds, 1)]
    key, rules = key_of(proof)
    shoe = shoe_from_key_v2(key, rules, inputs, until_end=True)
    out: list[Round | None] = []
    for i, drawn in enumerate(shoe.draws):
        if drawn is not None:
            out.append(drawn.round)
        elif rounds[i].get("beacon") is not None:
            later = beacon_draw(rounds[i], chain_hash, f"round {i + 1}")
            out.append(priced_draw(key, rules, inputs, i, later).round)
        else:
            out.append(None)
    return tuple(out)


def rounds_possible(shoe: ShoeV2, rules: ShoeRules) -> int | None:
    """The rounds the shoe deals: known when its rules ended it, or without a cut card (the
    round limit); ``None`` for a shoe with a cut card closed early (its undealt rounds have no
    beacon, so nobody can say how many there would have been)."""
    if shoe.ended_by_rules:
        return len(shoe.rounds)
    return None if rules.has_cut_card else rules.round_limit


def interventions_v2(
    end_reason: str, rounds: Sequence[Mapping[str, Any]], possible: int | None
) -> dict[str, Any]:
    """v1's interventions over the rounds that drew cards (the operator's voids), then the
    ``beacon_unavailable`` voids apart: how many, how many priced (their beacon in the proof)
    and what the priced ones took from the bettors and the player-banker."""
    beacon_voids = [r for r in rounds if is_beacon_void(r)]
    iv = interventions(end_reason, [r for r in rounds if not is_beacon_void(r)], 0)
    split = [voided_nets(r) for r in beacon_voids]
    priced = sum(1 for r in beacon_voids if r["void"].get("replaced") is not None)
    return iv | {
        "rounds_possible": possible,
        "beacon_voids": len(beacon_voids),
        "beacon_voids_priced": priced,
        "beacon_voided_player_net": sum(b for b, _ in split),
        "beacon_voided_player_banker_net": sum(pb for _, pb in split),
    }


def interventions_v2_text(iv: Mapping[str, Any]) -> str:
    """The one line: v1's (``rounds_possible`` unknowable said so), then the beacon voids."""
    possible = iv["rounds_possible"]
    line = proofdoc.interventions_text({**iv, "rounds_possible": possible or 0})
    if possible is None:
        line = line.rsplit(" of ", 1)[0] + " (how many it would have dealt is unknowable)"
    n = iv["beacon_voids"]
    if n:
        line += (
            f"; {n} beacon_unavailable void{'' if n == 1 else 's'} (no beacon in time), "
            f"{iv['beacon_voids_priced']} priced: players would have netted "
            f"{iv['beacon_voided_player_net']:+,}"
        )
        if iv["beacon_voided_player_banker_net"]:
            line += f", the player-banker {iv['beacon_voided_player_banker_net']:+,}"
    return line


# --- the builder -----------------------------------------------------------------------------


def _beacon_void_round(
    r: Mapping[str, Any],
    replaced: dict[str, Any] | None,
    ref: proofdoc.Refs,
) -> dict[str, Any]:
    where = f"round {r.get('round_number')}"
    void = r["void"]
    note, voided_at = void.get("note"), void.get("voided_at")
    if not isinstance(voided_at, str) or not proofdoc.TIMESTAMP.fullmatch(voided_at):
        raise ProofFormatError(f"{where}: voided_at {voided_at!r} is not a UTC timestamp")
    pb = r.get("player_banker")
    out: dict[str, Any] = {
        "round_number": r["round_number"],
        "dealt_at": None,
        "bets_locked_at": r["lock"]["locked_at"],
        "bets": proofdoc.public_bets(r.get("bets") or [], ref),
        "player_banker": None if pb is None else {"bettor_ref": ref(pb["bettor_id"])},
        "voided": True,
        "settled_at": None,
        "voided_at": voided_at,
        "settlement": None,
        "void": {"reason": BEACON_VOID, "note": note, "voided_at": voided_at, "replaced": replaced},
        "lock": dict(r["lock"]),
    }
    if r.get("book") is not None:
        out["book"] = public_book(r["book"])
    if r.get("beacon") is not None:
        out["beacon"] = dict(r["beacon"])
    return out


def _replaced(
    config: TableConfig, drawn: RoundDraw, r: Mapping[str, Any], ref: proofdoc.Refs
) -> dict[str, Any]:
    bets, pb = proofdoc.parse_bets(r.get("bets") or [], r.get("player_banker"))
    would = proofdoc.public_settlement(proofdoc.settlement_doc(config, drawn.round, bets, pb), ref)
    if r.get("book") is not None:
        would = proofdoc.with_book_house(would, {**r, "book": public_book(r["book"])})
    return proofdoc.replaced_amounts(would)


def public_proof_v2(proof: Mapping[str, Any], ref_key: bytes) -> dict[str, Any]:
    """The public ``bacc-pf-v2`` proof from the private final proof: v1's header and rounds
    (:func:`baccarat.proofdoc.public_proof`'s rules), ``spec`` and ``fairness`` ``bacc-pf-v2``,
    the header's ``beacon`` (:data:`CHAIN_FIELDS`), each round's ``lock`` and ``beacon``
    (``bets_locked_at`` = its lock), the ``beacon_unavailable`` voids without cards, and the
    interventions with those voids apart (:func:`interventions_v2`).

    What the service gives: v1's header but the fields the draw fixes (:data:`DRAWN_FIELDS`,
    filled in here), ``beacon`` (the shoe's chain), and each round record's ``lock``, ``beacon``
    (absent for a beacon void whose beacon never came), ``dealt_at``, ``bets``,
    ``player_banker``, ``settlement`` / ``void`` and ``book``; every round's cards are drawn
    here, as v1's are re-derived from the seed, never copied from a record."""
    header = {k: proof[k] for k in proofdoc.HEADER_FIELDS if k not in DRAWN_FIELDS}
    header |= {k: proof[k] for k in proofdoc.COMMIT_FIELDS if k in proof}
    # the shoe's stored chain (its BeaconDoc) may carry its name: the proof states the chain
    chain = chain_of({k: v for k, v in proof["beacon"].items() if k != "name"})
    header |= {"spec": SPEC, "fairness": SPEC, "beacon": chain_json(chain)}
    if header["end_reason"] not in proofdoc.END_REASONS:
        raise ProofFormatError(f"end_reason {header['end_reason']!r} is not one of the reasons")
    key, rules = key_of(header)
    chain_hash = bytes.fromhex(chain.chain_hash)
    rounds = proof["rounds"]
    inputs = [round_input(r, chain_hash, f"round {i}") for i, r in enumerate(rounds, 1)]
    shoe = shoe_from_key_v2(key, rules, inputs)
    header |= {
        "cut_index": shoe.cut_index,
        "burn": len(shoe.burned),
        "burn_exposed": None if shoe.burn_exposed is None else code(shoe.burn_exposed),
        "first_round_start": shoe.first_start,
    }
    config = TableConfig.from_dict(header["table_config"])
    ref = proofdoc.refs_for(ref_key, header["table_id"])
    public = []
    for i, (r, drawn) in enumerate(zip(rounds, shoe.draws, strict=True)):
        if drawn is None:
            priced = None
            if r.get("beacon") is not None:
                later = priced_draw(key, rules, inputs, i, beacon_draw(r, chain_hash, "round"))
                priced = _replaced(config, later, r, ref)
            public.append(_beacon_void_round(r, priced, ref))
            continue
        row = proofdoc.public_round({**r, **round_json(drawn.round)}, drawn.round, config, ref)
        row |= {"bets_locked_at": r["lock"]["locked_at"], "lock": dict(r["lock"])}
        public.append(row | {"beacon": dict(r["beacon"])})
    possible = rounds_possible(shoe, rules)
    return {
        **header,
        "interventions": interventions_v2(header["end_reason"], public, possible),
        "rounds": public,
    }


def final_pages(
    proof: Mapping[str, Any],
    *,
    ref_key: bytes,
    signer: proofdoc.Signer,
    key_id: str,
    signed_at: str,
    budget: int = proofdoc.PAGE_BUDGET,
) -> list[dict[str, Any]]:
    """The private final proof → its signed public pages, whichever the shoe's fairness: a
    ``bacc-pf-v2`` shoe (``fairness``) by :func:`public_proof_v2`, any other by
    :func:`baccarat.proofdoc.public_proof`; then pages and signature as v1's."""
    public = (
        public_proof_v2(proof, ref_key)
        if proof.get("fairness") == SPEC
        else proofdoc.public_proof(proof, ref_key)
    )
    return proofdoc.sign(proofdoc.paginate(public, budget), signer, key_id, signed_at)
