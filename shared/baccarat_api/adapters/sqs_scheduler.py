"""The table clock's timers in AWS: one SQS message per tick, delayed to its due time
(``DelaySeconds``, whole seconds, at most 15 minutes), consumed by ``TableClockFunction``
(:mod:`baccarat_api.jobs.table_clock`). The delay is rounded down, so a message arrives at most
a second early; the job sleeps that remainder off. A tick farther than 15 minutes arrives early
and is scheduled again by the job."""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from baccarat_api.clock import Clock, system_clock
from baccarat_api.ports.scheduler import Tick

#: SQS's longest message delay (``DelaySeconds``: 0 to 900).
MAX_DELAY_SECONDS = 900


def _epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def delay_seconds(due: str, now: str) -> int:
    """``floor(due − now)`` in whole seconds, clamped to SQS's 0–900."""
    return max(0, min(MAX_DELAY_SECONDS, math.floor(_epoch(due) - _epoch(now))))


def tick_body(tick: Tick) -> str:
    """The message body: the tick as JSON (sorted keys, so one tick is one byte string)."""
    return json.dumps(dict(tick), sort_keys=True, separators=(",", ":"))


class SqsScheduler:
    """:class:`~baccarat_api.ports.scheduler.Scheduler` on an SQS standard queue.

    A failed send is logged, not raised: it is called after the change it schedules has
    committed, so raising would turn a done change into an error answer; the tick stays stored
    on the table (the DueRounds index, shard ``TICK#k``) and the sweep delivers it."""

    def __init__(self, sqs: Any, queue_url: str, clock: Clock = system_clock) -> None:
        self.sqs, self.queue_url, self.clock = sqs, queue_url, clock

    def schedule(self, tick: Tick) -> None:
        try:
            self.sqs.send_message(
                QueueUrl=self.queue_url,
                MessageBody=tick_body(tick),
                DelaySeconds=delay_seconds(tick["due"], self.clock()),
            )
        except Exception:
            from baccarat_api.observability import logger

            logger.exception("table clock: tick not sent (the sweep delivers it)", extra=dict(tick))
