"""What a deal locks: the bets it takes (the request's, or the book's window) under the
seeds' rules for such a deal, validated all or nothing — written once for the deal
(:mod:`.dealing`) and a bacc-pf-v2 round's lock (:mod:`.locking`)."""

from __future__ import annotations

from baccarat.bets import PlayerBanker
from baccarat.profiles import TableConfig
from baccarat.validation import AcceptedRound, BetRefused, validate_bets
from baccarat_api.ports.records import LiveRecord
from baccarat_api.service import betting
from baccarat_api.service.bets import DealBets, refusal
from baccarat_api.service.book import book_banker, book_bets
from baccarat_api.service.errors import DomainError


def bets_of(
    asked: DealBets | None,
    config: TableConfig,
    table: LiveRecord,
    shoe_id: str,
    number: int,
    window: str | None,
    at: str,
) -> DealBets:
    """The bets the deal locks: those ``asked``, or (``None``) the book's — the window waiting
    for round ``number``; with ``window``, only the one opened then — each after the seeds'
    rules for such a deal (the company; no explicit deal over a waiting window or an
    unsettled round)."""
    if window is None:  # an operator's deal (the sweep and a table's clock name the window)
        betting.not_auto(table, "it deals")
    if asked is not None:
        betting.explicit_deal_allowed(table, shoe_id, at)
        betting.previous_resolved(table)
        betting.check_company(config, table, "a round is dealt")
        return asked
    waiting = betting.book_window(table, shoe_id, number)
    if window is not None and waiting["opened_at"] != window:
        raise DomainError(
            "no_betting_window",
            f"the window of round {number} opened at {window} no longer waits",
            details={"round_number": number},
        )
    betting.check_company(config, table, "a round is dealt from the book")
    book = book_bets(table)
    return DealBets(book, book_banker(config, table, book))


def present(table: LiveRecord, given: DealBets) -> list[str]:
    """The seated bettors sitting the round out: "an empty table" is judged by presence."""
    betting_now = {b["bettor_id"] for b in given.bets or []}
    return [w["bettor_id"] for w in table.seats.values() if w["bettor_id"] not in betting_now]


def accepted_bets(
    config: TableConfig, seated: list[str], given: DealBets, number: int
) -> tuple[AcceptedRound, PlayerBanker | None]:
    """The bets accepted (all or nothing) and the player-banker; ``seated``: the seated
    bettors present who do not bet (:func:`present`) — a seated bettor sitting this round out
    still sits."""
    bets, pb = given.objects()
    try:
        return validate_bets(config, bets, number, pb, seated_present=seated), pb
    except BetRefused as exc:
        raise refusal(exc) from None
