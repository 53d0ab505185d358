"""Public proofs: final once, signed once, served in pages; the signing keys; the fairness summary.

A shoe's proof is **final** once the shoe has ended and every dealt round is settled or voided;
before that its route answers 409 ``shoe_not_closed`` or ``proof_pending``. **Finalisation** (on
the first read of a final proof, or by the sweep: :func:`finalise_due`) builds the pages, signs
their manifest once and stores them; ONE transaction then puts the signature on the proof item
*if it has none*, so of two finalisers one wins and the other serves the winner's signature.
**Serving** a page is one ``BatchGetItem`` and no KMS; its bytes are checked against the
manifest first."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, cast

from baccarat import pf2proof, proofdoc
from baccarat_api.ids import RoundRef, ShoeRef, parse_shoe_id, parse_table_id
from baccarat_api.ports.documents import Interventions, ProofSignature, Replaced
from baccarat_api.ports.records import (
    ENDED,
    ProofRecord,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
)
from baccarat_api.ports.repository import ConditionFailed, Repository, ShoeHistory
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service.beacon_prices import BeaconProvider, price_beacon_voids
from baccarat_api.service.errors import DomainError, lost_race, not_found
from baccarat_api.service.models import FairnessOut, SigningKeysOut
from baccarat_api.service.private_proof import private_proof
from baccarat_api.service.reveals import cards_shown

#: The split rule's page budget (``proofdoc.PAGE_BUDGET``; tests lower it to make pages).
PAGE_BUDGET = proofdoc.PAGE_BUDGET
#: ``Retry-After`` of a pending proof: the operator may settle its last rounds any second.
PENDING_RETRY_SECONDS = 5
#: Most proofs one sweep finalises (the next run takes the rest).
FINALISE_LIMIT = 20
#: Fairness summary page size: default and most.
FAIRNESS_LIMIT = 50
MAX_FAIRNESS_LIMIT = 200

#: The table's ref key of a shoe (32 bytes), unsealed by the vault.
RefKeys = Callable[[ShoeRecord], bytes]


@dataclass(frozen=True, slots=True)
class ServedPage:
    """Page ``number`` of a final proof as served: its JSON, signature included."""

    number: int
    body: bytes
    #: The page's hash (its manifest entry): a strong ETag.
    etag: str


@dataclass(frozen=True, slots=True)
class Finalised:
    """A final proof: its pages' canonical bytes (without the signature) and the signature."""

    pages: list[bytes]
    signature: ProofSignature


def _pending_error(unresolved: Sequence[tuple[int, str | None]]) -> DomainError:
    deadlines = [at for _, at in unresolved if at is not None]
    numbers = [n for n, _ in unresolved]
    return DomainError(
        "proof_pending",
        f"the shoe has ended; its proof is final once every round is resolved "
        f"({len(numbers)} not yet: settled or voided by the operator, or auto-settled at its "
        "deadline)",
        details={"unresolved_rounds": numbers, "settle_by": max(deadlines, default=None)},
        retry_after=PENDING_RETRY_SECONDS,
    )


