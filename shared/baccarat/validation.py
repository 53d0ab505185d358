"""Validation of one round's whole bet list, all-or-nothing (game-rules.md, both profiles):
:func:`validate_bets` accepts every bet of the list or raises :class:`BetRefused` for the first
violated rule, in a fixed order (table → each bet → each bettor → the table's seating → the
player-banker's cover), so the same input always gives the same refusal.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .bets import Bet, PlayerBanker, Role, personal_limits_from_json
from .bettor_checks import Lines, check_bettor, lines_by_bettor
from .paytables import BetType
from .profiles import Banking, TableConfig
from .refusals import BetRefused, Refusal, bet_refusal, not_int
from .settlement import player_banker_liability

__all__ = [
    "AcceptedRound",
    "BetRefused",
    "Refusal",
    "check_personal_limits",
    "player_banker_liability",
    "validate_bets",
]


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
    non-empty).

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
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise ValueError(f"round_number must be a positive integer, got {round_number!r}")
    if not bets and player_banker is None:
        # a round nobody bet on (at any table): nothing to cover, nobody to seat. With a
        # player-banker it is checked as usual (star-city: two people make a round).
        return AcceptedRound((), MappingProxyType({}), 0)
    _check_player_banker_seat(table, player_banker)
    rules = _Rules(table, round_number, player_banker)
    normalised = tuple([_check_bet(rules, i, b) for i, b in enumerate(bets)])
    by_bettor = lines_by_bettor(normalised)
    for lines in by_bettor.values():
        check_bettor(rules.tier, rules.banker_and_player_together, lines)
    _check_seating(table, by_bettor, seated_present)
    liability = _check_player_banker_cover(table, normalised, player_banker)
    stakes = {bettor: sum(b.amount for _, b in lines) for bettor, lines in by_bettor.items()}
    return AcceptedRound(normalised, MappingProxyType(stakes), liability)


class _Rules:
    """What the checks of one call read from the table, looked up once per call so that
    validation runs at the speed of settlement (``tests/unit/test_validation_oracle.py`` holds it
    to the answers of the straightforward version)."""

    __slots__ = (
        "banker_and_player_together",
        "big_small_last",
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
    if not_int(pb.balance) or pb.balance < minimum:
        raise BetRefused(
            Refusal.PLAYER_BANKER_BELOW_MIN_BALANCE,
            f"the player-banker needs a balance of at least {minimum}",
            bettor_id=pb.bettor_id,
            limit=minimum,
            attempted=pb.balance if not not_int(pb.balance) else None,
        )


# --- each bet on its own --------------------------------------------------------------------


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
    after round 20 (bid-squeeze); a role the profile lets bet; a seat exactly when seated. Returns
    the bet with its type and role as the enums."""
    # Each step is called only when its quick test fails: validation keeps settlement's speed.
    if type(bet.type) is not BetType or type(bet.role) is not Role:
        bet = _with_members(i, bet)
    if bet.type not in rules.offered:
        raise bet_refusal(
            Refusal.BET_TYPE_NOT_OFFERED, f"{rules.profile.name} has no {bet.type}", i, bet
        )
    amount = bet.amount
    if type(amount) is not int or amount <= 0 or amount % rules.unit:
        _check_amount(rules.unit, i, bet)
    if rules.big_small_last is not None or rules.pb_id is not None:
        _check_round(rules, i, bet)
    seat = bet.seat
    if bet.role is Role.SEATED and type(seat) is int and 1 <= seat <= rules.seats:
        return bet  # the common case: a seated bet at a valid seat
    _check_role_and_seat(rules, i, bet)
    return bet


def _with_members(i: int, bet: Bet) -> Bet:
    """``bet`` with its type and role as :class:`BetType` and :class:`Role` (itself when they
    already are), or the refusal of an unknown one."""
    bet_type, role = bet.type, bet.role
    if type(bet_type) is not BetType:
        bet_type = _member(_BET_TYPES, bet_type)
        if bet_type is None:
            raise bet_refusal(Refusal.UNKNOWN_BET_TYPE, f"unknown bet type {bet.type!r}", i, bet)
    if type(role) is not Role:
        role = _member(_ROLES, role)
        if role is None:
            raise bet_refusal(Refusal.UNKNOWN_ROLE, f"unknown role {bet.role!r}", i, bet)
    if bet_type is bet.type and role is bet.role:
        return bet
    return Bet(
        bet.bettor_id, role, bet_type, bet.amount, bet.order, bet.seat, bet.level,
        bet.balance, bet.personal_limits, bet.personal_minimums,
    )  # fmt: skip


