"""The checks of one bettor's bets together, within one round's bet list (the second stage of
:func:`baccarat.validation.validate_bets`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .bets import Bet, Role
from .paytables import BetType
from .profiles import AreaLimit, Tier
from .refusals import Refusal, bet_refusal, not_int

__all__ = ["Lines", "check_bettor", "lines_by_bettor"]

#: One bettor's bets: (index in the list, bet).
Lines = list[tuple[int, Bet]]


def lines_by_bettor(bets: Sequence[Bet]) -> dict[str, Lines]:
    """Bettor id → that bettor's (index, bet) lines, bettors in order of first appearance."""
    by_bettor: dict[str, Lines] = {}
    for i, bet in enumerate(bets):
        lines = by_bettor.get(bet.bettor_id)
        if lines is None:
            by_bettor[bet.bettor_id] = [(i, bet)]
        else:
            lines.append((i, bet))
    return by_bettor


def check_bettor(tier: Tier, banker_and_player_together: bool, lines: Lines) -> None:
    """One bettor's round: consistent identity, balance and level, the Banker-or-Player rule
    (unless the profile allows both), every area's minimum and maximum, the table maximum, and
    stakes covered by the balance."""
    if len(lines) > 1:
        _check_consistent(lines)
    _check_balance_and_level(tier, lines)
    if not banker_and_player_together:
        _check_banker_and_player(lines)
    _check_areas(tier.limits, lines)
    _check_totals(tier, lines)


def _check_consistent(lines: Lines) -> None:
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
            raise bet_refusal(
                Refusal.INCONSISTENT_BETTOR,
                "one bettor's bets must agree on role, seat, balance, level and limits",
                i,
                bet,
            )


def _check_balance_and_level(tier: Tier, lines: Lines) -> None:
    """A bettor below the tier's minimum balance may not bet (star-city "玩家所持星幣額(底限)");
    bid-squeeze seated betting needs the tier's minimum VIP level ("進桌下注有最低VIP 額度")."""
    i, bet = lines[0]
    if bet.balance is None or not_int(bet.balance):
        raise bet_refusal(Refusal.BALANCE_REQUIRED, "the bettor's balance is required", i, bet)
    if bet.balance < tier.bettor_min_balance:
        raise bet_refusal(
            Refusal.BELOW_MIN_BALANCE,
            f"a bettor needs a balance of at least {tier.bettor_min_balance}",
            i,
            bet,
            limit=tier.bettor_min_balance,
            attempted=bet.balance,
        )
    need = tier.seated_min_level
    level = None if bet.level is None or not_int(bet.level) else bet.level
    if need is not None and bet.role is Role.SEATED and (level is None or level < need):
        raise bet_refusal(
            Refusal.BELOW_SEATED_MIN_LEVEL,
            f"seated betting needs level {need}; bet as a spectator instead",
            i,
            bet,
            limit=need,
            attempted=level,
        )


_BANKER_SIDE = frozenset({BetType.BANKER, BetType.BANKER_NO_COMMISSION})


def _check_banker_and_player(lines: Lines) -> None:
    """Star-city: "除了莊及閒只能選擇其中一個押注外" — Banker or Player, not both."""
    first_on_banker: bool | None = None
    for i, bet in lines:
        on_banker = bet.type in _BANKER_SIDE
        if not on_banker and bet.type is not BetType.PLAYER:
            continue
        if first_on_banker is None:
            first_on_banker = on_banker
        elif on_banker != first_on_banker:
            raise bet_refusal(
                Refusal.BANKER_AND_PLAYER_TOGETHER, "bet Banker or Player, not both", i, bet
            )


def _check_areas(limits: Mapping[BetType, AreaLimit], lines: Lines) -> None:
    """Per bettor per area, summed over the round: at least the area's minimum, at most its
    maximum (star-city: Tie and each Pair ≤ 10 units, Banker/Player ≤ 50 units). A spectator's
    range is the intersection with the bettor's personal limit, a range too (bid-squeeze
    "旁觀下注": 個人限紅)."""
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
            raise bet_refusal(
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
            raise bet_refusal(
                code,
                f"at least {minimum} on {bet_type}",
                i,
                bet,
                limit=minimum,
                attempted=total,
            )


def _check_totals(tier: Tier, lines: Lines) -> None:
    """The per-bettor table maximum for the round ("上限"), and stakes within the balance."""
    total = sum(b.amount for _, b in lines)
    i, bet = lines[-1]
    cap = tier.table_max
    if cap is not None and total > cap:
        raise bet_refusal(
            Refusal.ABOVE_TABLE_MAX,
            f"at most {cap} per bettor per round",
            i,
            bet,
            limit=cap,
            attempted=total,
        )
    balance = bet.balance if bet.balance is not None else 0
    if total > balance:
        raise bet_refusal(
            Refusal.INSUFFICIENT_BALANCE,
            "the stakes exceed the bettor's balance",
            i,
            bet,
            limit=balance,
            attempted=total,
        )
