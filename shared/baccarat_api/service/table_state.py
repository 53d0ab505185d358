"""``GET /v1/tables/{table_id}/state``: everything a frontend draws of one table now — presence,
the phase and its deadline, the book, the latest round's squeeze and the cards the table shows,
the shoe's history and roads, and the last event ``seq`` (then follow ``GET …/events``).

The phase is the first that holds: ``betting`` (window open), ``closed`` (no more bets, not
dealt), ``squeeze`` (a reveal step counting down), ``dealt`` (every card shown, not settled),
``settled``, ``idle``. Nothing a card not yet shown would give away is in the answer
(:func:`~.views.round_as_shown`, :func:`~.views.shoe_as_shown`).

At a book table (``bet_behind: book``) the spectators and watchers are counted and the first 20
named (``crowd``: the book store's count shards and first names; ``spectators`` and
``watchers`` empty), so the answer stays within
:data:`~baccarat_api.limits.PRESENCE_BUDGET_BYTES`' presence at any number present.

Round trips: 2 BatchGetItems (table + live state; shoe + latest round); at a book table + 2
BatchGetItems (count shards) + 2 Queries (first names). ``ETag``: the SHA-256
of the answer (the phase moves with time, not only with ``seq``)."""

from __future__ import annotations

import hashlib
from typing import Any

from baccarat import currency
from baccarat.squeeze import step_hands, timeline
from baccarat_api.ids import RoundRef, ShoeRef, parse_round_id, parse_table_id
from baccarat_api.limits import DEFAULT_FAIRNESS
from baccarat_api.ports.records import LiveRecord, RoundRecord, ShoeRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.betting import book_view
from baccarat_api.service.book_presence import at_book, crowd
from baccarat_api.service.callers import Player
from baccarat_api.service.errors import not_found
from baccarat_api.service.models import TableStateOut
from baccarat_api.service.push import current_channel
from baccarat_api.service.reveals import plan_seconds
from baccarat_api.service.seating import presence_view
from baccarat_api.service.views import player_presence, round_as_shown, shoe_as_shown, you_view
from baccarat_api.service.window import window_status

SHOE_FIELDS = ("shoe_id", "shoe_number", "status", "rounds_dealt", "cards_remaining", "history",
               "roads", "last_round_id")  # fmt: skip


def table_state(
    repo: Repository,
    operator_id: str,
    table_id: str,
    player: Player | None = None,
    push_url: str | None = None,
) -> tuple[TableStateOut, str]:
    """The table's state now and its ETag; with ``player`` (a token's holder) as that person
    sees it: everyone else's balance and personal limits ``null``, their own in ``you``.
    ``push_url``: the push channel's URL (a setting)."""
    if parse_table_id(table_id) is None:
        raise not_found("table", table_id)
    snap = repo.load(operator_id, table_id=table_id, live=table_id)
    table, live = snap.table, snap.live
    if table is None:
        raise not_found("table", table_id)
    at = repo.clock()
    shoe: ShoeRecord | None = None
    rnd: RoundRecord | None = None
    number = _shoe_number(table.open_shoe_id, table.next_shoe_number)
    if number is not None:
        latest = _latest_round(live)
        wanted = latest if latest is not None and latest.shoe_number == number else None
        found = repo.load(operator_id, shoe=ShoeRef(table_id, number), round_=wanted)
        shoe, rnd = found.shoe, found.round
    phase, deadline = _phase(live, rnd, at)
    presence = presence_view(table_id, live)
    shown = None if rnd is None else round_as_shown(rnd, at)
    seats, banker, spectators = presence.seats, presence.banker, presence.spectators
    you = None
    if player is not None and player.bettor_id is not None:
        you = you_view(player.bettor_id, player.role, seats, banker, spectators, presence.watchers)
        if you["place"] is None and at_book(table):
            you = _book_you(repo, operator_id, table_id, you)
        seats, banker, spectators = player_presence(seats, banker, spectators, player.bettor_id)
    state = TableStateOut.model_validate(
        {
            "table_id": table_id,
            "profile": table.profile,
            "tier": table.tier_id,
            "banking": table.banking,
            "fairness": table.fairness or DEFAULT_FAIRNESS,
            **currency.of_config(table.config),
            "seq": 0 if live is None else live.seq,
            "at": at,
            "phase": phase,
            "deadline": deadline,
            "seats": seats,
            "banker": banker,
            "spectators": spectators,
            "watchers": presence.watchers,
            "idle": {} if live is None else dict(live.idle),
            "book": book_view(live, at),
            "shoe": None if shoe is None else _shoe(shoe, rnd, at),
            "round": shown,
            "clock": clock_view(live),
            "crowd": crowd(repo, operator_id, table_id) if at_book(table) else None,
            "you": you,
            "push_url": push_url,
            "push_channel": current_channel(table_id, live),
        }
    )
    body = state.model_dump_json(exclude={"at"}).encode()
    return state, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _book_you(
    repo: Repository, operator_id: str, table_id: str, you: dict[str, Any]
) -> dict[str, Any]:
    """``you`` of a person among a book table's spectators (in the book store, not the live
    item): one more read, for a token's holder only."""
    found = repo.book.get_spectator(operator_id, table_id, you["bettor_id"])
    return you if found is None else {**you, "place": "spectator", "balance": found.balance}


def clock_view(live: LiveRecord | None) -> dict[str, Any] | None:
    """A running table's clock as ``GET …/state`` shows it (``None``: an operator table)."""
    clock = None if live is None else live.clock
    if live is None or clock is None:
        return None
    tick = live.tick
    return {
        "dealing": clock["dealing"],
        "pause_seconds": clock["pause_seconds"],
        "paused": clock["paused"],
        "waiting": clock["waiting"],
        "next": None if tick is None else {"step": tick["step"], "due": tick["due"]},
        "client_seeds_queued": len(live.client_seeds or []),
    }


def _shoe_number(open_shoe_id: str | None, next_number: int) -> int | None:
    if open_shoe_id is not None:
        return int(open_shoe_id.rsplit("_s", 1)[1])
    return next_number - 1 if next_number > 1 else None


def _latest_round(live: LiveRecord | None) -> RoundRef | None:
    if live is None:
        return None
    for source in (live.squeeze, live.last_round):
        if source is not None:
            return parse_round_id(str(source["round_id"]))
    return None


def _phase(live: LiveRecord | None, r: RoundRecord | None, at: str) -> tuple[str, str | None]:
    betting = None if live is None else live.betting
    status = window_status(betting, at)
    if betting is not None and status == "open":
        return "betting", str(betting["closes_at"])
    if betting is not None and status in ("closed", "locked"):
        return "closed", None if live is None else live.deal_by
    if r is None:
        return "idle", None
    if r.squeeze is not None and r.void is None:  # a void ends the squeeze (reveals refused)
        steps = timeline(step_hands(r.squeeze), r.dealt_at, plan_seconds(r.squeeze), r.reveals, at)
        counting = [s for s in steps if s.status == "squeezing"]
        if counting:
            return "squeeze", counting[0].reveal_by
    if not r.resolved:
        return "dealt", r.settle_by
    return "settled", None


def _shoe(s: ShoeRecord, r: RoundRecord | None, at: str) -> dict[str, Any]:
    view = shoe_as_shown(s, r, at)
    return {name: view[name] for name in SHOE_FIELDS}
