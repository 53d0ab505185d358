"""Chat items as DynamoDB stores them: the agreed message item (the push reads its stream
image), keys outside the table events' and the shoes' ranges, the feed indexer blind to them,
and the writes a post and a removal send (conditions, a mark — never a deletion)."""

from __future__ import annotations

import json
from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.codec import to_item
from baccarat_api.adapters.dynamodb.streams import FILTER_PATTERN, event_hints
from baccarat_api.adapters.dynamodb.writes import WriteRequests
from baccarat_api.clock import ms_of
from baccarat_api.ports.chat_records import (
    ChatMessage,
    ChatPerson,
    ChatWindow,
    message_ms,
    new_message_id,
)
from baccarat_api.ports.records import EventRecord
from baccarat_api.ports.writes import Update
from baccarat_api.service.chat import post_writes

T = "tbl_aaaaaaaaaaaaaaaa"
AT = "2026-12-05T12:00:01.234Z"


def message() -> ChatMessage:
    return ChatMessage(
        "op", T, new_message_id(ms_of(AT)), bettor_id="alice", text="hi", at=AT,
        expires_at=ms_of(AT) // 1000 + 86_400,
    )  # fmt: skip


def test_message_ids_name_their_time_and_sort_as_it() -> None:
    times = [0, 1, 31, 32, 1_700_000_000_000, ms_of(AT), 2**45 - 1]
    ids = [new_message_id(t) for t in times]
    assert [message_ms(i) for i in ids] == times
    assert sorted(ids) == ids
    assert len({new_message_id(5) for _ in range(200)}) == 200  # random tails
    assert message_ms("ch_short") is None and message_ms("tbl_aaaaaaaaaaaaaaaa") is None


def test_the_message_item_is_the_agreed_one() -> None:
    m = message()
    item = to_item(m)
    assert item["pk"] == {"S": keys.table_pk("op", T)}
    assert item["sk"] == {"S": f"CHAT#{ms_of(AT):013d}#{m.message_id}"}
    assert item["kind"] == {"S": "chat"}
    for name in ("message_id", "table_id", "bettor_id", "text", "at"):
        assert item[name] == {"S": getattr(m, name)}
    assert item["expires_at"] == {"N": str(m.expires_at)}  # the table's TTL attribute


def test_chat_keys_are_outside_the_events_and_shoes_ranges() -> None:
    sks = [
        to_item(message())["sk"]["S"],
        to_item(ChatPerson("op", T, "alice"))["sk"]["S"],
        to_item(ChatWindow("op", T, "*", 7))["sk"]["S"],
    ]
    for sk in sks:
        assert not keys.event_sk(0) <= sk <= keys.LIVE_SK  # GET …/events reads that range
        assert not sk.startswith("SHOE#")  # a shoe's history reads that prefix
    assert sks[0].startswith(keys.CHAT_PREFIX)
    assert not any(sk.startswith(keys.CHAT_PREFIX) for sk in sks[1:])  # only messages


def _insert(item: dict[str, Any]) -> dict[str, Any]:
    return {"eventName": "INSERT", "dynamodb": {"NewImage": item}}


def test_the_feed_indexer_takes_event_items_only_never_chat() -> None:
    chat_items = [
        to_item(message()),
        to_item(ChatPerson("op", T, "alice", posts=1)),
        to_item(ChatWindow("op", T, "alice", 7, n=1)),
    ]
    event = to_item(EventRecord("op", T, 5, "chat_muted", AT, {"bettor_id": "a", "until": AT}))
    assert event_hints([_insert(i) for i in chat_items]) == []
    assert event_hints([_insert(i) for i in [*chat_items, event]]) == [("op", T, 5)]
    # the event source mapping's filter (template.yaml) lets only event items through
    wanted = json.loads(FILTER_PATTERN)["dynamodb"]["NewImage"]["kind"]["S"]
    assert wanted == ["event"] and all(i["kind"]["S"] not in wanted for i in chat_items)


class _Requests(WriteRequests):
    def __init__(self) -> None:
        self.state = "state"


def test_a_posts_conditions_are_the_caps_and_the_mute() -> None:
    m = message()
    window = ms_of(AT) // 10_000
    put, person, mine, table = (_Requests()._requests(w)[0] for w in post_writes(m, window))
    assert put["Put"]["ConditionExpression"] == "attribute_not_exists(pk)"
    for request, cap in ((mine, 3), (table, 10)):
        update = request["Update"]
        values = update["ExpressionAttributeValues"]
        assert "ADD" in update["UpdateExpression"]
        assert "attribute_not_exists(#a" in update["ConditionExpression"]
        assert {"N": str(cap)} in values.values()
    muted = person["Update"]
    assert " < :" in muted["ConditionExpression"]
    assert {"S": AT} in muted["ExpressionAttributeValues"].values()


def test_a_removal_is_an_update_that_drops_the_text() -> None:
    m = message()
    mark = Update(
        ChatMessage, ("op", T, m.message_id), set={"removed": True}, remove=("text",),
        expect={"removed": False},
    )  # fmt: skip
    (request,) = _Requests()._requests(mark)
    assert set(request) == {"Update"}
    update = request["Update"]
    assert "REMOVE" in update["UpdateExpression"]
    assert "text" in update["ExpressionAttributeNames"].values()
    assert update["Key"]["sk"] == to_item(m)["sk"]
