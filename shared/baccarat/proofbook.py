"""A round's book in the shoe proof (``bacc-pf-v1.1``, ``docs/bacc-pf-v1.md`` "bacc-pf-v1.1"):
at a ``bet_behind: book`` table the spectators' slips are not listed in the proof; each round
carries ``book: {root, count, pages, totals}`` — the Merkle root of its locked book
(:mod:`baccarat.booktree`), its number of leaves, of public book pages, and its money
(:class:`baccarat.bookmoney.BookTotals`). The round's house figures are the seated bettors'
plus the book's. Pure: the proof builder and the verifiers share these definitions of the
document; the money is recomputed by the checks (:mod:`baccarat.receiptcheck`) from the leaves."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .verdict import Mismatch

#: The proof spec of a shoe whose rounds carry a book; every other shoe stays ``bacc-pf-v1``.
SPEC_V11 = "bacc-pf-v1.1"
#: Entries of a public book page (one settlement chunk): the last page holds the rest.
PAGE_ENTRIES = 100
#: What a proof round shows of its book.
PUBLIC_BOOK_FIELDS = ("root", "count", "pages", "totals")
#: The house's figures of a settlement (``settlement.house``).
HOUSE_FIELDS = ("covered", "commission", "take")

_HEX64 = re.compile(r"[0-9a-f]{64}")


def page_count(count: int) -> int:
    """The number of public book pages of a book of ``count`` leaves: ``ceil(count / 100)``."""
    return -(-count // PAGE_ENTRIES)


def public_book(book: Mapping[str, Any]) -> dict[str, Any]:
    """The proof round's ``book`` from a stored one (``{root, count, totals, …}``)."""
    count = int(book["count"])
    return {
        "root": str(book["root"]),
        "count": count,
        "pages": page_count(count),
        "totals": dict(book["totals"]),
    }


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def book_house(book: Any) -> dict[str, int] | None:
    """The book's ``totals.house`` as ints, or ``None`` when it is malformed."""
    totals = book.get("totals") if isinstance(book, Mapping) else None
    house = totals.get("house") if isinstance(totals, Mapping) else None
    if not isinstance(house, Mapping) or not all(is_int(house.get(k)) for k in HOUSE_FIELDS):
        return None
    return {k: int(house[k]) for k in HOUSE_FIELDS}


def with_book(house: Mapping[str, Any], book: Any) -> dict[str, Any]:
    """The round's house figures: the seated bettors' ``house`` plus the book's (unchanged when
    the round has no book, or a malformed one — the checks report that on its own)."""
    extra = book_house(book)
    if extra is None:
        return dict(house)
    return {**house, **{k: house[k] + extra[k] for k in HOUSE_FIELDS if is_int(house.get(k))}}


def _totals_mismatches(where: str, totals: Any) -> list[Mismatch]:
    """The totals balance: ``net + house.take = 0``, ``take = covered + commission``, the bet
    types' stakes add up to ``stake``."""
    if not isinstance(totals, Mapping):
        return [Mismatch(where, "book totals", "an object", totals)]
    house = book_house({"totals": totals})
    names = ("bettors", "stake", "net")
    if house is None or not all(is_int(totals.get(k)) for k in names):
        return [Mismatch(where, "book totals", "integers bettors, stake, net and house", totals)]
    bad = []
    if totals["net"] + house["take"] != 0:
        bad.append(
            Mismatch(
                where,
                "book totals",
                "net + house.take = 0",
                f"{totals['net']} + {house['take']}",
                f"{where}: the book's totals do not balance (net {totals['net']} + house take "
                f"{house['take']} ≠ 0)",
            )
        )
    if house["take"] != house["covered"] + house["commission"]:
        bad.append(
            Mismatch(
                where,
                "book totals house.take",
                house["covered"] + house["commission"],
                house["take"],
            )
        )
    by_type = totals.get("by_type")
    stakes = (
        [s.get("stake") for s in by_type.values() if isinstance(s, Mapping)]
        if isinstance(by_type, Mapping)
        else None
    )
    whole = [s for s in stakes or [] if isinstance(s, int) and not isinstance(s, bool)]
    if stakes is None or len(whole) != len(stakes) or sum(whole) != totals["stake"]:
        bad.append(Mismatch(where, "book totals by_type stakes", totals["stake"], stakes))
    return bad


def check_book(where: str, book: Any) -> list[Mismatch]:
    """A v1.1 round's ``book`` alone: its fields, ``pages = ceil(count / 100)``, totals that
    balance, one slip per leaf. (The root and the money need the pages: ``verify_books``.)"""
    if not isinstance(book, Mapping) or set(book) != set(PUBLIC_BOOK_FIELDS):
        return [Mismatch(where, "book", f"an object of {PUBLIC_BOOK_FIELDS}", book)]
    bad = []
    root, count, pages = book["root"], book["count"], book["pages"]
    if not isinstance(root, str) or not _HEX64.fullmatch(root):
        bad.append(Mismatch(where, "book root", "64 lower-case hex digits", root))
    if not is_int(count) or count < 0:
        return [*bad, Mismatch(where, "book count", "an integer ≥ 0", count)]
    if pages != page_count(count):
        bad.append(Mismatch(where, "book pages", page_count(count), pages))
    bad += _totals_mismatches(where, book["totals"])
    totals = book["totals"]
    if isinstance(totals, Mapping) and totals.get("bettors") != count:
        bad.append(Mismatch(where, "book totals bettors", count, totals.get("bettors")))
    return bad
