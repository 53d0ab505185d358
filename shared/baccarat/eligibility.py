"""Who must leave the table after a round (game-rules.md, star-city: "a bettor who does not bet for
5 rounds in a row is removed; a bettor or player-banker below the tier's minimum balance is
removed"; bid-squeeze: "spectators at a table whose seated bettors all left are removed").

These functions only *say* who leaves; the API removes them. All are pure.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .profiles import TableConfig

__all__ = [
    "BelowMinimum",
    "SpectatorRemovals",
    "below_minimum_after",
    "idle_bettors",
    "spectators_to_remove",
]


@dataclass(frozen=True, slots=True)
class BelowMinimum:
    """Bettors (in ``balances_before`` order) and the player-banker whose balance after the round
    is below the tier's minimum: "玩家及荷官星幣金額不足底限時，系統將自動踢除"."""

    bettors: tuple[str, ...]
    player_banker: str | None
    balances_after: Mapping[str, int]


def below_minimum_after(
    table: TableConfig,
    balances_before: Mapping[str, int],
    nets: Mapping[str, int],
    player_banker: str | None = None,
) -> BelowMinimum:
    """Balances after = before + the round's net (``Settlement.nets()``; absent = 0). Bettors are
    held to ``tier.bettor_min_balance``, the player-banker to ``tier.player_banker_min_balance``.
    Raises ``ValueError`` for a net without a balance."""
    tier = table.tier
    unknown = set(nets) - set(balances_before)
    if unknown:
        raise ValueError(f"nets for participants without a balance: {sorted(unknown)}")
    after = {pid: balance + nets.get(pid, 0) for pid, balance in balances_before.items()}
    bettors = tuple(
        pid
        for pid, balance in after.items()
        if pid != player_banker and balance < tier.bettor_min_balance
    )
    pb_out = None
    if player_banker is not None:
        if player_banker not in after:
            raise ValueError(f"no balance for the player-banker {player_banker!r}")
        if after[player_banker] < tier.player_banker_min_balance:
            pb_out = player_banker
    return BelowMinimum(bettors, pb_out, after)


def idle_bettors(
    table: TableConfig,
    history: Sequence[Collection[str]],
    present: Iterable[str],
    rounds_present: Mapping[str, int] | None = None,
) -> tuple[str, ...]:
    """The present bettors who bet in none of the last ``table.profile.idle_round_limit`` rounds
    (star-city: "連續5局不押注，系統將自動踢除"); ``()`` when the profile has no such rule.

    ``history`` holds, oldest first, the set of bettor ids who bet in each recent round of the
    table; ``present`` the bettors seated or watching now (not the player-banker, who never
    bets). A bettor needs a full window to be idle: the history must hold at least the limit's
    number of rounds and, when ``rounds_present`` is given, so must the bettor's own stay at the
    table (rounds since it joined) — a newcomer is never removed for rounds it was not there."""
    limit = table.profile.idle_round_limit
    if limit is None or len(history) < limit:
        return ()
    window = history[-limit:]
    betted = set().union(*window)
    return tuple(
        pid
        for pid in dict.fromkeys(present)
        if pid not in betted and (rounds_present is None or rounds_present.get(pid, 0) >= limit)
    )


@dataclass(frozen=True, slots=True)
class SpectatorRemovals:
    """``now``: spectators to remove immediately; ``after_settlement``: after this round settles."""

    now: tuple[str, ...]
    after_settlement: tuple[str, ...]


def spectators_to_remove(
    table: TableConfig,
    seated: Collection[str],
    spectators: Iterable[str],
    bet_this_round: Collection[str],
) -> SpectatorRemovals:
    """Bid-squeeze: once every seated bettor has left, a spectator who bet in this round is removed
    after its settlement, one who did not is removed at once ("若此局旁觀下注的玩家有下注，那麼此局
    結算完之後旁觀玩家會被踢出桌台；若此局旁觀玩家沒有下注，會立刻被踢出桌台")."""
    if not table.profile.spectators_need_seated or seated:
        return SpectatorRemovals((), ())
    ordered = list(dict.fromkeys(spectators))
    return SpectatorRemovals(
        now=tuple(s for s in ordered if s not in bet_this_round),
        after_settlement=tuple(s for s in ordered if s in bet_this_round),
    )
