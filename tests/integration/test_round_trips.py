"""DynamoDB round trips per request, counted with botocore's event hooks on the service's own
client, on a warm container (operator key and derived shoe already cached). Pinned: a change
that adds a round trip fails here. Budgets: deal ≤ 2, settle ≤ 2, commit ≤ 3, reads ≤ 1 (the
audit ≤ 3: one shoe, bounded).
docs/quick-tour.md quotes these numbers; the last test keeps it honest."""

from __future__ import annotations

import re

import pytest
from support.roundtrips import Calls, count_calls, measure, walk_routes
from support.stack import Api, star_city_bets

from baccarat_api import runtime
from baccarat_api.ports.records import FEED_SHARDS
from baccarat_dev.template import REPO_ROOT

#: route → (DynamoDB calls, KMS calls) on a warm container.
EXPECTED: dict[str, tuple[int, int]] = {
    "GET /v1/tiers": (1, 0),
    # KMS: the chain secret and the bettor-ref key, each drawn sealed; no number given: one
    # drawn from the operator's counter (an UpdateItem ADD) and claimed in the transaction
    "POST /v1/tables": (3, 2),
    "GET /v1/tables/{table_id}": (1, 0),
    "POST /v1/tables/{table_id}/shoes": (2, 2),
    "POST /v1/shoes/{shoe_id}/rounds": (2, 0),
    "POST /v1/rounds/{round_id}/settlement": (2, 0),
    "POST /v1/rounds/{round_id}/settlement (again)": (1, 0),
    "GET /v1/rounds/{round_id}": (1, 0),
    "GET /v1/shoes/{shoe_id}": (2, 0),  # + the latest round: is a card of it face down?
    "POST /v1/shoes/{shoe_id}/close": (3, 1),  # + its last round: is a card of it face down?
    # the first read after the proof became final finalises it, once: the page read
    # (BatchGetItem), OpenRounds (Query), the shoe and its rounds (Query), the signing key's
    # history record (UpdateItem), the page (PutItem: one per part), the manifest
    # (TransactWriteItems); KMS: the signing key's public half (once per container) and one
    # Sign (the ref key is cached from the deals)
    "GET /v1/shoes/{shoe_id}/proof (finalises)": (6, 2),
    "GET /v1/shoes/{shoe_id}/proof": (1, 0),  # final: one BatchGetItem, no KMS
    # every key that ever signed (one Query); the current key's public half cached per container
    "GET /v1/signing-keys": (1, 0),
    # the public partition (+ a Query of the latest shoe while it is open)
    "GET /v1/tables/{table_id}/fairness": (1, 0),
    # with an Idempotency-Key the record rides along (BatchGetItem with the item's read,
    # a Put in the same transaction): the same counts; a replay answers from the one read
    "POST /v1/tables (Idempotency-Key)": (3, 2),
    "POST /v1/tables (replay)": (1, 0),
    "POST /v1/tables/{table_id}/shoes (Idempotency-Key)": (2, 2),
    "POST /v1/tables/{table_id}/shoes (replay)": (1, 0),
    "POST /v1/shoes/{shoe_id}/rounds (Idempotency-Key)": (2, 0),
    # the record names the round (a 200-bet answer is not copied): the shoe and the record, then
    # the round it names
    "POST /v1/shoes/{shoe_id}/rounds (replay)": (2, 0),
    "POST /v1/rounds/{round_id}/settlement (Idempotency-Key)": (2, 0),
    "POST /v1/rounds/{round_id}/settlement (replay)": (1, 0),
    "POST /v1/rounds/{round_id}/void": (2, 0),
    "POST /v1/rounds/{round_id}/void (again)": (1, 0),
    "POST /v1/rounds/{round_id}/void (Idempotency-Key)": (2, 0),
    "POST /v1/rounds/{round_id}/void (replay)": (1, 0),
    "POST /v1/shoes/{shoe_id}/close (Idempotency-Key)": (3, 1),
    "POST /v1/shoes/{shoe_id}/close (replay)": (1, 0),
    # one shoe per audit: GetItem table + Query of the shoe's items (+ for a shoe after the
    # first, a projected GetItem of the previous shoe's head: 3), however long the history
    "GET /v1/tables/{table_id}/audit": (2, 0),
    # live tables: every change that reports events reads the table's live state in
    # the same round trip as its item (a BatchGetItem where a GetItem was) and writes its events
    # in the same transaction — the counts above are unchanged. The table feed: one Query of
    # the EV# items (a 304 costs the same Query: events are immutable, the ETag names the page)
    # presence: BatchGetItem (table + live state), TransactWriteItems (live state + event); a
    # place taken again with the same details changes nothing: the read alone
    "PUT /v1/tables/{table_id}/seats/{seat}": (2, 0),
    "PUT /v1/tables/{table_id}/seats/{seat} (again)": (1, 0),
    "DELETE /v1/tables/{table_id}/seats/{seat}": (2, 0),
    "PUT /v1/tables/{table_id}/watchers/{bettor_id}": (2, 0),
    "DELETE /v1/tables/{table_id}/watchers/{bettor_id}": (2, 0),
    "GET /v1/tables/{table_id}/events": (1, 0),
    "GET /v1/tables/{table_id}/events (304)": (1, 0),
    # the squeeze: a reveal reads the round and the live state (BatchGetItem) and
    # writes the round's reveals, the live state and the event (TransactWriteItems); the urge
    # is a presence-like change; the state reads the table + live state, then the shoe + its
    # latest round (both BatchGetItem; a 304 costs the same: the ETag is the answer's hash)
    "POST /v1/rounds/{round_id}/reveal": (2, 0),
    "GET /v1/tables/{table_id}/state": (2, 0),
    "GET /v1/tables/{table_id}/state (304)": (2, 0),
    # the lobby: a Query of the Lobby index, a BatchGetItem of the page's live states and shoes
    # (a 304 costs the same: the ETag is the answer's hash)
    "GET /v1/tables (lobby)": (2, 0),
    "GET /v1/tables (lobby, 304)": (2, 0),
    "POST /v1/tables/{table_id}/urge": (2, 0),
    # the betting window: BatchGetItem (table + live state), TransactWriteItems (live state +
    # its event); a slip confirmed again changes nothing (the read alone); a from-book deal
    # reads the book with the shoe (the live state it read anyway) — a deal's 2
    "POST /v1/tables/{table_id}/betting": (2, 0),
    "PUT /v1/tables/{table_id}/bets/{bettor_id}": (2, 0),
    "PUT /v1/tables/{table_id}/bets/{bettor_id} (again)": (1, 0),
    "DELETE /v1/tables/{table_id}/bets/{bettor_id}": (2, 0),
    "POST /v1/shoes/{shoe_id}/rounds (from_book)": (2, 0),
    # reconciliation (RoundsByDay: 32 shards per operator and day): a table's rounds of a day
    # are one shard (one Query per page); the daily report reads every shard once (per page)
    "GET /v1/rounds?table_id=": (1, 0),
    "GET /v1/reports/daily": (32, 0),
    # the operator feed: one BatchGetItem of the feed shards' heads, one strongly
    # consistent Query per shard with events after the cursor (one table here: one), one
    # BatchGetItem of the page's events, one of its money events' rounds
    "GET /v1/events": (4, 0),
    # webhooks: the webhook read, the secret drawn sealed (KMS GenerateDataKey) and put on that
    # read (a new item, or an update conditional on the secret read); the failures one Query;
    # a retry: the parked delivery, the webhook, the event (GetItem each; a money event's round
    # makes it a BatchGetItem), an UpdateItem claiming it for this POST (a duplicate in flight is
    # refused, never POSTed twice), the UpdateItem marking it delivered; KMS: the secret unsealed.
    # The removal: GetItem + UpdateItem (marked removed: nothing is ever deleted)
    "PUT /v1/webhook": (2, 1),
    "GET /v1/webhook/failures": (1, 0),
    "POST /v1/webhook/failures/{event_id}/retry": (5, 1),
    "DELETE /v1/webhook": (2, 0),
}
BUDGET = {
    "rounds": 2,
    "settlement": 2,
    "void": 2,
    "shoes": 3,
    "GET": 1,
    "replay": 1,
    "audit": 3,
    "events": 1,
    "seats": 2,
    "betting": 2,
    "bets/": 2,
    "watchers": 2,
    "proof": 1,
    "rounds (replay)": 2,
    "reports": 32,
    "state": 2,
    "(lobby": 2,
    "urge": 2,
    "reveal": 2,
    # the shoe, then its latest round (while a card of it is face down, the history leaves it out)
    "GET /v1/shoes/{shoe_id}": 2,
    # the operator feed: the heads, a Query per shard with news (at most FEED_SHARDS), the
    # events, their rounds
    "GET /v1/events": 3 + FEED_SHARDS,
}
#: Markers that replace a broader one for their routes.
INSTEAD = {
    "audit": "GET",
    "proof": "GET",
    "rounds (replay)": "replay",
    "events": "GET",
    "reports": "GET",
    "state": "GET",
    "GET /v1/events": "events",
    "GET /v1/shoes/{shoe_id}": "GET",
    "(lobby": "GET",
}


