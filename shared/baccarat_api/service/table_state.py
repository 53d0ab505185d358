"""``GET /v1/tables/{table_id}/state`` (issue 13): everything a frontend draws of one table, now —
seats, the player-banker, spectators, watchers (觀局清單), the phase and its deadline, the book per
seat and per spectator (對應押注區), the latest round's squeeze and the cards the table shows,
cards remaining, history and roads of the shoe, and the last event ``seq``: render from this,
then follow ``GET …/events?after=seq``.

The phase (first that holds):

* ``betting`` — the betting window is open (``deadline`` = its ``closes_at``);
* ``closed`` — betting closed ("no more bets"), the round not dealt yet (``deadline``: the
  live state's ``deal_by``, when the sweep deals it from the book);
* ``squeeze`` — the latest round of the shoe is dealt, not voided, and a reveal step is
  counting down (``deadline`` = that step's ``reveal_by``; past it the system opens the cards);
* ``dealt`` — every card shown, the round not settled (``deadline`` = its ``settle_by``: the
  sweep settles it then);
* ``settled`` — the latest round is settled, auto-settled or voided (``deadline`` null);
* ``idle`` — no round of the shown shoe dealt yet, or no shoe at all (``deadline`` null).

The shoe shown is the open one, else the table's latest (ended) shoe; the round shown is the
table's latest dealt round if it belongs to that shoe. Cards: each hand's first card from the
deal, a face-down card once its hand's step is open, the third cards only once the initial step
is revealed (how many there are gives the outcome away; so do the plan's ``draws``, hidden
until then too); ``result`` once every card is shown — and until then the shoe's history and
roads leave the round out and its third cards not on the table yet count as still in the shoe.

Round trips: BatchGetItem (table + live state) + BatchGetItem (shoe + latest round) = 2 (1 for a
table with no shoe). Size: bounded by presence and the book (≤ 7 seats, ``MAX_SPECTATORS``,
``MAX_WATCHERS`` ids, ≤ 15 slips of ≤ 13 bets), 30 history entries and one shoe's roads:
64.6 KB measured with the longest ids, every place taken, 4-bet slips and a whole
bid-squeeze shoe (tests/unit/test_table_state.py).
``ETag``: the SHA-256 of the answer (its phase moves with time, not only with ``seq``), so
``If-None-Match`` answers 304 while nothing a frontend draws has changed."""

from __future__ import annotations

import hashlib
from typing import Any

from baccarat import currency
from baccarat.squeeze import step_hands, timeline
from baccarat_api.ids import RoundRef, ShoeRef, parse_round_id, parse_table_id
from baccarat_api.ports.records import LiveRecord, RoundRecord, ShoeRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.betting import book_view
from baccarat_api.service.errors import not_found
from baccarat_api.service.models import TableStateOut
from baccarat_api.service.reveals import plan_seconds
from baccarat_api.service.seating import presence_view
from baccarat_api.service.views import round_as_shown, shoe_as_shown
from baccarat_api.service.window import window_status

SHOE_FIELDS = ("shoe_id", "shoe_number", "status", "rounds_dealt", "cards_remaining", "history",
               "roads", "last_round_id")  # fmt: skip


def table_state(repo: Repository, operator_id: str, table_id: str) -> tuple[TableStateOut, str]:
    """The table's state now and its ETag."""
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
    state = TableStateOut.model_validate(
        {
            "table_id": table_id,
            "profile": table.profile,
            "tier": table.tier_id,
            "banking": table.banking,
            **currency.of_config(table.config),
            "seq": 0 if live is None else live.seq,
            "at": at,
            "phase": phase,
            "deadline": deadline,
            "seats": presence.seats,
            "banker": presence.banker,
            "spectators": presence.spectators,
            "watchers": presence.watchers,
            "idle": {} if live is None else dict(live.idle),
            "book": book_view(live, at),
            "shoe": None if shoe is None else _shoe(shoe, rnd, at),
            "round": shown,
        }
    )
    body = state.model_dump_json(exclude={"at"}).encode()
    return state, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


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
    if betting is not None and status == "closed":
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
