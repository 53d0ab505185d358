"""The bet validation written the straightforward way, the test oracle of
tests/unit/test_validation_oracle.py: the product's faster :mod:`baccarat.validation` must accept
and refuse exactly what this does. Never imported by the product."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from baccarat.bets import Bet, PlayerBanker, Role
from baccarat.paytables import BetType
from baccarat.profiles import Banking, TableConfig
from baccarat.settlement import player_banker_liability
from baccarat.validation import AcceptedRound, BetRefused, Refusal

__all__ = ["AcceptedRound", "BetRefused", "Refusal", "validate_bets"]


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
    normalised = tuple(
        _check_bet(table, i, b, round_number, player_banker) for i, b in enumerate(bets)
    )
    by_bettor = _group(normalised)
    for lines in by_bettor.values():
        _check_bettor(table, lines)
    _check_seating(table, by_bettor, seated_present)
    liability = _check_player_banker_cover(table, normalised, player_banker)
    stakes = {bettor: sum(b.amount for _, b in lines) for bettor, lines in by_bettor.items()}
    return AcceptedRound(normalised, MappingProxyType(stakes), liability)


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


def _check_bet(
    table: TableConfig, i: int, bet: Bet, round_number: int, pb: PlayerBanker | None
) -> Bet:
    """One line: a known, offered bet type; a positive whole number of chip units; Big/Small not
    after round 20 (bid-squeeze); a role the profile lets bet; a seat exactly when seated."""
    try:
        bet_type = BetType(bet.type)
    except (TypeError, ValueError):
        raise _refuse(Refusal.UNKNOWN_BET_TYPE, f"unknown bet type {bet.type!r}", i, bet) from None
    try:
        role = Role(bet.role)
    except (TypeError, ValueError):
        raise _refuse(Refusal.UNKNOWN_ROLE, f"unknown role {bet.role!r}", i, bet) from None
    bet = replace(bet, type=bet_type, role=role)
    profile, tier = table.profile, table.tier
    if bet_type not in table.pay_table.offered:
        raise _refuse(Refusal.BET_TYPE_NOT_OFFERED, f"{profile.name} has no {bet_type}", i, bet)
    if _not_int(bet.amount) or bet.amount <= 0:
        raise _refuse(Refusal.INVALID_AMOUNT, "the amount must be a positive integer", i, bet)
    if bet.amount % tier.unit:
        raise _refuse(
            Refusal.NOT_CHIP_MULTIPLE,
            f"the amount must be a multiple of the chip unit {tier.unit}",
            i,
            bet,
            limit=tier.unit,
            attempted=bet.amount,
        )
    last = profile.big_small_last_round
    if last is not None and bet_type in (BetType.BIG, BetType.SMALL) and round_number > last:
        raise _refuse(
            Refusal.BIG_SMALL_CLOSED,
            f"Big and Small may not be bet after round {last}",
            i,
            bet,
            limit=last,
            attempted=round_number,
        )
    if pb is not None and bet.bettor_id == pb.bettor_id:
        raise _refuse(Refusal.PLAYER_BANKER_CANNOT_BET, "the player-banker does not bet", i, bet)
    _check_role_and_seat(table, i, bet)
    return bet


def _check_role_and_seat(table: TableConfig, i: int, bet: Bet) -> None:
    seats = table.profile.seats
    if bet.role is Role.SPECTATOR:
        if not table.profile.spectators_may_bet:
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


def _valid_personal_limits(limits: Mapping[BetType, int], minima: Mapping[BetType, int]) -> bool:
    """個人限紅 is a range: positive whole bounds of known types, no minimum above its maximum."""
    for bounds in (limits, minima):
        for key, value in bounds.items():
            if not isinstance(key, str) or key not in _ALL_BETS or _not_int(value) or value <= 0:
                return False
    return not any(key in limits and low > limits[key] for key, low in minima.items())


# --- each bettor's bets together ------------------------------------------------------------

_Lines = list[tuple[int, Bet]]


def _group(bets: Sequence[Bet]) -> dict[str, _Lines]:
    """Bettor id → that bettor's (index, bet) lines, bettors in order of first appearance."""
    by_bettor: dict[str, _Lines] = {}
    for i, bet in enumerate(bets):
        by_bettor.setdefault(bet.bettor_id, []).append((i, bet))
    return by_bettor