def _check_amount(unit: int, i: int, bet: Bet) -> None:
    """A positive whole number of chip units."""
    amount = bet.amount
    if type(amount) is not int and not_int(amount):
        raise bet_refusal(Refusal.INVALID_AMOUNT, "the amount must be a positive integer", i, bet)
    if amount <= 0:
        raise bet_refusal(Refusal.INVALID_AMOUNT, "the amount must be a positive integer", i, bet)
    if amount % unit:
        raise bet_refusal(
            Refusal.NOT_CHIP_MULTIPLE,
            f"the amount must be a multiple of the chip unit {unit}",
            i,
            bet,
            limit=unit,
            attempted=amount,
        )


def _check_round(rules: _Rules, i: int, bet: Bet) -> None:
    """What this round allows: Big/Small only up to the profile's last round for them, and no bet
    by the round's player-banker."""
    last = rules.big_small_last
    if last is not None and rules.round_number > last and bet.type in _BIG_SMALL:
        raise bet_refusal(
            Refusal.BIG_SMALL_CLOSED,
            f"Big and Small may not be bet after round {last}",
            i,
            bet,
            limit=last,
            attempted=rules.round_number,
        )
    if rules.pb_id is not None and bet.bettor_id == rules.pb_id:
        raise bet_refusal(
            Refusal.PLAYER_BANKER_CANNOT_BET, "the player-banker does not bet", i, bet
        )


_BIG_SMALL = frozenset({BetType.BIG, BetType.SMALL})


def _check_role_and_seat(rules: _Rules, i: int, bet: Bet) -> None:
    seats = rules.seats
    if bet.role is Role.SPECTATOR:
        if not rules.spectators_may_bet:
            raise bet_refusal(
                Refusal.SPECTATOR_BETTING_NOT_ALLOWED, "spectators only watch here", i, bet
            )
        if bet.seat is not None:
            raise bet_refusal(Refusal.SPECTATOR_HAS_SEAT, "a spectator bet has no seat", i, bet)
        if not _valid_personal_limits(bet.personal_limits, bet.personal_minimums):
            raise bet_refusal(
                Refusal.INVALID_PERSONAL_LIMIT,
                "personal limits map bet types to positive amounts, a minimum not above the "
                "maximum",
                i,
                bet,
            )
        return
    if bet.seat is None:
        raise bet_refusal(Refusal.SEAT_REQUIRED, "a seated bet needs a seat", i, bet)
    if not_int(bet.seat) or not 1 <= bet.seat <= seats:
        raise bet_refusal(
            Refusal.SEAT_OUT_OF_RANGE,
            f"seats are numbered 1–{seats}",
            i,
            bet,
            limit=seats,
            attempted=bet.seat if not not_int(bet.seat) else None,
        )


_ALL_BETS = frozenset(BetType)


def _valid_personal_limits(maxima: Mapping[BetType, int], minima: Mapping[BetType, int]) -> bool:
    """Positive whole amounts of known bet types, each minimum at most its type's maximum."""
    for limits in (maxima, minima):
        for key, value in limits.items():
            if not isinstance(key, str) or key not in _ALL_BETS or not_int(value) or value < 1:
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
            if not_int(bound):
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


# --- the table as a whole -------------------------------------------------------------------


def _check_seating(
    table: TableConfig, by_bettor: Mapping[str, Lines], seated_present: Collection[str]
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
            raise bet_refusal(Refusal.SEAT_TAKEN, f"seat {bet.seat} is {taken[bet.seat]}'s", i, bet)
        taken[bet.seat] = bettor
    if table.profile.spectators_need_seated and not seated and not seated_present:
        spectator = next((lines[0] for lines in by_bettor.values()), None)
        if spectator is not None:
            i, bet = spectator
            raise bet_refusal(
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
