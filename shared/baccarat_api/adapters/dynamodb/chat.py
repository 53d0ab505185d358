"""The chat's reads (:class:`~baccarat_api.ports.chat.ChatReads`) on DynamoDB: a post's state
in ONE ``BatchGetItem``, the last messages in ONE ``Query`` of the table's partition (newest
first; the key range starts at the oldest message not yet expired, so TTL's late deletion
shows nothing), a message or a person's chat state in ONE ``GetItem``. The chat's items are
written through the port's write lists (:mod:`.writes`)."""

from __future__ import annotations

from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import DynamoBase
from baccarat_api.adapters.dynamodb.codec import from_item
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.limits import CHAT_KEEP_SECONDS
from baccarat_api.ports.chat import ChatPostState, ChatReads
from baccarat_api.ports.chat_records import TABLE_WIDE, ChatMessage, ChatPerson, ChatWindow
from baccarat_api.ports.records import IdempotencyRecord, LiveRecord, TableRecord

#: The sort key just past every message's (``CHAT#`` + 13 digits + ``#`` + id < this).
_AFTER_MESSAGES = keys.CHAT_PREFIX + "9" * 13 + "$"
#: Messages read per page beyond the ones asked for (removed ones are skipped).
_SLACK = 8


class ChatStore(DynamoBase, ChatReads):
    def chat_post_state(
        self,
        operator_id: str,
        table_id: str,
        bettor_id: str,
        window: int,
        idem_key: str | None = None,
    ) -> ChatPostState:
        state = self.state
        wanted = {
            keys.table_key(operator_id, table_id): ("table", state),
            keys.live_key(operator_id, table_id): ("live", state),
            keys.chat_person_key(operator_id, table_id, bettor_id): ("person", state),
            keys.chat_window_key(operator_id, table_id, bettor_id, window): ("mine", state),
            keys.chat_window_key(operator_id, table_id, TABLE_WIDE, window): ("all", state),
            (keys.spectators_pk(operator_id, table_id), keys.SPEC_PREFIX + bettor_id): (
                "book",
                state,
            ),
            (keys.watchers_pk(operator_id, table_id), keys.WATCH_PREFIX + bettor_id): (
                "book",
                state,
            ),
        }
        if idem_key is not None:
            wanted[keys.idempotency_key(operator_id, idem_key)] = ("idem", state)
        out = ChatPostState()
        for slot, item in self._fetch(wanted):
            if slot == "table":
                out.table = from_item(TableRecord, item)
            elif slot == "live":
                out.live = from_item(LiveRecord, item)
            elif slot == "person":
                out.person = from_item(ChatPerson, item)
            elif slot == "mine":
                out.person_window = from_item(ChatWindow, item)
            elif slot == "all":
                out.table_window = from_item(ChatWindow, item)
            elif slot == "idem":
                out.idempotency = from_item(IdempotencyRecord, item)
            else:  # a book table's spectator or watcher, present (not marked gone)
                out.in_book = out.in_book or bool(item.get("present", {}).get("BOOL"))
        return out

    def chat_recent(
        self, operator_id: str, table_id: str, now_s: int, limit: int
    ) -> tuple[list[ChatMessage], bool]:
        pk = keys.table_pk(operator_id, table_id)
        # a message expires CHAT_KEEP_SECONDS after its second: the oldest kept is this one's
        first = keys.chat_sk((now_s - CHAT_KEEP_SECONDS + 1) * 1000)
        args: dict[str, Any] = {
            "TableName": self.state,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :first AND :last",
            "ExpressionAttributeValues": {
                ":pk": {"S": pk},
                ":first": {"S": first},
                ":last": {"S": _AFTER_MESSAGES},
            },
            "ScanIndexForward": False,
            "ConsistentRead": True,
            "Limit": limit + _SLACK,
        }
        newest: list[ChatMessage] = []
        with mapped_errors("chat messages"):
            while len(newest) < limit:
                page = self.client.query(**args)
                for item in page.get("Items", []):
                    message = from_item(ChatMessage, item)
                    if not message.removed and message.expires_at > now_s:
                        newest.append(message)
                if "LastEvaluatedKey" not in page:
                    break
                args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        if newest:
            return newest[:limit][::-1], True
        return [], self._get("get table", *keys.table_key(operator_id, table_id)) is not None

    def chat_message(self, operator_id: str, table_id: str, message_id: str) -> ChatMessage | None:
        item = self._get(
            "get chat message", *keys.chat_message_key(operator_id, table_id, message_id)
        )
        return None if item is None else from_item(ChatMessage, item)

    def chat_person(self, operator_id: str, table_id: str, bettor_id: str) -> ChatPerson | None:
        item = self._get("get chat person", *keys.chat_person_key(operator_id, table_id, bettor_id))
        return None if item is None else from_item(ChatPerson, item)
