"""A table's fairness summary: its shoes' interventions, and the open shoe's so far."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from baccarat_api.service.models.common import EndReason, Strict
from baccarat_api.service.models.proofs import InterventionsOut


class FairnessTotalsOut(Strict):
    shoes: int = Field(description="ended shoes with a final proof")
    voided_rounds: int
    voided_player_net: int = Field(description="what the voids took from the bettors")
    voided_player_banker_net: int = Field(
        description="what the voids gave or took from the player-banker, apart"
    )
    closed_early: int = Field(description="how many of them were closed early")
    rounds_dealt: int
    rounds_possible: int


class ShoeFairnessOut(Strict):
    shoe_id: str
    shoe_number: int
    ended_at: str
    end_reason: EndReason
    interventions: InterventionsOut
    proof: str = Field(description="relative URL of the shoe's proof (page 1)")


class OpenVoidOut(Strict):
    round_number: int
    reason: str
    note: str | None
    voided_at: str
    replaced: dict[str, Any] | None = Field(
        description="the settlement the void replaced: nets by bettor_ref and house_take "
        "(null while the round's cards are not all shown yet)"
    )


class OpenInterventionsOut(Strict):
    voided_rounds: int
    voided_player_net: int = Field(description="what the voids so far took from the bettors")
    voided_player_banker_net: int = Field(description="the player-banker's, apart")
    rounds_dealt: int


class OpenShoeFairnessOut(Strict):
    """The table's open shoe as far as it went — no card, no seed: its proof comes at its
    end."""

    shoe_id: str
    shoe_number: int
    created_at: str
    close_by: str | None = Field(
        description="when the service closes it if nothing is dealt before (later if a round "
        "then still awaits settlement)"
    )
    interventions: OpenInterventionsOut
    voids: list[OpenVoidOut] = Field(description="its voided rounds so far, in round order")


class FairnessOut(Strict):
    table_id: str
    totals: FairnessTotalsOut = Field(
        description="summed over every shoe listed (all pages); the open shoe is not in them"
    )
    open_shoe: OpenShoeFairnessOut | None = Field(
        description="the table's open shoe: its rounds dealt and its voids so far (first page "
        "only; null when none, or on a later page)"
    )
    shoes: list[ShoeFairnessOut] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as ?cursor= for the next (older) shoes")
