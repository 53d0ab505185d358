"""Webhook delivery as it runs (:func:`baccarat_api.service.webhooks.deliver`): in AWS
``DeliveryFunction`` on the ``DeliveryQueue`` (a message names an operator's feed shard; a pass
that wants another sends it again with that delay); in ``make run``, :func:`run_forever`.

A pass ends while the function still has a POST's timeout left, and a batch's shards are passed
on :data:`CONCURRENCY` threads, so one slow receiver neither times the function out nor holds
back another operator's events."""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from baccarat_api.ports.records import FEED_SHARDS
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.vault import SecretVault
from baccarat_api.ports.webhooks import Sender, Wakeup
from baccarat_api.service import webhooks

#: Time a pass keeps, beyond one POST's timeout, to save the shard's state and reschedule.
MARGIN_SECONDS = 5.0
#: Delivery passes run at once: a DeliveryFunction batch's messages (template.yaml's
#: ``BatchSize``: every message of a batch at once) and ``make run``'s operators.
CONCURRENCY = 10


def pass_and_reschedule(
    repo: Repository,
    vault: SecretVault,
    sender: Sender,
    wakeup: Wakeup,
    operator_id: str,
    shard: int,
    scale: float,
    time_left: Callable[[], float] | None = None,
    reserve: float = 0.0,
    retry: bool = False,
    due_ms: int | None = None,
) -> webhooks.Pass:
    """One pass for a message naming the shard — the indexer's wake, or (``retry``) the
    message a pass sent to come back, ``due_ms`` the backoff it was sent for (``None``: any) —
    and the message that brings the shard back, if any. A message that finds the shard waiting
    out a backoff adds none unless it is that backoff's own retry message (one per waiting
    shard, however many events are appended meanwhile — and when a wake ran the pass before
    the retry message arrived and saved a new backoff, that pass's message is the one)."""
    done = webhooks.deliver(repo, vault, sender, operator_id, shard, scale=scale,
                            time_left=time_left, reserve=reserve)  # fmt: skip
    if done.again_in is None:
        return done
    if done.waiting and (not retry or due_ms not in (None, done.due_ms)):
        return done
    wakeup.later(operator_id, shard, math.ceil(done.again_in), retry=True, due_ms=done.due_ms)
    return done


def continues(record: dict[str, Any], message: dict[str, Any]) -> bool:
    """Whether an SQS record carries a pass's own work on: its ``retry`` message — or any
    message received again (its pass failed, perhaps after saving a backoff whose retry
    message it could not send: the redelivery must schedule it)."""
    received = str((record.get("attributes") or {}).get("ApproximateReceiveCount", "1"))
    return bool(message.get("retry", False)) or (received.isdigit() and int(received) > 1)


def due_of(message: dict[str, Any], record: dict[str, Any] | None = None) -> int | None:
    """The backoff a retry message was sent for (``None``: any — a wake, or any message
    received again: its pass may have saved a newer backoff whose message it could not send)."""
    received = str(((record or {}).get("attributes") or {}).get("ApproximateReceiveCount", "1"))
    due = message.get("due_ms")
    return due if isinstance(due, int) and received == "1" else None


def wake(wakeup: Wakeup, touched: Iterable[tuple[str, int]]) -> None:
    """The feed indexer appended to these (operator, shard)s: deliver them now."""
    for operator_id, shard in sorted(touched):
        wakeup.later(operator_id, shard, 0)


