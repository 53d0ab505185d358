"""Verify a published shoe proof against bacc-pf-v1 alone (``docs/bacc-pf-v1.md``).

A proof carries the table anchor, the shoe number, the client seed and its hash, the rules, the
revealed ``server_seed`` and every dealt round. This module re-derives the shoe from those inputs
and reports the first thing that does not match, in plain words. Settlements carried by the proof
are recomputed by :mod:`baccarat.settlement` from what the proof carries with them: the table
configuration (``table_config``, the :meth:`~baccarat.profiles.TableConfig.to_dict` form), the
round's bets and player-banker as settled (``bets``, ``player_banker``) and the re-derived round
(never the proof's own cards); see :func:`check_settlement`.

Two forms of proof are read:

* **v2** (:mod:`baccarat.proofdoc`): one or more pages, each with the header, a ``page`` object,
  its rounds and the ``signature`` over the manifest of every page's SHA-256. :func:`verify`
  checks the pages (numbering, one header, links), every page's hash against the signed
  manifest and the ES256 signature (through the ``signature_check`` it is given: the core has no
  ECDSA), then the cards and money as below, every round's lifecycle marks (bets locked at the
  deal, settled or voided after it), every void's replaced settlement (recomputed) and the
  header's ``interventions`` (recomputed from the rounds and the seed). Bettors are ``bettor_ref``
  pseudonyms; the settlement does not depend on what bettors are called.
* **v1** (one object, no pages, no signature): cards and money only. A round marked ``voided``
  returned every stake and carries no settlement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import proofdoc
from .cards import code, codes
from .fairness import SPEC, FairnessError, client_hash, derive_shoe, verify_link
from .proofdoc import ProofFormatError
from .rules import ShoeRules, UnsafeRulesError


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
        return f"interventions: {proofdoc.interventions_text(self.interventions)}"

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
SETTLEMENT_FIELDS = proofdoc.SETTLEMENT_MONEY_FIELDS


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


def _is_v2(proof: Mapping[str, Any]) -> bool:
    """A v2 proof (assembled from its pages) carries ``interventions``; its bettors are refs."""
    return "interventions" in proof


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
    v2 = _is_v2(proof)
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
    return proofdoc.public_settlement(doc, lambda ref: ref) if v2 else doc


def check_settlement(
    proof: Mapping[str, Any], round_json: Mapping[str, Any], round_: Any
) -> list[Mismatch]:
    """Recompute one round's settlement and compare it field by field (the first difference).

    The table is rebuilt with ``TableConfig.from_dict(proof["table_config"])``, the bets from the
    round's ``bets`` (API form, in accepted order) and ``player_banker``, and
    :func:`baccarat.settlement.settle` is run on ``round_`` — the round re-derived from the seed.
    """
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
        hit = _first_difference(f"settlement {name}", expected[name], found[name])
        if hit:
            return [Mismatch(where, hit[0], hit[1], hit[2])]
    return []


# --- reading v2 pages ----------------------------------------------------------------------------


def proof_pages(document: Any) -> list[Mapping[str, Any]] | None:
    """The pages of a v2 proof given as one page, a list of pages or a bundle ``{"pages":
    [...]}``; None for a v1 proof (one object without ``page``)."""
    if isinstance(document, Mapping) and "pages" in document and "page" not in document:
        document = document["pages"]
    if isinstance(document, Mapping):
        return [document] if "page" in document else None
    if not isinstance(document, list) or not document:
        raise ProofError('a proof is a JSON object, a list of its pages or {"pages": [...]}')
    for i, page in enumerate(document, start=1):
        if not isinstance(page, Mapping) or "page" not in page:
            raise ProofError(f"item {i} of the list is not a proof page (it has no 'page')")
    return list(document)


def _page_info(page: Mapping[str, Any]) -> tuple[int, int]:
    info = page.get("page")
    if not isinstance(info, Mapping):
        raise ProofError("a page's 'page' is an object")
    number, count = info.get("number"), info.get("count")
    for name, value in (("number", number), ("count", count)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ProofError(f"a page's page.{name} is a positive integer, found {value!r}")
    assert isinstance(number, int) and isinstance(count, int)
    return number, count


def _assemble(
    given: Sequence[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], dict[str, Any], list[Mismatch]]:
    """Pages in order, the proof they make (header + every round) and what does not fit:
    numbering, one header, one signature, ``first_round``/``last_round``/``next``."""
    numbered = sorted(given, key=lambda p: _page_info(p)[0])
    count = _page_info(numbered[0])[1]
    numbers = [_page_info(p)[0] for p in numbered]
    if numbers != list(range(1, count + 1)) or any(_page_info(p)[1] != count for p in numbered):
        dup = sorted({n for n in numbers if numbers.count(n) > 1})
        missing = [n for n in range(1, count + 1) if n not in numbers]
        extra = sorted({n for n in numbers if n > count})
        why = (
            f"page {dup[0]} is given twice"
            if dup
            else f"page{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of "
            f"{count} {'are' if len(missing) > 1 else 'is'} missing (give every page, a bundle "
            "or the proof's URL)"
            if missing
            else f"page {extra[0]} is beyond the {count} pages the proof has"
            if extra
            else "its pages disagree on how many pages the proof has"
        )
        raise _Incomplete(Mismatch("proof", "pages", f"pages 1–{count}", numbers, why))
    bad: list[Mismatch] = []
    header = proofdoc.header_of(numbered[0])
    signature = numbered[0].get("signature")
    shoe_id = header.get("shoe_id")
    rounds: list[Any] = []
    for k, page in enumerate(numbered, start=1):
        where = f"page {k}"
        other = proofdoc.header_of(page)
        if other != header:
            name = next(
                n for n in sorted(set(header) | set(other)) if header.get(n) != other.get(n)
            )
            bad.append(
                Mismatch(
                    where,
                    name,
                    header.get(name),
                    other.get(name),
                    f"{where}'s {name} differs from page 1's: {other.get(name)!r} instead of "
                    f"{header.get(name)!r} (every page carries the same header)",
                )
            )
        if page.get("signature") != signature:
            bad.append(
                Mismatch(
                    where,
                    "signature",
                    "page 1's signature",
                    page.get("signature"),
                    f"{where} carries another signature than page 1",
                )
            )
        page_rounds = page.get("rounds")
        if not isinstance(page_rounds, list):
            raise ProofError(f"{where}'s rounds is not a list")
        info = page["page"]
        numbers_here = [
            r.get("round_number") if isinstance(r, Mapping) else None for r in page_rounds
        ]
        want = {
            "first_round": numbers_here[0] if numbers_here else None,
            "last_round": numbers_here[-1] if numbers_here else None,
            "next": proofdoc.page_url(str(shoe_id), k + 1) if k < count else None,
        }
        for name, value in want.items():
            if info.get(name) != value:
                bad.append(Mismatch(where, f"page.{name}", value, info.get(name)))
        rounds.extend(page_rounds)
    return numbered, {**header, "rounds": rounds}, bad


class _Incomplete(Exception):
    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(str(mismatch))
        self.mismatch = mismatch


def _check_page_hashes(pages: Sequence[Mapping[str, Any]], listed: list[Any]) -> list[Mismatch]:
    """Each page's SHA-256 against the one the signed manifest lists for it."""
    bad: list[Mismatch] = []
    for k, (page, want) in enumerate(zip(pages, listed, strict=True), start=1):
        got = proofdoc.page_hash(page)
        if got != want:
            bad.append(
                Mismatch(
                    f"page {k}",
                    "sha256",
                    want,
                    got,
                    f"page {k} was changed after it was signed: its SHA-256 is {got}, the "
                    f"signed manifest lists {want}",
                )
            )
    return bad


