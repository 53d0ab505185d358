"""A v2 proof's pages: read in order into one proof, checked to fit together (numbering, one
header, one signature, links), and the signature over their manifest checked. The core has no
ECDSA: the caller brings the ES256 check (:data:`~baccarat.verdict.SignatureCheck`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import proofdoc
from .proofbytes import ProofFormatError
from .verdict import UNSIGNED, Mismatch, ProofError, SignatureCheck


class Incomplete(Exception):
    """The pages given are not every page of one proof (a page missing, twice or beyond)."""

    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(str(mismatch))
        self.mismatch = mismatch


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


# --- assembling --------------------------------------------------------------------------------


def _incompleteness(numbers: list[int], count: int) -> str:
    """Why pages numbered ``numbers`` are not pages 1 to ``count``."""
    dup = sorted({n for n in numbers if numbers.count(n) > 1})
    if dup:
        return f"page {dup[0]} is given twice"
    missing = [n for n in range(1, count + 1) if n not in numbers]
    if missing:
        many = len(missing) > 1
        return (
            f"page{'s' if many else ''} {', '.join(map(str, missing))} of {count} "
            f"{'are' if many else 'is'} missing (give every page, a bundle or the proof's URL)"
        )
    extra = sorted({n for n in numbers if n > count})
    if extra:
        return f"page {extra[0]} is beyond the {count} pages the proof has"
    return "its pages disagree on how many pages the proof has"


def _in_order(given: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], int]:
    """The pages sorted by number and how many there are; :class:`Incomplete` unless they are
    exactly pages 1 to ``count``."""
    numbered = sorted(given, key=lambda p: _page_info(p)[0])
    count = _page_info(numbered[0])[1]
    numbers = [_page_info(p)[0] for p in numbered]
    if numbers != list(range(1, count + 1)) or any(_page_info(p)[1] != count for p in numbered):
        why = _incompleteness(numbers, count)
        raise Incomplete(Mismatch("proof", "pages", f"pages 1–{count}", numbers, why))
    return numbered, count


def _header_mismatch(where: str, header: Mapping[str, Any], other: Mapping[str, Any]) -> Mismatch:
    name = next(n for n in sorted(set(header) | set(other)) if header.get(n) != other.get(n))
    return Mismatch(
        where,
        name,
        header.get(name),
        other.get(name),
        f"{where}'s {name} differs from page 1's: {other.get(name)!r} instead of "
        f"{header.get(name)!r} (every page carries the same header)",
    )


def _link_mismatches(
    where: str, page: Mapping[str, Any], rounds: list[Any], next_url: str | None
) -> list[Mismatch]:
    """``first_round``, ``last_round`` and ``next`` of one page against its rounds."""
    numbers = [r.get("round_number") if isinstance(r, Mapping) else None for r in rounds]
    want = {
        "first_round": numbers[0] if numbers else None,
        "last_round": numbers[-1] if numbers else None,
        "next": next_url,
    }
    info = page["page"]
    return [
        Mismatch(where, f"page.{name}", value, info.get(name))
        for name, value in want.items()
        if info.get(name) != value
    ]


def _page_mismatches(
    k: int, page: Mapping[str, Any], first: Mapping[str, Any], count: int
) -> tuple[list[Mismatch], list[Any]]:
    """Page ``k`` against page 1 (``first``): its header, signature and links; and its rounds."""
    where = f"page {k}"
    header = proofdoc.header_of(first)
    bad: list[Mismatch] = []
    other = proofdoc.header_of(page)
    if other != header:
        bad.append(_header_mismatch(where, header, other))
    if page.get("signature") != first.get("signature"):
        bad.append(
            Mismatch(
                where,
                "signature",
                "page 1's signature",
                page.get("signature"),
                f"{where} carries another signature than page 1",
            )
        )
    rounds = page.get("rounds")
    if not isinstance(rounds, list):
        raise ProofError(f"{where}'s rounds is not a list")
    next_url = proofdoc.page_url(str(header.get("shoe_id")), k + 1) if k < count else None
    return bad + _link_mismatches(where, page, rounds, next_url), rounds


def assemble(
    given: Sequence[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], dict[str, Any], list[Mismatch]]:
    """Pages in order, the proof they make (header + every round) and what does not fit:
    numbering, one header, one signature, ``first_round``/``last_round``/``next``."""
    numbered, count = _in_order(given)
    bad: list[Mismatch] = []
    rounds: list[Any] = []
    for k, page in enumerate(numbered, start=1):
        page_bad, page_rounds = _page_mismatches(k, page, numbered[0], count)
        bad.extend(page_bad)
        rounds.extend(page_rounds)
    return numbered, {**proofdoc.header_of(numbered[0]), "rounds": rounds}, bad


# --- the signature -----------------------------------------------------------------------------


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


def _manifest_mismatches(sig: Mapping[str, Any], header: Mapping[str, Any]) -> list[Mismatch]:
    """The signature's algorithm and its manifest's spec, key and shoe."""
    m = sig["manifest"]
    return [
        Mismatch("signature", name, want, got)
        for name, want, got in (
            ("alg", proofdoc.ALG, sig.get("alg")),
            ("manifest.spec", proofdoc.SIGNATURE_SPEC, m.get("spec")),
            ("manifest.key_id", sig.get("key_id"), m.get("key_id")),
            ("manifest.shoe_id", header.get("shoe_id"), m.get("shoe_id")),
        )
        if want != got
    ]


def _signing_key(keys: Any, key_id: Any, keys_source: str) -> Mapping[str, Any] | Mismatch:
    """The key of ``keys`` (a JWK set) whose thumbprint is ``key_id``."""
    listed = keys.get("keys") if isinstance(keys, Mapping) else None
    if not isinstance(listed, list):
        return Mismatch(
            "signature",
            "keys",
            '{"keys": [JWK, ...]}',
            keys,
            f"signature: {keys_source} is not a JWK set",
        )
    jwk = next((k for k in listed if isinstance(k, Mapping) and _thumbprint(k) == key_id), None)
    if jwk is None:
        return Mismatch(
            "signature",
            "key_id",
            "a key of " + keys_source,
            key_id,
            f"signature: key {key_id} is not among the signing keys of {keys_source}",
        )
    return jwk


def _signature_value(sig: Mapping[str, Any]) -> bytes | Mismatch:
    """The signature's 64 bytes ``r ‖ s``."""
    try:
        raw = proofdoc.b64url_decode(sig.get("value"))  # type: ignore[arg-type]
    except ValueError:
        raw = b""
    if len(raw) != 64:
        return Mismatch(
            "signature",
            "value",
            "base64url of 64 bytes (r ‖ s)",
            sig.get("value"),
            "signature: its value is not the base64url of 64 bytes (r ‖ s, ES256)",
        )
    return raw


