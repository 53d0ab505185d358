"""A table's chat as stored (docs/design/browsers.md §4): its messages, each person's chat state
(the mute) and the rate windows, all items of the table's own partition; and the reads the chat
needs (:class:`ChatReads`, one round trip each).

Chat items are not table events: no ``seq``, never in ``GET …/events``, the operator feed,
webhooks, settlements or proofs. A message is kept :data:`~baccarat_api.limits.CHAT_KEEP_SECONDS`
(``expires_at``: the state table's TTL — DynamoDB's own deletion, late by up to days, so every
read skips what has expired); moderation never deletes it: the text is dropped and the message
marked ``removed``, which every read skips too."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from baccarat_api.ports.chat_records import ChatMessage, ChatPerson, ChatWindow
from baccarat_api.ports.records import IdempotencyRecord, LiveRecord, TableRecord


@dataclass(slots=True)
class ChatPostState:
    """What a post reads, in one round trip: the table, its live state, the key's idempotency
    record, the poster's chat state and rate windows, and whether the poster is a spectator or
    a watcher in a book table's store (``bet_behind: book``)."""

    table: TableRecord | None = None
    live: LiveRecord | None = None
    idempotency: IdempotencyRecord | None = None
    person: ChatPerson | None = None
    person_window: ChatWindow | None = None
    table_window: ChatWindow | None = None
    in_book: bool = False


class ChatReads(ABC):
    """The chat's reads of the repository."""

    @abstractmethod
    def chat_post_state(
        self,
        operator_id: str,
        table_id: str,
        bettor_id: str,
        window: int,
        idem_key: str | None = None,
    ) -> ChatPostState:
        """What a post of ``bettor_id`` in rate window ``window`` reads: ONE strongly
        consistent batched read."""

    @abstractmethod
    def chat_recent(
        self, operator_id: str, table_id: str, now_s: int, limit: int
    ) -> tuple[list[ChatMessage], bool]:
        """The table's newest messages neither expired (``expires_at`` > ``now_s``) nor
        removed, at most ``limit``, oldest first; and whether the table exists. One strongly
        consistent ``Query`` (newest first; another page only when removed ones filled it),
        plus a ``GetItem`` of the table when none is found."""

    @abstractmethod
    def chat_message(self, operator_id: str, table_id: str, message_id: str) -> ChatMessage | None:
        """One message, by its id (which names its key): one ``GetItem``."""

    @abstractmethod
    def chat_person(self, operator_id: str, table_id: str, bettor_id: str) -> ChatPerson | None:
        """A person's chat state: one ``GetItem``."""