def lambda_handler() -> Any:
    """``DeliveryFunction``'s handler (SQS batch; partial batch failures reported)."""
    from baccarat_api.observability import logger, tracer
    from baccarat_api.runtime import get_runtime

    get_runtime()

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        rt = get_runtime()
        reserve = rt.settings.webhook_timeout_seconds + MARGIN_SECONDS

        def time_left() -> float:
            return float(context.get_remaining_time_in_millis()) / 1000

        def one(record: dict[str, Any], message: dict[str, Any]) -> bool:
            try:
                done = pass_and_reschedule(
                    rt.repo, rt.vault, rt.sender, rt.wakeup,
                    str(message["operator_id"]), int(message["shard"]),
                    rt.settings.webhook_backoff_scale, time_left, reserve,
                    continues(record, message), due_of(message, record),
                )  # fmt: skip
                logger.info("webhook pass", extra={"delivered": done.delivered,
                                                    "parked": done.parked})  # fmt: skip
                return True
            except Exception:
                logger.exception("webhook pass failed")
                return False

        failed = batch(event.get("Records", []), one)
        return {"batchItemFailures": [{"itemIdentifier": m} for m in failed]}

    return handler


def batch(
    records: list[dict[str, Any]], one: Callable[[dict[str, Any], dict[str, Any]], bool]
) -> list[str]:
    """Pass an SQS batch's messages at once (at most :data:`CONCURRENCY`), those naming one
    shard one after the other (two passes of a shard at once would POST its events twice):
    one operator's slow receiver holds back no other operator's events.
    ``one(record, message)`` passes a message, ``False`` if it failed; the ids of the records
    that failed (or are not a message) are answered."""
    failed: list[str] = []
    lines: dict[tuple[str, int], list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for record in records:
        try:
            message = json.loads(record["body"])
            shard = (str(message["operator_id"]), int(message["shard"]))
        except Exception:
            failed.append(str(record.get("messageId", "")))
            continue
        lines.setdefault(shard, []).append((record, message))

    def line(items: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str]:
        return [str(r.get("messageId", "")) for r, m in items if not one(r, m)]

    with ThreadPoolExecutor(CONCURRENCY, thread_name_prefix="delivery") as pool:
        for ids in pool.map(line, lines.values()):
            failed.extend(ids)
    return failed


def run_forever(
    repo: Repository,
    vault: SecretVault,
    sender: Sender,
    operators: Callable[[], list[str]],
    stop: threading.Event,
    *,
    every: float = 0.2,
    scale: float = 1.0,
) -> None:
    """``make run``'s delivery loop: every shard of every operator with a webhook, a pass each
    round (a shard in backoff answers at once), until ``stop``. Each operator's round runs on
    a thread of its own (at most :data:`CONCURRENCY` at once): one operator's slow receiver
    holds back only that operator's events; an operator's next round starts when its last ends
    (at once if a shard has more to send, else ``every`` later). Once ``stop`` is set a pass
    sends nothing more."""

    def left() -> float:
        return 0.0 if stop.is_set() else math.inf

    def rounds(operator_id: str) -> bool:
        busy = False
        try:
            for shard in range(FEED_SHARDS):
                done = webhooks.deliver(repo, vault, sender, operator_id, shard, scale=scale,
                                        time_left=left, reserve=1.0)  # fmt: skip
                busy = busy or done.again_in == 0.0
        except Exception as exc:  # as SQS would: the shard is tried again on the next round
            print(f"webhook delivery: {type(exc).__name__}: {exc}", file=sys.stderr)
        return busy

    running: dict[str, Future[bool]] = {}
    next_at: dict[str, float] = {}
    pool = ThreadPoolExecutor(CONCURRENCY, thread_name_prefix="webhook-delivery")
    try:
        while not stop.is_set():
            try:
                names = operators()
            except Exception as exc:
                print(f"webhook delivery: {type(exc).__name__}: {exc}", file=sys.stderr)
                names = []
            now = time.monotonic()
            for operator_id in names:
                if operator_id not in running and next_at.get(operator_id, 0.0) <= now:
                    running[operator_id] = pool.submit(rounds, operator_id)
            if running:
                wait(running.values(), timeout=every, return_when=FIRST_COMPLETED)
            else:
                stop.wait(every)
            for operator_id, future in list(running.items()):
                if future.done():
                    del running[operator_id]
                    again = 0.0 if future.result() else every
                    next_at[operator_id] = time.monotonic() + again
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
