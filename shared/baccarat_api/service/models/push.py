"""The push channel's messages (docs/api.md "Push"): what a subscriber of
``/tables/{table_id}/e{epoch}`` receives, one AppSync event (a JSON string) each — the table's
events of one stream batch, a chat line, or the channel's last message after a rotation."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from baccarat_api.service.models.common import Strict
from baccarat_api.service.models.live import EventOut


class PushChatLine(Strict):
    """A chat message as ``GET …/chat`` answers it (``ChatOut``'s fields)."""

    message_id: str = Field(description="`ch_` + 16 base32 characters")
    bettor_id: str
    text: str
    at: str = Field(description="when it was posted (ISO 8601 UTC, milliseconds)")


class PushEvents(Strict):
    """The table's events of one stream batch, in ``seq`` order (as ``GET …/events`` answers
    them); a gap in ``seq`` means a lost message: read ``GET …/events?after=``."""

    type: Literal["events"]
    table_id: str
    events: list[EventOut]


class PushChat(Strict):
    """One chat line posted at the table (best-effort: chat has no ``seq``)."""

    type: Literal["chat"]
    table_id: str
    message: PushChatLine


class PushRotate(Strict):
    """The channel's last message: subscribe to ``channel`` (a token was revoked)."""

    type: Literal["rotate"]
    table_id: str
    channel: str = Field(description="the table's new channel, `/tables/{table_id}/e{n+1}`")


#: One message of a table's push channel, tagged by ``type``.
PushMessage = Annotated[PushEvents | PushChat | PushRotate, Field(discriminator="type")]

#: Validates (and parses) one received message.
PUSH_MESSAGE: TypeAdapter[PushEvents | PushChat | PushRotate] = TypeAdapter(PushMessage)
