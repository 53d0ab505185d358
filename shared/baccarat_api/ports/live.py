"""The live table's documents (the fields of :class:`~.records.LiveRecord` other than the book):
who sits where, the betting window, the latest round (the squeeze in progress is the core's
:func:`baccarat.squeeze.live_steps` document). Stored as the
JSON objects these describe."""

from __future__ import annotations

from typing import Any, TypedDict


class SeatHolder(TypedDict):
    """A seated bettor (a seat number ``"1"`` … ``"7"`` → this)."""

    bettor_id: str
    balance: int
    level: int | None


class Banker(TypedDict):
    """The player-banker seat's holder."""

    bettor_id: str
    balance: int


class Spectator(TypedDict):
    """A bid-squeeze spectator (bettor id → this): the balance and personal limits reported
    when they joined or last updated."""

    balance: int
    personal_limits: dict[str, Any] | None


class BettingWindow(TypedDict):
    """The betting window of the table's next round: ``open`` (slips taken until
    ``closes_at``), ``closed`` ("no more bets") or ``dealt`` (``round_id`` names the round)."""

    shoe_id: str
    round_number: int
    opened_at: str
    closes_at: str
    status: str
    round_id: str | None


class LastRound(TypedDict):
    """The table's latest dealt round; ``spectators``: those who bet in it (they leave after its
    settlement once no seated bettor remains)."""

    round_id: str
    shoe_id: str
    round_number: int
    resolved: bool
    spectators: list[str]
