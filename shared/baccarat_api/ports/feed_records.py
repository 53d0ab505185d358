"""What the service stores of the operator feed and its webhook: one record type per item kind,
independent of DynamoDB (the game's records: :mod:`.records`, which lists these too)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

#: Shards of each operator's event feed: a table's events always in the same one.
FEED_SHARDS = 64


def feed_shard(table_id: str) -> int:
    """The operator feed's shard of a table's events (by its id; the same forever)."""
    return int(hashlib.sha256(table_id.encode()).hexdigest()[:8], 16) % FEED_SHARDS


@dataclass(frozen=True, slots=True)
class FeedHead:
    """The operator feed (:mod:`baccarat_api.service.feed`): shard ``shard`` of the
    operator's feed has entries at positions 1 … ``pos`` (gap-free: each append is conditional
    on the position it read)."""

    operator_id: str
    shard: int
    pos: int = 0


@dataclass(frozen=True, slots=True)
class FeedMark:
    """How far a table's events are in the operator feed: events 1 … ``seq`` are appended (in
    the table's shard; moved by each append, conditionally: an event is appended once)."""

    operator_id: str
    table_id: str
    seq: int = 0


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """Position ``pos`` of a feed shard: the table's events ``first`` … ``last`` (in order).
    Written once, by the append that moved the shard's head to ``pos``; never changed."""

    operator_id: str
    shard: int
    pos: int
    table_id: str = ""
    first: int = 0
    last: int = 0


@dataclass(frozen=True, slots=True)
class WebhookRecord:
    """The operator's webhook: where every feed event is POSTed, and the signing
    secret sealed under KMS (purpose ``webhook``; answered once, by the PUT that drew it)."""

    operator_id: str
    url: str = ""
    secret_ct: bytes = b""
    created_at: str = ""
    #: Set by ``DELETE /v1/webhook`` (nothing is ever deleted): no webhook from then on, until
    #: a PUT writes the item anew.
    removed_at: str | None = None


@dataclass(frozen=True, slots=True)
class DeliveryState:
    """How far the webhook delivered one feed shard: the feed cursor's position of the shard
    (``pos``, ``taken``), and while its next event keeps failing: the failed attempts, when the
    first failed (epoch ms) and when to try again (epoch ms). Moved conditionally on the
    position read (a concurrent delivery of the shard changes nothing twice)."""

    operator_id: str
    shard: int
    pos: int = 0
    taken: int = 0
    attempts: int = 0
    failing_since_ms: int = 0
    next_at_ms: int = 0


@dataclass(frozen=True, slots=True)
class WebhookFailure:
    """An event the webhook could not deliver for 24 h: parked (the shard's delivery went on),
    listed by ``GET /v1/webhook/failures``, delivered again by its retry route."""

    operator_id: str
    event_id: str
    table_id: str = ""
    seq: int = 0
    attempts: int = 0
    first_failed_at: str = ""
    parked_at: str = ""
    last_error: str = ""
    #: Set when a retry delivered it (nothing is ever deleted): no longer listed as parked.
    delivered_at: str | None = None
    #: Set while a retry POSTs it (its claim): a concurrent retry is refused, not POSTed twice.
    retrying_at: str | None = None
