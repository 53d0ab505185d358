"""The public proof of a shoe (``docs/bacc-pf-v1.md``, "The public proof"): the service's
private final proof (:data:`HEADER_FIELDS` and every dealt round with its cards, ``dealt_at``,
bets by bettor id, ``player_banker`` and a settlement or a void) → :func:`public_proof` (bettor
refs, public fields, lifecycle marks, the voids' replaced settlements, interventions) →
:func:`paginate` → :func:`sign`; :func:`final_pages` does all three. Pure and deterministic.
The bytes and keys are :mod:`baccarat.proofbytes`, the interventions
:mod:`baccarat.interventions`; both are re-exported here."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .audit import canonical as canonical
from .bets import Bet, PlayerBanker, bets_from_json
from .fairness import derive_shoe
from .interventions import INTERVENTION_FIELDS as INTERVENTION_FIELDS
from .interventions import as_claimed as as_claimed
from .interventions import interventions
from .interventions import interventions_text as interventions_text
from .interventions import voided_nets as voided_nets
from .outcome import Round
from .profiles import TableConfig
from .proofbook import SPEC_V11, public_book, with_book
from .proofbytes import ALG as ALG
from .proofbytes import MAX_SAFE_INTEGER as MAX_SAFE_INTEGER
from .proofbytes import ProofFormatError as ProofFormatError
from .proofbytes import b64url as b64url
from .proofbytes import b64url_decode as b64url_decode
from .proofbytes import check_domain as check_domain
from .proofbytes import jwk_from_spki as jwk_from_spki
from .proofbytes import jwk_thumbprint as jwk_thumbprint
from .proofbytes import page_hash as page_hash
from .proofbytes import proof_bytes as proof_bytes
from .proofbytes import public_jwk as public_jwk
from .proofbytes import raw_signature as raw_signature
from .proofbytes import unsigned_page as unsigned_page
from .rules import ShoeRules
from .settlement import settle

#: The manifest's ``spec``: what the signature means.
SIGNATURE_SPEC = "bacc-proof-sig-v1"
#: A page takes rounds while its canonical size (without ``page`` and ``signature``) stays ≤ this.
PAGE_BUDGET = 900_000
#: ``canonical(manifest)`` is signed as a RAW KMS message: at most 4096 bytes.
MAX_MANIFEST_BYTES = 4096
#: No fetcher follows more pages than this (a manifest of 4096 bytes lists fewer).
MAX_PAGES = 64
#: Why a round may be voided.
VOID_REASONS = ("misdeal", "technical_fault", "operator_error", "regulatory")
#: End reasons of an ended shoe: by its rules, or closed early.
END_REASONS = ("rules", "closed")
#: ``bettor_ref`` = ``"br_"`` + 24 base32 characters (15 bytes of HMAC-SHA-256).
REF_PREFIX = "br_"
REF_TAG = b"bacc-ref-v1"
REF_KEY_BYTES = 32
_REF_BYTES = 15

#: The header of a public proof (every page carries it), besides ``interventions``.
HEADER_FIELDS = (
    "spec",
    "shoe_id",
    "table_id",
    "anchor",
    "shoe_number",
    "client_seed",
    "client_hash",
    "rules",
    "server_seed",
    "end_reason",
    "ended_at",
    "cut_index",
    "burn",
    "burn_exposed",
    "first_round_start",
    "table_config",
)
#: The header of a shoe the running table committed itself, with a client seed given in advance
#: (absent from every other proof): ``committed_by`` is ``"clock"``.
COMMIT_FIELDS = ("committed_by", "committed_at", "client_seed_given_at")
#: The re-derived round, as ``Shoe.rounds_json`` gives it.
CARD_FIELDS = (
    "round_number",
    "start",
    "player",
    "banker",
    "player_total",
    "banker_total",
    "result",
)
#: What a public bet shows: everything its settlement is computed from, nothing private.
PUBLIC_BET_FIELDS = ("bettor_ref", "role", "seat", "type", "amount")
#: A settlement's money: what a verifier recomputes and compares.
SETTLEMENT_MONEY_FIELDS = (
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
#: What a public settlement shows: its money and bookkeeping (balances after the round are the
#: operator's).
PUBLIC_SETTLEMENT_FIELDS = ("round_id", *SETTLEMENT_MONEY_FIELDS, "settled_at", "auto_settled")
PUBLIC_LINE_FIELDS = (
    "index",
    "bettor_ref",
    "type",
    "stake",
    "grade",
    "multiplier",
    "gross_win",
    "commission",
    "net",
    "covered_by",
)
PUBLIC_PARTICIPANT_FIELDS = ("bettor_ref", "role", "stake", "gross", "commission", "net")
#: Timestamps: UTC, milliseconds, ``Z`` (they compare correctly as strings).
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")

#: ``signer(message) -> r ‖ s``: ES256 over ``message`` (64 bytes, IEEE P1363).
Signer = Callable[[bytes], bytes]
#: Bettor id → its public ref.
Refs = Callable[[str], str]


# --- pseudonyms ----------------------------------------------------------------------------------


def bettor_ref(ref_key: bytes, table_id: str, bettor_id: str) -> str:
    """``"br_" + base32_lower_nopad(HMAC-SHA-256(ref_key, "bacc-ref-v1" ‖ 0x00 ‖ table_id ‖ 0x00
    ‖ utf8(bettor_id))[:15])``: 27 characters, stable per table and bettor, unlinkable to the id
    without the table's ``ref_key`` (32 bytes)."""
    if len(ref_key) != REF_KEY_BYTES:
        raise ProofFormatError(f"a ref key is {REF_KEY_BYTES} bytes, got {len(ref_key)}")
    msg = b"\x00".join((REF_TAG, table_id.encode("utf-8"), bettor_id.encode("utf-8")))
    mac = hmac.new(ref_key, msg, hashlib.sha256).digest()[:_REF_BYTES]
    return REF_PREFIX + base64.b32encode(mac).decode("ascii").lower()


