"""``make run``'s stand-in for Lambda's DynamoDB Stream event source: read the state table's
stream (DynamoDB Local's — or moto's — ``GetRecords``) from its start and hand each batch of
records to the SAME code the deployed function runs (``on_records``: the feed indexer, then the
webhook delivery). A batch whose handler fails is handed again (as Lambda retries it) after a
short pause."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Records = Sequence[Mapping[str, Any]]


class StreamPoller:
    """Poll every shard of ``table``'s stream; ``handle(records)`` per non-empty batch, in order
    per shard."""

    def __init__(
        self,
        dynamodb: Any,
        streams: Any,
        table: str,
        handle: Callable[[Records], object],
        *,
        every: float = 0.2,
    ) -> None:
        self.dynamodb, self.streams, self.table = dynamodb, streams, table
        self.handle, self.every = handle, every
        self.iterators: dict[str, str | None] = {}
        self.stop = threading.Event()
        self.failures = 0

    def _arn(self) -> str:
        return str(self.dynamodb.describe_table(TableName=self.table)["Table"]["LatestStreamArn"])

    def poll_once(self) -> int:
        """One pass over the shards; returns how many records were handled."""
        arn = self._arn()
        for shard in self.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
            sid = shard["ShardId"]
            if sid not in self.iterators:
                self.iterators[sid] = self.streams.get_shard_iterator(
                    StreamArn=arn, ShardId=sid, ShardIteratorType="TRIM_HORIZON"
                )["ShardIterator"]
        handled = 0
        for sid, iterator in list(self.iterators.items()):
            if iterator is None:
                continue  # a closed shard, read to its end
            try:
                out = self.streams.get_records(ShardIterator=iterator, Limit=1000)
            except Exception as exc:
                code = getattr(exc, "response", {}).get("Error", {}).get("Code", "")
                if code not in ("TrimmedDataAccessException", "ExpiredIteratorException"):
                    raise
                # DynamoDB Local refuses TRIM_HORIZON of a shard with no record yet, and
                # iterators expire: read the shard again from its start (the indexer appends
                # nothing twice)
                del self.iterators[sid]
                continue
            records = out.get("Records", [])
            if records:
                self.handle(records)  # raises: the iterator stays, the batch comes again
                handled += len(records)
            self.iterators[sid] = out.get("NextShardIterator")
        return handled

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                busy = self.poll_once()
            except Exception as exc:  # as Lambda: the batch comes again on the next pass
                self.failures += 1
                if self.failures <= 3 or self.failures % 100 == 0:
                    print(f"stream poller: {type(exc).__name__}: {exc}", file=sys.stderr)
                busy = 0
            if not busy:
                self.stop.wait(self.every)

    def start(self) -> threading.Event:
        threading.Thread(target=self.run, name="stream-poller", daemon=True).start()
        return self.stop

    def drain(self, timeout: float = 30.0) -> None:
        """Poll until a pass finds nothing (tests)."""
        deadline = time.monotonic() + timeout
        while self.poll_once() and time.monotonic() < deadline:
            pass


def state_stream_poller(handle: Callable[[Records], object], every: float = 0.2) -> StreamPoller:
    """A poller of this process's state table (``STATE_TABLE``, the DynamoDB endpoint of the
    environment)."""
    import os

    import boto3

    endpoint = os.environ.get("AWS_ENDPOINT_URL_DYNAMODB") or None
    dynamodb = boto3.client("dynamodb", endpoint_url=endpoint)
    streams = boto3.client("dynamodbstreams", endpoint_url=endpoint)
    return StreamPoller(dynamodb, streams, os.environ["STATE_TABLE"], handle, every=every)


def webhook_operators(dynamodb: Any) -> list[str]:
    """The operators with a webhook (``make run`` only: a Scan of the local state table; in AWS
    the feed indexer's messages name what to deliver)."""
    import os

    pages = dynamodb.get_paginator("scan").paginate(
        TableName=os.environ["STATE_TABLE"],
        FilterExpression="kind = :k",
        ExpressionAttributeValues={":k": {"S": "webhook"}},
        ProjectionExpression="operator_id",
    )
    return sorted({str(i["operator_id"]["S"]) for p in pages for i in p.get("Items", [])})
