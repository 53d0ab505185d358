"""The settlement fan-out's chunks in AWS: one SQS message per chunk (``SendMessageBatch``, 10 a
request), consumed by ``SettleChunkFunction`` (:mod:`baccarat_api.jobs.settle_chunks`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from baccarat_api.ports.chunks import ChunkMessage

#: SQS's most messages per ``SendMessageBatch``.
BATCH = 10


def chunk_body(message: ChunkMessage) -> str:
    """The message body: the chunk as JSON (sorted keys)."""
    return json.dumps(message.as_dict(), sort_keys=True, separators=(",", ":"))


class SqsChunkQueue:
    """:class:`~baccarat_api.ports.chunks.ChunkQueue` on an SQS standard queue.

    A failed send is logged, not raised: it is called after the settlement committed (raising
    would turn a done settlement into an error answer); the round's progress is in the
    ``DueRounds`` index and the sweep sends its chunks again once it is overdue."""

    def __init__(self, sqs: Any, queue_url: str) -> None:
        self.sqs, self.queue_url = sqs, queue_url

    def send(self, messages: Sequence[ChunkMessage]) -> None:
        for start in range(0, len(messages), BATCH):
            part = messages[start : start + BATCH]
            entries = [{"Id": str(i), "MessageBody": chunk_body(m)} for i, m in enumerate(part)]
            try:
                out = self.sqs.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
                failed = out.get("Failed") or []
            except Exception:
                failed = entries
            if failed:
                from baccarat_api.observability import logger

                logger.error(
                    "settle chunks: messages not sent (the sweep sends them again)",
                    extra={"chunks": [part[int(f["Id"])].as_dict() for f in failed]},
                )
