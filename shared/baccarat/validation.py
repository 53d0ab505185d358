"""Validation of one round's whole bet list, all-or-nothing (game-rules.md, both profiles).

:func:`validate_bets` either accepts every bet of the list or raises :class:`BetRefused` for the
first violated rule, in a fixed order (table → each bet → each bettor → the table's seating →
the player-banker's cover), so the same input always gives the same refusal.

Which check applies to which profile is data in :class:`~baccarat.profiles.Profile` and
:class:`~baccarat.profiles.Tier`:

  check (code)                   star-city                     bid-squeeze
  spectator_betting_not_allowed  yes (spectators only watch)   no
  seated_bettor_required         no                            yes (empty table: seated only)
  banker_and_player_together     yes                           no
  big_small_closed               (offers no Big/Small)         yes, from round 21
  above_personal_limit           (no spectator bets)           yes, spectators only
  below_personal_limit           (no spectator bets)           yes, spectators only
  below_seated_min_level         no (tier level is null)       yes, seated bettors
  above_table_max                yes                           only if the tier sets table_max
  player_banker_*, not_enough_players: player-banker tables of either profile.

Every other check applies everywhere.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .bets import Bet, PlayerBanker, Role, personal_limits_from_json
from .paytables import BetType
from .profiles import Banking, TableConfig, Tier
from .settlement import player_banker_liability

__all__ = [
    "AcceptedRound",
    "BetRefused",
    "Refusal",
    "check_personal_limits",
    "player_banker_liability",
    "validate_bets",
]


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


@dataclass(frozen=True, slots=True)
class AcceptedRound:
    """A validated bet list: the bets (types and roles normalised to the enums), each bettor's
    total stake, and the player-banker's worst-case liability (0 on a house table)."""

    bets: tuple[Bet, ...]
    stakes: Mapping[str, int]
    player_banker_liability: int


def validate_bets(
    table: TableConfig,
    bets: Sequence[Bet],
    round_number: int,
    player_banker: PlayerBanker | None = None,
    *,
    seated_present: Collection[str] = (),
) -> AcceptedRound:
    """Accept the whole list or raise :class:`BetRefused` (nothing is partly accepted).

    ``round_number`` is the round's 1-based number in its shoe. ``seated_present`` names seated
    bettors at the table who place no bet this round (they still occupy a seat and make the table
    non-empty)."""
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise ValueError(f"round_number must be a positive integer, got {round_number!r}")
    if not bets and player_banker is None:
        # a round nobody bet on (at any table): nothing to cover, nobody to seat. With a
        # player-banker it is checked as usual (star-city: two people make a round).
        return AcceptedRound((), MappingProxyType({}), 0)
    _check_player_banker_seat(table, player_banker)
    rules = _Rules(table, round_number, player_banker)
    normalised = tuple([_check_bet(rules, i, b) for i, b in enumerate(bets)])
    by_bettor = _group(normalised)
    for lines in by_bettor.values():
        _check_bettor(rules, lines)
    _check_seating(table, by_bettor, seated_present)
    liability = _check_player_banker_cover(table, normalised, player_banker)
    stakes = {bettor: sum(b.amount for _, b in lines) for bettor, lines in by_bettor.items()}
    return AcceptedRound(normalised, MappingProxyType(stakes), liability)


class _Rules:
    """What the checks of one call read from the table, looked up once per call (validation
    runs at the speed of settlement: issue 17; ``tests/unit/test_validation_oracle.py`` holds it
    to the same answers as the straightforward version)."""

    __slots__ = (
        "banker_and_player_together",
        "big_small_last",
        "limits",
        "offered",
        "pb_id",
        "profile",
        "round_number",
        "seats",
        "spectators_may_bet",
        "tier",
        "unit",
    )  # fmt: skip

    def __init__(self, table: TableConfig, round_number: int, pb: PlayerBanker | None) -> None:
        self.profile = table.profile
        self.tier = table.tier
        self.offered = table.pay_table.offered
        self.unit = table.tier.unit
        self.big_small_last = table.profile.big_small_last_round
        self.pb_id = None if pb is None else pb.bettor_id
        self.round_number = round_number
        self.seats = table.profile.seats
        self.spectators_may_bet = table.profile.spectators_may_bet
        self.limits = table.tier.limits
        self.banker_and_player_together = table.profile.banker_and_player_together


# --- the table's player-banker seat ---------------------------------------------------------


