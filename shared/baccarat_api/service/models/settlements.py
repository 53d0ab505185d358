"""Settlements and voids: the requests and the settlement-shaped answer."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from baccarat.proofdoc import VOID_REASONS
from baccarat_api.limits import MAX_VOID_NOTE_LENGTH
from baccarat_api.service.models.common import (
    Banking,
    CurrencyCode,
    MinorUnitExponent,
    Result,
    Strict,
    valid_unicode,
)


class SettleRequest(Strict):
    """A settlement takes no body (or ``{}``): it settles the bets locked at the deal."""

    @model_validator(mode="before")
    @classmethod
    def _nothing(cls, data: Any) -> Any:
        if isinstance(data, dict) and data:
            raise ValueError(
                "a settlement takes no body: the round's bets were locked when it was dealt "
                f"(found {', '.join(sorted(map(str, data)))})"
            )
        return data


class VoidRequest(Strict):
    reason: str = Field(
        description="why the round is voided: " + ", ".join(VOID_REASONS),
        json_schema_extra={"enum": list(VOID_REASONS)},
    )
    note: Annotated[str, AfterValidator(valid_unicode)] | None = Field(
        default=None,
        max_length=MAX_VOID_NOTE_LENGTH,
        description="optional, published with the void in the shoe's proof",
    )

    @field_validator("reason")
    @classmethod
    def _known_reason(cls, value: str) -> str:
        if value not in VOID_REASONS:
            raise ValueError(f"the reason is one of {', '.join(VOID_REASONS)}")
        return value


class LineOut(Strict):
    index: int
    bettor_id: str
    bettor_ref: str
    type: str
    stake: int
    grade: Literal["win", "push", "lose", "void"]
    multiplier: str
    gross_win: int
    commission: int
    net: int
    covered_by: Banking


class ParticipantOut(Strict):
    id: str
    bettor_ref: str
    role: str
    stake: int
    gross: int
    commission: int
    net: int


class HouseOut(Strict):
    covered: int
    commission: int
    take: int


class EligibilityOut(Strict):
    below_min_balance: list[str]
    player_banker_below_min_balance: str | None
    balances_after: dict[str, int]
    idle_bettors: list[str]
    idle_round_limit: int | None


class ReplacedOut(Strict):
    nets: dict[str, int] = Field(description="the nets the settlement would have had")
    house_take: int
    book_totals: dict[str, Any] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="a book round's: the locked book's totals (every slip refunded instead)",
    )


class VoidOut(Strict):
    reason: str = Field(description=", ".join(VOID_REASONS))
    note: str | None
    voided_at: str
    replaced: ReplacedOut = Field(
        description="the settlement the void replaced, computed exactly as settling would have"
    )


class SettlementOut(Strict):
    """A settlement — or a void, settlement-shaped: every line graded ``void``, every net 0."""

    round_id: str
    shoe_id: str
    round_number: int
    profile: str
    tier: str
    banking: str
    rounding: str
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    result: Result
    lines: list[LineOut]
    bettors: list[ParticipantOut]
    player_banker: ParticipantOut | None
    house: HouseOut
    nets: dict[str, int] = Field(
        description="participant → net: what to apply to each wallet (bettors in order of "
        "their first bet, then the player-banker)"
    )
    eligibility: EligibilityOut
    settled_at: str = Field(description="when it was settled (or voided)")
    auto_settled: bool = Field(
        default=False, description="settled by the system after the table's deadline"
    )
    voided: bool = Field(
        default=False, description="a void: every stake returned (net 0), never to be settled"
    )
    void: VoidOut | None = Field(default=None, description="the void, if voided")
