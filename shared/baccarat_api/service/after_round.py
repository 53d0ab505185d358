"""What a deal and its resolution do to who is at the table: the idle counters and the seats
idle past the profile's limit, the window marked dealt and the latest round noted at the deal;
the balances after the round and whoever is then below the tier's minimum leaving at its
settlement or void.

Pure functions of the live state returning the events and the live fields they move; the deal,
settling and voiding write them in their own transactions."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baccarat.eligibility import below_minimum_after, idle_bettors
from baccarat.profiles import TableConfig
from baccarat_api.ports.documents import LastRound, LockedBet, SeatHolder, Spectator
from baccarat_api.ports.records import LiveRecord, RoundRecord
from baccarat_api.service.events import Change
from baccarat_api.service.seating import spectator_out, vacate, without_spectators
from baccarat_api.service.window import DEALT, OPEN


def idle_seats(config: TableConfig, live: LiveRecord, bettors: list[str]) -> tuple[
    dict[str, int], list[str]
]:  # fmt: skip
    """Each seated bettor's idle counter after a deal whose bettors are ``bettors`` (0 for a
    bettor in it, one more for the others; across shoes, voided rounds included), and the
    seats whose bettor is now idle past the profile's limit (seed 000: 5 rounds without a bet;
    :func:`baccarat.eligibility.idle_bettors`, the counters as each bettor's rounds present
    without a bet)."""
    seated = [who["bettor_id"] for who in live.seats.values()]
    counters = {b: 0 if b in bettors else live.idle.get(b, 0) + 1 for b in seated}
    limit = config.profile.idle_round_limit
    if limit is None:
        return counters, []
    idle = set(idle_bettors(config, [set()] * limit, counters, counters))
    seats = sorted((s for s, w in live.seats.items() if w["bettor_id"] in idle), key=int)
    return counters, seats


#: The live fields a removal may move.
_PRESENCE = ("seats", "banker", "spectators", "book", "idle", "last_round", "betting", "deal_by")


def _fields(live: LiveRecord) -> dict[str, Any]:
    return {f: getattr(live, f) for f in _PRESENCE}


def after_deal(
    config: TableConfig,
    live: LiveRecord,
    *,
    round_id: str,
    shoe_id: str,
    round_number: int,
    bets: list[LockedBet],
    resolved: bool,
    from_book: bool,
    idle: tuple[dict[str, int], list[str]],
) -> tuple[list[Change], list[Change], dict[str, Any]]:
    """What a deal does to the table: the events before ``round_dealt`` (``betting_closed``
    when a from-book deal closes an open window), after it (idle seats vacated, and the
    spectators they leave alone), and the live fields moved (the window dealt — or an earlier
    window's dealt book dropped by an explicit deal —, the idle counters, the latest round)."""
    before: list[Change] = []
    cur = live
    if from_book:
        assert live.betting is not None
        if live.betting["status"] == OPEN:
            before.append(("betting_closed", {"shoe_id": shoe_id, "round_number": round_number}))
        cur = replace(
            cur, betting={**live.betting, "status": DEALT, "round_id": round_id}, deal_by=None
        )
    elif live.betting is not None and live.betting["status"] == DEALT:
        # an explicit deal: the book of an earlier window is not this round's (what each seat
        # shows would be the earlier round's bets)
        cur = replace(cur, betting=None, book={})
    spectators = list(dict.fromkeys(b["bettor_id"] for b in bets if b["role"] == "spectator"))
    counters, idle_out = idle
    last: LastRound = {"round_id": round_id, "shoe_id": shoe_id, "round_number": round_number,
                       "resolved": resolved, "spectators": spectators}  # fmt: skip
    cur = replace(cur, idle=counters, last_round=last)
    after: list[Change] = []
    for seat in idle_out:
        events, changes = vacate(config, cur, seat, "idle")
        after += events
        cur = replace(cur, **changes)
    return before, after, _fields(cur)


def _balances_after(
    config: TableConfig, live: LiveRecord, nets: dict[str, int] | None
) -> tuple[dict[str, int], set[str], str | None]:
    """Each present participant's balance plus their net of the round (the balance presence
    holds NOW: the deal's, unless the operator reported another since — a settlement must not
    put back a balance the wallet no longer has), who of them is then below the tier's minimum,
    and the player-banker if below theirs (the core's rule: ``below_minimum_after``)."""
    if not nets:
        return {}, set(), None
    held = {w["bettor_id"]: int(w["balance"]) for w in live.seats.values()}
    held |= {b: int(w["balance"]) for b, w in live.spectators.items()}
    banker = None if live.banker is None else str(live.banker["bettor_id"])
    if banker is not None:
        held[banker] = int(live.banker["balance"])  # type: ignore[index]
    moved = {pid: balance for pid, balance in held.items() if pid in nets}
    judged = below_minimum_after(
        config,
        moved,
        {pid: int(nets[pid]) for pid in moved},
        banker if banker in moved else None,
    )
    return dict(judged.balances_after), set(judged.bettors), judged.player_banker


def after_resolution(
    config: TableConfig, live: LiveRecord | None, r: RoundRecord, *, voided: bool
) -> tuple[list[Change], dict[str, Any]]:
    """What settling (or voiding) the table's latest round does to the table: presence takes
    the balances after the round (a settlement's ``eligibility.balances_after``); whoever is
    below the tier's minimum leaves (``seat_vacated`` / ``banker_left`` / ``spectator_left``,
    reason ``balance``: exactly the settlement's ``below_min_balance`` and
    ``player_banker_below_min_balance``); once no seated bettor remains the spectators who bet
    in the round leave too (``no_seated_bettor``). An older round moves nothing."""
    if live is None or live.last_round is None or live.last_round["round_id"] != r.round_id:
        return [], {}
    cur = replace(live, last_round={**live.last_round, "resolved": True})
    after, below, pb_out = _balances_after(config, cur, None if voided else r.money.get("nets"))
    events, cur = _below_minimum_out(config, _with_balances(cur, after), below, pb_out)
    if not cur.seats and cur.spectators:
        more, changes = without_spectators(config, cur, cur.seats)
        events += more
        cur = replace(cur, **changes)
    return events, _fields(cur)


def _with_balances(live: LiveRecord, after: dict[str, int]) -> LiveRecord:
    """``live`` with each present participant named in ``after`` at that balance."""
    seats: dict[str, SeatHolder] = {
        k: {**w, "balance": after[w["bettor_id"]]} if w["bettor_id"] in after else w
        for k, w in live.seats.items()
    }
    spectators: dict[str, Spectator] = {
        b: {**w, "balance": after[b]} if b in after else w for b, w in live.spectators.items()
    }
    banker = live.banker
    if banker is not None and banker["bettor_id"] in after:
        banker = {**banker, "balance": after[banker["bettor_id"]]}
    return replace(live, seats=seats, spectators=spectators, banker=banker)


def _below_minimum_out(
    config: TableConfig, live: LiveRecord, below: set[str], pb_out: str | None
) -> tuple[list[Change], LiveRecord]:
    """The participants below the tier's minimum out of ``live`` (reason ``balance``): the
    player-banker (``pb_out``), then the spectators, then the seats (in seat order)."""
    events: list[Change] = []
    cur = live
    if cur.banker is not None and pb_out == cur.banker["bettor_id"]:
        events.append(("banker_left", {"bettor_id": pb_out, "reason": "balance"}))
        cur = replace(cur, banker=None)
    for b in [b for b in cur.spectators if b in below]:
        more, changes = spectator_out(cur, b, "balance")
        events += more
        cur = replace(cur, **changes)
    for seat in sorted((s for s, w in cur.seats.items() if w["bettor_id"] in below), key=int):
        more, changes = vacate(config, cur, seat, "balance")
        events += more
        cur = replace(cur, **changes)
    return events, cur
