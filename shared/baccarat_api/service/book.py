"""The book as a deal sees it: who bets (each bettor's place from presence), the book's bets
in accepted order, the player-banker a deal locks, the book validated exactly as its deal would
be, and a waiting slip dropped when a balance report alone makes the book fail.

Pure functions of the live state (:class:`~baccarat_api.ports.records.LiveRecord`): the betting
routes, the deal and presence share them, so a book that passes here passes at the deal."""

from __future__ import annotations

from typing import Any, TypedDict

from baccarat.bets import bets_from_json, player_banker_from_json
from baccarat.profiles import Banking, TableConfig
from baccarat.validation import BetRefused, validate_bets
from baccarat_api.ports.documents import (
    LockedBet,
    LockedPlayerBanker,
    PersonalLimit,
    Slip,
    SlipBet,
)
from baccarat_api.ports.records import LiveRecord
from baccarat_api.service.bets import as_doc, refusal
from baccarat_api.service.errors import DomainError
from baccarat_api.service.events import Change
from baccarat_api.service.models import BetIn
from baccarat_api.service.window import DEALT


def line_orders(slip: Slip) -> list[int]:
    """Each line's accepted order (a slip stored before lines had their own: the slip's)."""
    orders = slip.get("orders")
    return [int(o) for o in orders] if orders else [int(slip["order"])] * len(slip["bets"])


class Place(TypedDict, total=False):
    """A bettor's betting identity at the table, from presence."""

    role: str
    seat: int
    balance: int
    level: int | None
    personal_limits: dict[str, PersonalLimit] | None


def place_of(live: LiveRecord, bettor_id: str) -> Place | None:
    """The bettor's betting identity from presence: ``{role, seat, balance, level}`` for a seated
    bettor, ``{role, balance, personal_limits}`` for a spectator; ``None`` elsewhere."""
    for seat, who in live.seats.items():
        if who["bettor_id"] == bettor_id:
            return {"role": "seated", "seat": int(seat), "balance": who["balance"],
                    "level": who.get("level")}  # fmt: skip
    if bettor_id in live.spectators:
        spectator = live.spectators[bettor_id]
        return {"role": "spectator", "balance": spectator["balance"],
                "personal_limits": spectator.get("personal_limits")}  # fmt: skip
    return None


def book_bets(live: LiveRecord, book: dict[str, Slip] | None = None) -> list[LockedBet]:
    """The book's bets in API form (as a deal's ``bets`` carry them), in accepted order — each
    line's own (:func:`line_orders`: an unchanged line of a re-confirmed slip keeps its time) —,
    with its bettor's role, seat, balance, level and limits from presence now."""
    lines: list[tuple[int, int, str, Place, SlipBet]] = []
    for bettor_id, slip in (book if book is not None else live.book).items():
        place = place_of(live, bettor_id)
        if place is None:
            continue  # left the table (its slip went with it)
        for i, (bet, order) in enumerate(zip(slip["bets"], line_orders(slip), strict=True)):
            lines.append((order, i, bettor_id, place, bet))
    lines.sort(key=lambda line: line[:2])  # an order is one confirmation: one bettor's
    return [as_doc(BetIn.model_validate({"bettor_id": bettor_id, **place, **bet}))
            for _, _, bettor_id, place, bet in lines]  # fmt: skip


def book_banker(
    config: TableConfig, live: LiveRecord, bets: list[LockedBet]
) -> LockedPlayerBanker | None:
    """The player-banker a deal of ``bets`` locks (API form): the seated one, on a
    player-banker table with bets; else ``None``."""
    if config.banking is not Banking.PLAYER_BANKER or not bets or live.banker is None:
        return None
    return {"bettor_id": live.banker["bettor_id"], "balance": live.banker["balance"]}


def validate_book(
    config: TableConfig, live: LiveRecord, book: dict[str, Slip], round_number: int
) -> None:
    """``book`` validated exactly as a deal of it would be (:func:`baccarat.validation.
    validate_bets`: each bettor's role, seat, limits and balance, and the player-banker's
    cover), seated bettors without a slip counted as present."""
    bets = book_bets(live, book)
    pb = book_banker(config, live, bets)  # none at a player-banker table: player_banker_required
    slipped = set(book)
    seated_present = [w["bettor_id"] for w in live.seats.values() if w["bettor_id"] not in slipped]
    try:
        validate_bets(
            config,
            bets_from_json(bets),
            round_number,
            player_banker_from_json(pb),
            seated_present=seated_present,
        )
    except BetRefused as exc:
        raise refusal(exc) from None


def slip_after_update(
    config: TableConfig, before: LiveRecord, live: LiveRecord, bettor_id: str
) -> tuple[list[Change], dict[str, Any]]:
    """``live`` after the operator reported another balance (or limits) for ``bettor_id``
    (``before``: the table before the report): if their slip waits in the book and no longer
    passes as the deal will validate it (e.g. over the new balance) while the book without it
    does — and the report is what made it fail (the book passed before it) —, the slip is
    cancelled, reported ``bet_cancelled`` with the refusal's ``code``. Kept, that one slip would
    have the whole book's deal refused — every other bettor's slip with it — and, past
    ``closes_at``, nobody could cancel it. A book refused already (a player-banker's report left
    it without cover) is not this bettor's doing: their slip stays. Before any card, so no
    money moves."""
    betting = live.betting
    if (
        betting is None
        or betting["status"] == DEALT
        or betting["shoe_id"] != live.open_shoe_id
        or bettor_id not in live.book
    ):
        return [], {}
    number = int(betting["round_number"])
    try:
        validate_book(config, live, live.book, number)
        return [], {}
    except DomainError as exc:
        code = exc.code
    try:
        validate_book(config, before, before.book, number)
    except DomainError:
        return [], {}  # refused before this report too: not this bettor's doing
    rest = {k: v for k, v in live.book.items() if k != bettor_id}
    try:
        validate_book(config, live, rest, number)
    except DomainError:
        return [], {}  # the book fails without this slip too: not this bettor's doing
    cancelled = {"round_number": number, "bettor_id": bettor_id, "reason": code}
    return [("bet_cancelled", cancelled)], {"book": rest}
