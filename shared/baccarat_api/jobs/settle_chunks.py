"""A book round's settlement chunks run (:func:`.service.settle_chunks.run_message`), three ways:

* in AWS: ``SettleChunkFunction`` (template.yaml) runs :func:`lambda_handler` on the
  ``SettleChunkQueue``, whose messages :class:`~baccarat_api.adapters.sqs_chunks.SqsChunkQueue`
  sent after the settlement (partial batch failures: only a failed chunk comes back, and after
  its retries lands in the dead-letter queue — the sweep sends it again meanwhile);
* inside ``make run``: :func:`start_background` runs them on a thread (:class:`ThreadQueue`);
* a chunk whose message was lost: the sweep (:mod:`.service.auto_settle`).

A chunk run twice writes the same items and reports its page once."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from baccarat_api.ports.chunks import ChunkMessage
from baccarat_api.service.settle_chunks import run_message

if TYPE_CHECKING:
    from baccarat_api.ports.repository import Repository
    from baccarat_api.runtime import Runtime


class BadChunk(ValueError):
    """A message body that is not a chunk (dropped: retrying it would never help)."""


def parse_chunk(body: str) -> ChunkMessage:
    """The chunk a message body holds (:class:`BadChunk` if it holds none)."""
    try:
        data = json.loads(body)
        message = ChunkMessage.from_dict(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise BadChunk(f"not a chunk: {body[:200]!r}") from exc
    if message.chunk < 0:
        raise BadChunk(f"not a chunk: {body[:200]!r}")
    return message


# --- AWS: the queue's function --------------------------------------------------------------


def lambda_handler() -> Any:
    """``SettleChunkFunction``'s handler (an SQS batch; partial batch failures reported), built
    at cold start: the settings are read and validated here."""
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
            message = parse_chunk(record.body)
        except BadChunk as exc:
            logger.error("settle chunks: message dropped", extra={"reason": str(exc)})
            return "dropped"
        outcome = run_message(get_runtime().repo, message)
        logger.info("settle chunk", extra={**message.as_dict(), "outcome": outcome})
        return outcome

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return dict(
            process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        )

    return handler


# --- make run: the queue's stand-in ---------------------------------------------------------


class ThreadQueue:
    """A :class:`~baccarat_api.ports.chunks.ChunkQueue` run by ``workers`` threads: the chunks
    are taken in the order sent; one that fails is logged (the sweep sends it again)."""

    def __init__(self, repo: Repository, workers: int = 1) -> None:
        self.repo = repo
        self._queue: queue.Queue[ChunkMessage | None] = queue.Queue()
        self._threads = [
            threading.Thread(target=self._work, name=f"settle-chunks-{n}", daemon=True)
            for n in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def send(self, messages: Sequence[ChunkMessage]) -> None:
        for m in messages:
            self._queue.put(m)

    def _work(self) -> None:
        from baccarat_api.observability import logger

        while (m := self._queue.get()) is not None:
            try:
                run_message(self.repo, m)
            except Exception:
                logger.exception("settle chunk failed (the sweep sends it again)")
            finally:
                self._queue.task_done()
        self._queue.task_done()

    def join(self) -> None:
        """Wait until every chunk sent so far has run."""
        self._queue.join()

    def stop(self) -> None:
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=5)


#: Threads running a book's chunks under ``make run`` (as Lambda runs several batches at once).
LOCAL_WORKERS = 4


def start_background(rt: Runtime, workers: int = LOCAL_WORKERS) -> ThreadQueue:
    """Run the runtime's settlement chunks on ``workers`` threads: its repository's chunk queue
    becomes them. ``stop()`` it on exit."""
    worker = ThreadQueue(rt.repo, workers)
    rt.use_chunk_queue(worker)
    return worker
