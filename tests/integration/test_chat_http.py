"""The chat over HTTP (real API Gateway v2 events through each route's Lambda handler, moto
behind): a post answered 201 as read back, refusals with their status and code (429 with
``Retry-After``), moderation answered and reported, a removed message still stored — marked,
its text gone — and every chat item under the TTL attribute."""

from __future__ import annotations

from typing import Any

import pytest
from support.clock import service_clock
from support.roundtrips import count_calls, measure
from support.stack import Api, Stack, new_table

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.limits import CHAT_KEEP_SECONDS, CHAT_PER_PERSON, CHAT_WINDOW_SECONDS

HOSTILE = "<img src=x onerror=alert(1)>"


def chat_items(stack: Stack, table_id: str) -> list[dict[str, Any]]:
    items = stack.dynamodb.query(
        TableName=stack.repo.state,
        KeyConditionExpression="pk = :pk AND begins_with(sk, :chat)",
        ExpressionAttributeValues={
            ":pk": {"S": keys.table_pk("operator-a", table_id)},
            ":chat": {"S": "CHAT"},
        },
    )["Items"]
    return list(items)


def test_post_read_moderate_over_http(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = service_clock(monkeypatch)
    clock.set("2026-12-05T12:00:00.000Z")
    t = new_table(api)
    seat = api.call("PUT", f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    assert seat.status == 200
    assert api.call("PUT", f"/v1/tables/{t}/watchers/wes").status == 200

    posted = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "alice", "text": HOSTILE})
    assert posted.status == 201 and posted.function == "ShuffleCommitFunction", posted.body
    assert set(posted.body) == {"message_id", "bettor_id", "text", "at"}
    assert posted.body["text"] == HOSTILE and posted.body["bettor_id"] == "alice"
    read = api.get(f"/v1/tables/{t}/chat", query="limit=10")
    assert read.status == 200 and read.function == "ReadFunction"
    assert read.body == {"messages": [posted.body]}

    for text, code in (("a\u202eb", "chat_text_invalid"), ("x" * 201, "chat_text_too_long")):
        refused = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "alice", "text": text})
        assert (refused.status, refused.error["code"]) == (422, code)
    stranger = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "nobody", "text": "hi"})
    assert (stranger.status, stranger.error["code"]) == (409, "not_at_table")
    anonymous = api.post(f"/v1/tables/{t}/chat", {"text": "hi"})
    assert (anonymous.status, anonymous.error["code"]) == (409, "not_at_table")

    clock.advance(10)  # a fresh rate window: alice has posted once in it
    for n in range(CHAT_PER_PERSON):
        r = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "alice", "text": f"{n}"})
        assert r.status == 201, r.body
    clock.advance(7.5)
    limited = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "alice", "text": "more"})
    assert limited.status == 429 and limited.error["code"] == "chat_rate_limited"
    assert limited.error["retryable"] and limited.headers["retry-after"] == "3"

    muted = api.call("PUT", f"/v1/tables/{t}/chat/mutes/wes", {"seconds": 60})
    assert muted.status == 200 and muted.body["bettor_id"] == "wes"
    silenced = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "wes", "text": "hi"})
    assert (silenced.status, silenced.error["code"]) == (403, "chat_muted")
    assert silenced.error["details"] == {"until": muted.body["until"]}
    too_long = api.call("PUT", f"/v1/tables/{t}/chat/mutes/wes", {"seconds": 86_401})
    assert too_long.status == 400
    assert api.call("DELETE", f"/v1/tables/{t}/chat/mutes/wes").status == 204
    assert api.post(f"/v1/tables/{t}/chat", {"bettor_id": "wes", "text": "back"}).status == 201

    message_id = posted.body["message_id"]
    assert api.call("DELETE", f"/v1/tables/{t}/chat/{message_id}").status == 204
    again = api.call("DELETE", f"/v1/tables/{t}/chat/{message_id}")
    assert (again.status, again.error["code"]) == (404, "not_found")
    assert api.call("DELETE", f"/v1/tables/{t}/chat/ch_bad").status == 404
    after = api.get(f"/v1/tables/{t}/chat").body["messages"]
    assert message_id not in [m["message_id"] for m in after] and after

    types = [e["type"] for e in api.get(f"/v1/tables/{t}/events").body["events"]]
    assert types[-3:] == ["chat_muted", "chat_unmuted", "chat_message_deleted"]

    items = chat_items(stack, t)
    removed = [i for i in items if i.get("message_id", {}).get("S") == message_id]
    assert len(removed) == 1 and "text" not in removed[0]  # marked, never deleted
    assert removed[0]["removed"] == {"BOOL": True}
    messages = [i for i in items if i["kind"]["S"] == "chat"]
    for item in messages:
        assert int(item["expires_at"]["N"]) > CHAT_KEEP_SECONDS  # epoch seconds: the TTL
    assert all("expires_at" in i for i in items)  # every chat item expires


def test_another_operator_reads_and_posts_nothing(api: Api, stack: Stack) -> None:
    t = new_table(api)
    api.call("PUT", f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    api.post(f"/v1/tables/{t}/chat", {"bettor_id": "alice", "text": "mine"})
    theirs = api.get(f"/v1/tables/{t}/chat", key=stack.key_b)
    assert (theirs.status, theirs.error["code"]) == (404, "not_found")
    post = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "alice", "text": "x"}, key=stack.key_b)
    assert post.status == 404
    assert [m["text"] for m in api.get(f"/v1/tables/{t}/chat").body["messages"]] == ["mine"]


