"""Who is at a table and who leaves it (pure: the live state in, the events and the live
fields that change out): seats, the player-banker, spectators, watchers."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from baccarat.eligibility import spectators_to_remove
from baccarat.profiles import TableConfig
from baccarat_api.ports.records import LiveRecord
from baccarat_api.service.events import BettorLeft, Change, SeatVacated, SlipCancelled
from baccarat_api.service.models import PresenceOut


def presence_view(table_id: str, live: LiveRecord | None) -> PresenceOut:
    live = live or LiveRecord("", table_id)
    seats = sorted(live.seats.items(), key=lambda kv: int(kv[0]))
    return PresenceOut.model_validate(
        {
            "table_id": table_id,
            "seats": {int(k): v for k, v in seats},
            "banker": live.banker,
            "spectators": live.spectators,
            "watchers": live.watchers,
            "seq": live.seq,
        }
    )


def where(live: LiveRecord, bettor_id: str) -> str | None:
    """Where the bettor is at the table now (``seat N``, ``banker``, ``spectator``,
    ``watcher``), or ``None``."""
    for seat, who in live.seats.items():
        if who["bettor_id"] == bettor_id:
            return f"seat {seat}"
    if live.banker is not None and live.banker["bettor_id"] == bettor_id:
        return "banker"
    if bettor_id in live.spectators:
        return "spectator"
    if bettor_id in live.watchers:
        return "watcher"
    return None


def without_spectators(
    config: TableConfig, live: LiveRecord, seats: dict[str, Any]
) -> tuple[list[Change], dict[str, Any]]:
    """When no seated bettor remains (bid-squeeze), the spectators go: at once, except those
    who bet in the table's latest round while it is unresolved — they go after its settlement
    (:func:`baccarat_api.service.after_round.after_resolution`)."""
    seated = [s["bettor_id"] for s in seats.values()]
    last = live.last_round
    resolved = last is None or last.get("resolved", True)
    betting = () if last is None or resolved else tuple(last.get("spectators", ()))
    gone = spectators_to_remove(config, seated, live.spectators, betting).now
    if not gone:
        return [], {}
    left: list[Change] = [
        ("spectator_left", BettorLeft(bettor_id=b, reason="no_seated_bettor")) for b in gone
    ]
    return left, {"spectators": {k: v for k, v in live.spectators.items() if k not in gone}}


def fields_without(live: LiveRecord, bettor_ids: Collection[str]) -> dict[str, Any]:
    """The live fields that drop ``bettor_ids``' slips from a book not dealt yet and their idle
    counters (people who left the table)."""
    changes: dict[str, Any] = {"idle": {k: v for k, v in live.idle.items() if k not in bettor_ids}}
    if live.betting is not None and live.betting.get("status") != "dealt":
        changes["book"] = {k: v for k, v in live.book.items() if k not in bettor_ids}
    return changes


def slip_cancellations(live: LiveRecord, bettor_ids: Collection[str]) -> list[Change]:
    """``bet_cancelled`` for each of ``bettor_ids``' slips that :func:`fields_without` drops:
    a frontend following the feed takes a slip off the table when its bettor leaves, as on a
    cancel."""
    if live.betting is None or live.betting.get("status") == "dealt":
        return []
    number = live.betting["round_number"]
    return [("bet_cancelled", SlipCancelled(round_number=number, bettor_id=b))
            for b in dict.fromkeys(bettor_ids) if b in live.book]  # fmt: skip


def vacate(
    config: TableConfig, live: LiveRecord, seat: str, reason: str
) -> tuple[list[Change], dict[str, Any]]:
    """Seat ``seat`` vacated for ``reason`` (and the spectators, if it was the last seat): the
    bettor's slip of a book not dealt yet and idle counter go with it."""
    who = live.seats[seat]
    seats = {k: v for k, v in live.seats.items() if k != seat}
    reported: list[Change] = [
        ("seat_vacated", SeatVacated(seat=int(seat), bettor_id=who["bettor_id"], reason=reason))
    ]
    more, changes = without_spectators(config, live, seats)
    gone = [who["bettor_id"], *(data["bettor_id"] for _, data in more)]
    cancelled = slip_cancellations(live, gone)
    return reported + more + cancelled, {"seats": seats, **changes, **fields_without(live, gone)}


def spectator_out(
    live: LiveRecord, bettor_id: str, reason: str
) -> tuple[list[Change], dict[str, Any]]:
    """Spectator ``bettor_id`` gone for ``reason``, their slip of a book not dealt yet with
    them."""
    spectators = {k: v for k, v in live.spectators.items() if k != bettor_id}
    left = ("spectator_left", BettorLeft(bettor_id=bettor_id, reason=reason))
    reported = [left, *slip_cancellations(live, [bettor_id])]
    return reported, {"spectators": spectators, **fields_without(live, [bettor_id])}