def _check_signature(
    pages: Sequence[Mapping[str, Any]],
    header: Mapping[str, Any],
    keys: Mapping[str, Any] | None,
    keys_source: str,
    signature_check: SignatureCheck | None,
    require: bool,
) -> tuple[list[Mismatch], str | None]:
    """The manifest against every page, then the ES256 signature over it: (mismatches, how it
    was checked)."""
    sig = pages[0].get("signature")
    if sig is None:
        return ([UNSIGNED] if require else []), None
    if not isinstance(sig, Mapping) or not isinstance(sig.get("manifest"), Mapping):
        return [Mismatch("signature", "signature", "{alg, key_id, manifest, value}", sig)], None
    m = sig["manifest"]
    bad: list[Mismatch] = []
    for name, want, got in (
        ("alg", proofdoc.ALG, sig.get("alg")),
        ("manifest.spec", proofdoc.SIGNATURE_SPEC, m.get("spec")),
        ("manifest.key_id", sig.get("key_id"), m.get("key_id")),
        ("manifest.shoe_id", header.get("shoe_id"), m.get("shoe_id")),
    ):
        if want != got:
            bad.append(Mismatch("signature", name, want, got))
    listed = m.get("pages")
    if not isinstance(listed, list) or len(listed) != len(pages):
        bad.append(
            Mismatch(
                "signature",
                "manifest.pages",
                f"{len(pages)} page hashes",
                listed,
                f"signature: the signed manifest does not list one hash per page "
                f"({len(pages)} pages)",
            )
        )
        return bad, None
    bad.extend(_check_page_hashes(pages, listed))
    key_id = sig.get("key_id")
    where = "signature"
    if keys is None:
        if require:
            bad.append(
                Mismatch(
                    where,
                    "key",
                    "the signing keys",
                    None,
                    "signature not checked: no signing keys to check it with",
                )
            )
        return bad, None
    listed_keys = keys.get("keys") if isinstance(keys, Mapping) else None
    if not isinstance(listed_keys, list):
        bad.append(
            Mismatch(
                where,
                "keys",
                '{"keys": [JWK, ...]}',
                keys,
                f"signature: {keys_source} is not a JWK set",
            )
        )
        return bad, None
    jwk = next(
        (k for k in listed_keys if isinstance(k, Mapping) and _thumbprint(k) == key_id), None
    )
    if jwk is None:
        bad.append(
            Mismatch(
                where,
                "key_id",
                "a key of " + keys_source,
                key_id,
                f"signature: key {key_id} is not among the signing keys of {keys_source}",
            )
        )
        return bad, None
    if (outside := _outside_validity(jwk, m.get("signed_at"), keys_source)) is not None:
        bad.append(outside)
        return bad, None
    try:
        raw = proofdoc.b64url_decode(sig.get("value"))  # type: ignore[arg-type]
    except ValueError:
        raw = b""
    if len(raw) != 64:
        bad.append(
            Mismatch(
                where,
                "value",
                "base64url of 64 bytes (r ‖ s)",
                sig.get("value"),
                "signature: its value is not the base64url of 64 bytes (r ‖ s, ES256)",
            )
        )
        return bad, None
    if signature_check is None:
        bad.append(
            Mismatch(
                where,
                "value",
                "an ES256 check",
                None,
                "signature not checked: this verifier was given no ES256 implementation",
            )
        )
        return bad, None
    if not signature_check(jwk, proofdoc.proof_bytes(m), raw):
        bad.append(
            Mismatch(
                where,
                "value",
                "a valid ES256 signature",
                sig.get("value"),
                f"signature: the ES256 signature does not verify over the manifest with "
                f"key {key_id} (the manifest or the signature was changed)",
            )
        )
        return bad, None
    n = len(pages)
    return bad, (
        f"signed by key {key_id} of {keys_source} (ES256, {n} page{'s' if n != 1 else ''}, "
        f"signed at {m.get('signed_at')})"
    )


