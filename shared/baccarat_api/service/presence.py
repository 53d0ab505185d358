"""Presence at a table: seats 1–7, the player-banker seat, bid-squeeze spectators and watchers,
on the table's live state; each change reported by its events in the same transaction.

The rules (game-rules.md, seeds 000/001) are the core's where it has them: a seat or spectator
place needs the tier's minimum balance (and on bid-squeeze, a seat its ``seated_min_level``);
one person holds one place at a table; spectators only where they may bet and while a seat is
taken; when the last seated bettor leaves, the spectators go (:mod:`.seating`). Taking a place
you hold, with the same details, changes nothing (a retried PUT is harmless). At a book table
(``bet_behind: book``) the spectators and watchers are the book store's
(:mod:`.book_presence`); its seats are as here.

Round trips (listed tables): BatchGetItem (table + live state) + TransactWriteItems = 2; 1 when
nothing changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from baccarat.profiles import Banking, TableConfig
from baccarat.validation import BetRefused, check_personal_limits
from baccarat_api.limits import MAX_SPECTATORS, MAX_WATCHERS
from baccarat_api.ports.records import LiveRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service import book_presence
from baccarat_api.service.bets import refusal
from baccarat_api.service.book import slip_after_update
from baccarat_api.service.errors import DomainError
from baccarat_api.service.events import BettorChange, BettorLeft, Change, SeatChange
from baccarat_api.service.live import Decision, live_change
from baccarat_api.service.models import PresenceOut
from baccarat_api.service.presence_rules import Removal, elsewhere, min_balance
from baccarat_api.service.seating import presence_view, spectator_out, vacate

#: How a book table answers a spectator's or watcher's change instead of the live state.
AtBook = Callable[[TableRecord, LiveRecord], PresenceOut]


class _Book(Exception):
    """The change is a book table's spectator's or watcher's (raised before any write)."""

    def __init__(self, table: TableRecord, live: LiveRecord) -> None:
        self.table, self.live = table, live


def change(
    repo: Repository,
    operator_id: str,
    table_id: str,
    decide: Callable[[TableConfig, LiveRecord], Decision],
    at_book: AtBook | None = None,
    seating: str | None = None,
) -> PresenceOut:
    """A presence change (:func:`live_change` answering the table's presence). At a book
    table: ``at_book`` answers instead (a spectator's or watcher's change), or — a seat's
    change — ``seating`` (the bettor) is checked against the book's places first and, the
    seat taken, once more (a join racing the seat: the seat wins), and once the change leaves
    no seat taken, the book's spectators go."""
    tables: list[TableRecord] = []

    def decide_(table: TableRecord, live: LiveRecord) -> Decision:
        tables[:] = [table]
        if book_presence.at_book(table):
            if at_book is not None:
                raise _Book(table, live)
            if seating is not None:
                book_presence.not_in_book(repo, operator_id, table_id, seating)
        return decide(TableConfig.from_dict(table.config), live)

    try:
        out = live_change(repo, operator_id, table_id, decide_, presence_view)
    except _Book as book:
        assert at_book is not None
        return at_book(book.table, book.live)
    if not tables or not book_presence.at_book(tables[0]):
        return out
    if not out.seats:
        book_presence.remove_spectators(repo, operator_id, table_id)
    elif seating is not None and any(s["bettor_id"] == seating for s in out.seats.values()):
        book_presence.seat_wins(repo, operator_id, table_id, seating)
    crowd = book_presence.crowd(repo, operator_id, table_id)
    return out.model_copy(update={"crowd": crowd})


def _with_slip(
    config: TableConfig, live: LiveRecord, bettor_id: str, updated: Change, **changes: Any
) -> Decision:
    """A bettor's balance or limits ``updated`` (``live`` with ``changes``): their slip in the
    book, if the report leaves it refused, is cancelled with it
    (:func:`~.book.slip_after_update`)."""
    more, book = slip_after_update(config, live, replace(live, **changes), bettor_id)
    return [updated, *more], {**changes, **book}


