"""A round's public book page (``bacc-book-v1``): the leaves of one settlement chunk with their
money, bound by the proof round's ``book.root`` (no key, no bettor id)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from baccarat_api.service.models.common import Strict


class PublicBookPageRef(Strict):
    number: int = Field(description="this page (from 0): settlement chunk `number`")
    count: int = Field(description="the round's book pages (the proof round's `book.pages`)")
    next: int | None = Field(description="the next page's number, or null after the last")


class PublicBookEntryOut(Strict):
    leaf: dict[str, Any] = Field(description="a spectator's slip as a leaf of the book tree")
    settlement: dict[str, Any] = Field(
        description="its money: lines, commission, net (a voided round: voided, stake, net 0)"
    )


class PublicBookPageOut(Strict):
    """Page `k` of a round's book: leaves `[100k, 100k + 100)` in bettor-ref order."""

    spec: str = Field(description="`bacc-book-v1`")
    shoe_id: str
    round_number: int
    root: str = Field(description="the book's Merkle root, hex (the proof round's `book.root`)")
    count: int = Field(description="the book's leaves (the proof round's `book.count`)")
    page: PublicBookPageRef
    entries: list[PublicBookEntryOut] = Field(description="at most 100")
