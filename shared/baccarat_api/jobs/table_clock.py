"""The running tables' timers delivered: each tick to :func:`.service.table_clock.run_tick`
at its time, three ways:

* in AWS: ``TableClockFunction`` (template.yaml) runs :func:`lambda_handler` on the
  ``TableClockQueue``, whose messages :class:`~baccarat_api.adapters.sqs_scheduler.SqsScheduler`
  sent delayed to their due second;
* inside ``make run``: :func:`start_background` installs a
  :class:`~baccarat_api.adapters.thread_scheduler.ThreadScheduler` delivering through
  :func:`deliver`, the same code;
* a tick whose timer was lost: the sweep (:mod:`.service.auto_settle`).

A tick is a wake-up call, not an order: ``run_tick`` re-reads the table and acts only if the
tick is still its next step and due, so a tick delivered twice, late or to a table that moved
on changes nothing twice."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from baccarat_api.ports.scheduler import Scheduler, Tick
from baccarat_api.service import table_clock

if TYPE_CHECKING:
    from baccarat_api.adapters.thread_scheduler import ThreadScheduler
    from baccarat_api.ports.beacon import BeaconSource
    from baccarat_api.ports.repository import Repository
    from baccarat_api.ports.shoes import ShoeSource
    from baccarat_api.ports.vault import SecretVault
    from baccarat_api.runtime import Runtime

#: A tick due sooner than this is waited for here (SQS delays are whole seconds, rounded down);
#: one due later is scheduled again (a wait longer than SQS's 15 minutes, a skewed clock).
ALIGN_SECONDS = 1.5

_STEPS = frozenset({"open", "close", "reveal", "settle", "commit", "draw"})
#: The pauses before a step that failed for a moment is tried again (then its failure goes up).
RETRY_PAUSES = (0.1, 0.3)


class Wiring(Protocol):
    """What delivering needs of the runtime (:class:`~baccarat_api.runtime.Runtime`)."""

    @property
    def repo(self) -> Repository: ...
    @property
    def shoes(self) -> ShoeSource: ...
    @property
    def vault(self) -> SecretVault: ...
    @property
    def scheduler(self) -> Scheduler: ...


class BadTick(ValueError):
    """A message body that is not a tick (dropped: retrying it would never help)."""


def _epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def parse_tick(body: str) -> Tick:
    """The tick a message body holds (:class:`BadTick` if it holds none)."""
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise BadTick("not JSON") from exc
    names = ("operator_id", "table_id", "step", "key", "due")
    if not isinstance(data, dict) or any(not isinstance(data.get(n), str) for n in names):
        raise BadTick(f"not a tick: {sorted(data) if isinstance(data, dict) else type(data)}")
    if data["step"] not in _STEPS:
        raise BadTick(f"unknown step {data['step']!r}")
    try:
        _epoch(data["due"])
    except ValueError as exc:
        raise BadTick(f"due is not a time: {data['due']!r}") from exc
    return Tick(
        operator_id=data["operator_id"],
        table_id=data["table_id"],
        step=data["step"],
        key=data["key"],
        due=data["due"],
    )


def deliver(
    rt: Wiring,
    tick: Tick,
    *,
    now: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> table_clock.Outcome:
    """Deliver ``tick``: wait out the last second and a half before its due, then
    :func:`~.service.table_clock.run_tick`; a tick that arrived earlier than that, or that
    ``run_tick`` finds early, is scheduled again."""
    ahead = _epoch(tick["due"]) - now()
    if ahead >= ALIGN_SECONDS:
        rt.scheduler.schedule(tick)
        return "early"
    if ahead > 0:
        sleep(ahead)
    outcome = _run(rt, tick, sleep)
    if outcome == "early":
        rt.scheduler.schedule(tick)
    return outcome


def _due_of(record: dict[str, Any]) -> str:
    """A record's tick's due (``""``, first, for a body that is no tick: it is dropped at once)."""
    try:
        return parse_tick(str(record.get("body", "")))["due"]
    except BadTick:
        return ""


def in_due_order(event: dict[str, Any]) -> dict[str, Any]:
    """The SQS batch with its records in due order. Each delay is rounded down to the second,
    so a batch holds ticks due within the next second or so, each waited for (:func:`deliver`)
    one after another: in arrival order a tick due now would wait behind one due later."""
    records = event.get("Records")
    if not isinstance(records, list):
        return event
    return {**event, "Records": sorted(records, key=_due_of)}


def _run(rt: Wiring, tick: Tick, sleep: Callable[[float], None]) -> table_clock.Outcome:
    """:func:`~.service.table_clock.run_tick`, tried again after a moment when it fails for a
    moment (a retryable refusal, the store throttling): dropped, the step would wait for the
    sweep (make run's thread drops a failed tick; SQS returns it only after its visibility
    timeout). Bounded: the last failure goes up."""
    from baccarat_api.ports.repository import StoreUnavailable
    from baccarat_api.service.errors import DomainError

    for pause in RETRY_PAUSES:
        try:
            return _run_tick(rt, tick)
        except DomainError as exc:
            if not exc.retryable:
                raise
        except StoreUnavailable:
            pass
        sleep(pause)
    return _run_tick(rt, tick)


def _run_tick(rt: Wiring, tick: Tick) -> table_clock.Outcome:
    """:func:`~.service.table_clock.run_tick` with the runtime's beacon source, for a
    bacc-pf-v2 round's ``draw`` (a wiring without one: none — a draw then waits, and voids)."""
    source: BeaconSource | None = getattr(rt, "beacon", None)
    if source is None:
        return table_clock.run_tick(rt.repo, rt.shoes, rt.vault, tick)
    return table_clock.run_tick(rt.repo, rt.shoes, rt.vault, tick, source)


