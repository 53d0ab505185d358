"""The live table: its events and its state now."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from baccarat_api.service.models.common import (
    Banking,
    CurrencyCode,
    MinorUnitExponent,
    Result,
    ShoeStatus,
    Strict,
)
from baccarat_api.service.models.presence import CrowdOut
from baccarat_api.service.models.rounds import RoundStatus
from baccarat_api.service.models.slips import BookOut


class EventOut(Strict):
    event_id: str = Field(description="<table_id>:<seq>: unique across the operator, stable")
    seq: int = Field(description="the table's event number: 1, 2, 3 … gap-free")
    type: str = Field(description="what happened (docs/api.md lists every type and its data)")
    at: str = Field(description="when (ISO 8601 UTC, milliseconds)")
    data: dict[str, Any]


class EventsPageOut(Strict):
    table_id: str
    events: list[EventOut] = Field(description="in order, oldest first")
    next_after: int = Field(description="pass as `after` for the next page (the last seq here)")
    more: bool = Field(description="more events follow this page right now")


TablePhase = Literal["idle", "betting", "closed", "squeeze", "dealt", "settled"]


class TableShoeOut(Strict):
    shoe_id: str
    shoe_number: int
    status: ShoeStatus
    rounds_dealt: int
    cards_remaining: int = Field(description="cards left in the shoe (剩餘張數)")
    history: list[dict[str, Any]] = Field(description="the last 30 rounds (歷史開牌)")
    roads: dict[str, Any] = Field(
        description="bead_plate, big_road, big_eye_boy, small_road, cockroach_pig"
    )
    last_round_id: str | None


class TableCardOut(Strict):
    position: int
    hand: Literal["player", "banker"]
    index: int = Field(description="1–3 in the hand")
    face: Literal["up", "down"] = Field(description="how it was dealt")
    squeezer: str | None = Field(description="who squeezes it (face-down cards; null: system)")
    code: str | None = Field(description="the card, once the table shows it (null: still down)")


class TableRoundOut(Strict):
    round_id: str
    round_number: int
    status: RoundStatus
    dealt_at: str
    settle_by: str | None
    bettors: int = Field(description="how many bettors have bets locked in the round")
    squeeze: dict[str, Any] | None = Field(
        description="the squeeze plan with its steps now (as GET /v1/rounds/{id})"
    )
    cards: list[TableCardOut] = Field(
        description="the cards on the table in dealing order: first cards from the deal, a "
        "face-down card once its hand is opened, third cards once the initial step is revealed"
    )
    result: Result | None = Field(description="once every card is shown (null before)")


class ClockNextOut(Strict):
    step: Literal["open", "close", "reveal", "settle", "commit", "draw"] = Field(
        description="what the table does next by itself (draw: a bacc-pf-v2 round's cards, when "
        "its beacon round exists)"
    )
    due: str = Field(description="when (it happens at this time, or as soon as it can after)")


class TableClockOut(Strict):
    """A running table's clock (``"dealing": "auto"``)."""

    dealing: Literal["auto"]
    pause_seconds: int = Field(
        description="seconds from a round's resolution (its last card shown) to the next window"
    )
    paused: bool = Field(description="paused by the operator: no new window, no new shoe")
    waiting: str | None = Field(
        description="why it waits (no_client_seed: no open shoe — its shoe ended, or none yet — "
        "and no client seed queued; null otherwise: waiting for company shows as next null)"
    )
    next: ClockNextOut | None = Field(
        description="its next time-driven step (null: paused with no round in flight, or "
        "waiting for company or a seed)"
    )
    client_seeds_queued: int = Field(description="client seeds given in advance, not used yet")


class YouOut(Strict):
    """The token holder's own place at the table (the player view of ``GET …/state``)."""

    bettor_id: str
    role: Literal["seat", "banker", "spectator", "watcher"]
    place: str | None = Field(
        description="seat 1 … seat 7, banker, spectator, watcher; null: not at the table"
    )
    balance: int | None = Field(description="their balance (null: a watcher, or not present)")


class TableStateOut(Strict):
    """Everything a frontend draws of one table now; then follow the feed from ``seq``."""

    table_id: str
    profile: Literal["star-city", "bid-squeeze"]
    tier: str
    banking: Banking
    fairness: Literal["bacc-pf-v1", "bacc-pf-v2"] = Field(
        default="bacc-pf-v1", description="bacc-pf-v2: each round's cards wait for its beacon"
    )
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    seq: int = Field(description="the table's last event number: follow the feed after it")
    at: str = Field(description="the moment this state describes (phases move with time)")
    phase: TablePhase = Field(
        description="idle | betting (window open) | closed (no more bets, not dealt) | squeeze "
        "(a reveal step counting down) | dealt (all shown, not settled) | settled"
    )
    deadline: str | None = Field(
        description="betting: closes_at; closed: from when the sweep may deal the book; squeeze: "
        "the step's reveal_by; dealt: settle_by, from when the sweep may settle. The sweep runs "
        "once a minute: it acts up to about a minute after its deadline"
    )
    seats: dict[int, dict[str, Any]] = Field(description="seat → {bettor_id, balance, level}")
    banker: dict[str, Any] | None = Field(description="the player-banker {bettor_id, balance}")
    spectators: dict[str, dict[str, Any]] = Field(
        description="bettor id → {balance, personal_limits}"
    )
    watchers: list[str] = Field(description="the observer list (觀局清單), in order of arrival")
    idle: dict[str, int] = Field(
        description="seated bettor → consecutive rounds without a bet (star-city: removed at 5, "
        "the profile's idle_round_limit; bid-squeeze: counted, nobody is removed)"
    )
    book: BookOut = Field(description="the betting window and each seat's / spectator's slip")
    shoe: TableShoeOut | None = Field(description="the open shoe, else the latest (null: none)")
    round: TableRoundOut | None = Field(description="the latest round of that shoe (null: none)")
    clock: TableClockOut | None = Field(
        description="a running table's clock (dealing auto); null at an operator table"
    )
    crowd: CrowdOut | None = Field(
        default=None,
        description="at a book table (`bet_behind: book`): the spectators and watchers counted "
        "and the first 20 named (`spectators` and `watchers` are then empty); null elsewhere",
    )
    you: YouOut | None = Field(
        default=None,
        description="a player token's holder: who, the token's role, where they are now and "
        "their balance (everyone else's balance and personal limits are then null); null for "
        "the operator",
    )
    push_url: str | None = Field(
        description="the push channel's WebSocket URL (AppSync Events' realtime endpoint; "
        "`make run`: ws://…/event/realtime); null where no push is configured"
    )
    push_channel: str = Field(
        description="the table's push channel now, `/tables/{table_id}/e{epoch}`: subscribe, "
        'then read this state (docs/api.md "Push")'
    )
