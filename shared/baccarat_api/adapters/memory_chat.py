"""The chat's reads of :class:`~baccarat_api.adapters.memory.MemoryRepository`
(:class:`~baccarat_api.ports.chat.ChatReads`), as a mixin over its items, call counter and lock
(each call counted as the DynamoDB round trip the adapter would make). Nothing here expires by
itself: the reads skip expired messages as the DynamoDB adapter does before TTL has run."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from baccarat_api.ports.book import BookStore
from baccarat_api.ports.chat import ChatPostState, ChatReads
from baccarat_api.ports.chat_records import TABLE_WIDE, ChatMessage, ChatPerson, ChatWindow
from baccarat_api.ports.records import (
    IdempotencyRecord,
    LiveRecord,
    Record,
    TableRecord,
)
from baccarat_api.ports.writes import Key


class MemoryChatReads(ChatReads):
    items: dict[Key, Record]
    calls: Counter[str]
    book: BookStore
    _lock: threading.RLock

    def _item(self, kind: type, *ident: Any) -> Any:
        return self.items.get((kind, ident))

    def chat_post_state(
        self,
        operator_id: str,
        table_id: str,
        bettor_id: str,
        window: int,
        idem_key: str | None = None,
    ) -> ChatPostState:
        self.calls["batch_get"] += 1
        with self._lock:
            in_book = (
                self.book.get_spectator(operator_id, table_id, bettor_id) is not None
                or self.book.get_watcher(operator_id, table_id, bettor_id) is not None
            )
            idem = (
                None if idem_key is None else self._item(IdempotencyRecord, operator_id, idem_key)
            )
            return ChatPostState(
                table=self._item(TableRecord, operator_id, table_id),
                live=self._item(LiveRecord, operator_id, table_id),
                idempotency=idem,
                person=self._item(ChatPerson, operator_id, table_id, bettor_id),
                person_window=self._item(ChatWindow, operator_id, table_id, bettor_id, window),
                table_window=self._item(ChatWindow, operator_id, table_id, TABLE_WIDE, window),
                in_book=in_book,
            )

    def chat_recent(
        self, operator_id: str, table_id: str, now_s: int, limit: int
    ) -> tuple[list[ChatMessage], bool]:
        self.calls["query"] += 1
        with self._lock:
            kept = sorted(
                (
                    m
                    for m in self.items.values()
                    if isinstance(m, ChatMessage)
                    and (m.operator_id, m.table_id) == (operator_id, table_id)
                    and m.expires_at > now_s
                    and not m.removed
                ),
                key=lambda m: m.message_id,
            )
            if kept:
                return kept[-limit:], True
        self.calls["get"] += 1
        return [], self._item(TableRecord, operator_id, table_id) is not None

    def chat_message(self, operator_id: str, table_id: str, message_id: str) -> ChatMessage | None:
        self.calls["get"] += 1
        with self._lock:
            found: ChatMessage | None = self._item(ChatMessage, operator_id, table_id, message_id)
            return found

    def chat_person(self, operator_id: str, table_id: str, bettor_id: str) -> ChatPerson | None:
        self.calls["get"] += 1
        with self._lock:
            found: ChatPerson | None = self._item(ChatPerson, operator_id, table_id, bettor_id)
            return found
