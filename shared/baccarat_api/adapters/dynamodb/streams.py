"""The state table's DynamoDB Stream (NEW_IMAGE) as the operator feed's trigger: each new event
item (``kind`` = ``event``) names its table and seq — a hint for the indexer
(:func:`baccarat_api.service.feed.index`). The same records come from Lambda's event source
mapping (``FeedIndexerFunction``) and, locally, from ``GetRecords`` on DynamoDB Local's stream
(:mod:`baccarat_dev.streams`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from baccarat_api.adapters.dynamodb.codec import from_item
from baccarat_api.ports.records import EventRecord

#: The event source mapping's filter (template.yaml says the same; a test checks): new event
#: items only.
FILTER_PATTERN = '{"eventName": ["INSERT"], "dynamodb": {"NewImage": {"kind": {"S": ["event"]}}}}'


def event_hints(records: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, int]]:
    """(operator id, table id, seq) of every new event item among stream ``records``."""
    hints: list[tuple[str, str, int]] = []
    for record in records:
        if record.get("eventName") != "INSERT":
            continue
        image = (record.get("dynamodb") or {}).get("NewImage") or {}
        if image.get("kind", {}).get("S") != "event":
            continue
        event = from_item(EventRecord, dict(image))
        hints.append((event.operator_id, event.table_id, event.seq))
    return hints