def _check_player_banker_seat(table: TableConfig, pb: PlayerBanker | None) -> None:
    """Star-city: a player-banker table needs its player-banker, with at least the tier's
    player-banker minimum balance ("荷官所持星幣額(底限)")."""
    if table.banking is Banking.HOUSE:
        if pb is not None:
            raise BetRefused(
                Refusal.PLAYER_BANKER_NOT_ALLOWED,
                "this table is banked by the house",
                bettor_id=pb.bettor_id,
            )
        return
    if pb is None:
        raise BetRefused(Refusal.PLAYER_BANKER_REQUIRED, "this table needs its player-banker")
    minimum = table.tier.player_banker_min_balance
    if _not_int(pb.balance) or pb.balance < minimum:
        raise BetRefused(
            Refusal.PLAYER_BANKER_BELOW_MIN_BALANCE,
            f"the player-banker needs a balance of at least {minimum}",
            bettor_id=pb.bettor_id,
            limit=minimum,
            attempted=pb.balance if not _not_int(pb.balance) else None,
        )


# --- each bet on its own --------------------------------------------------------------------


def _not_int(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)


def _refuse(code: Refusal, message: str, i: int, bet: Bet, **kw: Any) -> BetRefused:
    return BetRefused(
        code, message, bettor_id=bet.bettor_id, bet_index=i, bet_type=str(bet.type), **kw
    )


#: value (or member) → member: what ``BetType(x)`` / ``Role(x)`` give, as one dict lookup
#: (a ``StrEnum`` member hashes and compares as its value).
_BET_TYPES: Mapping[object, BetType] = {t.value: t for t in BetType}
_ROLES: Mapping[object, Role] = {r.value: r for r in Role}


def _member(members: Mapping[object, Any], value: object) -> Any:
    try:
        return members.get(value)
    except TypeError:  # unhashable: no member's value
        return None


def _check_bet(rules: _Rules, i: int, bet: Bet) -> Bet:
    """One line: a known, offered bet type; a positive whole number of chip units; Big/Small not
    after round 20 (bid-squeeze); a role the profile lets bet; a seat exactly when seated."""
    bet_type, role = bet.type, bet.role
    if type(bet_type) is not BetType:
        bet_type = _member(_BET_TYPES, bet_type)
        if bet_type is None:
            raise _refuse(Refusal.UNKNOWN_BET_TYPE, f"unknown bet type {bet.type!r}", i, bet)
    if type(role) is not Role:
        role = _member(_ROLES, role)
        if role is None:
            raise _refuse(Refusal.UNKNOWN_ROLE, f"unknown role {bet.role!r}", i, bet)
    if bet_type is not bet.type or role is not bet.role:
        bet = Bet(
            bet.bettor_id, role, bet_type, bet.amount, bet.order, bet.seat, bet.level,
            bet.balance, bet.personal_limits, bet.personal_minimums,
        )  # fmt: skip
    if bet_type not in rules.offered:
        raise _refuse(
            Refusal.BET_TYPE_NOT_OFFERED, f"{rules.profile.name} has no {bet_type}", i, bet
        )
    amount = bet.amount
    if type(amount) is not int and (isinstance(amount, bool) or not isinstance(amount, int)):
        raise _refuse(Refusal.INVALID_AMOUNT, "the amount must be a positive integer", i, bet)
    if amount <= 0:
        raise _refuse(Refusal.INVALID_AMOUNT, "the amount must be a positive integer", i, bet)
    unit = rules.unit
    if amount % unit:
        raise _refuse(
            Refusal.NOT_CHIP_MULTIPLE,
            f"the amount must be a multiple of the chip unit {unit}",
            i,
            bet,
            limit=unit,
            attempted=amount,
        )
    last = rules.big_small_last
    if last is not None and rules.round_number > last and bet_type in _BIG_SMALL:
        raise _refuse(
            Refusal.BIG_SMALL_CLOSED,
            f"Big and Small may not be bet after round {last}",
            i,
            bet,
            limit=last,
            attempted=rules.round_number,
        )
    if rules.pb_id is not None and bet.bettor_id == rules.pb_id:
        raise _refuse(Refusal.PLAYER_BANKER_CANNOT_BET, "the player-banker does not bet", i, bet)
    seat = bet.seat
    if role is Role.SEATED and type(seat) is int and 1 <= seat <= rules.seats:
        return bet  # the common case: a seated bet at a valid seat
    _check_role_and_seat(rules, i, bet)
    return bet