def take_seat(
    repo: Repository,
    operator_id: str,
    table_id: str,
    seat: int,
    bettor_id: str,
    balance: int,
    level: int | None,
) -> PresenceOut:
    """Seat ``seat`` taken by ``bettor_id``, or their balance or level updated; a balance below
    the tier's minimum reported for the bettor already seated there unseats them (``seat_vacated``,
    reason ``balance``, told in ``removed``)."""
    removal = Removal()

    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if not 1 <= seat <= config.profile.seats:
            raise DomainError(
                "seat_out_of_range",
                f"seats are 1 to {config.profile.seats}",
                details={"seat": seat},
            )
        here = f"seat {seat}"
        elsewhere(live, bettor_id, here)
        taken = live.seats.get(str(seat))
        wanted = {"bettor_id": bettor_id, "balance": balance, "level": level}
        if taken is not None and taken["bettor_id"] != bettor_id:
            raise DomainError("seat_occupied", f"seat {seat} is taken", details={"seat": seat})
        if taken == wanted:
            return None
        if taken is not None and removal.below(config, bettor_id, here, balance):
            return vacate(config, live, str(seat), "balance")
        min_balance(config, balance)
        need = config.tier.seated_min_level
        if need is not None and (level is None or level < need):
            raise DomainError(
                "below_seated_min_level",
                f"a seat here needs level {need}; join as a spectator instead",
                details={"limit": need, "attempted": level},
            )
        seats = {**live.seats, str(seat): wanted}
        if taken is None:
            return [("seat_taken", SeatChange(seat=seat, bettor_id=bettor_id))], {"seats": seats}
        updated = ("seat_updated", SeatChange(seat=seat, bettor_id=bettor_id))
        return _with_slip(config, live, bettor_id, updated, seats=seats)

    return removal.answer(change(repo, operator_id, table_id, decide, seating=bettor_id))


def leave_seat(
    repo: Repository, operator_id: str, table_id: str, seat: int, holder: str | None = None
) -> PresenceOut:
    """The seat left; ``holder`` (a player token's person): only if it is theirs."""

    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if str(seat) not in live.seats:
            raise DomainError("not_found", f"seat {seat} is free", details={"seat": seat})
        own(holder, live.seats[str(seat)]["bettor_id"])
        return vacate(config, live, str(seat), "left")

    return change(repo, operator_id, table_id, decide)


def own(holder: str | None, bettor_id: str) -> None:
    """403 ``token_person_mismatch`` unless the place is ``holder``'s (``None``: an operator)."""
    if holder is not None and holder != bettor_id:
        raise DomainError("token_person_mismatch", "the place is someone else's")


def take_banker(
    repo: Repository, operator_id: str, table_id: str, bettor_id: str, balance: int
) -> PresenceOut:
    """The player-banker seat taken, or its balance updated; a balance below the tier's
    minimum reported for the seated player-banker removes them (``banker_left``, reason
    ``balance``, told in ``removed``)."""
    removal = Removal()

    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if config.banking is not Banking.PLAYER_BANKER:
            raise DomainError(
                "player_banker_not_allowed",
                "this table is banked by the house: it has no player-banker seat",
            )
        elsewhere(live, bettor_id, "banker")
        wanted = {"bettor_id": bettor_id, "balance": balance}
        if live.banker is not None and live.banker["bettor_id"] != bettor_id:
            raise DomainError(
                "seat_occupied", "the player-banker seat is taken", details={"seat": "banker"}
            )
        if live.banker == wanted:
            return None
        if live.banker is not None and removal.below(config, bettor_id, "banker", balance):
            left = ("banker_left", BettorLeft(bettor_id=bettor_id, reason="balance"))
            return [left], {"banker": None}
        min_balance(config, balance, banker=True)
        event = "banker_taken" if live.banker is None else "banker_updated"
        return [(event, {"bettor_id": bettor_id})], {"banker": wanted}

    return removal.answer(change(repo, operator_id, table_id, decide))


def leave_banker(
    repo: Repository, operator_id: str, table_id: str, holder: str | None = None
) -> PresenceOut:
    """The player-banker seat left; ``holder`` (a player token's person): only if theirs."""

    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if live.banker is None:
            raise DomainError("not_found", "the player-banker seat is free")
        own(holder, live.banker["bettor_id"])
        left = ("banker_left", BettorLeft(bettor_id=live.banker["bettor_id"], reason="left"))
        return [left], {"banker": None}

    return change(repo, operator_id, table_id, decide)


