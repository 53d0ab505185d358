"""The operator feed and its webhooks."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from baccarat_api.service.models.common import Strict
from baccarat_api.service.models.settlements import SettlementOut


class FeedEventOut(Strict):
    event_id: str = Field(description="<table_id>:<seq>: unique across the operator, stable")
    table_id: str
    seq: int = Field(description="the table's event number: 1, 2, 3 … gap-free")
    type: str = Field(description="what happened (docs/api.md lists every type and its data)")
    at: str = Field(description="when (ISO 8601 UTC, milliseconds)")
    data: dict[str, Any]
    settlement: SettlementOut | None = Field(
        default=None,
        description=(
            "round_settled, round_auto_settled, round_voided: the round's full money, as "
            "the settlement (or void) route answers it; null for other events"
        ),
    )


class FeedPageOut(Strict):
    events: list[FeedEventOut] = Field(
        description="each table's events in their order; tables interleaved by feed shard"
    )
    next_after: str = Field(description="pass as `after` for the next page (opaque)")
    more: bool = Field(description="more events follow this page right now")


class WebhookRequest(Strict):
    url: Annotated[
        str,
        Field(
            min_length=8,
            max_length=2048,
            # a host name or IPv4 address and an optional port: what every URL parser reads
            # the same way (no userinfo, no bracketed IPv6 literal)
            pattern=r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?#][^\s]*)?$",
            description="where every feed event is POSTed (https in production): a host name "
            "or IPv4 address, an optional port",
        ),
    ]


class WebhookOut(Strict):
    url: str
    created_at: str = Field(description="when the URL and its secret were set")


class WebhookSecretOut(WebhookOut):
    secret: str = Field(
        description=(
            "the signing secret, shown only in this answer: HMAC-SHA256 key = its UTF-8 bytes"
        )
    )


class WebhookFailureOut(Strict):
    event_id: str
    table_id: str
    seq: int
    attempts: int = Field(description="deliveries tried (each with exponential backoff)")
    first_failed_at: str
    parked_at: str = Field(description="when its 24 h of retries ended and it was parked")
    last_error: str = Field(description="the last answer: `HTTP <status>`, or why none came")


class WebhookFailuresOut(Strict):
    failures: list[WebhookFailureOut] = Field(description="parked deliveries, by event id")


class WebhookRetryOut(Strict):
    event_id: str
    delivered: bool = Field(description="true: a 2xx came back and the failure is gone")
    status: int | None = Field(description="the receiver's HTTP status (null: no answer)")
    error: str
