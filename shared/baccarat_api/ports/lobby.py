"""The lobby as the repository reads it: a page of an operator's numbered tables, each with
its live state and the progress of its shown shoe (:meth:`Repository.lobby_page`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from baccarat_api.ports.documents import RoadResult
from baccarat_api.ports.live_records import LiveRecord
from baccarat_api.ports.records import TableRecord

#: Where a lobby page starts: after the table of this (number, table id).
LobbyPosition = tuple[int, str]


def shown_shoe_number(table: TableRecord) -> int | None:
    """The number of the shoe a lobby shows of ``table``: its open shoe, else its last one
    (``None``: no shoe yet)."""
    if table.open_shoe_id is not None:
        return int(table.open_shoe_id.rsplit("_s", 1)[1])
    return table.next_shoe_number - 1 if table.next_shoe_number > 1 else None


@dataclass(frozen=True, slots=True)
class LobbyShoe:
    """What the lobby shows of a table's shown shoe (its open one, else its last): no secret,
    no packed constants — the shoe's own item only."""

    shoe_number: int
    status: str
    rounds_dealt: int
    cursor: int
    results: list[RoadResult] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class LobbyRow:
    """One table of a lobby page. ``spectators`` / ``watchers``: the book store's counts at a
    book table (``None`` elsewhere: the live state lists them)."""

    table: TableRecord
    live: LiveRecord | None
    shoe: LobbyShoe | None
    spectators: int | None = None
    watchers: int | None = None


@dataclass(frozen=True, slots=True)
class LobbyPage:
    """Up to ``limit`` rows in number order; ``more``: a table follows the last row."""

    rows: list[LobbyRow]
    more: bool
