"""``baccarat verify --receipt FILE`` and ``--books``: after the proof verified, a bettor's
receipt (:func:`baccarat.receiptcheck.verify_receipt`) and every round's public book pages
(:func:`baccarat.receiptcheck.verify_books`, the pages from ``--book-pages`` files or fetched
from the proof URL's origin: ``GET /v1/shoes/{shoe_id}/rounds/{n}/book?page=k``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlsplit

from .proofpages import Incomplete, assemble, proof_pages
from .receiptcheck import FIRST_PAGE, BookVerdict, verify_books, verify_receipt

#: ``read(source) -> JSON``: a file, ``-`` or an http(s) URL (the CLI's reader).
Reader = Callable[[str], Any]


def book_page_url(origin: str, shoe_id: str, round_number: int, page: int) -> str:
    """Where a round's public book page is served."""
    return f"{origin}/v1/shoes/{quote(shoe_id, safe='')}/rounds/{round_number}/book?page={page}"


def assembled(document: Any) -> Mapping[str, Any] | None:
    """The proof as one object (its pages put together), or ``None`` when it has no pages (a
    v1 proof: no books) or cannot be put together (the proof's verdict already says why)."""
    pages = proof_pages(document)
    if pages is None:
        return None
    try:
        return assemble(pages)[1]
    except Incomplete:
        return None


def _origin(args: argparse.Namespace) -> str | None:
    url = next((s for s in args.proof if s.startswith(("http://", "https://"))), None)
    if url is None:
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _fetched_pages(args: argparse.Namespace, proof: Mapping[str, Any], read: Reader) -> list[Any]:
    origin = _origin(args)
    if origin is None:
        raise ValueError("--books needs the proof's URL (its pages are fetched from its origin) "
                         "or the pages as files (--book-pages)")  # fmt: skip
    pages = []
    for r in proof.get("rounds") or []:
        book = r.get("book") if isinstance(r, Mapping) else None
        count = book.get("pages") if isinstance(book, Mapping) else None
        if isinstance(count, int):
            for k in range(FIRST_PAGE, FIRST_PAGE + count):
                url = book_page_url(origin, str(proof["shoe_id"]), r["round_number"], k)
                pages.append(read(url))
    return pages


def _local_pages(sources: list[str], read: Reader) -> list[Any]:
    pages: list[Any] = []
    for source in sources:
        doc = read(source)
        pages += doc if isinstance(doc, list) else [doc]
    return pages


def checks(
    args: argparse.Namespace, document: Any, read: Reader, proof_ok: bool
) -> list[tuple[str, BookVerdict]]:
    """The receipt and book checks asked for, each named (``receipt`` / ``books``): only
    against a proof that verified (a slip in an unverified book proves nothing)."""
    if not (args.receipt or args.books):
        return []
    proof = assembled(document) if proof_ok else None
    if proof is None:
        why = "the proof has no pages to check against" if proof_ok else "the proof did not verify"
        none = BookVerdict(False, f"not checked: {why}")
        return [(name, none) for name, on in (("receipt", args.receipt), ("books", args.books))
                if on]  # fmt: skip
    out = []
    if args.receipt:
        out.append(("receipt", verify_receipt(proof, read(args.receipt))))
    if args.books:
        pages = (
            _local_pages(args.book_pages, read)
            if args.book_pages
            else _fetched_pages(args, proof, read)
        )
        out.append(("books", verify_books(proof, pages)))
    return out


def add_arguments(v: argparse.ArgumentParser) -> None:
    """``--receipt``, ``--books`` and ``--book-pages`` of ``baccarat verify``."""
    v.add_argument(
        "--receipt",
        metavar="FILE",
        help="also check a bettor's receipt (bacc-receipt-v1: a file, a URL or -): its slip is in "
        "the book locked at the deal of its round and was paid exactly what its lines win",
    )
    v.add_argument(
        "--books",
        action="store_true",
        help="also check every round's public book pages (bacc-pf-v1.1): every slip in bettor-ref "
        "order, the root, each slip's money and the totals (pages fetched from the proof URL's "
        "origin, or --book-pages)",
    )
    v.add_argument(
        "--book-pages",
        nargs="+",
        metavar="FILE",
        help="the public book pages as files (one page each, or a list of pages) for --books",
    )