def refs_for(ref_key: bytes, table_id: str) -> Refs:
    """:func:`bettor_ref` of one table, remembered per id."""
    seen: dict[str, str] = {}

    def ref(bettor_id: str) -> str:
        if bettor_id not in seen:
            seen[bettor_id] = bettor_ref(ref_key, table_id, bettor_id)
        return seen[bettor_id]

    return ref


def _public_copy(doc: Mapping[str, Any], fields: Sequence[str], ref: str) -> dict[str, Any]:
    """``fields`` of ``doc`` in that order, ``bettor_ref`` being the pseudonym of ``doc[id]``."""
    return {
        k: ref if k == "bettor_ref" else doc[k] for k in fields if k == "bettor_ref" or k in doc
    }


def public_settlement(doc: Mapping[str, Any], ref: Refs) -> dict[str, Any]:
    """A settlement document (``{round_number?, **Settlement.as_dict(), nets, …}``) in public
    form: only :data:`PUBLIC_SETTLEMENT_FIELDS`; lines and participants name bettors by ref
    (``bettor_ref`` in place of ``bettor_id`` / ``id``); ``nets`` keyed by ref. With ``ref`` the
    identity this is how a verifier writes the settlement it recomputed from public bets."""
    out: dict[str, Any] = {k: doc[k] for k in PUBLIC_SETTLEMENT_FIELDS if k in doc}
    if "lines" in doc:
        out["lines"] = [
            _public_copy(line, PUBLIC_LINE_FIELDS, ref(line["bettor_id"])) for line in doc["lines"]
        ]
    if "bettors" in doc:
        out["bettors"] = [_public_participant(p, ref) for p in doc["bettors"]]
    if doc.get("player_banker") is not None:
        out["player_banker"] = _public_participant(doc["player_banker"], ref)
    if "nets" in doc:
        out["nets"] = {ref(who): net for who, net in doc["nets"].items()}
    return out


def _public_participant(p: Mapping[str, Any], ref: Refs) -> dict[str, Any]:
    return _public_copy(p, PUBLIC_PARTICIPANT_FIELDS, ref(p["id"]))