def finalise(
    repo: Repository, vault: SecretVault, ref_keys: RefKeys, proof: ProofRecord,
    beacon: BeaconProvider | None = None,
) -> Finalised:  # fmt: skip
    """Make ``proof`` final (module docstring) or raise 409 ``proof_pending``; if another
    finaliser got there first, its signature (over the same pages). ``beacon``: the
    deployment's (asked for when needed), to price a bacc-pf-v2 shoe's beacon voids first
    (:mod:`.beacon_prices`)."""
    open_rounds = repo.open_rounds(proof.shoe_id)
    if open_rounds:
        raise _pending_error(open_rounds)
    shoe, rounds = _final_shoe(repo, proof)
    rounds = price_beacon_voids(repo, beacon, shoe, rounds)
    jwk = vault.public_jwk()
    signed_at = repo.clock()
    # the key's history first: every key that ever signed is listed, valid at this signed_at
    repo.record_signing_key(jwk, signed_at)
    pages = pf2proof.final_pages(  # a bacc-pf-v2 shoe (its "fairness") or v1
        private_proof(shoe, rounds),
        ref_key=ref_keys(shoe),
        signer=vault.sign,
        key_id=jwk["kid"],
        signed_at=signed_at,
        budget=PAGE_BUDGET,
    )
    signature = cast(ProofSignature, pages[0]["signature"])
    stored = [proofdoc.proof_bytes(proofdoc.unsigned_page(p)) for p in pages]
    repo.put_proof_pages(proof.shoe_id, stored)
    line = ShoeFairness(
        table_id=shoe.table_id,
        shoe_number=shoe.shoe_number,
        shoe_id=shoe.shoe_id,
        ended_at=pages[0]["ended_at"],
        end_reason=pages[0]["end_reason"],
        interventions=cast(Interventions, pages[0]["interventions"]),
        finalised_at=signed_at,
    )
    try:
        repo.finalise_proof(proof, signature, len(pages), signed_at, line)
    except ConditionFailed as exc:  # another finaliser's manifest won: the same pages
        winner = exc.existing
        if not isinstance(winner, ProofRecord) or winner.signature is None:
            raise lost_race() from None
        signature = winner.signature
    return Finalised(stored, signature)


def _final_shoe(repo: Repository, proof: ProofRecord) -> tuple[ShoeRecord, list[RoundRecord]]:
    """The proof's ended shoe and every round of it in order, read in one consistent Query;
    409 ``proof_pending`` while one is unresolved (the index is eventually consistent)."""
    ref = parse_shoe_id(proof.shoe_id)
    if ref is None or not proof.operator_id:
        raise RuntimeError(f"proof {proof.shoe_id} names no shoe record to finalise from")
    history = repo.shoe_history(proof.operator_id, ref)
    shoe = history.shoe
    if shoe is None or shoe.status != ENDED:
        raise RuntimeError(f"proof {proof.shoe_id}: its shoe record has not ended")
    if history.unreadable:  # never sign a proof that leaves out a stored round
        raise RuntimeError(f"proof {proof.shoe_id}: unreadable items {history.unreadable}")
    dealt = {r.round_number: r for r in history.rounds}
    unresolved = [
        (n, dealt[n].settle_by if n in dealt else None)
        for n in range(1, shoe.rounds_dealt + 1)
        if n not in dealt or not dealt[n].resolved
    ]
    if unresolved:
        raise _pending_error(unresolved)
    return shoe, [dealt[n] for n in range(1, shoe.rounds_dealt + 1)]


# --- serving -------------------------------------------------------------------------------------


def _page_to_serve(number: int, stored: bytes, signature: ProofSignature) -> ServedPage:
    """The stored page with its signature, after checking it is what the manifest covers."""
    expected = signature["manifest"]["pages"][number - 1]
    if hashlib.sha256(stored).hexdigest() != expected:
        raise RuntimeError(f"stored page {number} is not the page its manifest signed")
    # canonical(page − signature) with the signature as its first member: the same JSON object
    body = b'{"signature":' + proofdoc.proof_bytes(signature) + b"," + stored[1:]
    return ServedPage(number=number, body=body, etag=expected)


def proof_page(
    repo: Repository, vault: SecretVault, ref_keys: RefKeys, shoe_id: str, number: int = 1,
    beacon: BeaconProvider | None = None,
) -> ServedPage:  # fmt: skip
    """Page ``number`` of the shoe's final proof (no key: public). 409 ``shoe_not_closed``
    while the shoe is open, 404 for an unknown shoe and a page out of range; 409
    ``proof_pending`` while it has ended with rounds unresolved. The first read after the proof
    became final finalises it."""
    if parse_shoe_id(shoe_id) is None or not 1 <= number <= proofdoc.MAX_PAGES:
        raise not_found("proof", shoe_id if number == 1 else f"{shoe_id} page {number}")
    proof, stored = repo.proof_page(shoe_id, number)
    if proof is None:
        raise _not_closed_error(repo, shoe_id) or not_found("proof", shoe_id)
    if proof.signature is None:
        final = finalise(repo, vault, ref_keys, proof, beacon)
        if number > len(final.pages):
            raise not_found("proof page", f"{shoe_id} page {number}")
        return _page_to_serve(number, final.pages[number - 1], final.signature)
    if stored is None or proof.page_count is None or number > proof.page_count:
        raise not_found("proof page", f"{shoe_id} page {number}")
    return _page_to_serve(number, stored, proof.signature)


