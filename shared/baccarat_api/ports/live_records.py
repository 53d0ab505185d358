"""The live table's records: its live state (one item per table, moved by every change at it)
and its events (re-exported by :mod:`.records`, where every record kind is listed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from baccarat_api.ports.documents import (
    BankerSeat,
    BettingWindow,
    ClockDoc,
    LastRound,
    LiveSqueeze,
    QueuedSeed,
    SeatHolder,
    Slip,
    Spectator,
    TickDoc,
)


@dataclass(frozen=True, slots=True)
class LiveRecord:
    """The table's live state: one small item per table (``sk = LIVE``) that every
    event-emitting transaction updates, conditionally on ``seq`` — so ``seq`` is both the
    table's event counter (the last event's number; gap-free, never reused) and the optimistic
    lock of everything live at the table (presence, the betting window). Absent until the
    table's first event (then put, on condition that it is still absent) — a running table's
    is put at its creation."""

    operator_id: str
    table_id: str
    #: The number of the table's last event (0: none yet).
    seq: int = 0
    #: When it last changed (the last event's ``at``).
    updated_at: str = ""
    #: Presence: seat number (``"1"`` … ``"7"``) → who sits there; the player-banker seat;
    #: spectators by bettor id (bid-squeeze, at most ``MAX_SPECTATORS``); watchers (the
    #: observer list, at most ``MAX_WATCHERS`` ids).
    seats: dict[str, SeatHolder] = field(default_factory=dict)
    banker: BankerSeat | None = None
    spectators: dict[str, Spectator] = field(default_factory=dict)
    watchers: list[str] = field(default_factory=list)
    #: The betting window of the table's next round (:mod:`baccarat_api.service.betting`); it
    #: stays until the next one opens. ``None``: betting was never opened here.
    betting: BettingWindow | None = None
    #: The book of that window: bettor id → the bettor's confirmed slip. At most one slip
    #: per seated bettor and spectator present: ≤ 7 + ``MAX_SPECTATORS`` slips, each ≤ 13 bets.
    book: dict[str, Slip] = field(default_factory=dict)
    #: The seated bettors' idle counters (seed 000: 5 rounds without a bet → removed): bettor
    #: id → consecutive rounds of the TABLE (across shoes; voided rounds count) dealt while
    #: seated without a bet; moved at every deal, dropped when the seat is left.
    idle: dict[str, int] = field(default_factory=dict)
    #: The table's latest dealt round and the spectators who bet in it (removed after its
    #: settlement once no seated bettor remains). Moved by every deal, settlement and void.
    last_round: LastRound | None = None
    #: The squeeze of the table's latest dealt round (``service/squeezing.py``): ``{round_id,
    #: dealt_at, seconds, hands, reveals, noticed}`` — what the next change at the table needs
    #: to report a step the system opened at its deadline, and what ``GET …/state`` shows.
    squeeze: LiveSqueeze | None = None
    #: While a window waits to be dealt: when the sweep deals it from the book (``closes_at`` +
    #: the table's ``betting_seconds``; the sparse DueRounds index keys it). ``None`` otherwise.
    deal_by: str | None = None
    #: The table's open shoe, as its table item says (set by the commit, cleared by the close
    #: or the shoe's last deal, in their transactions). Betting decides on THIS copy: it moves
    #: under ``seq``, so a table item read torn from the live state (a BatchGetItem is not
    #: isolated from a transaction) cannot open a window on a shoe that has just ended.
    open_shoe_id: str | None = None
    #: When the table's urge button was last pressed (taken): a press within
    #: ``URGE_COOLDOWN_SECONDS`` of it is refused — decided on this copy, which moves under
    #: ``seq``, so of presses racing one is taken (``service/squeezing.py``).
    urged_at: str | None = None
    #: A running table (``"dealing": "auto"``): how it runs itself; its next time-driven step
    #: (derived again by every change); the client seeds given in advance, oldest first.
    clock: ClockDoc | None = None
    tick: TickDoc | None = None
    client_seeds: list[QueuedSeed] | None = None
    #: The table's push channel's epoch (``/tables/{table_id}/e{epoch}``; ``service/push.py``):
    #: moved on by a rotation (a revoked token). ``None``: never rotated, read as
    #: :data:`~baccarat_api.limits.PUSH_FIRST_EPOCH` (items written before it existed too).
    push_epoch: int | None = None


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One table event (design-events.md): written in the SAME transaction as the change it
    reports, numbered by the table's :class:`LiveRecord` counter, never updated or deleted.
    ``data`` is small: ids, and for money events a summary (the money stays on the round)."""

    operator_id: str
    table_id: str
    seq: int
    type: str
    #: The change's time (``clock.now()``: ISO 8601 UTC, milliseconds).
    at: str
    data: dict[str, Any] = field(default_factory=dict)
    #: The push epoch of the live state the change read (``None``: the first), so the push job
    #: publishes the event to its channel from the stream's image alone.
    epoch: int | None = None

    @property
    def event_id(self) -> str:
        """``<table_id>:<seq>``: unique across the operator, stable (webhooks dedupe by it)."""
        return f"{self.table_id}:{self.seq}"
