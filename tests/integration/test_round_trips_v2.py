"""DynamoDB round trips of a bacc-pf-v2 round on a warm container (moto, the service's own
clients counted as in ``test_round_trips.py``), pinned: the lock is a deal's (one BatchGetItem of
the shoe and the live state, one TransactWriteItems); the draw is too (the shoe's drawn cards are
a bitmap on the shoe item: no read of the earlier rounds); reading a locked round costs the
round's miss and the shoe's read. The beacon is a test beacon whose clock runs ahead, so its
round exists at once (the draw is called as its timer would call it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, cast

import pytest
from support.beacon import FakeBeacon
from support.roundtrips import Calls, count_calls
from support.stack import Api, star_city_bets

from baccarat_api import runtime
from baccarat_api.clock import at_ms
from baccarat_api.ports.book import BOOK_SHARDS
from baccarat_api.service import drawing


def _ahead() -> str:
    return at_ms(int(time.time() * 1000) + 10_000)


@pytest.fixture
def rt(api: Api) -> Iterator[runtime.Runtime]:
    """The container's runtime with a test beacon (its own clock ahead) as its beacon."""
    rt = runtime.get_runtime()
    rt.__dict__["beacon"] = FakeBeacon(cast(Any, _ahead))
    yield rt
    rt.__dict__.pop("beacon", None)


def test_a_v2_round_costs_a_deals_round_trips(api: Api, rt: runtime.Runtime) -> None:
    table = api.post("/v1/tables", {"squeeze_seconds": 0, "profile": "star-city",
                                    "tier": "star-city-fun", "banking": "house",
                                    "fairness": "bacc-pf-v2"}).body  # fmt: skip
    shoe_id = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "x"}).body[
        "shoe_id"
    ]
    bets = {"bets": star_city_bets()}
    first = api.post(f"/v1/shoes/{shoe_id}/rounds", bets)  # warms the container's caches
    assert first.status == 202
    assert (
        drawing.draw(rt.repo, rt.shoes, rt.beacon, "operator-a", first.body["round_id"]) == "done"
    )
    api.post(f"/v1/rounds/{first.body['round_id']}/settlement")
    calls: Calls = count_calls()
    locked = api.post(f"/v1/shoes/{shoe_id}/rounds", bets)
    assert locked.status == 202 and locked.body["status"] == "locked"
    assert calls.dynamodb == {"BatchGetItem": 1, "TransactWriteItems": 1}
    assert sum(calls.kms.values()) == 0
    calls.clear()
    shown = api.get(f"/v1/rounds/{locked.body['round_id']}")
    assert shown.status == 200 and shown.body["status"] == "locked"
    assert shown.headers.get("retry-after")
    assert sum(calls.dynamodb.values()) == 2  # the round (not there yet), then the shoe
    calls.clear()
    assert (
        drawing.draw(rt.repo, rt.shoes, rt.beacon, "operator-a", locked.body["round_id"]) == "done"
    )
    assert calls.dynamodb == {"BatchGetItem": 1, "TransactWriteItems": 1}
    assert sum(calls.kms.values()) == 0
    dealt = api.get(f"/v1/rounds/{locked.body['round_id']}").body
    assert dealt["beacon"]["round"] == locked.body["beacon"]["round"]


