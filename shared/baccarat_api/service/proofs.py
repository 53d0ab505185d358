"""Public proofs: final once, signed once, served in pages; the signing keys; the fairness summary.

A shoe's proof is **final** when the shoe has ended and every dealt round is resolved (settled —
by the operator or automatically — or voided). Until then ``GET /v1/shoes/{shoe_id}/proof``
answers 404 ``not_found`` while the shoe is open (there is no proof item yet) and 409
``proof_pending`` (retryable) once it has ended with rounds unresolved; they resolve by their
settle deadline at the latest (auto-settlement).

**Finalisation** happens once per shoe, lazily on the first proof read after the proof became
final, and in the sweep (:func:`finalise_due`), so a table's fairness summary is complete even
for proofs nobody reads:

1. the shoe's unresolved rounds, from the sparse ``OpenRounds`` index (a cheap query that reads
   no round): any → ``proof_pending``;
2. the shoe and every round of it: one strongly consistent ``Query`` (one page per MB) of the
   operator's partition — checked again (the index is eventually consistent);
3. the private final proof (:func:`private_proof`) → ``proofdoc.final_pages`` with the table's
   ref key (unsealed by the vault, purpose ``bettor-ref``) and the vault's signer (KMS ``Sign``,
   once): the signed pages;
4. the pages stored (their canonical bytes without the signature; identical whoever finalises,
   so plain puts), then ONE transaction: the signature onto the proof item *if it has none* (the
   write-once condition: of two concurrent finalisers exactly one wins, the other serves the
   winner's signature over the same pages), the shoe's line of the table's fairness summary and
   the totals it adds to.

**Serving**: a page is the stored bytes and the proof item's signature: one ``BatchGetItem``, no
KMS call, at most ~905 KB; page ``k`` out of ``1 … n`` is 404. What is served is checked
against the manifest it carries (its hash is the page's entry), so nothing the signature does
not cover is ever served.

Round trips: a read of a final proof's page = 1. A read of a pending proof = 2 (the page read
and the ``OpenRounds`` query). Finalisation = the ``OpenRounds`` query + the shoe's ``Query``
pages (one per MB of rounds) + the signing key's history record (one ``UpdateItem``, before the
signature: :func:`signing_keys`) + the page writes (one ``PutItem`` per stored part: a page of up
to 350 KB is one part, the largest three) + 1 transaction; KMS: one ``Sign`` (plus, on a cold
container, one ``Decrypt`` of the ref key and one ``GetPublicKey``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from baccarat import proofdoc
from baccarat_api.clock import now
from baccarat_api.ids import parse_shoe_id, parse_table_id
from baccarat_api.ports.records import ENDED, ProofRecord, RoundRecord, ShoeFairness, ShoeRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service.errors import DomainError, lost_race, not_found
from baccarat_api.service.models import FairnessOut, SigningKeysOut
from baccarat_api.service.views import derived_header, private_round

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
    signature: dict[str, Any]


# --- the private final proof ---------------------------------------------------------------------


def private_proof(shoe: ShoeRecord, rounds: Sequence[RoundRecord]) -> dict[str, Any]:
    """The private final proof ``proofdoc.public_proof`` takes, from the ended shoe's record
    and its round records (in order, every one resolved)."""
    header, derived = derived_header(shoe)
    return {
        **header,
        "rounds": [private_round(r, d) for r, d in zip(rounds, derived, strict=False)],
    }


def _pending(unresolved: Sequence[tuple[int, str | None]]) -> DomainError:
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
    repo: Repository, vault: SecretVault, ref_keys: RefKeys, proof: ProofRecord
) -> Finalised:
    """Make ``proof`` final (module docstring) or raise 409 ``proof_pending``; if another
    finaliser got there first, its signature (over the same pages)."""
    open_rounds = repo.open_rounds(proof.shoe_id)
    if open_rounds:
        raise _pending(open_rounds)
    ref = parse_shoe_id(proof.shoe_id)
    if ref is None or not proof.operator_id:
        raise RuntimeError(f"proof {proof.shoe_id} names no shoe record to finalise from")
    history = repo.shoe_history(proof.operator_id, ref)
    shoe, rounds = history.shoe, history.rounds
    if shoe is None or shoe.status != ENDED:
        raise RuntimeError(f"proof {proof.shoe_id}: its shoe record has not ended")
    if history.unreadable:  # never sign a proof that leaves out a stored round
        raise RuntimeError(f"proof {proof.shoe_id}: unreadable items {history.unreadable}")
    dealt = {r.round_number: r for r in rounds}
    unresolved = [
        (n, dealt[n].settle_by if n in dealt else None)
        for n in range(1, shoe.rounds_dealt + 1)
        if n not in dealt or not dealt[n].resolved
    ]
    if unresolved:
        raise _pending(unresolved)
    jwk = vault.public_jwk()
    signed_at = now()
    # the key's history first: every key that ever signed is listed, valid at this signed_at
    repo.record_signing_key(jwk, signed_at)
    pages = proofdoc.final_pages(
        private_proof(shoe, [dealt[n] for n in range(1, shoe.rounds_dealt + 1)]),
        ref_key=ref_keys(shoe),
        signer=vault.sign,
        key_id=jwk["kid"],
        signed_at=signed_at,
        budget=PAGE_BUDGET,
    )
    signature = pages[0]["signature"]
    stored = [proofdoc.proof_bytes(proofdoc.unsigned(p)) for p in pages]
    repo.put_proof_pages(proof.shoe_id, stored)
    line = ShoeFairness(
        table_id=shoe.table_id,
        shoe_number=shoe.shoe_number,
        shoe_id=shoe.shoe_id,
        ended_at=pages[0]["ended_at"],
        end_reason=pages[0]["end_reason"],
        interventions=pages[0]["interventions"],
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


# --- serving -------------------------------------------------------------------------------------


def _served(number: int, stored: bytes, signature: dict[str, Any]) -> ServedPage:
    """The stored page with its signature, after checking it is what the manifest covers."""
    expected = signature["manifest"]["pages"][number - 1]
    if hashlib.sha256(stored).hexdigest() != expected:
        raise RuntimeError(f"stored page {number} is not the page its manifest signed")
    # canonical(page − signature) with the signature as its first member: the same JSON object
    body = b'{"signature":' + proofdoc.proof_bytes(signature) + b"," + stored[1:]
    return ServedPage(number=number, body=body, etag=expected)


def proof_page(
    repo: Repository, vault: SecretVault, ref_keys: RefKeys, shoe_id: str, number: int = 1
) -> ServedPage:
    """Page ``number`` of the shoe's final proof (no key: public). 404 while the shoe is open
    (or unknown) and for a page out of range; 409 ``proof_pending`` while it has ended with
    rounds unresolved. The first read after the proof became final finalises it."""
    if parse_shoe_id(shoe_id) is None or not 1 <= number <= proofdoc.MAX_PAGES:
        raise not_found("proof", shoe_id if number == 1 else f"{shoe_id} page {number}")
    proof, stored = repo.proof_page(shoe_id, number)
    if proof is None:
        raise not_found("proof", shoe_id)
    if proof.signature is None:
        final = finalise(repo, vault, ref_keys, proof)
        if number > len(final.pages):
            raise not_found("proof page", f"{shoe_id} page {number}")
        return _served(number, final.pages[number - 1], final.signature)
    if stored is None or proof.page_count is None or number > proof.page_count:
        raise not_found("proof page", f"{shoe_id} page {number}")
    return _served(number, stored, proof.signature)


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
) -> FinaliseReport:
    """The sweep's part: finalise every ended shoe's proof that has become final by ``at``."""
    report = FinaliseReport()
    for shoe_id in repo.due_proofs(at, limit):
        try:
            proof, _ = repo.proof_page(shoe_id, 1)
            if proof is None or proof.signature is not None:
                continue  # finalised since the index was read
            finalise(repo, vault, ref_keys, proof)
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


# --- the signing keys and the fairness summary ---------------------------------------------------


def signing_keys(repo: Repository, vault: SecretVault) -> SigningKeysOut:
    """The JWK set of every key that ever signed a proof, and the one that signs now (``kid`` =
    RFC 7638 thumbprint), each with its validity: ``not_before`` = its first signature (None:
    it has not signed yet), ``not_after`` = its last signature once another key signs
    (``retired``; None while ``current``). A proof names its key by ``key_id``; its
    ``signed_at`` falls in that key's validity (the record is written before each signature)."""
    current = vault.public_jwk()
    listed = []
    for record in repo.signing_keys():
        mine = record.kid == current["kid"]
        listed.append(
            {
                **record.jwk,
                "status": "current" if mine else "retired",
                "not_before": record.first_signed_at,
                "not_after": None if mine else record.last_signed_at,
            }
        )
    if not any(k["kid"] == current["kid"] for k in listed):
        listed.append({**current, "status": "current", "not_before": None, "not_after": None})
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
    first, ``limit`` a page, with the running totals over all of them. 404 for an unknown
    table."""
    before = _cursor(cursor)
    page = repo.fairness(table_id, before=before, limit=limit) if parse_table_id(table_id) else None
    if page is None or page.totals is None:
        raise not_found("table", table_id)
    t = page.totals
    return FairnessOut.model_validate(
        {
            "table_id": table_id,
            "totals": {
                "shoes": t.shoes,
                "voided_rounds": t.voided_rounds,
                "voided_player_net": t.voided_player_net,
                "closed_early": t.closed_early,
                "rounds_dealt": t.rounds_dealt,
                "rounds_possible": t.rounds_possible,
            },
            "shoes": [
                {
                    "shoe_id": line.shoe_id,
                    "shoe_number": line.shoe_number,
                    "ended_at": line.ended_at,
                    "end_reason": line.end_reason,
                    "interventions": line.interventions,
                    "proof": f"/v1/shoes/{line.shoe_id}/proof",
                }
                for line in page.shoes
            ],
            "next_cursor": str(page.shoes[-1].shoe_number) if page.more else None,
        }
    )
