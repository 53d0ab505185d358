"""The betting window and its book: slips as placed and as shown."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from baccarat.bets import BetType, Role
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models.common import Money, Strict

BettingStatus = Literal["open", "closed", "locked", "dealt"]


class BettingWindowOut(Strict):
    shoe_id: str = Field(description="the open shoe the window's round is dealt from")
    round_number: int = Field(description="the round the window takes bets for")
    opened_at: str
    closes_at: str = Field(description="no slip is accepted from this instant")
    status: BettingStatus = Field(
        description="open (slips accepted), closed (no more bets), dealt (round_id)"
    )
    round_id: str | None = Field(default=None, description="the round dealt from the book")


class SlipBetIn(Strict):
    type: BetType
    amount: Money


class SlipBetOut(SlipBetIn):
    amount: int
    order: int = Field(
        description="the line's accepted order (the squeeze's earlier bet): the seq of the "
        "bet_placed that confirmed it — a re-confirmed slip's unchanged line keeps its order"
    )


class SlipOut(Strict):
    bettor_id: str
    role: Role
    seat: int | None = Field(description="the seat the slip was placed from (null: spectator)")
    bets: list[SlipBetOut]
    total: int = Field(description="the slip's stakes summed")
    placed_at: str = Field(description="when the slip (or its replacement) was confirmed")
    order: int = Field(
        description="the seq of its latest bet_placed event (each line's own order: bets)"
    )


class BookOut(Strict):
    """What each seat and spectator shows on the table (對應押注區) for the current window."""

    table_id: str
    betting: BettingWindowOut | None = Field(description="null: betting never opened here")
    seats: dict[int, SlipOut] = Field(description="seat number → its bettor's confirmed slip")
    spectators: dict[str, SlipOut] = Field(description="spectator id → their confirmed slip")
    total: int = Field(description="every slip's stakes summed")


class BookPageOut(BookOut):
    """A page of the book: at a ``bet_behind: book`` table at most 100 spectators' slips (in
    book order: ``bettor_ref`` ascending) with the window and the seats' slips; ``total`` sums
    what the page shows."""

    next: str | None = Field(
        description="pass as after for the next page of spectators' slips (null: the end)"
    )


class SlipRequest(Strict):
    bets: list[SlipBetIn] = Field(
        min_length=1,
        # one line per bet type at most: 7 seats and MAX_SPECTATORS spectators then stay within
        # a round's MAX_BETS, so a whole book is always one dealable round
        max_length=len(BetType),
        description=(
            "the bettor's whole slip for the open window (replaces an earlier one): one line "
            "per bet type (a type twice is 422 duplicate_bet_type — a stake is one line, and a "
            "line's time is when its amount was confirmed)"
        ),
    )
    round_number: int | None = Field(
        default=None,
        ge=1,
        description=(
            "the round the slip is for (the window's round_number): another round is 409 "
            "round_mismatch — a PUT retried after its answer was lost never lands in a later "
            "round's window"
        ),
    )

    @field_validator("bets")
    @classmethod
    def _one_line_per_type(cls, bets: list[SlipBetIn]) -> list[SlipBetIn]:
        """A type twice is 422 ``duplicate_bet_type`` (the schema cannot say "unique by type",
        so it is a typed refusal, not a 400)."""
        types = [b.type for b in bets]
        twice = sorted({t for t in types if types.count(t) > 1})
        if twice:
            raise DomainError(
                "duplicate_bet_type",
                f"one line per bet type: {', '.join(twice)} given more than once",
                details={"bet_types": twice},
            )
        return bets
