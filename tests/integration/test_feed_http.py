"""The operator feed over HTTP (real API Gateway v2 events through the read function, moto
behind), fed by the built indexer's handler (``functions/feed_indexer``) on DynamoDB Streams
records made of the stored event items: the operator's events once each, money with them, the
other operator sees none, a bad cursor is refused."""

from __future__ import annotations

import json
from typing import Any

from support.stack import Api, LambdaContext, Stack, function_module, star_city_bets


def stream_records(stack: Stack) -> list[dict[str, Any]]:
    """What the state table's stream would carry: an INSERT with the NEW_IMAGE per event item."""
    items = stack.dynamodb.scan(TableName=stack.repo.state)["Items"]
    return [
        {"eventName": "INSERT", "eventSource": "aws:dynamodb", "dynamodb": {"NewImage": item}}
        for item in items
    ]


def index(stack: Stack) -> int:
    handler = function_module("functions/feed_indexer/").handler
    out = handler({"Records": stream_records(stack)}, LambdaContext("FeedIndexerFunction"))
    return int(out["appended"])


def test_the_operator_feed_over_http(api: Api, stack: Stack) -> None:
    body = {
        "squeeze_seconds": 0,
        "profile": "star-city",
        "tier": "star-city-fun",
        "banking": "house",
    }
    t = api.post("/v1/tables", body).body["table_id"]
    shoe = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "feed"}).body["shoe_id"]
    api.present(t, {"bets": star_city_bets()})  # alice and bob sit down: the deal's company
    assert index(stack) == 3  # shoe_committed, seat_taken ×2
    dealt = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": star_city_bets()}).body["round_id"]
    settled = api.post(f"/v1/rounds/{dealt}/settlement")
    assert settled.status == 200
    api.call("PUT", f"/v1/tables/{t}/watchers/wendy")
    assert index(stack) == 3  # round_dealt, round_settled, watcher_joined
    assert index(stack) == 0  # the same records again: nothing twice
    first = api.get("/v1/events", query="limit=2")
    assert first.status == 200 and first.function == "ReadFunction"
    assert [e["seq"] for e in first.body["events"]] == [1, 2] and first.body["more"]
    rest = api.get("/v1/events", query=f"after={first.body['next_after']}&limit=100")
    events = first.body["events"] + rest.body["events"]
    assert [e["event_id"] for e in events] == [f"{t}:{n}" for n in range(1, 7)]
    assert not rest.body["more"]
    money = {e["type"]: e["settlement"] for e in events}
    assert money["round_settled"] == settled.body  # the full money, as the settlement answered
    assert money["round_dealt"] is None
    again = api.get("/v1/events", query=f"after={rest.body['next_after']}")
    assert again.body["events"] == [] and again.body["next_after"] == rest.body["next_after"]
    other = api.get("/v1/events", key=stack.key_b)
    assert other.status == 200 and other.body["events"] == []
    bad = api.get("/v1/events", query="after=f1.AAAA")
    assert (bad.status, bad.error["code"]) == (422, "invalid_cursor")
    # every malformed cursor is the documented 422 invalid_cursor (it was a 400 before the
    # service saw it), whatever its shape or length
    for garbage in ("nope", "garbage", "f1.***", "f1." + "A" * 3000):
        bad = api.get("/v1/events", query=f"after={garbage}")
        assert (bad.status, bad.error["code"]) == (422, "invalid_cursor"), garbage
    assert api.get("/v1/events", query="limit=101").status == 400
    assert api.get("/v1/events", key=None).status == 401


def test_the_stream_filter_of_the_template_is_the_indexers() -> None:
    from baccarat_api.adapters.dynamodb.streams import FILTER_PATTERN
    from baccarat_dev.template import load

    stream = load()["Resources"]["FeedIndexerFunction"]["Properties"]["Events"]["StateStream"]
    (only,) = stream["Properties"]["FilterCriteria"]["Filters"]
    assert json.loads(only["Pattern"]) == json.loads(FILTER_PATTERN)
    state = load()["Resources"]["StateTable"]["Properties"]
    assert state["StreamSpecification"] == {"StreamViewType": "NEW_IMAGE"}
