"""Table events (design-events.md): what happened at a table, in order, and their data.

A change numbers its events after the live state's ``seq`` (:func:`emit`) and writes them in
its own transaction, conditional on that ``seq``: events are gap-free and exist exactly when
their change does; of two changes that read the same ``seq`` one commits, the other is computed
again (:func:`retrying`) or answers 409 ``concurrent_update``."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NotRequired, TypedDict, TypeVar

from baccarat.squeeze import system_reveals
from baccarat_api.ids import parse_round_id, parse_table_id
from baccarat_api.limits import MAX_EVENTS_PAGE
from baccarat_api.ports.records import EventRecord, LiveRecord, RoundRecord, ShoeRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.writes import Emit
from baccarat_api.service import ticks
from baccarat_api.service.errors import DomainError, not_found
from baccarat_api.service.models import EventOut, EventsPageOut
from baccarat_api.service.views import round_as_shown, shoe_as_shown

#: Every event type, and what its ``data`` carries (docs/api.md says the same).
EVENT_TYPES: dict[str, str] = {
    "seat_taken": "seat, bettor_id",
    "seat_updated": "seat, bettor_id (the seated bettor's balance or level changed)",
    "seat_vacated": "seat, bettor_id, reason (left | idle | balance)",
    "banker_taken": "bettor_id",
    "banker_updated": "bettor_id (the player-banker's balance changed)",
    "banker_left": "bettor_id, reason (left | balance)",
    "spectator_joined": "bettor_id",
    "spectator_updated": "bettor_id (balance or personal limits changed)",
    "spectator_left": "bettor_id, reason (left | balance | no_seated_bettor)",
    "watcher_joined": "bettor_id",
    "watcher_left": "bettor_id",
    "betting_opened": "shoe_id, round_number, closes_at",
    "bet_placed": "round_number, bettor_id, bets (count), total, lines (the slip: type, amount "
    "each; stakes are public at the table)",
    "bet_cancelled": "round_number, bettor_id (and reason: the refusal's code, when a balance or "
    "limits report left the slip refused)",
    "betting_closed": "shoe_id, round_number",
    "betting_cancelled": "shoe_id, round_number, reason (the code that refused its deal), "
    "slips (count)",
    "round_dealt": "round_id, shoe_id, round_number, bettors (count), bets (count), round and "
    "shoe (what the table shows right after: SHOWN) (and, at a bacc-pf-v2 table, beacon: round, "
    "signature)",
    "round_locked": "round_id, shoe_id, round_number, locked_at, book_root, beacon (chain_hash, "
    "round, expected_at): a bacc-pf-v2 round's bets locked, its cards wait for that beacon (and "
    "book: root, count — the spectators' book locked with it, at a book table)",
    "squeeze_revealed": "round_id, step (initial | draws), by (bettor id or system), hands, "
    "revealed_at, round and shoe (what the table shows right after: SHOWN)",
    "urge": "bettor_id, round_id",
    "round_settled": "round_id, nets, house_take, lines, auto_settled (and book.totals at a "
    "book round)",
    "round_auto_settled": "round_id, nets, house_take, lines, auto_settled (true)",
    "round_voided": "round_id, reason, nets (replaced), house_take (replaced) (reason "
    "beacon_unavailable: a locked bacc-pf-v2 round whose beacon never came; no cards)",
    "round_settlement_page": "round_id, page, pages, bettors (at most 100 spectators of a book "
    "round: bettor_id, bettor_ref, stake, net; one event per settlement page)",
    "shoe_committed": "shoe_id, shoe_number, cards_remaining (after the burn)",
    "shoe_ended": "shoe_id, reason (rules | closed), rounds_dealt",
    "table_paused": "(none: a running table's operator paused it)",
    "table_resumed": "(none: a running table's operator resumed it)",
    "client_seed_given": "client_hash, for_shoe_number (a running table's seed given in advance)",
    "table_waiting": "reason (no_client_seed: the running table's shoe ended, no seed given)",
    "spectators_removed": "reason (no_seated_bettor), count, first (at most 100 bettor ids): "
    "a book table's spectators removed at once",
    "chat_message_deleted": "message_id, by (operator): a chat message removed by moderation "
    "(chat text is never in an event)",
    "chat_muted": "bettor_id, until (the operator muted the person's chat)",
    "chat_unmuted": "bettor_id",
    "push_rotated": "epoch (the table's push channel moved on: a token was revoked; "
    "subscribers resubscribe to push_channel)",
}

#: An event to report: its type and its data.
Change = tuple[str, Mapping[str, Any]]

#: The events that carry what the table shows of their round right after them (``round``: the
#: state's ``round``; ``shoe``: its shoe's counts that moved with it), so a page draws the
#: table from the push channel alone (docs/design/browsers.md §5) — never anything the state
#: does not show yet: both are the state's own views (:func:`shown`).
SHOWN = ("round_dealt", "squeeze_revealed")

#: A round (with the change's own reveals) and its shoe (``None``: not at hand), whose view
#: the change's ``SHOWN`` events of that round carry.
Shows = tuple[RoundRecord, ShoeRecord | None]


def shown(r: RoundRecord, shoe: ShoeRecord | None, at: str) -> dict[str, Any]:
    """What the table shows of round ``r`` at ``at`` (``GET …/state``'s views, never a second
    masking): ``round`` as the state shows it, and (with its shoe) ``shoe``: its id, rounds
    dealt, the cards remaining (a face-down step's cards counted only once shown) and
    ``last``, the round's history entry (its bead plate cell) once its result shows, else
    ``null``."""
    out: dict[str, Any] = {"round": round_as_shown(r, at)}
    if shoe is not None:
        view = shoe_as_shown(shoe, r, at)
        cells = view["roads"]["bead_plate"]["cells"]
        # the bead plate numbers each round as the feed does (a bacc-pf-v2 beacon void has no
        # bead: the next round keeps its number, roads.RoundSummary.round)
        last = cells[-1] if cells and cells[-1]["round"] == r.round_number else None
        out["shoe"] = {
            "shoe_id": view["shoe_id"],
            "rounds_dealt": view["rounds_dealt"],
            "cards_remaining": view["cards_remaining"],
            "last": last if out["round"]["result"] is not None else None,
        }
    return out


def _showing(events: Sequence[Change], shows: Shows | None, at: str) -> list[Change]:
    """``events`` with what the table shows added to those of ``shows``' round."""
    if shows is None:
        return list(events)
    r, shoe = shows
    view: dict[str, Any] | None = None
    out: list[Change] = []
    for kind, data in events:
        if kind in SHOWN and data.get("round_id") == r.round_id:
            view = view if view is not None else shown(r, shoe, at)
            data = {**data, **view}
        out.append((kind, data))
    return out


def complete(repo: Repository, ev: Emit, moved: RoundRecord | None = None) -> Emit:
    """``ev`` with its ``SHOWN`` events that lack what the table shows (a step the system
    opened, reported by a change about something else) given it: their round and shoe read
    in one round trip per round (one, but for a deal reporting the previous round's last step)
    — only when there are such events. ``moved``: the round as the change
    leaves it (settled, voided), shown instead of the round as read."""
    missing = {
        str(e.data["round_id"]) for e in ev.events if e.type in SHOWN and "round" not in e.data
    }
    if not missing:
        return ev
    views: dict[str, Shows] = {}
    for round_id in sorted(missing):
        ref = parse_round_id(round_id)
        if ref is None:
            continue
        snap = repo.load(ev.after.operator_id, shoe=ref.shoe, round_=ref)
        found = moved if moved is not None and moved.round_id == round_id else snap.round
        if found is not None:
            views[round_id] = (found, snap.shoe)
    records = []
    for e in ev.events:
        view = views.get(str(e.data.get("round_id"))) if e.type in SHOWN else None
        if view is not None and "round" not in e.data:
            e = replace(e, data={**e.data, **shown(view[0], view[1], e.at)})
        records.append(e)
    return replace(ev, events=tuple(records))


# The data of the events reported by presence, the squeeze, the shoe and the settlement.


class SeatChange(TypedDict):
    """``seat_taken``, ``seat_updated``."""

    seat: int
    bettor_id: str


class SeatVacated(SeatChange):
    reason: str


class BettorChange(TypedDict):
    """``banker_taken``/``_updated``, ``spectator_joined``/``_updated``, ``watcher_joined``/
    ``_left``."""

    bettor_id: str


class BettorLeft(BettorChange):
    """``banker_left``, ``spectator_left``."""

    reason: str


class SlipCancelled(TypedDict):
    """``bet_cancelled`` of a bettor who left (a refused slip's also carries ``reason``)."""

    round_number: int
    bettor_id: str


class SqueezeRevealed(TypedDict):
    round_id: str
    step: str
    by: str
    hands: list[str]
    revealed_at: str


class Urged(TypedDict):
    bettor_id: str
    round_id: str | None


class ShoeCommitted(TypedDict):
    shoe_id: str
    shoe_number: int
    cards_remaining: int


class ShoeEnded(TypedDict):
    shoe_id: str
    reason: str | None
    rounds_dealt: int


class BettingCancelled(TypedDict):
    shoe_id: str
    round_number: int
    reason: str
    slips: int


class MoneySummary(TypedDict):
    """A resolved round's money for its event: nets by participant, the house's take, lines."""

    round_id: str
    nets: dict[str, int]
    house_take: int
    lines: int


class Settled(MoneySummary):
    """``round_settled``, ``round_auto_settled`` (at a book round, with ``book.totals``: the
    spectators' money, each slip's in its settlement page)."""

    auto_settled: bool
    book: NotRequired[dict[str, Any]]


def emit(
    live: LiveRecord | None,
    operator_id: str,
    table_id: str,
    at: str,
    events: Sequence[Change],
    *,
    shows: Shows | None = None,
    **changes: Any,
) -> Emit:
    """The events ``(type, data)`` numbered after ``live`` (``None``: the table has none yet),
    and the live state moved past them (plus ``changes`` of its other fields). First come the
    ``squeeze_revealed`` events of the steps the system opened at their deadline since the last
    change (:func:`baccarat.squeeze.system_reveals`; ``service/squeezing.py``). With ``shows``
    (the round the change moved, as it leaves it, and its shoe) the ``SHOWN`` events of that
    round carry what the table shows right after (:func:`shown`; the others: :func:`complete`)."""
    before = live
    base = live if live is not None else LiveRecord(operator_id, table_id)
    # a squeeze step the system opened at its deadline is reported by the first change after it
    system, squeeze = system_reveals(base.squeeze, changes.get("squeeze", base.squeeze), at)
    if system or "squeeze" in changes:
        changes["squeeze"] = squeeze
    events = _showing([*system, *events], shows, at)
    records = tuple(
        EventRecord(operator_id, table_id, base.seq + i, kind, at, dict(data), base.push_epoch)
        for i, (kind, data) in enumerate(events, start=1)
    )
    assert all(kind in EVENT_TYPES for kind, _ in events), events
    after = replace(base, seq=base.seq + len(records), updated_at=at, **changes)
    # a running table's next step, derived again after every change at it
    return Emit(before, ticks.clock_after(base, after, at), records)


def money_summary(r: RoundRecord) -> MoneySummary:
    """A resolved round's money for its event."""
    money = r.money
    return MoneySummary(
        round_id=r.round_id,
        nets=dict(money.get("nets", {})),
        house_take=(money.get("house") or {}).get("take", 0),
        lines=len(money.get("lines", [])),
    )


def settled_event(r: RoundRecord, auto: bool) -> Change:
    s = money_summary(r)
    data = Settled(
        round_id=s["round_id"],
        nets=s["nets"],
        house_take=s["house_take"],
        lines=s["lines"],
        auto_settled=auto,
    )
    if r.book is not None:
        data["book"] = {"totals": dict(r.book["totals"])}
    return ("round_auto_settled" if auto else "round_settled", data)


T = TypeVar("T")

#: How often a change that lost only the table's live-state race (another change at the table
#: committed between its read and its write) is computed again from a fresh read.
ATTEMPTS = 4


class LiveMoved(Exception):
    """The change lost the live-state race alone (its own item did not move): compute it again."""


def retrying(attempt: Callable[[], T]) -> T:
    """``attempt()`` again while it raises :class:`LiveMoved`, at most :data:`ATTEMPTS` times;
    then 409 ``concurrent_update``."""
    for _ in range(ATTEMPTS - 1):
        try:
            return attempt()
        except LiveMoved:
            continue
    try:
        return attempt()
    except LiveMoved:
        raise DomainError(
            "concurrent_update", "the table changed during the request; retry"
        ) from None


def _out(e: EventRecord) -> EventOut:
    return EventOut(event_id=e.event_id, seq=e.seq, type=e.type, at=e.at, data=e.data)


def page_etag(table_id: str, after: int, seqs: Sequence[int], limit: int) -> str:
    """A page's strong ETag: events never change, so the page is named by what it holds."""
    span = f"{table_id}:{after}:{limit}:{seqs[0] if seqs else 0}:{seqs[-1] if seqs else 0}"
    return '"' + hashlib.sha256(span.encode()).hexdigest()[:32] + '"'


def table_events(
    repo: Repository, operator_id: str, table_id: str, after: int, limit: int
) -> tuple[EventsPageOut, str]:
    """The table's events after ``after``, oldest first, at most ``limit``, and the page's ETag:
    one Query (one more GetItem when there are none and the table has no live state yet, to tell
    an unknown table from a quiet one)."""
    if parse_table_id(table_id) is None:
        raise not_found("table", table_id)
    limit = max(1, min(limit, MAX_EVENTS_PAGE))
    events, live = repo.table_events(operator_id, table_id, after, limit + 1)
    if not events and live is None and repo.get_table(operator_id, table_id) is None:
        raise not_found("table", table_id)
    more = len(events) > limit
    events = events[:limit]
    seqs = [e.seq for e in events]
    page = EventsPageOut(
        table_id=table_id,
        events=[_out(e) for e in events],
        next_after=seqs[-1] if seqs else after,
        more=more,
    )
    return page, page_etag(table_id, after, seqs, limit)
