"""A table's chat (聊天視窗, seed 000 item 10): a post, a message as every route and the push
show it, a page of the last messages, a mute."""

from __future__ import annotations

from pydantic import Field, StrictInt

from baccarat_api.limits import CHAT_MAX_BYTES, CHAT_MAX_CHARS, MAX_MUTE_SECONDS
from baccarat_api.service.models.common import BettorId, Strict


class ChatIn(Strict):
    text: str = Field(
        description=f"one line of plain text: at most {CHAT_MAX_CHARS} code points and "
        f"{CHAT_MAX_BYTES} UTF-8 bytes after NFC normalisation (422 chat_text_too_long); no "
        "control, format (bidi), private-use, unassigned or separator characters and no run "
        "of more than 4 combining marks (422 chat_text_invalid). Markup is plain text: shown "
        "as typed, never as HTML"
    )
    bettor_id: BettorId | None = Field(
        default=None,
        description="the author — required with the operator key; with a player token the "
        "token's person (if given, it must be them: 403 token_person_mismatch)",
    )


class ChatOut(Strict):
    """A chat message, as ``GET …/chat`` and the push channel show it."""

    message_id: str = Field(description="ch_ + 16 base32 characters")
    bettor_id: str
    text: str = Field(description="NFC, as accepted")
    at: str = Field(description="when it was posted (ISO 8601 UTC, milliseconds)")


class ChatPageOut(Strict):
    messages: list[ChatOut] = Field(
        description="the newest messages, oldest first (expired and removed ones skipped)"
    )


class MuteIn(Strict):
    seconds: StrictInt = Field(ge=1, le=MAX_MUTE_SECONDS, description="how long the mute lasts")


class MuteOut(Strict):
    bettor_id: str
    until: str = Field(description="the mute's end (ISO 8601 UTC, milliseconds)")