def _es256_mismatch(
    sig: Mapping[str, Any],
    keys: Mapping[str, Any],
    keys_source: str,
    signature_check: SignatureCheck | None,
) -> Mismatch | None:
    """Why the ES256 signature over the manifest does not verify with ``keys``, or None."""
    m = sig["manifest"]
    jwk = _signing_key(keys, sig.get("key_id"), keys_source)
    if isinstance(jwk, Mismatch):
        return jwk
    if (outside := _outside_validity(jwk, m.get("signed_at"), keys_source)) is not None:
        return outside
    raw = _signature_value(sig)
    if isinstance(raw, Mismatch):
        return raw
    if signature_check is None:
        return Mismatch(
            "signature",
            "value",
            "an ES256 check",
            None,
            "signature not checked: this verifier was given no ES256 implementation",
        )
    if not signature_check(jwk, proofdoc.proof_bytes(m), raw):
        return Mismatch(
            "signature",
            "value",
            "a valid ES256 signature",
            sig.get("value"),
            f"signature: the ES256 signature does not verify over the manifest with "
            f"key {sig.get('key_id')} (the manifest or the signature was changed)",
        )
    return None


def check_signature(
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
    bad = _manifest_mismatches(sig, header)
    listed, n = sig["manifest"].get("pages"), len(pages)
    if not isinstance(listed, list) or len(listed) != n:
        why = f"signature: the signed manifest does not list one hash per page ({n} pages)"
        return [
            *bad,
            Mismatch("signature", "manifest.pages", f"{n} page hashes", listed, why),
        ], None
    bad.extend(_check_page_hashes(pages, listed))
    if keys is None:
        why = "signature not checked: no signing keys to check it with"
        return bad + (
            [Mismatch("signature", "key", "the signing keys", None, why)] if require else []
        ), None
    if (problem := _es256_mismatch(sig, keys, keys_source, signature_check)) is not None:
        return [*bad, problem], None
    pages_text = f"{n} page{'s' if n != 1 else ''}"
    signed_at = sig["manifest"].get("signed_at")
    return bad, (
        f"signed by key {sig.get('key_id')} of {keys_source} (ES256, {pages_text}, "
        f"signed at {signed_at})"
    )


def _outside_validity(jwk: Mapping[str, Any], signed_at: Any, keys_source: str) -> Mismatch | None:
    """The key a proof names was valid when it signed: ``not_before`` ≤ ``signed_at`` ≤
    ``not_after`` (each when the key set gives it; ``GET /v1/signing-keys`` lists every key that
    ever signed with both)."""
    lo, hi = jwk.get("not_before"), jwk.get("not_after")
    if lo is None and hi is None:
        return None
    if not isinstance(signed_at, str) or proofdoc.TIMESTAMP.fullmatch(signed_at) is None:
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