@dataclass(slots=True)
class FinaliseReport:
    finalised: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    #: shoe id → error (the next sweep tries again)
    failed: dict[str, str] = field(default_factory=dict)


def finalise_due(
    repo: Repository,
    vault: SecretVault,
    ref_keys: RefKeys,
    at: str,
    limit: int = FINALISE_LIMIT,
    beacon: BeaconProvider | None = None,
) -> FinaliseReport:
    """The sweep's part: finalise every ended shoe's proof that has become final by ``at``."""
    report = FinaliseReport()
    for shoe_id in repo.due_proofs(at, limit):
        try:
            proof, _ = repo.proof_page(shoe_id, 1)
            if proof is None or proof.signature is not None:
                continue  # finalised since the index was read
            finalise(repo, vault, ref_keys, proof, beacon)
        except DomainError as exc:
            if exc.code == "proof_pending":
                report.pending.append(shoe_id)
            else:
                report.failed[shoe_id] = exc.code
            continue
        except Exception as exc:  # one bad shoe must not stop the sweep for every other one
            report.failed[shoe_id] = type(exc).__name__
            continue
        report.finalised.append(shoe_id)
    return report


# --- open shoes: what is public before the proof ------------------------------------------------


def _operator_of(repo: Repository, table_id: str) -> str | None:
    """The table's operator, from its public fairness totals item (``None``: unknown table,
    or one made before the item named it)."""
    page = repo.fairness(table_id, before=None, limit=1)
    return page.totals.operator_id or None if page.totals is not None else None


def _open_history(repo: Repository, operator_id: str, shoe_id: str) -> ShoeHistory | None:
    ref = parse_shoe_id(shoe_id)
    if ref is None:
        return None
    history = repo.shoe_history(operator_id, ref)
    if history.shoe is None or history.shoe.status == ENDED:
        return None
    return history


class _OpenInterventions(TypedDict):
    voided_rounds: int
    voided_player_net: int
    voided_player_banker_net: int
    rounds_dealt: int


class _OpenVoid(TypedDict):
    round_number: int
    reason: str
    note: str | None
    voided_at: str
    replaced: Replaced | None


class OpenShoe(TypedDict):
    """An open shoe in the table's fairness summary: how far it went, and its voids."""

    shoe_id: str
    shoe_number: int
    created_at: str
    close_by: str | None
    interventions: _OpenInterventions
    voids: list[_OpenVoid]


def _open_view(history: ShoeHistory, at: str) -> OpenShoe:
    """An open shoe as the public may see it: how far it went and its voids — priced like a
    proof's interventions (:func:`baccarat.proofdoc.voided_nets`), bettors by ref — and no
    card: a void's ``replaced`` (which gives its round's result away) only once every card of
    that round is shown at the table."""
    shoe = history.shoe
    assert shoe is not None
    voids: list[_OpenVoid] = []
    bettors = banker = 0
    for r in history.rounds:
        if r.void is None:
            continue
        refs = {str(b["bettor_id"]): str(b["bettor_ref"]) for b in r.bets}
        pb = r.player_banker
        if pb is not None:
            refs[str(pb["bettor_id"])] = str(pb["bettor_ref"])
        shown = cards_shown(r, at)
        replaced: Replaced | None = None
        if shown:
            was = r.void["replaced"]
            nets = {refs[k]: int(v) for k, v in was["nets"].items() if k in refs}
            take = int(was["house_take"])
            if r.book is not None:  # the house's figures include the book's
                take += int(r.book["totals"]["house"]["take"])
            replaced = {"nets": nets, "house_take": take}
            public = {
                "void": {"replaced": replaced},
                "player_banker": None if pb is None else {"bettor_ref": pb["bettor_ref"]},
                **({} if r.book is None else {"book": {"totals": r.book["totals"]}}),
            }
            b, p = proofdoc.voided_nets(public)
            bettors, banker = bettors + b, banker + p
        voids.append(
            {
                "round_number": r.round_number,
                "reason": r.void["reason"],
                "note": r.void.get("note"),
                "voided_at": r.void["voided_at"],
                "replaced": replaced,
            }
        )
    return {
        "shoe_id": shoe.shoe_id,
        "shoe_number": shoe.shoe_number,
        "created_at": shoe.created_at,
        "close_by": shoe.close_by,
        "interventions": {
            "voided_rounds": len(voids),
            "voided_player_net": bettors,
            "voided_player_banker_net": banker,
            "rounds_dealt": shoe.rounds_dealt,
        },
        "voids": voids,
    }