def public_bets(bets: Sequence[Mapping[str, Any]], ref: Refs) -> list[dict[str, Any]]:
    """Bets as the proof shows them: :data:`PUBLIC_BET_FIELDS`, in accepted order."""
    return [_public_copy(b, PUBLIC_BET_FIELDS, ref(b["bettor_id"])) for b in bets]


# --- settling again: voids' replaced settlement, and what verifiers recompute --------------------


def parse_bets(
    bets: Sequence[Mapping[str, Any]],
    player_banker: Mapping[str, Any] | None,
    id_field: str = "bettor_id",
) -> tuple[list[Bet], PlayerBanker | None]:
    """API-form bets and player-banker whose bettor is named by ``id_field`` (``bettor_id``, or
    ``bettor_ref`` for public bets) as the engine's objects. Raises ``KeyError``, ``TypeError``,
    ``ValueError`` or ``AttributeError`` on a malformed bet."""
    named = [{**b, "bettor_id": b[id_field]} for b in bets]
    pb = (
        None
        if player_banker is None
        else PlayerBanker(str(player_banker[id_field]), player_banker.get("balance", 0))
    )
    return bets_from_json(named), pb


def settlement_doc(
    config: TableConfig, round_: Round, bets: Sequence[Bet], player_banker: PlayerBanker | None
) -> dict[str, Any]:
    """``settle`` on ``round_`` as a document: ``{round_number, **Settlement.as_dict(), nets}``.
    The settlement only groups by bettor, so it is the same under any renaming of the bettors
    (a property the tests check): settling public bets (refs) gives the public settlement."""
    settled = settle(config, round_, bets, player_banker)
    return {"round_number": round_.number, **settled.as_dict(), "nets": settled.nets()}


def replaced_amounts(settlement: Mapping[str, Any]) -> dict[str, Any]:
    """What a void's ``replaced`` shows of the settlement it replaced."""
    return {"nets": dict(settlement["nets"]), "house_take": settlement["house"]["take"]}


# --- the public proof ----------------------------------------------------------------------------


def _with_book_house(settlement: dict[str, Any], round_: Mapping[str, Any]) -> dict[str, Any]:
    """A v1.1 round's settlement: the seated bettors' (recomputable from ``bets``) with the
    house's figures including the book's. The stored seated settlement must balance on its own
    (a house-banked table: Σ nets + take = 0), or the book would be counted twice."""
    book = round_.get("book")
    if book is None:
        return settlement
    if sum(settlement["nets"].values()) + settlement["house"]["take"] != 0:
        raise ProofFormatError(
            f"round {round_['round_number']}: its seated settlement does not balance alone"
        )
    return {**settlement, "house": with_book(settlement["house"], book)}


def _shoe_rounds(header: Mapping[str, Any]) -> tuple[Round, ...]:
    shoe = derive_shoe(
        bytes.fromhex(header["server_seed"]),
        header["client_seed"],
        header["shoe_number"],
        ShoeRules.from_dict(header["rules"]),
    )
    return shoe.rounds


def _void_facts(void: Mapping[str, Any], where: str) -> tuple[str, str | None, str]:
    reason = void.get("reason", void.get("void_reason"))
    note = void.get("note", void.get("void_note"))
    voided_at = void.get("voided_at", void.get("settled_at"))
    if reason not in VOID_REASONS:
        raise ProofFormatError(f"{where}: void reason {reason!r} is not one of {VOID_REASONS}")
    if note is not None and not isinstance(note, str):
        raise ProofFormatError(f"{where}: a void's note is a string or null")
    if not isinstance(voided_at, str) or not TIMESTAMP.fullmatch(voided_at):
        raise ProofFormatError(f"{where}: voided_at {voided_at!r} is not a UTC timestamp")
    return reason, note, voided_at