def test_the_lock_over_http_202_its_replay_and_round_locked(api: Api, rt: runtime.Runtime) -> None:
    """Over HTTP API v2 events: the deal answers 202 with the locked round; its
    Idempotency-Key replays that answer (202, the same round) without a second lock; settling
    the locked round, and dealing another, is 409 round_locked (retryable, Retry-After); once
    drawn, the same key answers the dealt round."""
    table = api.post("/v1/tables", {"squeeze_seconds": 0, "profile": "star-city",
                                    "tier": "star-city-fun", "banking": "house",
                                    "fairness": "bacc-pf-v2"}).body  # fmt: skip
    shoe_id = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "y"}).body[
        "shoe_id"
    ]
    key = {"idempotency-key": "v2-lock-1"}
    bets = {"bets": star_city_bets()}
    locked = api.post(f"/v1/shoes/{shoe_id}/rounds", bets, headers=key)
    again = api.post(f"/v1/shoes/{shoe_id}/rounds", bets, headers=key)
    assert locked.status == again.status == 202 and again.body == locked.body
    for path, body in ((f"/v1/rounds/{locked.body['round_id']}/settlement", None),
                       (f"/v1/shoes/{shoe_id}/rounds", {"bets": []})):  # fmt: skip
        refused = api.post(path, body)
        assert refused.status == 409 and refused.error["code"] == "round_locked"
        assert refused.error["retryable"] is True and refused.headers.get("retry-after")
    assert (
        drawing.draw(rt.repo, rt.shoes, rt.beacon, "operator-a", locked.body["round_id"]) == "done"
    )
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", bets, headers=key)
    assert dealt.body["round_id"] == locked.body["round_id"] and dealt.body["beacon"]


def _book_window(api: Api, t: str, n: int) -> None:
    """Round ``n``'s window at a book table: sam's seated slip and two spectators' behind."""
    assert api.post(f"/v1/tables/{t}/betting", {}).status == 200
    for b, kind in (("sam", "banker"), ("carol", "player"), ("dave", "tie")):
        body = {"bets": [{"type": kind, "amount": 1000}], "round_number": n}
        got = api.call("PUT", f"/v1/tables/{t}/bets/{b}", body)
        assert got.status == 200, got.body


def test_a_v2_book_round_costs_its_books_lock_and_reads(api: Api, rt: runtime.Runtime) -> None:
    """At a bet_behind book table the lock of a from-book deal is first the book's own lock
    (as at a v1 book table: the window's live state and the book's shards, one transaction),
    then the round's lock after the table is read again, the locked book read (strongly
    consistent, a Query per shard) for its root; the draw reads the book again to seal it on
    the cards and stores its leaves before the deal's transaction — a v1 book deal's calls,
    split over the lock and the draw, plus the book read twice. Pinned below."""
    body = {"squeeze_seconds": 0, "profile": "bid-squeeze", "tier": "bid-squeeze-standard",
            "banking": "house", "bet_behind": "book", "fairness": "bacc-pf-v2"}  # fmt: skip
    t = api.post("/v1/tables", body).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "z"}).body["shoe_id"]
    seat = {"bettor_id": "sam", "balance": 50_000, "level": 1}
    assert api.call("PUT", f"/v1/tables/{t}/seats/1", seat).status == 200
    for b in ("carol", "dave"):
        assert api.call("PUT", f"/v1/tables/{t}/spectators/{b}", {"balance": 50_000}).status == 200
    costs: list[dict[str, int]] = []
    for n in (1, 2):  # round 1 warms the container's caches
        _book_window(api, t, n)
        calls: Calls = count_calls()
        locked = api.post(f"/v1/shoes/{shoe_id}/rounds", {"from_book": True})
        assert locked.status == 202, locked.body
        lock_calls = dict(calls.dynamodb)
        calls.clear()
        rid = locked.body["round_id"]
        assert drawing.draw(rt.repo, rt.shoes, rt.beacon, "operator-a", rid) == "done"
        costs = [lock_calls, dict(calls.dynamodb)]
        assert api.post(f"/v1/rounds/{rid}/settlement").status == 200
    print(f"\nv2 book round: lock {costs[0]}, draw {costs[1]}")
    assert costs == [
        # the book's lock (its transaction), the table read again, the round's lock; the
        # locked book read for its root: one strongly consistent Query per shard
        {"BatchGetItem": 2, "TransactWriteItems": 2, "Query": BOOK_SHARDS},
        # the shoe and live state, the locked book again (its lines: the money), its leaves
        {"BatchGetItem": 1, "Query": BOOK_SHARDS, "PutItem": 1, "TransactWriteItems": 1},
    ]