def open_shoe_view(repo: Repository, operator_id: str, shoe_id: str) -> OpenShoe | None:
    """The shoe for the fairness summary if it is open (``None``: ended, or unknown): one
    Query of the shoe and its rounds."""
    history = _open_history(repo, operator_id, shoe_id)
    return None if history is None else _open_view(history, repo.clock())


def _seconds_until(at: str, moment: str | None) -> int:
    from datetime import datetime

    if moment is None:
        return PENDING_RETRY_SECONDS
    delta = datetime.fromisoformat(moment.replace("Z", "+00:00")) - datetime.fromisoformat(
        at.replace("Z", "+00:00")
    )
    return int(delta.total_seconds())


def _not_closed_error(repo: Repository, shoe_id: str) -> DomainError | None:
    """409 ``shoe_not_closed`` for a known shoe that is still open (``None``: unknown)."""
    ref = parse_shoe_id(shoe_id)
    operator_id = None if ref is None else _operator_of(repo, ref.table_id)
    history = None if operator_id is None else _open_history(repo, operator_id, shoe_id)
    if history is None or history.shoe is None:
        return None
    at = repo.clock()
    view = _open_view(history, at)
    iv = view["interventions"]
    close_by = history.shoe.close_by
    return DomainError(
        "shoe_not_closed",
        f"shoe {shoe_id} is still open ({iv['rounds_dealt']} rounds dealt, "
        f"{iv['voided_rounds']} voided so far): its proof is published when it ends — by its "
        "rules, by the operator's close, or by the service once it is idle (close_by)",
        details={
            "table_id": history.shoe.table_id,
            "shoe_number": history.shoe.shoe_number,
            "rounds_dealt": iv["rounds_dealt"],
            "voided_rounds": iv["voided_rounds"],
            "close_by": close_by,
        },
        retry_after=max(PENDING_RETRY_SECONDS, min(_seconds_until(at, close_by), 3600)),
    )


# --- public book pages ---------------------------------------------------------------------------


def book_page(repo: Repository, shoe_id: str, round_number: int, page: int) -> bytes:
    """Page ``page`` (from 0) of round ``round_number``'s public book (``bacc-book-v1``, as its
    settlement chunk wrote it), canonical JSON: public, like the proof — it names no bettor and
    is bound by the proof round's ``book.root``. 404 ``not_found`` for an unknown shoe or round,
    a round without a book and a page out of range; 404 ``settlement_pending`` (retryable)
    until the round is settled and that chunk written. One read when it is there."""
    ref = parse_shoe_id(shoe_id)
    what = f"{shoe_id} round {round_number} book page {page}"
    if ref is None or round_number < 1 or page < 0:
        raise not_found("book page", what)
    operator_id = _operator_of(repo, ref.table_id)
    if operator_id is None:
        raise not_found("shoe", shoe_id)
    round_ref = RoundRef(ref.table_id, ref.shoe_number, round_number)
    doc = repo.chunks.book_page(operator_id, round_ref, page)
    if doc is not None:
        return proofdoc.proof_bytes(doc)
    r = repo.get_round(operator_id, round_ref)
    if r is None or r.book is None or page >= r.book["chunks"]:
        raise not_found("book page", what)
    raise DomainError(
        "settlement_pending",
        f"round {round_number}'s book is public once the round is settled and its page "
        f"{page} written",
        details={"round_id": round_ref.round_id, "page": page},
    )