def _public_round(
    r: Mapping[str, Any], derived: Round, config: TableConfig, ref: Refs
) -> dict[str, Any]:
    where = f"round {r.get('round_number')}"
    dealt_at = r.get("dealt_at")
    if not isinstance(dealt_at, str) or not TIMESTAMP.fullmatch(dealt_at):
        raise ProofFormatError(f"{where}: dealt_at {dealt_at!r} is not a UTC timestamp")
    settlement, void = r.get("settlement"), r.get("void")
    if (settlement is None) == (void is None):
        raise ProofFormatError(
            f"{where} is {'both settled and voided' if void else 'not resolved'}: a final proof "
            "has every round either settled or voided"
        )
    bets = r.get("bets") or []
    pb = r.get("player_banker")
    out: dict[str, Any] = {k: r[k] for k in CARD_FIELDS}
    out |= {
        "dealt_at": dealt_at,
        "bets_locked_at": dealt_at,
        "bets": public_bets(bets, ref),
        "player_banker": None if pb is None else {"bettor_ref": ref(pb["bettor_id"])},
        "voided": void is not None,
    }
    if r.get("book") is not None:  # bacc-pf-v1.1: the spectators' book, by its root and money
        out["book"] = public_book(r["book"])
    if settlement is not None:
        out |= {
            "settled_at": settlement["settled_at"],
            "voided_at": None,
            "settlement": _with_book_house(public_settlement(settlement, ref), out),
            "void": None,
        }
    else:
        assert void is not None
        reason, note, voided_at = _void_facts(void, where)
        would = public_settlement(settlement_doc(config, derived, *parse_bets(bets, pb)), ref)
        would = _with_book_house(would, out)
        out |= {
            "settled_at": None,
            "voided_at": voided_at,
            "settlement": None,
            "void": {
                "reason": reason,
                "note": note,
                "voided_at": voided_at,
                "replaced": replaced_amounts(would),
            },
        }
    return out


#: One dealt round of the private proof → its public form, and a settlement with a v1.1 book's
#: house figures (:mod:`baccarat.pf2proof` builds on both).
public_round = _public_round
with_book_house = _with_book_house


def public_proof(proof: Mapping[str, Any], ref_key: bytes) -> dict[str, Any]:
    """The public proof (one object, before pages and signature) from the private final proof
    (module docstring). Raises :class:`ProofFormatError` on a round that is not resolved, lacks
    ``dealt_at``, or was voided for an unknown reason. A ``bacc-pf-v2`` shoe's is
    :func:`baccarat.pf2proof.public_proof_v2` (:func:`baccarat.pf2proof.final_pages` picks)."""
    header = {k: proof[k] for k in HEADER_FIELDS}
    header |= {k: proof[k] for k in COMMIT_FIELDS if k in proof}
    if header["end_reason"] not in END_REASONS:
        raise ProofFormatError(f"end_reason {header['end_reason']!r} is not one of {END_REASONS}")
    derived = _shoe_rounds(header)
    rounds = proof["rounds"]
    if len(rounds) > len(derived):
        raise ProofFormatError(f"{len(rounds)} rounds; the shoe deals {len(derived)}")
    config = TableConfig.from_dict(header["table_config"])
    ref = refs_for(ref_key, header["table_id"])
    public = [_public_round(r, d, config, ref) for r, d in zip(rounds, derived, strict=False)]
    if any("book" in r for r in public):
        header["spec"] = SPEC_V11
    return {
        **header,
        "interventions": interventions(header["end_reason"], public, len(derived)),
        "rounds": public,
    }


def automatic_commit(committed_at: str, client_seed_given_at: str) -> dict[str, str]:
    """The header fields (:data:`COMMIT_FIELDS`) of a shoe the running table committed itself
    at ``committed_at`` with a client seed given at ``client_seed_given_at``."""
    return {
        "committed_by": "clock",
        "committed_at": committed_at,
        "client_seed_given_at": client_seed_given_at,
    }


# --- pages ---------------------------------------------------------------------------------------


def page_url(shoe_id: str, number: int) -> str:
    """The relative URL of page ``number`` (page 1 is also ``/v1/shoes/{shoe_id}/proof``)."""
    return f"/v1/shoes/{shoe_id}/proof?page={number}"