_BIG_SMALL = frozenset({BetType.BIG, BetType.SMALL})


def _check_role_and_seat(rules: _Rules, i: int, bet: Bet) -> None:
    seats = rules.seats
    if bet.role is Role.SPECTATOR:
        if not rules.spectators_may_bet:
            raise _refuse(
                Refusal.SPECTATOR_BETTING_NOT_ALLOWED, "spectators only watch here", i, bet
            )
        if bet.seat is not None:
            raise _refuse(Refusal.SPECTATOR_HAS_SEAT, "a spectator bet has no seat", i, bet)
        if not _valid_personal_limits(bet.personal_limits, bet.personal_minimums):
            raise _refuse(
                Refusal.INVALID_PERSONAL_LIMIT,
                "personal limits map bet types to positive amounts, a minimum not above the "
                "maximum",
                i,
                bet,
            )
        return
    if bet.seat is None:
        raise _refuse(Refusal.SEAT_REQUIRED, "a seated bet needs a seat", i, bet)
    if _not_int(bet.seat) or not 1 <= bet.seat <= seats:
        raise _refuse(
            Refusal.SEAT_OUT_OF_RANGE,
            f"seats are numbered 1–{seats}",
            i,
            bet,
            limit=seats,
            attempted=bet.seat if not _not_int(bet.seat) else None,
        )


_ALL_BETS = frozenset(BetType)


def _valid_personal_limits(maxima: Mapping[BetType, int], minima: Mapping[BetType, int]) -> bool:
    """Positive whole amounts of known bet types, each minimum at most its type's maximum."""
    for limits in (maxima, minima):
        for key, value in limits.items():
            if not isinstance(key, str) or key not in _ALL_BETS or _not_int(value) or value < 1:
                return False
    return all(low <= maxima[t] for t, low in minima.items() if t in maxima)


def check_personal_limits(table: TableConfig, limits: Mapping[str, Any]) -> None:
    """A spectator's personal limits (個人限紅) as entered — per bet type a maximum, or a range
    ``{"min"?, "max"?}`` — checked where they are entered, so that none makes every later bet
    of that type impossible (seed 001 下注限紅 2: a spectator's limit is the intersection of
    theirs and the table's): each type offered at the table, each bound a whole amount within
    the tier's own range for that type (``min`` ≤ bound ≤ ``max``), the minimum not above the
    maximum. Raises :class:`BetRefused` (``invalid_personal_limit``, naming the bet type, the
    violated ``limit`` and the ``attempted`` bound)."""

    def refuse(key: str, message: str, **kw: Any) -> BetRefused:
        return BetRefused(Refusal.INVALID_PERSONAL_LIMIT, message, bet_type=str(key), **kw)

    try:
        maxima, minima = personal_limits_from_json(limits)
    except ValueError:
        bad = next(k for k in limits if k not in _ALL_BETS)
        raise refuse(bad, f"{bad} is not a bet type") from None
    offered = table.pay_table.offered
    for bet_type in [*maxima, *(t for t in minima if t not in maxima)]:
        if bet_type not in offered:
            raise refuse(bet_type, f"{table.profile.name} has no {bet_type}")
        area = table.tier.limits[bet_type]
        for name, bound in (("min", minima.get(bet_type)), ("max", maxima.get(bet_type))):
            if bound is None:
                continue
            if _not_int(bound):
                raise refuse(bet_type, f"a personal {name} is a whole amount")
            if bound < area.min:
                raise refuse(
                    bet_type,
                    f"a personal {name} on {bet_type} is at least the table's {area.min}",
                    limit=area.min,
                    attempted=bound,
                )
            if bound > area.max:
                raise refuse(
                    bet_type,
                    f"a personal {name} on {bet_type} is at most the table's {area.max}",
                    limit=area.max,
                    attempted=bound,
                )
        low, high = minima.get(bet_type), maxima.get(bet_type)
        if low is not None and high is not None and low > high:
            raise refuse(
                bet_type,
                f"the personal min on {bet_type} is above its max",
                limit=high,
                attempted=low,
            )


# --- each bettor's bets together ------------------------------------------------------------

_Lines = list[tuple[int, Bet]]


