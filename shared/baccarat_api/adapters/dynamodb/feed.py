"""The operator feed and the webhook delivery: feed heads, marks and entries, the events and
rounds they point at, the webhook, its delivery state and its parked failures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import DynamoBase
from baccarat_api.adapters.dynamodb.codec import from_item
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.ids import RoundRef
from baccarat_api.ports.records import (
    FEED_SHARDS,
    DeliveryState,
    EventRecord,
    FeedEntry,
    FeedHead,
    FeedMark,
    LiveRecord,
    RoundRecord,
    WebhookFailure,
    WebhookRecord,
)


class FeedReads(DynamoBase):
    """The feed's items and the webhook's."""

    def feed_state(
        self, operator_id: str, shard: int, table_ids: Sequence[str]
    ) -> tuple[FeedHead, dict[str, FeedMark], dict[str, int]]:
        """ONE strongly consistent ``BatchGetItem`` of the shard's ``HEAD``, the tables'
        ``MARK#`` items and their ``LIVE`` items."""
        wanted = {keys.feed_head_key(operator_id, shard): ("head", self.state)}
        for t in table_ids:
            wanted[keys.feed_mark_key(operator_id, t)] = ("mark", self.state)
            wanted[keys.live_key(operator_id, t)] = ("live", self.state)
        head, marks = FeedHead(operator_id, shard), {t: FeedMark(operator_id, t) for t in table_ids}
        lives = dict.fromkeys(table_ids, 0)
        for slot, item in self._fetch(wanted):
            if slot == "head":
                head = from_item(FeedHead, item)
            elif slot == "mark":
                mark = from_item(FeedMark, item)
                marks[mark.table_id] = mark
            else:
                live = from_item(LiveRecord, item)
                lives[live.table_id] = live.seq
        return head, marks, lives

    def feed_heads(self, operator_id: str) -> list[int]:
        """ONE strongly consistent ``BatchGetItem`` of every shard's ``HEAD``."""
        wanted = {
            keys.feed_head_key(operator_id, k): ("head", self.state) for k in range(FEED_SHARDS)
        }
        heads = [0] * FEED_SHARDS
        for _, item in self._fetch(wanted):
            head = from_item(FeedHead, item)
            heads[head.shard] = head.pos
        return heads

    def feed_entries(self, operator_id: str, shard: int, after: int, limit: int) -> list[FeedEntry]:
        """ONE strongly consistent ``Query`` of ``POS#<after + 1>`` … (``Limit``: ``limit``)."""
        pk, first = keys.feed_entry_key(operator_id, shard, after + 1)
        page = self._between("feed entries", pk, first, keys.feed_pos_sk(10**12 - 1), limit)
        return [from_item(FeedEntry, item) for item in page.get("Items", [])]

    def events_at(self, operator_id: str, ids: Sequence[tuple[str, int]]) -> list[EventRecord]:
        if not ids:
            return []
        wanted = {keys.event_key(operator_id, t, n): ("event", self.state) for t, n in ids}
        return [from_item(EventRecord, item) for _, item in self._fetch(wanted)]

    def rounds_at(self, operator_id: str, refs: Sequence[RoundRef]) -> list[RoundRecord]:
        if not refs:
            return []
        wanted = {
            keys.round_key(operator_id, r.table_id, r.shoe_number, r.round_number): (
                "round",
                self.state,
            )
            for r in refs
        }
        return [from_item(RoundRecord, item) for _, item in self._fetch(wanted)]

    def get_webhook(self, operator_id: str, *, removed: bool = False) -> WebhookRecord | None:
        item = self._get("webhook", *keys.webhook_key(operator_id))
        hook = None if item is None else from_item(WebhookRecord, item)
        return None if hook is None or (hook.removed_at is not None and not removed) else hook

    def delivery_state(self, operator_id: str, shard: int) -> DeliveryState:
        item = self._get("delivery", *keys.delivery_key(operator_id, shard))
        return DeliveryState(operator_id, shard) if item is None else from_item(DeliveryState, item)

    def webhook_failures(self, operator_id: str, limit: int) -> list[WebhookFailure]:
        """The first ``limit`` failures still parked, by event id. A Query's ``Limit`` counts
        the items read BEFORE its filter (replayed failures stay, with ``delivered_at``), so
        pages are read on (each up to 1 MB: thousands of failures) until ``limit`` are found."""
        args: dict[str, Any] = {
            "TableName": self.state,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :fail)",
            "FilterExpression": "attribute_not_exists(delivered_at)",
            "ExpressionAttributeValues": {
                ":pk": {"S": keys.webhook_pk(operator_id)},
                ":fail": {"S": keys.FAILURE_PREFIX},
            },
            "ConsistentRead": True,
        }
        found: list[WebhookFailure] = []
        with mapped_errors("webhook failures"):
            while len(found) < limit:
                page = self.client.query(**args)
                found += [from_item(WebhookFailure, item) for item in page.get("Items", [])]
                if "LastEvaluatedKey" not in page:
                    break
                args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return found[:limit]

    def get_webhook_failure(self, operator_id: str, event_id: str) -> WebhookFailure | None:
        item = self._get("webhook failure", *keys.failure_key(operator_id, event_id))
        return None if item is None else from_item(WebhookFailure, item)
