"""Rounds: the deal request and the dealt round."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool, StrictInt

from baccarat_api.limits import MAX_BETS_PER_ROUND as MAX_BETS
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models.bets import BetIn, BetOut, PlayerBankerIn, PlayerBankerOut
from baccarat_api.service.models.common import (
    CurrencyCode,
    MinorUnitExponent,
    Result,
    ShoeStatus,
    Strict,
)
from baccarat_api.service.models.settlements import SettlementOut


class DealRequest(Strict):
    bets: list[BetIn] | None = Field(
        default=None,
        max_length=MAX_BETS,
        description=(
            "the round's bets (required unless from_book), validated and locked with it before "
            "any card exists; [] deals a round nobody bet on (settled at once, with no lines)"
        ),
        examples=[
            [
                {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker",
                 "amount": 2000, "balance": 50_000, "level": 3},
                {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player",
                 "amount": 1000, "balance": 20_000},
            ]
        ],
    )  # fmt: skip
    player_banker: PlayerBankerIn | None = Field(
        default=None, description="the player-banker seat (player_banker tables, with bets)"
    )
    round_number: StrictInt | None = Field(
        default=None,
        ge=1,
        le=999_999,
        description=(
            "optional: the round you expect to deal. If it is already dealt with exactly these "
            "bets and player-banker, the answer is that round again (Idempotent-Replayed: "
            "true); another round number than the next → 409 round_mismatch. The safe way to "
            "retry a deal without an Idempotency-Key"
        ),
    )
    from_book: StrictBool = Field(
        default=False,
        description=(
            "true: deal the table's betting window for this round with exactly its book's "
            "bets (closing betting if still open); no bets or player_banker then"
        ),
    )

    def bets_or_book(self) -> None:
        """A deal carries its bets or ``from_book: true``, never both, never neither: 422
        ``bets_or_from_book`` (the schema cannot say it, so it is a typed refusal, not a 400)."""
        if self.from_book and (self.bets is not None or self.player_banker is not None):
            raise DomainError(
                "bets_or_from_book", "a from_book deal takes its bets from the book: send no bets"
            )
        if not self.from_book and self.bets is None:
            raise DomainError("bets_or_from_book", "bets is required (or from_book: true)")


class HandOut(Strict):
    cards: list[str]
    positions: list[int]
    total: int


class RoundBookOut(Strict):
    """A book round's locked book of spectators' slips (a ``bet_behind: book`` table)."""

    root: str = Field(
        description="the Merkle root (bacc-book-v1, hex) of the locked book, fixed at the deal "
        "before any card is shown"
    )
    count: int = Field(description="the book's slips (leaves)")
    chunks: int = Field(description="its settlement chunks (100 leaves each)")
    totals: dict[str, Any] | None = Field(
        default=None,
        description="the book's money (per bet type, bettors, stake, net, house): shown once "
        "the round is resolved, as its settlement is",
    )


class RoundOut(Strict):
    round_id: str
    shoe_id: str
    table_id: str
    round_number: int
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    start: int
    player: HandOut
    banker: HandOut
    result: Result
    natural: bool
    player_natural: bool
    banker_natural: bool
    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool
    cards_dealt: int
    banker_card_count: int
    winning_margin: int
    bets: list[BetOut] = Field(description="the bets locked at the deal (accepted order)")
    player_banker: PlayerBankerOut | None
    squeeze: dict[str, Any] = Field(
        description="squeeze rights and the reveal plan: initial (the first four cards, safe "
        "to show before the reveal) and draws (third cards, for after the initial reveal)"
    )
    shoe_status: ShoeStatus
    dealt_at: str = Field(description="when the round was dealt: its bets were locked then")
    settle_by: str | None = Field(
        description="with locked bets: settled by the system (auto_settled) if not by then; "
        "null for a round nobody bet on (settled at its deal)"
    )
    void_by: str | None = Field(
        description="the end of the round's void window (null: voids disabled at the table)"
    )
    prev_hash: str = Field(description="bacc-audit-v1 hash of the table's previous round record")
    round_hash: str = Field(description="bacc-audit-v1 hash of this round record (as dealt)")
    book: RoundBookOut | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="a bet_behind book table's locked book (absent elsewhere)",
    )
    lock: RoundLockOut | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="a bacc-pf-v2 round's lock: its bets fixed before its beacon existed",
    )
    beacon: RoundBeaconOut | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="the verified beacon a bacc-pf-v2 round's cards were drawn with",
    )


class RoundLockOut(Strict):
    locked_at: str = Field(description="when the round's bets were locked")
    book_root: str = Field(description="SHA-256 root of every slip locked (hex, bacc-pf-v2)")
    beacon_round: int = Field(description="the beacon round the lock fixed")


class RoundBeaconOut(Strict):
    round: int
    signature: str = Field(description="the beacon round's BLS signature (hex)")


class LockedBeaconOut(Strict):
    chain_hash: str = Field(description="the beacon chain (drand quicknet, or a test beacon)")
    round: int = Field(description="the beacon round whose signature draws the cards")
    expected_at: str | None = Field(description="when that round is due (null once voided)")


class LockedRoundOut(Strict):
    """A bacc-pf-v2 round locked, its cards not drawn yet (the deal's 202; ``GET
    /v1/rounds/{id}`` until dealt, with ``Retry-After``), or voided ``beacon_unavailable``."""

    round_id: str
    shoe_id: str
    table_id: str
    round_number: int
    status: Literal["locked", "voided"] = Field(
        description="locked: the cards follow once the beacon round exists (poll this round, "
        "or follow round_dealt on the feed or push); voided: beacon_unavailable, no cards"
    )
    locked_at: str
    book_root: str = Field(description="SHA-256 root of every slip locked (hex, bacc-pf-v2)")
    beacon: LockedBeaconOut
    void_at: str | None = Field(
        description="with no verified beacon by then the round is voided beacon_unavailable"
    )
    bets: list[dict[str, Any]] = Field(description="the bets locked (accepted order)")
    player_banker: dict[str, Any] | None
    void: dict[str, Any] | None = Field(description="the beacon void (status voided)")


class RoundDetailOut(RoundOut):
    settlement: SettlementOut | None


RoundStatus = Literal["dealt", "settled", "auto_settled", "voided"]