@pytest.fixture
def calls(api: Api) -> Calls:
    return count_calls()


def test_round_trips_per_route_on_a_warm_container(api: Api, calls: Calls) -> None:
    counted = walk_routes(api, calls)  # the same walk `make bench` prints
    measured = {name: (ddb, kms) for name, (ddb, kms, _) in counted.items()}
    print("\nround trips (DynamoDB, KMS) per route, warm:")
    for name, (ddb, kms, ops) in counted.items():
        print(f"  {name:48} {ddb}  {kms}   {dict(ops)}")
    assert measured == EXPECTED
    assert counted["POST /v1/shoes/{shoe_id}/rounds"][2] == {
        "BatchGetItem": 1,  # the shoe and the table's live state
        "TransactWriteItems": 1,
    }
    assert counted["GET /v1/shoes/{shoe_id}/proof (finalises)"][2] == {
        "BatchGetItem": 1,
        "Query": 2,
        "UpdateItem": 1,  # the signing key's history record, before the signature
        "PutItem": 1,
        "TransactWriteItems": 1,
    }
    assert counted["GET /v1/shoes/{shoe_id}/proof"][2] == {"BatchGetItem": 1}
    assert counted["GET /v1/events"][2] == {"BatchGetItem": 3, "Query": 1}
    for name, (ddb, _) in measured.items():
        if "(finalises)" in name:  # once per shoe, pinned exactly above
            continue
        markers = {m for m in BUDGET if m in name}
        markers -= {INSTEAD[m] for m in markers if m in INSTEAD}
        for marker in markers:
            assert ddb <= BUDGET[marker], (name, ddb, BUDGET[marker])