def _outside_validity(jwk: Mapping[str, Any], signed_at: Any, keys_source: str) -> Mismatch | None:
    """The key a proof names was valid when it signed: ``not_before`` ≤ ``signed_at`` ≤
    ``not_after`` (each when the key set gives it; ``GET /v1/signing-keys`` lists every key that
    ever signed with both)."""
    lo, hi = jwk.get("not_before"), jwk.get("not_after")
    if lo is None and hi is None:
        return None
    if not isinstance(signed_at, str) or not _timestamp(signed_at):
        return Mismatch("signature", "manifest.signed_at", "a UTC timestamp", signed_at)
    if (isinstance(lo, str) and signed_at < lo) or (isinstance(hi, str) and signed_at > hi):
        return Mismatch(
            "signature",
            "signed_at",
            f"from {lo or 'its start'} to {hi or 'now'}",
            signed_at,
            f"signature: signed at {signed_at}, outside the validity of key {jwk.get('kid')} "
            f"in {keys_source} (from {lo or 'its start'} to {hi or 'now'})",
        )
    return None


def _thumbprint(jwk: Mapping[str, Any]) -> str | None:
    try:
        return proofdoc.jwk_thumbprint(jwk)
    except (KeyError, ProofFormatError):
        return None


# --- the verdict ---------------------------------------------------------------------------------


def verify_proof(
    proof: Mapping[str, Any], settlement_check: SettlementCheck | None = check_settlement
) -> Verdict:
    """Check the cards and money a proof claims (v1 or v2); a signature is not required and,
    without keys, not checked (:func:`verify` checks it). ``settlement_check(proof, round_json,
    round)`` is called for each round carrying a settlement: by default :func:`check_settlement`
    recomputes it (``None`` checks the cards only)."""
    return verify(proof, require_signature=False, settlement_check=settlement_check)