def _check_bettor(table: TableConfig, lines: _Lines) -> None:
    """One bettor's round: consistent identity, balance and level, the Banker-or-Player rule,
    every area's minimum and maximum, the table maximum, and stakes covered by the balance."""
    _check_consistent(lines)
    _check_balance_and_level(table, lines)
    _check_banker_and_player(table, lines)
    _check_areas(table, lines)
    _check_totals(table, lines)


def _identity(bet: Bet) -> tuple[object, ...]:
    return (
        bet.role, bet.seat, bet.balance, bet.level, dict(bet.personal_limits),
        dict(bet.personal_minimums),
    )  # fmt: skip


def _check_consistent(lines: _Lines) -> None:
    first = _identity(lines[0][1])
    for i, bet in lines[1:]:
        if _identity(bet) != first:
            raise _refuse(
                Refusal.INCONSISTENT_BETTOR,
                "one bettor's bets must agree on role, seat, balance, level and limits",
                i,
                bet,
            )


def _check_balance_and_level(table: TableConfig, lines: _Lines) -> None:
    """A bettor below the tier's minimum balance may not bet (star-city "玩家所持星幣額(底限)");
    bid-squeeze seated betting needs the tier's minimum VIP level ("進桌下注有最低VIP 額度")."""
    i, bet = lines[0]
    tier = table.tier
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


def _check_banker_and_player(table: TableConfig, lines: _Lines) -> None:
    """Star-city: "除了莊及閒只能選擇其中一個押注外" — Banker or Player, not both."""
    if table.profile.banker_and_player_together:
        return
    sides = [(i, b) for i, b in lines if b.type in _BANKER_SIDE or b.type is BetType.PLAYER]
    if not sides:
        return
    first_on_banker = sides[0][1].type in _BANKER_SIDE
    for i, bet in sides:
        if (bet.type in _BANKER_SIDE) != first_on_banker:
            raise _refuse(
                Refusal.BANKER_AND_PLAYER_TOGETHER, "bet Banker or Player, not both", i, bet
            )


def _area_max(table: TableConfig, bet: Bet) -> tuple[int, Refusal]:
    """The maximum of ``bet``'s area for this bettor: the table's, or for a spectator the
    intersection with the bettor's personal limit (bid-squeeze "旁觀下注" rule)."""
    table_max = table.tier.limit(BetType(bet.type)).max
    if bet.role is Role.SPECTATOR:
        personal = bet.personal_limits.get(BetType(bet.type))
        if personal is not None and personal < table_max:
            return personal, Refusal.ABOVE_PERSONAL_LIMIT
    return table_max, Refusal.ABOVE_AREA_LIMIT


def _area_min(table: TableConfig, bet: Bet) -> tuple[int, Refusal]:
    """The minimum of ``bet``'s area for this bettor: the table's, or for a spectator with a
    higher personal minimum, theirs (the overlap of two ranges)."""
    table_min = table.tier.limit(BetType(bet.type)).min
    personal = bet.personal_minimums.get(BetType(bet.type)) if bet.role is Role.SPECTATOR else None
    if personal is not None and personal > table_min:
        return personal, Refusal.BELOW_PERSONAL_LIMIT
    return table_min, Refusal.BELOW_MIN_BET


def _check_areas(table: TableConfig, lines: _Lines) -> None:
    """Per bettor per area, summed over the round: at least the area's minimum, at most its
    maximum (star-city: Tie and each Pair ≤ 10 units, Banker/Player ≤ 50 units)."""
    totals: dict[BetType, int] = {}
    last: dict[BetType, tuple[int, Bet]] = {}
    for i, bet in lines:
        totals[bet.type] = totals.get(bet.type, 0) + bet.amount
        last[bet.type] = (i, bet)
        limit, code = _area_max(table, bet)
        if totals[bet.type] > limit:
            raise _refuse(
                code,
                f"at most {limit} on {bet.type} per round",
                i,
                bet,
                limit=limit,
                attempted=totals[bet.type],
            )
    for bet_type, total in totals.items():
        i, bet = last[bet_type]
        minimum, code = _area_min(table, bet)
        if total < minimum:
            raise _refuse(
                code,
                f"at least {minimum} on {bet_type}",
                i,
                bet,
                limit=minimum,
                attempted=total,
            )


def _check_totals(table: TableConfig, lines: _Lines) -> None:
    """The per-bettor table maximum for the round ("上限"), and stakes within the balance."""
    total = sum(b.amount for _, b in lines)
    i, bet = lines[-1]
    cap = table.tier.table_max
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