def test_a_players_token_posts_as_its_person_and_reads_its_table(api: Api) -> None:
    t = new_table(api)
    other = new_table(api)
    api.call("PUT", f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    api.call("PUT", f"/v1/tables/{t}/watchers/wes")

    def token(table_id: str, bettor_id: str, role: str) -> Api:
        r = api.post(f"/v1/tables/{table_id}/tokens", {"bettor_id": bettor_id, "role": role})
        assert r.status == 201, r.body
        return Api(r.body["token"])

    alice, wes = token(t, "alice", "seat"), token(t, "wes", "watcher")
    mine = alice.post(f"/v1/tables/{t}/chat", {"text": "<i>hi</i>"})
    assert mine.status == 201 and mine.body["bettor_id"] == "alice", mine.body
    as_other = alice.post(f"/v1/tables/{t}/chat", {"text": "x", "bettor_id": "wes"})
    assert (as_other.status, as_other.error["code"]) == (403, "token_person_mismatch")
    read = wes.get(f"/v1/tables/{t}/chat")
    assert read.status == 200 and read.body["messages"] == [mine.body]
    elsewhere = wes.get(f"/v1/tables/{other}/chat")
    assert (elsewhere.status, elsewhere.error["code"]) == (403, "token_table_mismatch")
    muting = alice.call("PUT", f"/v1/tables/{t}/chat/mutes/wes", {"seconds": 60})
    assert (muting.status, muting.error["code"]) == (403, "token_route_forbidden")
    removing = alice.call("DELETE", f"/v1/tables/{t}/chat/{mine.body['message_id']}")
    assert (removing.status, removing.error["code"]) == (403, "token_route_forbidden")
    stranger = token(t, "nobody", "watcher")  # minted, but not at the table
    refused = stranger.post(f"/v1/tables/{t}/chat", {"text": "hi"})
    assert (refused.status, refused.error["code"]) == (409, "not_at_table")


def test_round_trips_of_the_chat_routes(api: Api) -> None:
    """On a warm container: a post is ONE BatchGetItem and ONE TransactWriteItems; a page ONE
    Query; a mute the table and its live state in one read and one transaction."""
    t = new_table(api)
    api.call("PUT", f"/v1/tables/{t}/watchers/wes")
    api.post(f"/v1/tables/{t}/chat", {"bettor_id": "wes", "text": "warm"})
    calls = count_calls()
    _, n, kms, ops = measure(
        calls, lambda: api.post(f"/v1/tables/{t}/chat", {"bettor_id": "wes", "text": "hi"})
    )
    assert (n, kms, dict(ops)) == (2, 0, {"BatchGetItem": 1, "TransactWriteItems": 1})
    _, n, _, ops = measure(calls, lambda: api.get(f"/v1/tables/{t}/chat"))
    assert (n, dict(ops)) == (1, {"Query": 1})
    _, n, _, ops = measure(
        calls, lambda: api.call("PUT", f"/v1/tables/{t}/chat/mutes/wes", {"seconds": 5})
    )
    assert (n, dict(ops)) == (2, {"BatchGetItem": 1, "TransactWriteItems": 1})


def test_the_dynamodb_read_skips_expired_and_pages_past_removed(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Query starts at the oldest message not yet expired (TTL deletes late: the item is
    still there) and reads on past a page of removed ones."""
    clock = service_clock(monkeypatch)
    clock.set("2026-12-05T12:00:00.000Z")
    t = new_table(api)
    api.call("PUT", f"/v1/tables/{t}/watchers/wes")
    said = []
    for n in range(14):
        clock.advance(CHAT_WINDOW_SECONDS)  # one post per window: no cap in the way
        r = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "wes", "text": f"line {n}"})
        assert r.status == 201, r.body
        said.append(r.body)
    for gone in said[2:]:  # the 12 newest removed: more than one Query page of them
        assert api.call("DELETE", f"/v1/tables/{t}/chat/{gone['message_id']}").status == 204
    page = api.get(f"/v1/tables/{t}/chat", query="limit=2").body["messages"]
    assert page == said[:2]
    clock.set("2026-12-06T12:00:10.130Z")  # line 0 (posted at 12:00:10) is past its 24 h
    assert api.get(f"/v1/tables/{t}/chat").body["messages"] == said[1:2]
    assert len(chat_items(stack, t)) >= 14  # expired and removed: still stored, never deleted
    clock.advance(CHAT_KEEP_SECONDS)
    assert api.get(f"/v1/tables/{t}/chat").body["messages"] == []


def test_a_book_tables_spectators_and_watchers_post_over_dynamodb(api: Api) -> None:
    """Their presence is in the book store's items (not the live state): the post's one read
    takes them too."""
    t = new_table(api, profile="bid-squeeze", bet_behind="book")
    seat = {"bettor_id": "alice", "balance": 50_000, "level": 5}
    assert api.call("PUT", f"/v1/tables/{t}/seats/1", seat).status == 200
    assert api.call("PUT", f"/v1/tables/{t}/spectators/sam", {"balance": 20_000}).status == 200
    assert api.call("PUT", f"/v1/tables/{t}/watchers/wil").status == 200
    for who in ("sam", "wil"):
        r = api.post(f"/v1/tables/{t}/chat", {"bettor_id": who, "text": f"{who} here"})
        assert r.status == 201, r.body
    assert api.call("DELETE", f"/v1/tables/{t}/spectators/sam").status == 200
    gone = api.post(f"/v1/tables/{t}/chat", {"bettor_id": "sam", "text": "still here?"})
    assert (gone.status, gone.error["code"]) == (409, "not_at_table")