def header_of(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Every top-level member but ``rounds``, ``page`` and ``signature``: the same on every page."""
    return {k: v for k, v in doc.items() if k not in ("rounds", "page", "signature")}


def split(header: Mapping[str, Any], rounds: Sequence[Any], budget: int) -> list[list[Any]]:
    """The split rule: rounds in order; a page takes the next round while
    ``len(canonical({**header, "rounds": its rounds}))`` stays ≤ ``budget``; every page takes at
    least one round (a round larger than the budget alone is a page of its own); no rounds → one
    empty page. Sizes add up exactly: ``len(canonical({**header, "rounds": []}))`` + each
    round's canonical size + one comma between rounds."""
    base = len(proof_bytes({**header, "rounds": []}))
    pages: list[list[Any]] = [[]]
    size = base
    for r in rounds:
        grow = len(proof_bytes(r)) + (1 if pages[-1] else 0)
        if pages[-1] and size + grow > budget:
            pages.append([])
            size, grow = base, grow - 1
        pages[-1].append(r)
        size += grow
    return pages


def paginate(proof: Mapping[str, Any], budget: int = PAGE_BUDGET) -> list[dict[str, Any]]:
    """The public proof's pages (unsigned), each ``{**header, "page": {number, count,
    first_round, last_round, next}, "rounds": [...]}``."""
    header = header_of(proof)
    groups = split(header, proof["rounds"], budget)
    count = len(groups)
    shoe_id = header["shoe_id"]
    return [
        {
            **header,
            "page": {
                "number": k,
                "count": count,
                "first_round": group[0]["round_number"] if group else None,
                "last_round": group[-1]["round_number"] if group else None,
                "next": page_url(shoe_id, k + 1) if k < count else None,
            },
            "rounds": list(group),
        }
        for k, group in enumerate(groups, start=1)
    ]


# --- the signature -------------------------------------------------------------------------------


def manifest(pages: Sequence[Mapping[str, Any]], key_id: str, signed_at: str) -> dict[str, Any]:
    """``{spec, shoe_id, key_id, signed_at, pages: [sha256 of each page]}``; its canonical bytes
    (what is signed) are at most :data:`MAX_MANIFEST_BYTES`."""
    if not TIMESTAMP.fullmatch(signed_at):
        raise ProofFormatError(f"signed_at {signed_at!r} is not a UTC timestamp")
    doc = {
        "spec": SIGNATURE_SPEC,
        "shoe_id": pages[0]["shoe_id"],
        "key_id": key_id,
        "signed_at": signed_at,
        "pages": [page_hash(p) for p in pages],
    }
    size = len(proof_bytes(doc))
    if size > MAX_MANIFEST_BYTES:
        raise ProofFormatError(f"the manifest is {size} bytes; at most {MAX_MANIFEST_BYTES}")
    return doc


def sign(
    pages: Sequence[Mapping[str, Any]], signer: Signer, key_id: str, signed_at: str
) -> list[dict[str, Any]]:
    """Every page with the same ``signature``: ``{alg: "ES256", key_id, manifest, value}``,
    ``value`` = base64url(``signer(canonical(manifest))``), the 64-byte ``r ‖ s``."""
    doc = manifest(pages, key_id, signed_at)
    value = signer(proof_bytes(doc))
    if len(value) != 64:
        raise ProofFormatError(f"an ES256 signature is 64 bytes (r ‖ s), got {len(value)}")
    signature = {"alg": ALG, "key_id": key_id, "manifest": doc, "value": b64url(value)}
    return [{**unsigned_page(p), "signature": signature} for p in pages]


def final_pages(
    proof: Mapping[str, Any],
    *,
    ref_key: bytes,
    signer: Signer,
    key_id: str,
    signed_at: str,
    budget: int = PAGE_BUDGET,
) -> list[dict[str, Any]]:
    """The private final proof → the signed public pages (:func:`public_proof`,
    :func:`paginate`, :func:`sign`)."""
    return sign(paginate(public_proof(proof, ref_key), budget), signer, key_id, signed_at)
