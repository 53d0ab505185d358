"""The squeeze: revealing face-down cards, and the player-banker's urge button."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from baccarat_api.service.models.common import BettorId, Strict


class RevealRequest(Strict):
    bettor_id: BettorId = Field(description="the squeezer opening their cards")
    step: Literal["initial", "draws"] = Field(
        description="initial: the second cards of the first four; draws: the third cards"
    )


class RevealOut(Strict):
    round_id: str
    squeeze: dict[str, Any] = Field(
        description="the round's squeeze plan with its steps now (as GET /v1/rounds/{id})"
    )
    seq: int = Field(description="the table's last event number after this change")


class UrgeRequest(Strict):
    bettor_id: BettorId = Field(description="the seated player-banker pressing the button")


class UrgeOut(Strict):
    table_id: str
    round_id: str | None = Field(
        description="the round the table is waiting on (its squeeze is still running), or null"
    )
    seq: int = Field(description="the table's last event number after this change")
