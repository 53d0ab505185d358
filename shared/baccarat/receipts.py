"""A spectator's receipt (``bacc-receipt-v1``) and a round's public book pages (``bacc-book-v1``).

A **receipt** is what a bettor keeps of its slip in a round's locked book: the slip's leaf
(:func:`baccarat.booktree.leaf_doc`), where it sits in the book (``leaf_index`` of
``tree_size``), the RFC 9162 inclusion ``path`` to the book's ``root`` and the slip's
``settlement`` (:func:`baccarat.bookmoney.slip_doc`, or :func:`voided_settlement` when the round
was voided). With the shoe's proof (``proof_url``) anyone checks that the slip was in the book
committed before the first card was shown and was paid exactly. It names no bettor: a bettor is
its ``bettor_ref`` only, as in the proof.

A **book page** is one settlement chunk of the book made public once the proof is final: the
entries ``{leaf, settlement}`` in book order, with the root and count they add up to, so an
auditor fetching every page recomputes the root, every settlement and the totals.

Pure, standard library only: the settlement fan-out writes these, the verifiers read them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

RECEIPT_SPEC = "bacc-receipt-v1"
BOOK_PAGE_SPEC = "bacc-book-v1"
_HASH_HEX = 64
_HEX = frozenset("0123456789abcdef")


class ReceiptError(ValueError):
    """A receipt or book page whose parts do not fit together."""


def _hex(value: str, what: str) -> str:
    if not isinstance(value, str) or len(value) != _HASH_HEX or not set(value) <= _HEX:
        raise ReceiptError(f"{what} must be a SHA-256 in lower-case hex, not {value!r}")
    return value


def _count(value: int, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ReceiptError(f"{what} must be an integer >= {minimum}, not {value!r}")
    return value


def voided_settlement(stake: int) -> dict[str, Any]:
    """A voided round's settlement of a slip: every stake returned, nothing won or lost."""
    return {"voided": True, "stake": _count(stake, "stake", 0), "net": 0}


def receipt_doc(
    shoe_id: str,
    round_number: int,
    round_id: str,
    leaf_doc: Mapping[str, Any],
    leaf_index: int,
    tree_size: int,
    root: str,
    path: Sequence[str],
    settlement: Mapping[str, Any],
    proof_url: str,
) -> dict[str, Any]:
    """The receipt of the slip ``leaf_doc`` (a leaf of ``round_id``), leaf ``leaf_index`` of a
    book of ``tree_size`` leaves with ``root``; ``path`` and ``root`` in hex."""
    if leaf_doc.get("round_id") != round_id:
        raise ReceiptError("the leaf belongs to another round")
    size = _count(tree_size, "tree_size", 1)
    if not _count(leaf_index, "leaf_index", 0) < size:
        raise ReceiptError(f"leaf {leaf_index} outside a book of {size}")
    return {
        "spec": RECEIPT_SPEC,
        "shoe_id": shoe_id,
        "round_number": _count(round_number, "round_number", 1),
        "round_id": round_id,
        "leaf": dict(leaf_doc),
        "leaf_index": leaf_index,
        "tree_size": size,
        "root": _hex(root, "root"),
        "path": [_hex(h, "a path hash") for h in path],
        "settlement": dict(settlement),
        "proof_url": proof_url,
    }


def book_entry(leaf_doc: Mapping[str, Any], settlement: Mapping[str, Any]) -> dict[str, Any]:
    """One entry of a public book page: a leaf and its settlement."""
    return {"leaf": dict(leaf_doc), "settlement": dict(settlement)}


def book_page_doc(
    shoe_id: str,
    round_number: int,
    root: str,
    count: int,
    number: int,
    pages: int,
    entries: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """Public page ``number`` (from 0) of ``pages`` of a round's book of ``count`` leaves:
    ``page.next`` is the next page's number, ``None`` on the last."""
    total = _count(pages, "pages", 1)
    if not _count(number, "page number", 0) < total:
        raise ReceiptError(f"page {number} outside {total} pages")
    return {
        "spec": BOOK_PAGE_SPEC,
        "shoe_id": shoe_id,
        "round_number": _count(round_number, "round_number", 1),
        "root": _hex(root, "root"),
        "count": _count(count, "count", 0),
        "page": {
            "number": number,
            "count": total,
            "next": number + 1 if number + 1 < total else None,
        },
        "entries": [dict(e) for e in entries],
    }
