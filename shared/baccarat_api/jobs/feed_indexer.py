"""The operator feed's indexer: the state table's stream records → the feed
(:func:`baccarat_api.service.feed.index`). ``FeedIndexerFunction`` in AWS; ``make run`` runs
:func:`on_records` over DynamoDB Local's stream (:mod:`baccarat_dev.streams`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from baccarat_api.adapters.dynamodb.streams import event_hints
from baccarat_api.jobs.delivery import wake
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.webhooks import Wakeup
from baccarat_api.service import feed


def on_records(
    repo: Repository, records: Iterable[Mapping[str, Any]], wakeup: Wakeup | None = None
) -> int:
    """Append the events the stream ``records`` report (and any before them not yet appended),
    then wake the webhook delivery of each shard appended to; returns how many were appended.
    Raises on a storage failure: the batch is retried, and a retried batch appends nothing
    twice."""
    touched: set[tuple[str, int]] = set()
    appended = feed.index(repo, event_hints(records), touched)
    if wakeup is not None:
        wake(wakeup, touched)
    return appended


def lambda_handler() -> Any:
    """``FeedIndexerFunction``'s handler, built at cold start."""
    from baccarat_api.observability import logger, tracer
    from baccarat_api.runtime import get_runtime

    get_runtime()

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler
    def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
        rt = get_runtime()
        appended = on_records(rt.repo, event.get("Records", []), rt.wakeup)
        logger.info("feed indexed", extra={"appended": appended})
        return {"appended": appended}

    return handler
