"""The push job: the state table's stream records → the tables' push channels
(docs/design/browsers.md §2). ``PushFunction`` in AWS (publishing to AppSync Events,
``adapters/appsync_push.py``); ``make run`` runs :func:`on_records` over DynamoDB Local's stream
into its in-process hub (``baccarat_dev/push_local.py``).

It keeps no state: each new event item (``EV#``) and chat item (``CHAT#``) carries the push
epoch its writer read, so it names its channel. Per channel and batch, in stream order: the
events in ONE ``events`` message (split only past the message size), then one ``chat`` message
per chat line, then — after a ``push_rotated`` event — the ``rotate`` message, the channel's
last. Delivery is at-least-once: a failed batch is retried whole (subscribers drop a ``seq``
they have)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from baccarat_api.adapters.dynamodb.codec import from_item
from baccarat_api.adapters.dynamodb.keys import EVENT_PREFIX
from baccarat_api.limits import (
    PUSH_FIRST_EPOCH,
    PUSH_MAX_MESSAGE_BYTES,
    PUSH_PUBLISH_CONCURRENCY,
)
from baccarat_api.ports.push import Publisher
from baccarat_api.ports.records import EventRecord
from baccarat_api.service.models import EventOut
from baccarat_api.service.models.push import PushChat, PushChatLine, PushEvents, PushRotate
from baccarat_api.service.push import channel

#: The chat items' sort-key prefix (``CHAT#<at ms>#<message_id>``; docs/storage.md).
CHAT_PREFIX = "CHAT#"

#: The event source mapping's filter (template.yaml says the same; a test checks): new event
#: and chat items only.
FILTER_PATTERN = (
    '{"eventName": ["INSERT"], "dynamodb": {"NewImage": {"sk": {"S": '
    f'[{{"prefix": "{EVENT_PREFIX}"}}, {{"prefix": "{CHAT_PREFIX}"}}]}}}}}}}}'
)


@dataclass
class _Channel:
    """What one batch publishes to one channel."""

    table_id: str
    events: dict[int, EventOut] = field(default_factory=dict)
    chat: list[PushChatLine] = field(default_factory=list)
    rotations: list[int] = field(default_factory=list)


def _epoch(image: Mapping[str, Any]) -> int:
    value = (image.get("epoch") or {}).get("N")
    return PUSH_FIRST_EPOCH if value is None else int(value)


def _text(image: Mapping[str, Any], name: str) -> str:
    return str(image[name]["S"])


def _new_images(records: Iterable[Mapping[str, Any]]) -> Iterable[Mapping[str, Any]]:
    for record in records:
        if record.get("eventName") == "INSERT":
            image = (record.get("dynamodb") or {}).get("NewImage")
            if image:
                yield image


def collect(records: Iterable[Mapping[str, Any]]) -> dict[str, _Channel]:
    """Channel → what the batch ``records`` publish there (channels in stream order)."""
    out: dict[str, _Channel] = {}
    for image in _new_images(records):
        sk = _text(image, "sk") if "sk" in image else ""
        if sk.startswith(EVENT_PREFIX):
            e = from_item(EventRecord, dict(image))
            at = out.setdefault(channel(e.table_id, _epoch(image)), _Channel(e.table_id))
            at.events[e.seq] = EventOut(
                event_id=e.event_id, seq=e.seq, type=e.type, at=e.at, data=e.data
            )
            if e.type == "push_rotated":
                at.rotations.append(int(e.data["epoch"]))
        elif sk.startswith(CHAT_PREFIX):
            table_id = _text(image, "table_id")
            at = out.setdefault(channel(table_id, _epoch(image)), _Channel(table_id))
            at.chat.append(
                PushChatLine(
                    message_id=_text(image, "message_id"),
                    bettor_id=_text(image, "bettor_id"),
                    text=_text(image, "text"),
                    at=_text(image, "at"),
                )
            )
    return out


def events_messages(table_id: str, events: list[EventOut]) -> list[str]:
    """The ``events`` messages of ``events`` (in order): one, or as few as stay within
    :data:`PUSH_MAX_MESSAGE_BYTES` each (an event is never split)."""
    empty = len(PushEvents(type="events", table_id=table_id, events=[]).model_dump_json())
    groups: list[list[EventOut]] = []
    size = 0
    for e in events:
        grown = len(e.model_dump_json().encode()) + 1
        if not groups or size + grown > PUSH_MAX_MESSAGE_BYTES:
            groups.append([])
            size = empty
        groups[-1].append(e)
        size += grown
    return [
        PushEvents(type="events", table_id=table_id, events=group).model_dump_json()
        for group in groups
    ]


def messages_of(at: _Channel) -> list[str]:
    """The messages of one channel's part of a batch, in the order they are published."""
    events = [at.events[seq] for seq in sorted(at.events)]
    out = events_messages(at.table_id, events) if events else []
    out += [
        PushChat(type="chat", table_id=at.table_id, message=line).model_dump_json()
        for line in at.chat
    ]
    out += [
        PushRotate(
            type="rotate", table_id=at.table_id, channel=channel(at.table_id, epoch)
        ).model_dump_json()
        for epoch in at.rotations
    ]
    return out


def on_records(records: Iterable[Mapping[str, Any]], publisher: Publisher) -> int:
    """Publish what the stream ``records`` report to each table's channel; returns how many
    messages were published. The channels are published at once (up to
    :data:`PUSH_PUBLISH_CONCURRENCY`: a shard's batch holds many tables, and one HTTPS publish
    each in a row would make the last table wait for all the others), each channel's messages
    in order by one call. Raises when a publish fails, once the others are done: the batch is
    retried whole."""
    plan = [(name, messages_of(at)) for name, at in collect(records).items()]
    if len(plan) <= 1:
        for name, messages in plan:
            publisher.publish(name, messages)
    else:
        with ThreadPoolExecutor(min(PUSH_PUBLISH_CONCURRENCY, len(plan))) as pool:
            done = [pool.submit(publisher.publish, name, messages) for name, messages in plan]
            for future in done:
                future.result()
    return sum(len(messages) for _, messages in plan)


class Unconfigured:
    """No Event API (``sam local``: ``PUSH_PUBLISH_URL`` empty): messages are counted, not
    sent. template.yaml always gives the deployed function the endpoint (a test checks)."""

    def publish(self, channel: str, messages: Sequence[str]) -> None:
        return None


def lambda_handler() -> Any:
    """``PushFunction``'s handler, built at cold start: publishes with SigV4 to the Event API's
    HTTP endpoint (``PUSH_PUBLISH_URL``)."""
    from baccarat_api.adapters.appsync_push import AppSyncPublisher
    from baccarat_api.observability import logger, tracer
    from baccarat_api.settings import Settings

    url = Settings.from_env().push_publish_url
    publisher: Publisher = AppSyncPublisher(url) if url else Unconfigured()

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler
    def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
        published = on_records(event.get("Records", []), publisher)
        logger.info("pushed", extra={"messages": published})
        return {"published": published}

    return handler
