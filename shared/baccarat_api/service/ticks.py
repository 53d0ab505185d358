"""The running table's next time-driven step, derived from its live state alone (pure): every
change at a running table stores it (``LiveRecord.tick``, set by :func:`~.events.emit`), the
repository schedules it after the change commits, and the table-clock job acts on it only if it
is still the table's next step when delivered."""

from __future__ import annotations

from baccarat_api.ports.documents import TickDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.scheduler import Tick


def derive(live: LiveRecord, at: str) -> TickDoc | None:
    """The table's next step as of ``at`` (``None``: an operator table, paused, waiting for
    company or a client seed). To be written."""
    return None


def tick_of(live: LiveRecord | None) -> Tick | None:
    """The stored next step of ``live`` as a :class:`Tick` (``None``: none)."""
    if live is None or live.tick is None:
        return None
    t = live.tick
    return Tick(
        operator_id=live.operator_id,
        table_id=live.table_id,
        step=t["step"],
        key=t["key"],
        due=t["due"],
    )
