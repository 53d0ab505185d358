"""A book round's receipts and settlement pages as the operator reads them."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from baccarat_api.service.models.common import Strict


class ReceiptOut(Strict):
    """A spectator's receipt (``bacc-receipt-v1``): checked with the shoe's proof alone."""

    spec: str = Field(description="`bacc-receipt-v1`")
    shoe_id: str
    round_number: int
    round_id: str
    leaf: dict[str, Any] = Field(description="the slip's leaf in the round's book tree")
    leaf_index: int = Field(description="its place in the book (from 0)")
    tree_size: int = Field(description="the book's leaves (the proof round's `book.count`)")
    root: str = Field(description="the book's Merkle root, hex (the proof round's `book.root`)")
    path: list[str] = Field(description="RFC 9162 inclusion path, hex, nearest sibling first")
    settlement: dict[str, Any] = Field(
        description="the slip's money: lines, commission, net (a voided round: voided, stake, "
        "net 0)"
    )
    proof_url: str


class SettlementBettorOut(Strict):
    bettor_id: str
    bettor_ref: str
    stake: int
    net: int


class SettlementBettorsOut(Strict):
    """A page of a book round's spectators' money (one settlement chunk)."""

    round_id: str
    page: int = Field(description="this page (from 0)")
    pages: int
    next: int | None = Field(description="the next page, or null after the last")
    bettors: list[SettlementBettorOut] = Field(description="at most 100, in book order")