def join_spectators(
    repo: Repository,
    operator_id: str,
    table_id: str,
    bettor_id: str,
    balance: int,
    personal_limits: dict[str, Any] | None,
    vault: SecretVault | None = None,
) -> PresenceOut:
    """``bettor_id`` joins the spectators, or their balance or limits are updated; a balance
    below the tier's minimum reported for a spectator removes them (``spectator_left``, reason
    ``balance``, told in ``removed``). ``vault``: a book table's (the spectator's bettor ref)."""
    removal = Removal()

    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if not config.profile.spectators_may_bet:
            raise DomainError(
                "spectator_betting_not_allowed",
                "spectators only watch at this table: join the watchers instead",
            )
        elsewhere(live, bettor_id, "spectator")
        try:  # where they are entered: not refused by each later slip (seed 001 個人限紅)
            check_personal_limits(config, personal_limits or {})
        except BetRefused as exc:
            raise refusal(exc) from None
        wanted = {"balance": balance, "personal_limits": personal_limits}
        if live.spectators.get(bettor_id) == wanted:
            return None
        if not live.seats:
            raise DomainError(
                "seated_bettor_required",
                "spectators join a table where someone is seated",
            )
        new = bettor_id not in live.spectators
        if not new and removal.below(config, bettor_id, "spectator", balance):
            return spectator_out(live, bettor_id, "balance")
        if new and len(live.spectators) >= MAX_SPECTATORS:
            raise DomainError(
                "table_full",
                f"a table holds at most {MAX_SPECTATORS} spectators",
                details={"limit": MAX_SPECTATORS},
            )
        min_balance(config, balance)
        spectators = {**live.spectators, bettor_id: wanted}
        if new:
            return [("spectator_joined", BettorChange(bettor_id=bettor_id))], {
                "spectators": spectators
            }
        updated = ("spectator_updated", BettorChange(bettor_id=bettor_id))
        return _with_slip(config, live, bettor_id, updated, spectators=spectators)

    def at_book(table: TableRecord, live: LiveRecord) -> PresenceOut:
        if vault is None:  # a wiring error: the routes pass it
            raise ValueError("a book table's spectator needs the vault (its bettor ref)")
        return book_presence.join_spectator(
            repo, vault, table, live, bettor_id, balance, personal_limits
        )

    return removal.answer(change(repo, operator_id, table_id, decide, at_book))


def leave_spectators(
    repo: Repository, operator_id: str, table_id: str, bettor_id: str
) -> PresenceOut:
    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if bettor_id not in live.spectators:
            raise DomainError(
                "not_found", f"{bettor_id} is not a spectator", details={"bettor_id": bettor_id}
            )
        return spectator_out(live, bettor_id, "left")

    def at_book(table: TableRecord, live: LiveRecord) -> PresenceOut:
        return book_presence.leave_spectator(repo, table, live, bettor_id)

    return change(repo, operator_id, table_id, decide, at_book)


def join_watchers(repo: Repository, operator_id: str, table_id: str, bettor_id: str) -> PresenceOut:
    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if bettor_id in live.watchers:
            return None
        elsewhere(live, bettor_id, "watcher")
        if len(live.watchers) >= MAX_WATCHERS:
            raise DomainError(
                "table_full",
                f"a table holds at most {MAX_WATCHERS} watchers",
                details={"limit": MAX_WATCHERS},
            )
        joined = ("watcher_joined", BettorChange(bettor_id=bettor_id))
        return [joined], {"watchers": [*live.watchers, bettor_id]}

    def at_book(table: TableRecord, live: LiveRecord) -> PresenceOut:
        return book_presence.join_watcher(repo, table, live, bettor_id)

    return change(repo, operator_id, table_id, decide, at_book)


def leave_watchers(
    repo: Repository, operator_id: str, table_id: str, bettor_id: str
) -> PresenceOut:
    def decide(config: TableConfig, live: LiveRecord) -> Decision:
        if bettor_id not in live.watchers:
            raise DomainError(
                "not_found", f"{bettor_id} is not watching", details={"bettor_id": bettor_id}
            )
        left = ("watcher_left", BettorChange(bettor_id=bettor_id))
        return [left], {"watchers": [w for w in live.watchers if w != bettor_id]}

    def at_book(table: TableRecord, live: LiveRecord) -> PresenceOut:
        return book_presence.leave_watcher(repo, table, live, bettor_id)

    return change(repo, operator_id, table_id, decide, at_book)
