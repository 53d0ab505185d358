"""Presence at a table: seats, the player-banker seat, spectators, watchers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictInt

from baccarat_api.service.models.bets import PersonalLimits
from baccarat_api.service.models.common import BettorId, Money, Strict


class SeatRequest(Strict):
    bettor_id: BettorId
    balance: Money = Field(description="the bettor's balance now (held to the tier's minimum)")
    level: StrictInt | None = Field(
        default=None, ge=0, le=10_000, description="VIP level (bid-squeeze seats need a minimum)"
    )


class BankerRequest(Strict):
    bettor_id: BettorId
    balance: Money = Field(description="held to the tier's player-banker minimum")


class SpectatorRequest(Strict):
    balance: Money
    personal_limits: PersonalLimits | None = Field(
        default=None,
        description='個人限紅 per bet type: a maximum (`{"banker": 5000}`) or a range '
        '(`{"banker": {"min": 2000, "max": 5000}}`), each bound within the tier\'s '
        "own limits for that type (422 invalid_personal_limit)",
    )


class NamesOut(Strict):
    """Who is there, in short: how many, the first names, the cursor of the rest."""

    count: int = Field(description="how many are present")
    first: list[str] = Field(description="the first 20 bettor ids, in bettor-id order")
    next: str | None = Field(
        description="pass as `after` to `GET …/spectators` / `…/watchers` for the rest "
        "(null: nobody more)"
    )


class CrowdOut(Strict):
    """The spectators and watchers of a book table (``bet_behind: book``), who are not on the
    live state: counted, the first named."""

    spectators: NamesOut
    watchers: NamesOut


class SpectatorEntryOut(Strict):
    bettor_id: str
    balance: int = Field(description="the balance last reported")


class SpectatorsPageOut(Strict):
    """A page of a table's spectators, in bettor-id order."""

    table_id: str
    count: int = Field(description="how many are present")
    spectators: list[SpectatorEntryOut] = Field(description="at most `limit` (≤ 200)")
    next: str | None = Field(description="pass as `after` for the next page (null: the end)")


class WatchersPageOut(Strict):
    """A page of a table's watchers, in bettor-id order."""

    table_id: str
    count: int = Field(description="how many are present")
    watchers: list[str] = Field(description="bettor ids, at most `limit` (≤ 200)")
    next: str | None = Field(description="pass as `after` for the next page (null: the end)")


class RemovedOut(Strict):
    bettor_id: str
    where: str = Field(description="the place they held: `seat N`, `banker` or `spectator`")
    reason: Literal["balance"] = Field(description="the removal event's reason")
    limit: int = Field(description="the tier's minimum balance for that place")
    attempted: int = Field(description="the balance reported")


class PresenceOut(Strict):
    table_id: str
    seats: dict[int, dict[str, Any]] = Field(
        description="seat number → {bettor_id, balance, level}"
    )
    banker: dict[str, Any] | None = Field(description="the player-banker {bettor_id, balance}")
    spectators: dict[str, dict[str, Any]] = Field(
        description="bettor id → {balance, personal_limits}"
    )
    watchers: list[str] = Field(description="the observer list, in order of arrival")
    seq: int = Field(description="the table's last event number after this change")
    removed: RemovedOut | None = Field(
        default=None,
        description="who this change removed: a balance reported below the tier's minimum for "
        "someone already at the table (seed 000: 星幣金額不足底限時，系統將自動踢除)",
    )
    crowd: CrowdOut | None = Field(
        default=None,
        description="at a book table (`bet_behind: book`): the spectators and watchers counted "
        "and the first named (`spectators` and `watchers` are then empty); null elsewhere",
    )
