"""Why a bet list is refused: the stable codes the API returns, and the exception that carries
one with what was violated."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from .bets import Bet

__all__ = ["BetRefused", "Refusal", "bet_refusal", "not_int"]


class Refusal(StrEnum):
    """The stable refusal codes (the API returns them verbatim with an HTTP 4xx)."""

    UNKNOWN_BET_TYPE = "unknown_bet_type"
    BET_TYPE_NOT_OFFERED = "bet_type_not_offered"
    UNKNOWN_ROLE = "unknown_role"
    INVALID_AMOUNT = "invalid_amount"
    NOT_CHIP_MULTIPLE = "not_chip_multiple"
    BIG_SMALL_CLOSED = "big_small_closed"
    SPECTATOR_BETTING_NOT_ALLOWED = "spectator_betting_not_allowed"
    SEAT_REQUIRED = "seat_required"
    SEAT_OUT_OF_RANGE = "seat_out_of_range"
    SPECTATOR_HAS_SEAT = "spectator_has_seat"
    PLAYER_BANKER_CANNOT_BET = "player_banker_cannot_bet"
    INVALID_PERSONAL_LIMIT = "invalid_personal_limit"
    INCONSISTENT_BETTOR = "inconsistent_bettor"
    BALANCE_REQUIRED = "balance_required"
    BELOW_MIN_BALANCE = "below_min_balance"
    BELOW_SEATED_MIN_LEVEL = "below_seated_min_level"
    BANKER_AND_PLAYER_TOGETHER = "banker_and_player_together"
    BELOW_MIN_BET = "below_min_bet"
    ABOVE_AREA_LIMIT = "above_area_limit"
    ABOVE_PERSONAL_LIMIT = "above_personal_limit"
    BELOW_PERSONAL_LIMIT = "below_personal_limit"
    ABOVE_TABLE_MAX = "above_table_max"
    INSUFFICIENT_BALANCE = "insufficient_balance"
    TOO_MANY_SEATED = "too_many_seated"
    SEAT_TAKEN = "seat_taken"
    SEATED_BETTOR_REQUIRED = "seated_bettor_required"
    PLAYER_BANKER_REQUIRED = "player_banker_required"
    PLAYER_BANKER_NOT_ALLOWED = "player_banker_not_allowed"
    PLAYER_BANKER_BELOW_MIN_BALANCE = "player_banker_below_min_balance"
    NOT_ENOUGH_PLAYERS = "not_enough_players"
    PLAYER_BANKER_CANNOT_COVER = "player_banker_cannot_cover"


class BetRefused(Exception):
    """The bet list is refused: ``code`` (a :class:`Refusal`), a human ``message``, and where
    known the bettor, the bet's index in the list, its type, the violated ``limit`` and the
    ``attempted`` value (both minor units, or a count/level/round as the code implies)."""

    def __init__(
        self,
        code: Refusal,
        message: str,
        *,
        bettor_id: str | None = None,
        bet_index: int | None = None,
        bet_type: str | None = None,
        limit: int | None = None,
        attempted: int | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.bettor_id = bettor_id
        self.bet_index = bet_index
        self.bet_type = bet_type
        self.limit = limit
        self.attempted = attempted

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, for the API's error body."""
        return {
            "code": self.code.value,
            "message": self.message,
            "bettor_id": self.bettor_id,
            "bet_index": self.bet_index,
            "bet_type": self.bet_type,
            "limit": self.limit,
            "attempted": self.attempted,
        }


def bet_refusal(code: Refusal, message: str, i: int, bet: Bet, **kw: Any) -> BetRefused:
    """The refusal of the bet at index ``i`` of the list: its bettor, index and type named."""
    return BetRefused(
        code, message, bettor_id=bet.bettor_id, bet_index=i, bet_type=str(bet.type), **kw
    )


def not_int(value: object) -> bool:
    """Not a whole number as the rules count them (``True`` is no amount)."""
    return isinstance(value, bool) or not isinstance(value, int)