# --- AWS: the queue's function --------------------------------------------------------------


def lambda_handler() -> Any:
    """``TableClockFunction``'s handler (an SQS batch; partial batch failures reported, so
    only a failed tick comes back; a body that is no tick is logged and dropped), built at
    cold start: the settings are read and validated here."""
    from aws_lambda_powertools.utilities.batch import (
        BatchProcessor,
        EventType,
        process_partial_response,
    )
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from baccarat_api.observability import logger, tracer
    from baccarat_api.runtime import get_runtime

    get_runtime()
    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)

    def record_handler(record: SQSRecord) -> str:
        try:
            tick = parse_tick(record.body)
        except BadTick as exc:
            logger.error("table clock: message dropped", extra={"reason": str(exc)})
            return "dropped"
        outcome = deliver(get_runtime(), tick)
        logger.info("table clock tick", extra={**tick, "outcome": outcome})
        return outcome

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return dict(
            process_partial_response(
                event=in_due_order(event),
                record_handler=record_handler,
                processor=processor,
                context=context,
            )
        )

    return handler


# --- make run: the queue's stand-in ---------------------------------------------------------


#: Later than any tick's due: the start-up pass asks the DueRounds index for every stored tick.
_EVERY_TICK = "9999-12-31T23:59:59.999Z"
#: Most stored ticks the start-up pass schedules (the sweep takes any beyond, once overdue).
STARTUP_LIMIT = 10_000


def schedule_stored(repo: Repository, scheduler: Scheduler, limit: int = STARTUP_LIMIT) -> int:
    """Schedule every running table's stored next step (``LiveRecord.tick``) on ``scheduler``;
    how many. A timer kept in memory is lost with its process: a restarted ``make run`` (its
    tables kept in a shared DynamoDB Local or a stack) takes its tables up at once this way,
    an overdue step now, a future one at its due — instead of leaving them still until the
    sweep's first run, a minute after start. A tick scheduled twice is harmless."""
    from baccarat_api.service.ticks import tick_of

    found = 0
    for operator_id, table_id in repo.due_ticks(_EVERY_TICK, limit):
        tick = tick_of(repo.load(operator_id, live=table_id).live)
        if tick is not None:
            scheduler.schedule(tick)
            found += 1
    return found


def start_background(rt: Runtime) -> ThreadScheduler:
    """Deliver the runtime's ticks on a thread (:func:`deliver` at each tick's due time): the
    runtime's scheduler and its repository's become it, and every tick stored at start is
    scheduled on it (:func:`schedule_stored`). ``stop()`` it on exit."""
    from baccarat_api.adapters.thread_scheduler import ThreadScheduler

    scheduler = ThreadScheduler(lambda tick: deliver(rt, tick))
    rt.use_scheduler(scheduler)
    schedule_stored(rt.repo, scheduler)
    return scheduler