def test_the_last_round_of_a_shoe_is_still_one_transaction(api: Api, calls: Calls) -> None:
    """The round that ends the shoe also frees the table and publishes the proof — in the same
    TransactWriteItems."""
    table = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body
    shoe_id = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "x"}).body[
        "shoe_id"
    ]
    for _ in range(29):
        api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []})
    r, ddb, kms, ops = measure(calls, lambda: api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}))
    assert r.body["shoe_status"] == "ended"
    assert (ddb, kms) == (2, 0) and ops == {"BatchGetItem": 1, "TransactWriteItems": 1}


def test_a_pending_proof_costs_two_small_reads_and_no_kms(api: Api, calls: Calls) -> None:
    """Ended with a round unresolved: the page read and the OpenRounds index (no round read)."""
    table = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body
    shoe_id = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "x"}).body[
        "shoe_id"
    ]
    api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
    api.post(f"/v1/shoes/{shoe_id}/close")
    calls.clear()
    r = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert r.status == 409 and r.error["code"] == "proof_pending"
    assert calls.dynamodb == {"BatchGetItem": 1, "Query": 1} and sum(calls.kms.values()) == 0


def test_cold_paths_cost_what_they_should(api: Api, calls: Calls) -> None:
    """A cold container looks the key up once (+1 GetItem) and decrypts a shoe and its table's
    bettor-ref key once (+2 KMS)."""
    table = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun",
             "banking": "house"}  # fmt: skip
    shoe_id = api.post(
        "/v1/tables/" + api.post("/v1/tables", table).body["table_id"] + "/shoes",
        {"client_seed": "cold"},
    ).body["shoe_id"]  # fmt: skip
    api.present(shoe_id.rsplit("_s", 1)[0], {"bets": []})  # the deals' company, reported first
    rt = runtime.get_runtime()
    rt.key_cache.clear()
    rt.shoes.clear()
    _, ddb, kms, ops = measure(calls, lambda: api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}))
    assert (ddb, kms) == (3, 2) and ops["GetItem"] == 1 and ops["BatchGetItem"] == 1
    _, ddb, kms, _ = measure(calls, lambda: api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}))
    assert (ddb, kms) == (2, 0)


def test_quick_tour_quotes_the_measured_counts() -> None:
    text = (REPO_ROOT / "docs" / "quick-tour.md").read_text(encoding="utf-8")
    for name, (ddb, kms) in EXPECTED.items():
        row = re.search(rf"^\| `{re.escape(name)}` \| (\d+) \| (\d+) \|", text, re.MULTILINE)
        assert row, f"docs/quick-tour.md has no row for {name}"
        assert (int(row[1]), int(row[2])) == (ddb, kms), name
