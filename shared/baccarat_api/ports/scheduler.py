"""The table clock's timers: a :class:`Tick` names one time-driven step of a running table
(``"dealing": "auto"``) and when it is due; a :class:`Scheduler` delivers it to the table-clock
job at (or after) that time — in AWS an SQS message timer, under ``make run`` a thread, in
tests a list the test delivers by hand.

A tick is only a wake-up call: the job re-reads the table and acts only if the table's own
next step (``LiveRecord.tick``) is still this one and due. A tick delivered twice, late or
after the table changed does nothing twice; a lost one is recovered by the sweep."""

from __future__ import annotations

from typing import Literal, Protocol, TypedDict

#: The steps a running table takes by itself.
Step = Literal["open", "close", "reveal", "settle", "commit", "draw"]


class Tick(TypedDict):
    """One step of one table, due at ``due`` (ISO 8601 UTC, milliseconds, ``Z``); ``key``
    names the exact state the step acts on (a window's ``opened_at``, a round id and step…),
    so a tick for a state the table has left is recognised as stale."""

    operator_id: str
    table_id: str
    step: Step
    key: str
    due: str


class Scheduler(Protocol):
    def schedule(self, tick: Tick) -> None:
        """Deliver ``tick`` to the table-clock job at ``tick["due"]`` (at least once; maybe
        late; maybe twice). Called after the write that made the step due has committed."""


class NoScheduler:
    """No timers (the sweep alone moves running tables): the default of a repository."""

    def schedule(self, tick: Tick) -> None:
        return None
