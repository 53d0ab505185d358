"""A table's human number (桌號) as stored: the claim that makes a number one table's, and the
operator's counter the service assigns numbers from (re-exported by :mod:`.records`, where every
record kind is listed).

Numbers are unique per operator because each is claimed by an item of its own, put only if
absent in the table's creation transaction: of two creations racing for one number, one wins.
The counter only says where the next free number probably is (an ``ADD`` reserves one at a
time); the claim decides."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TableNumber:
    """The claim of ``number`` by ``table_id`` (never changed, never removed)."""

    operator_id: str
    number: int
    table_id: str = ""


@dataclass(frozen=True, slots=True)
class TableNumberCounter:
    """The operator's last number reserved for a table created without one (0: none yet)."""

    operator_id: str
    last: int = 0