# --- the signing keys and the fairness summary ---------------------------------------------------


def signing_keys(repo: Repository, vault: SecretVault) -> SigningKeysOut:
    """The JWK set of every key that ever signed a proof (``kid`` = RFC 7638 thumbprint), each
    with its validity: ``not_before`` = its first signature, ``not_after`` = its last signature
    once a newer key signs (``retired``; None while ``current``). Decided from the stored history
    alone — the key that first signed last is current — so every container answers the same list
    whichever key it holds (one still on an older key after a key change lists the new key as
    current). The serving container's key, if it has not signed yet, is listed as ``current``
    with ``not_before`` None. A proof names its key by ``key_id``; its ``signed_at`` falls in
    that key's validity (the record is written before each signature)."""
    records = sorted(repo.signing_keys(), key=lambda r: (r.first_signed_at, r.kid))
    newest = records[-1].kid if records else None
    listed = [
        {
            **record.jwk,
            "status": "current" if record.kid == newest else "retired",
            "not_before": record.first_signed_at,
            "not_after": None if record.kid == newest else record.last_signed_at,
        }
        for record in records
    ]
    serving = vault.public_jwk()
    if not any(k["kid"] == serving["kid"] for k in listed):
        listed.append({**serving, "status": "current", "not_before": None, "not_after": None})
    return SigningKeysOut.model_validate({"keys": listed})


def _cursor(text: str | None) -> int | None:
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and 1 <= len(text) <= 6 and text[0] != "0"):
        raise DomainError(
            "invalid_cursor", "cursor: not a cursor this route gave", details={"cursor": text}
        )
    return int(text)


def fairness(
    repo: Repository, table_id: str, cursor: str | None = None, limit: int = FAIRNESS_LIMIT
) -> FairnessOut:
    """The table's public fairness summary: every ended shoe whose proof is final, newest
    first, ``limit`` a page, with the running totals over all of them, and (first page) its
    open shoe as far as it went (:func:`open_shoe_view`). 404 for an unknown table."""
    before = _cursor(cursor)
    page = repo.fairness(table_id, before=before, limit=limit) if parse_table_id(table_id) else None
    if page is None or page.totals is None:
        raise not_found("table", table_id)
    t = page.totals
    open_shoe = None
    # the latest shoe may be open unless it is the newest final line already listed (then the
    # summary costs its one Query); a shoe ended but not final yet is read and found ended
    newest = page.shoes[0].shoe_number if page.shoes else 0
    if before is None and t.operator_id and t.latest_shoe_number not in (0, newest):
        latest = ShoeRef(table_id, t.latest_shoe_number).shoe_id
        open_shoe = open_shoe_view(repo, t.operator_id, latest)
    return FairnessOut.model_validate(
        {
            "table_id": table_id,
            "totals": {
                "shoes": t.shoes,
                "voided_rounds": t.voided_rounds,
                "voided_player_net": t.voided_player_net,
                "voided_player_banker_net": t.voided_player_banker_net,
                "closed_early": t.closed_early,
                "rounds_dealt": t.rounds_dealt,
                "rounds_possible": t.rounds_possible,
            },
            "open_shoe": open_shoe,
            "shoes": [
                {
                    "shoe_id": line.shoe_id,
                    "shoe_number": line.shoe_number,
                    "ended_at": line.ended_at,
                    "end_reason": line.end_reason,
                    # a line finalised before the player-banker was shown apart has no field
                    "interventions": {"voided_player_banker_net": 0, **line.interventions},
                    "proof": f"/v1/shoes/{line.shoe_id}/proof",
                }
                for line in page.shoes
            ],
            "next_cursor": str(page.shoes[-1].shoe_number) if page.more else None,
        }
    )