def _group(bets: Sequence[Bet]) -> dict[str, _Lines]:
    """Bettor id → that bettor's (index, bet) lines, bettors in order of first appearance."""
    by_bettor: dict[str, _Lines] = {}
    for i, bet in enumerate(bets):
        lines = by_bettor.get(bet.bettor_id)
        if lines is None:
            by_bettor[bet.bettor_id] = [(i, bet)]
        else:
            lines.append((i, bet))
    return by_bettor


def _check_bettor(rules: _Rules, lines: _Lines) -> None:
    """One bettor's round: consistent identity, balance and level, the Banker-or-Player rule,
    every area's minimum and maximum, the table maximum, and stakes covered by the balance."""
    if len(lines) > 1:
        _check_consistent(lines)
    _check_balance_and_level(rules.tier, lines)
    if not rules.banker_and_player_together:
        _check_banker_and_player(lines)
    _check_areas(rules, lines)
    _check_totals(rules.tier, lines)


def _check_consistent(lines: _Lines) -> None:
    """Every line of one bettor agrees on role, seat, balance, level and personal limits."""
    first = lines[0][1]
    head = (first.role, first.seat, first.balance, first.level)
    limits = first.personal_limits
    minima = first.personal_minimums
    plain: dict[BetType, int] | None = None
    for i, bet in lines[1:]:
        same = (bet.role, bet.seat, bet.balance, bet.level) == head
        if same and bet.personal_limits is not limits:
            if plain is None:
                plain = dict(limits)
            same = dict(bet.personal_limits) == plain
        if same and bet.personal_minimums is not minima:
            same = dict(bet.personal_minimums) == dict(minima)
        if not same:
            raise _refuse(
                Refusal.INCONSISTENT_BETTOR,
                "one bettor's bets must agree on role, seat, balance, level and limits",
                i,
                bet,
            )


def _check_balance_and_level(tier: Tier, lines: _Lines) -> None:
    """A bettor below the tier's minimum balance may not bet (star-city "玩家所持星幣額(底限)");
    bid-squeeze seated betting needs the tier's minimum VIP level ("進桌下注有最低VIP 額度")."""
    i, bet = lines[0]
    if bet.balance is None or _not_int(bet.balance):
        raise _refuse(Refusal.BALANCE_REQUIRED, "the bettor's balance is required", i, bet)
    if bet.balance < tier.bettor_min_balance:
        raise _refuse(
            Refusal.BELOW_MIN_BALANCE,
            f"a bettor needs a balance of at least {tier.bettor_min_balance}",
            i,
            bet,
            limit=tier.bettor_min_balance,
            attempted=bet.balance,
        )
    need = tier.seated_min_level
    level = None if bet.level is None or _not_int(bet.level) else bet.level
    if need is not None and bet.role is Role.SEATED and (level is None or level < need):
        raise _refuse(
            Refusal.BELOW_SEATED_MIN_LEVEL,
            f"seated betting needs level {need}; bet as a spectator instead",
            i,
            bet,
            limit=need,
            attempted=level,
        )


_BANKER_SIDE = frozenset({BetType.BANKER, BetType.BANKER_NO_COMMISSION})


def _check_banker_and_player(lines: _Lines) -> None:
    """Star-city: "除了莊及閒只能選擇其中一個押注外" — Banker or Player, not both."""
    first_on_banker: bool | None = None
    for i, bet in lines:
        on_banker = bet.type in _BANKER_SIDE
        if not on_banker and bet.type is not BetType.PLAYER:
            continue
        if first_on_banker is None:
            first_on_banker = on_banker
        elif on_banker != first_on_banker:
            raise _refuse(
                Refusal.BANKER_AND_PLAYER_TOGETHER, "bet Banker or Player, not both", i, bet
            )


