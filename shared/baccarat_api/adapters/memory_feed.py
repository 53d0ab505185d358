"""The feed's and the webhook's reads of :class:`~baccarat_api.adapters.memory.MemoryRepository`,
as mixins over its items, call counter and lock (each call counted as the DynamoDB round trip
the adapter would make)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence

from baccarat_api.ids import RoundRef
from baccarat_api.ports.records import (
    FEED_SHARDS,
    DeliveryState,
    EventRecord,
    FeedEntry,
    FeedHead,
    FeedMark,
    LiveRecord,
    Record,
    RoundRecord,
    WebhookFailure,
    WebhookRecord,
)
from baccarat_api.ports.writes import Key


class FeedReads:
    """The feed's reads of the in-memory store: shard heads, entries, the events and rounds
    they point at."""

    items: dict[Key, Record]
    calls: Counter[str]
    _lock: threading.RLock

    def feed_state(
        self, operator_id: str, shard: int, table_ids: Sequence[str]
    ) -> tuple[FeedHead, dict[str, FeedMark], dict[str, int]]:
        self.calls["batch_get"] += 1
        with self._lock:
            head = self.items.get((FeedHead, (operator_id, shard)))
            marks = {t: self.items.get((FeedMark, (operator_id, t))) for t in table_ids}
            lives = {t: self.items.get((LiveRecord, (operator_id, t))) for t in table_ids}
        return (
            head if isinstance(head, FeedHead) else FeedHead(operator_id, shard),
            {
                t: m if isinstance(m, FeedMark) else FeedMark(operator_id, t)
                for t, m in marks.items()
            },
            {t: live.seq if isinstance(live, LiveRecord) else 0 for t, live in lives.items()},
        )

    def feed_heads(self, operator_id: str) -> list[int]:
        self.calls["batch_get"] += 1
        with self._lock:
            heads = [self.items.get((FeedHead, (operator_id, k))) for k in range(FEED_SHARDS)]
        return [h.pos if isinstance(h, FeedHead) else 0 for h in heads]

    def feed_entries(self, operator_id: str, shard: int, after: int, limit: int) -> list[FeedEntry]:
        self.calls["query"] += 1
        with self._lock:
            found = [
                r
                for (k, _), r in self.items.items()
                if k is FeedEntry
                and isinstance(r, FeedEntry)
                and (r.operator_id, r.shard) == (operator_id, shard)
                and r.pos > after
            ]
        return sorted(found, key=lambda e: e.pos)[:limit]

    def events_at(self, operator_id: str, ids: Sequence[tuple[str, int]]) -> list[EventRecord]:
        self.calls["batch_get"] += 1
        with self._lock:
            found = [self.items.get((EventRecord, (operator_id, t, n))) for t, n in ids]
        return [e for e in found if isinstance(e, EventRecord)]

    def rounds_at(self, operator_id: str, refs: Sequence[RoundRef]) -> list[RoundRecord]:
        self.calls["batch_get"] += 1
        with self._lock:
            found = [
                self.items.get(
                    (RoundRecord, (operator_id, r.table_id, r.shoe_number, r.round_number))
                )
                for r in refs
            ]
        return [r for r in found if isinstance(r, RoundRecord)]


class WebhookReads:
    """The webhook's reads of the in-memory store: the subscription, delivery state, failures."""

    items: dict[Key, Record]
    calls: Counter[str]
    _lock: threading.RLock

    def get_webhook(self, operator_id: str, *, removed: bool = False) -> WebhookRecord | None:
        self.calls["get"] += 1
        found = self.items.get((WebhookRecord, (operator_id,)))
        live = isinstance(found, WebhookRecord) and (removed or found.removed_at is None)
        return found if live else None  # type: ignore[return-value]

    def delivery_state(self, operator_id: str, shard: int) -> DeliveryState:
        self.calls["get"] += 1
        found = self.items.get((DeliveryState, (operator_id, shard)))
        return found if isinstance(found, DeliveryState) else DeliveryState(operator_id, shard)

    def webhook_failures(self, operator_id: str, limit: int) -> list[WebhookFailure]:
        self.calls["query"] += 1
        with self._lock:
            found = [
                r
                for r in self.items.values()
                if isinstance(r, WebhookFailure)
                and r.operator_id == operator_id
                and r.delivered_at is None
            ]
        return sorted(found, key=lambda f: f.event_id)[:limit]

    def get_webhook_failure(self, operator_id: str, event_id: str) -> WebhookFailure | None:
        self.calls["get"] += 1
        found = self.items.get((WebhookFailure, (operator_id, event_id)))
        return found if isinstance(found, WebhookFailure) else None
