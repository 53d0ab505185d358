"""A table's chat items (docs/design/browsers.md §4): its messages, each person's chat state
(the mute) and the rate windows, all items of the table's own partition (re-exported by
:mod:`.records`, where every record kind is listed; the reads: :mod:`.chat`)."""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass

#: A message id: ``ch_`` + 16 base32 characters — the first 9 the message's time (epoch ms,
#: 45 bits), the last 7 random (35 bits). Like the other public ids it names its item's key
#: (the time is in the sort key) with no lookup, and ids sort as their messages do.
MESSAGE_ID_PATTERN = r"ch_[a-z2-7]{16}"
_MESSAGE_ID = re.compile(MESSAGE_ID_PATTERN)
#: The base32 characters in byte order: the time part of ids sorts as the times do.
_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"
#: Who a table-wide rate window counts (never a bettor id: ``*`` is not an id character).
TABLE_WIDE = "*"


def _base32(number: int, digits: int) -> str:
    return "".join(_ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(digits)))


def new_message_id(at_ms: int) -> str:
    """A new message id for a message posted at ``at_ms`` (epoch milliseconds)."""
    return "ch_" + _base32(at_ms, 9) + base64.b32encode(os.urandom(5)).decode().lower()[:7]


def message_ms(message_id: str) -> int | None:
    """The epoch milliseconds a message id names, or ``None`` (not a message id)."""
    if _MESSAGE_ID.fullmatch(message_id) is None:
        return None
    ms = 0
    for char in message_id[3:12]:
        ms = ms * 32 + _ALPHABET.index(char)
    return ms


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One chat line at a table (``sk = CHAT#<at ms, 13 digits>#<message_id>``). ``text`` is
    NFC, checked by ``service/text.py``; ``None`` once removed by moderation (``removed``).
    ``epoch``: the table's push epoch the poster read (the channel ``/tables/{t}/e{epoch}`` it
    is published on; ``None``: the first), as on event items."""

    operator_id: str
    table_id: str
    message_id: str
    bettor_id: str = ""
    text: str | None = None
    #: When it was posted (ISO 8601 UTC, milliseconds, as events' ``at``).
    at: str = ""
    #: Epoch seconds past which it is gone (the TTL attribute).
    expires_at: int = 0
    removed: bool = False
    epoch: int | None = None


@dataclass(frozen=True, slots=True)
class ChatPerson:
    """A person's chat state at a table (``sk = CHATWHO#<bettor_id>``): muted until
    ``muted_until`` (``None``: not muted), and the posts made. Every post updates it on
    condition that the person is not muted then, so a mute and a post are ordered."""

    operator_id: str
    table_id: str
    bettor_id: str
    muted_until: str | None = None
    posts: int = 0
    last_at: str | None = None
    #: The TTL: a day past the last post or the mute's end (nothing here outlives both).
    expires_at: int | None = None


@dataclass(frozen=True, slots=True)
class ChatWindow:
    """The posts of one person (or of the whole table: ``who`` = :data:`TABLE_WIDE`) in one
    rate window (``sk = CHATRATE#<who>#<window>``, window = epoch seconds //
    ``CHAT_WINDOW_SECONDS``): ``n``, added to on condition that it is below the cap."""

    operator_id: str
    table_id: str
    who: str
    window: int
    n: int = 0
    expires_at: int | None = None