def verify(
    document: Any,
    *,
    keys: Mapping[str, Any] | None = None,
    keys_source: str = "the given key set",
    signature_check: SignatureCheck | None = None,
    require_signature: bool = True,
    settlement_check: SettlementCheck | None = check_settlement,
    shoe_id: str | None = None,
) -> Verdict:
    """Everything a proof claims: a v2 proof (a page, a list of pages or a bundle) with its
    pages, signature (``keys``: the JWK set ``{"keys": [...]}`` of ``GET /v1/signing-keys``,
    checked with ``signature_check``), cards, money, lifecycle and interventions; or a v1 proof
    (one object), which has no signature: with ``require_signature`` it fails as unsigned.

    ``shoe_id``: the shoe asked for (the id in the proof's URL, or the one the user names): a
    proof of any other shoe — another table's clean signed proof served at this shoe's URL —
    fails, whatever else holds. The verdict names the table and the shoe the proof is of."""
    try:
        pages = proof_pages(document)
        if pages is None:
            verdict = _verify(document, settlement_check)
            if require_signature:
                verdict.mismatches.insert(0, UNSIGNED)
                verdict.ok = False
            verdict.summary += " (unsigned v1 proof: no signature to check)"
            return verdict
        try:
            pages, proof, front = _assemble(pages)
        except _Incomplete as exc:
            return Verdict(ok=False, summary=str(exc), mismatches=[exc.mismatch])
        sig_bad, how = _check_signature(
            pages, proof, keys, keys_source, signature_check, require_signature
        )
        verdict = _verify(proof, settlement_check)
        subject_bad, verdict.subject = _check_subject(proof, shoe_id)
        verdict.mismatches[:0] = subject_bad + sig_bad + front
        verdict.ok = not verdict.mismatches
        verdict.signature = how
        if how:
            verdict.summary += f"; {how}"
        elif pages[0].get("signature") is None:
            verdict.summary += "; unsigned"
        return verdict
    except (ProofError, FairnessError, UnsafeRulesError, ProofFormatError) as exc:
        return Verdict(ok=False, summary=f"unreadable proof: {exc}")


def _check_subject(proof: Mapping[str, Any], asked: str | None) -> tuple[list[Mismatch], str]:
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


def _timestamp(value: Any) -> bool:
    return isinstance(value, str) and proofdoc.TIMESTAMP.fullmatch(value) is not None


def _check_lifecycle(
    where: str, got: Mapping[str, Any], previous_deal: str | None, ended_at: Any
) -> list[Mismatch]:
    """v2: when the round was dealt, that its bets were locked then, and that it was resolved
    (settled or voided, not both) after it."""
    bad: list[Mismatch] = []
    dealt = got.get("dealt_at")
    if not _timestamp(dealt):
        return [Mismatch(where, "dealt_at", "a UTC timestamp (…T…Z, milliseconds)", dealt)]
    assert isinstance(dealt, str)
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
    if _timestamp(ended_at) and dealt > ended_at:
        bad.append(Mismatch(where, "dealt_at", f"not after the shoe ended ({ended_at})", dealt))
    settlement, void = got.get("settlement"), got.get("void")
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
    for name, doc, inner in (
        ("settled_at", settlement, "settled_at"),
        ("voided_at", void, "voided_at"),
    ):
        at = got.get(name)
        if doc is None:
            if at is not None:
                bad.append(Mismatch(where, name, None, at))
            continue
        if not _timestamp(at):
            bad.append(Mismatch(where, name, "a UTC timestamp", at))
        elif isinstance(at, str) and at < dealt:
            bad.append(Mismatch(where, name, f"not before it was dealt ({dealt})", at))
        if isinstance(doc, Mapping) and doc.get(inner, at) != at:
            bad.append(
                Mismatch(
                    where,
                    f"{'settlement' if doc is settlement else 'void'} {inner}",
                    at,
                    doc.get(inner),
                )
            )
    if void is not None:
        bad.extend(_check_void_shape(where, void))
    return bad


def _check_void_shape(where: str, void: Any) -> list[Mismatch]:
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