def _check_areas(rules: _Rules, lines: _Lines) -> None:
    """Per bettor per area, summed over the round: at least the area's minimum, at most its
    maximum (star-city: Tie and each Pair ≤ 10 units, Banker/Player ≤ 50 units). A spectator's
    range is the intersection with the bettor's personal limit, a range too (bid-squeeze
    "旁觀下注": 個人限紅)."""
    limits = rules.limits
    totals: dict[BetType, int] = {}
    last: dict[BetType, tuple[int, Bet]] = {}
    for i, bet in lines:
        bet_type = bet.type
        total = totals[bet_type] = totals.get(bet_type, 0) + bet.amount
        last[bet_type] = (i, bet)
        limit, code = limits[bet_type].max, Refusal.ABOVE_AREA_LIMIT
        if bet.role is Role.SPECTATOR:
            personal = bet.personal_limits.get(bet_type)
            if personal is not None and personal < limit:
                limit, code = personal, Refusal.ABOVE_PERSONAL_LIMIT
        if total > limit:
            raise _refuse(
                code,
                f"at most {limit} on {bet_type} per round",
                i,
                bet,
                limit=limit,
                attempted=total,
            )
    for bet_type, total in totals.items():
        minimum, code = limits[bet_type].min, Refusal.BELOW_MIN_BET
        i, bet = last[bet_type]
        if bet.role is Role.SPECTATOR:
            personal = bet.personal_minimums.get(bet_type)
            if personal is not None and personal > minimum:
                minimum, code = personal, Refusal.BELOW_PERSONAL_LIMIT
        if total < minimum:
            raise _refuse(
                code,
                f"at least {minimum} on {bet_type}",
                i,
                bet,
                limit=minimum,
                attempted=total,
            )


def _check_totals(tier: Tier, lines: _Lines) -> None:
    """The per-bettor table maximum for the round ("上限"), and stakes within the balance."""
    total = sum(b.amount for _, b in lines)
    i, bet = lines[-1]
    cap = tier.table_max
    if cap is not None and total > cap:
        raise _refuse(
            Refusal.ABOVE_TABLE_MAX,
            f"at most {cap} per bettor per round",
            i,
            bet,
            limit=cap,
            attempted=total,
        )
    balance = bet.balance if bet.balance is not None else 0
    if total > balance:
        raise _refuse(
            Refusal.INSUFFICIENT_BALANCE,
            "the stakes exceed the bettor's balance",
            i,
            bet,
            limit=balance,
            attempted=total,
        )


# --- the table as a whole -------------------------------------------------------------------


def _check_seating(
    table: TableConfig, by_bettor: Mapping[str, _Lines], seated_present: Collection[str]
) -> None:
    """At most ``profile.seats`` seated bettors, one per seat; bid-squeeze: spectator bets need
    a seated bettor at the table ("當桌台為空…只能選擇進桌下注")."""
    seated = {b: lines[0] for b, lines in by_bettor.items() if lines[0][1].role is Role.SEATED}
    seats = table.profile.seats
    count = len(set(seated) | set(seated_present))
    if count > seats:
        i, bet = list(seated.values())[-1] if seated else (None, None)
        raise BetRefused(
            Refusal.TOO_MANY_SEATED,
            f"the table has {seats} seats",
            bettor_id=None if bet is None else bet.bettor_id,
            bet_index=i,
            limit=seats,
            attempted=count,
        )
    taken: dict[int | None, str] = {}
    for bettor, (i, bet) in seated.items():
        if bet.seat in taken:
            raise _refuse(Refusal.SEAT_TAKEN, f"seat {bet.seat} is {taken[bet.seat]}'s", i, bet)
        taken[bet.seat] = bettor
    if table.profile.spectators_need_seated and not seated and not seated_present:
        spectator = next((lines[0] for lines in by_bettor.values()), None)
        if spectator is not None:
            i, bet = spectator
            raise _refuse(
                Refusal.SEATED_BETTOR_REQUIRED,
                "an empty table accepts only seated bets",
                i,
                bet,
            )


# --- the player-banker's cover --------------------------------------------------------------


def _check_player_banker_cover(
    table: TableConfig, bets: Sequence[Bet], pb: PlayerBanker | None
) -> int:
    """Star-city: "兩人成局(含荷官)" — a player-banker round needs a bettor besides the
    player-banker; and the player-banker's balance must cover the worst-case liability."""
    if pb is None:
        return 0
    people = 1 + len({b.bettor_id for b in bets})
    if people < table.profile.min_participants:
        raise BetRefused(
            Refusal.NOT_ENOUGH_PLAYERS,
            "a round needs a bettor besides the player-banker",
            bettor_id=pb.bettor_id,
            limit=table.profile.min_participants,
            attempted=people,
        )
    liability = player_banker_liability(table, bets)
    if liability > pb.balance:
        raise BetRefused(
            Refusal.PLAYER_BANKER_CANNOT_COVER,
            f"the player-banker's balance cannot cover a loss of {liability}",
            bettor_id=pb.bettor_id,
            limit=pb.balance,
            attempted=liability,
        )
    return liability