def _check_interventions(
    proof: Mapping[str, Any], rounds: Sequence[Any], possible: int
) -> tuple[list[Mismatch], dict[str, Any]]:
    voided = [r for r in rounds if isinstance(r, Mapping) and r.get("void") is not None]
    split = [proofdoc.voided_nets(r) for r in voided]
    recomputed = {
        "voided_rounds": len(voided),
        "voided_player_net": sum(b for b, _ in split),
        "voided_player_banker_net": sum(pb for _, pb in split),
        "closed_early": proof.get("end_reason") == "closed",
        "rounds_dealt": len(rounds),
        "rounds_possible": possible,
    }
    claimed = proof.get("interventions")
    if not isinstance(claimed, Mapping):
        return [Mismatch("shoe", "interventions", recomputed, claimed)], recomputed
    expected = proofdoc.as_claimed(recomputed, claimed)
    for name in proofdoc.INTERVENTION_FIELDS:
        if name not in expected:
            continue
        hit = _first_difference(f"interventions.{name}", expected[name], claimed.get(name))
        if hit:
            return [Mismatch("shoe", hit[0], hit[1], hit[2])], recomputed
    return [], recomputed


def _verify(proof: Mapping[str, Any], settlement_check: SettlementCheck | None) -> Verdict:
    bad: list[Mismatch] = []
    v2 = _is_v2(proof)
    spec = _get(proof, "spec", str)
    if spec != SPEC:
        return Verdict(ok=False, summary=f"unknown spec {spec!r}; this verifier knows {SPEC}")
    anchor = _hex32(proof, "anchor")
    secret = _hex32(proof, "server_seed")
    number = _get(proof, "shoe_number", int)
    seed = _get(proof, "client_seed", str)
    try:
        rules = ShoeRules.from_dict(_get(proof, "rules", Mapping))
    except (KeyError, TypeError):
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
    for name, value in (("burn", shoe.burn_count), ("first_round_start", shoe.first_start)):
        if v2 and proof.get(name) != value:
            bad.append(Mismatch("shoe", name, value, proof.get(name)))
    end_reason = proof.get("end_reason")
    if v2 and end_reason not in proofdoc.END_REASONS:
        bad.append(Mismatch("shoe", "end_reason", f"one of {proofdoc.END_REASONS}", end_reason))
    rounds = _get(proof, "rounds", list)
    if len(rounds) > len(shoe.rounds):
        bad.append(Mismatch("shoe", "number of rounds", len(shoe.rounds), len(rounds)))
    closed_early = end_reason in (("closed",) if v2 else ("closed", "closed_early"))
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
    previous_deal: str | None = None
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
        if v2:
            bad.extend(_check_lifecycle(where, got, previous_deal, proof.get("ended_at")))
            if _timestamp(got.get("dealt_at")):
                previous_deal = got["dealt_at"]
            if got.get("void") is not None:
                voided += 1
                if settlement_check is not None and isinstance(got["void"], Mapping):
                    bad.extend(_check_replaced(proof, got, want))
            elif settlement_check is not None and got.get("settlement") is not None:
                bad.extend(settlement_check(proof, got, want))
                settled += 1
        elif got.get("voided") is True:
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
    recomputed: dict[str, Any] | None = None
    if v2:
        iv_bad, recomputed = _check_interventions(proof, rounds, len(shoe.rounds))
        bad.extend(iv_bad)
    n = min(len(rounds), len(shoe.rounds))
    plural = "s" if voided != 1 else ""
    summary = (
        f"{SPEC} shoe {number}: server seed reaches the anchor, client hash, "
        f"{n} round{'s' if n != 1 else ''} and {settled} settlement{'s' if settled != 1 else ''} "
        f"re-derived and matching"
        + (
            f", {voided} voided round{plural}"
            + (" (the settlement each replaced re-derived)" if v2 and settlement_check else "")
            if voided
            else ""
        )
        + (", every round's bets locked at its deal" if v2 and n else "")
        + (" (shoe closed early)" if closed_early else "")
    )
    return Verdict(
        ok=not bad,
        summary=summary,
        mismatches=bad,
        rounds_checked=n,
        settlements_checked=settled,
        interventions=recomputed,
    )


def _check_replaced(proof: Mapping[str, Any], got: Mapping[str, Any], want: Any) -> list[Mismatch]:
    """v2: a void shows the settlement it replaced; recompute it from the round's public bets."""
    where = f"round {want.number}"
    expected = recompute_settlement(proof, got, want)
    if isinstance(expected, Mismatch):
        return [expected]
    hit = _first_difference(
        "void replaced", proofdoc.replaced(expected), got["void"].get("replaced")
    )
    return [Mismatch(where, hit[0], hit[1], hit[2])] if hit else []
