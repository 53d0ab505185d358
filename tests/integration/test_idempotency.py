"""Exactly once: every POST takes an ``Idempotency-Key``.

* the same key and request → the original response (status and body), from DynamoDB (also
  after a cold start), with no second effect;
* the same key and another request → 422 ``idempotency_key_reused``;
* a duplicate arriving while the first is in flight → 409 ``idempotency_in_progress``,
  retryable, and its retry replays the original;
* keys are per operator; records expire after 24 h (TTL ``expires_at``);
* whatever keys callers use, a round is dealt once and settled once."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.routing import APIRoute
from support.stack import TABLE_NAMES, Api, Response, Stack, star_city_bets

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.keys import idempotency_pk
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.dynamodb.shape import unpack
from baccarat_api.http.app import create_app
from baccarat_api.http.idempotency import IDEM_ERRORS, idempotency_request
from baccarat_api.http.routers import all_routers
from baccarat_api.ids import parse_round_id
from baccarat_api.ports.records import WebhookFailure
from baccarat_api.ports.repository import Snapshot
from baccarat_api.ports.webhooks import Sent
from baccarat_api.ports.writes import Put
from baccarat_api.service.idempotency import RETENTION_SECONDS
from baccarat_dev.template import load

TABLE = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def key(name: str) -> dict[str, str]:
    return {"Idempotency-Key": name}


def items(stack: Stack) -> list[dict[str, Any]]:
    """Every game-state item (idempotency records aside)."""
    found = stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
    return sorted(
        (i for i in found if i["kind"]["S"] != "idempotency"),
        key=lambda i: (i["pk"]["S"], i["sk"]["S"]),
    )


def new_shoe(api: Api, **table: Any) -> tuple[str, str]:
    table_id = api.post("/v1/tables", {**TABLE, **table}).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "idem"}).body["shoe_id"]
    api.present(table_id, {"bets": star_city_bets()})  # the company a deal needs, reported first
    return table_id, shoe_id


class _Up:
    """A webhook receiver that takes every POST (2xx), counting them."""

    def __init__(self) -> None:
        self.posts = 0

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        self.posts += 1
        return Sent(204)


def _route(api: Api, route: str) -> Callable[[str], Response]:
    """The call of POST ``route`` with a given key, once what it needs exists: every route's
    world has a table whose shoe was committed and closed, a webhook and a parked delivery of
    that table's first event (the webhook's sender takes every POST); then only what ``route``
    itself acts on is built."""
    table_id, shoe_id = new_shoe(api)
    api.post(f"/v1/shoes/{shoe_id}/close")  # free the table for a second commit
    # a parked delivery (as 24 h of failures leave it) of the table's first event
    api.call("PUT", "/v1/webhook", {"url": "https://example.com/hook"})
    parked = WebhookFailure("operator-a", f"{table_id}:1", table_id, 1, 40, "", "", "HTTP 500")
    rt = runtime.get_runtime()
    rt.repo.transact("park", [Put(parked)])
    rt.__dict__["sender"] = _Up()
    if route == "create table":
        return lambda k: api.post("/v1/tables", TABLE, headers=key(k))
    if route == "commit shoe":
        return lambda k: api.post(
            f"/v1/tables/{table_id}/shoes", {"client_seed": "s"}, headers=key(k)
        )
    if route == "webhook retry":
        return lambda k: api.post(f"/v1/webhook/failures/{table_id}:1/retry", headers=key(k))
    if route == "deal":
        _, to_deal = new_shoe(api)
        return lambda k: api.post(
            f"/v1/shoes/{to_deal}/rounds", {"bets": star_city_bets()}, headers=key(k)
        )
    if route in ("settle", "void"):
        _, open_shoe = new_shoe(api)  # (one unresolved round per table at a time)
        dealt = api.post(f"/v1/shoes/{open_shoe}/rounds", {"bets": star_city_bets()}).body
        if route == "settle":
            return lambda k: api.post(f"/v1/rounds/{dealt['round_id']}/settlement", headers=key(k))
        return lambda k: api.post(
            f"/v1/rounds/{dealt['round_id']}/void", {"reason": "misdeal"}, headers=key(k)
        )
    if route == "close":
        _, to_close = new_shoe(api)
        return lambda k: api.post(f"/v1/shoes/{to_close}/close", headers=key(k))
    if route == "open betting":
        booked, _ = new_shoe(api)
        api.call("PUT", f"/v1/tables/{booked}/seats/3", {"bettor_id": "alice", "balance": 50_000})
        return lambda k: api.post(f"/v1/tables/{booked}/betting", headers=key(k))
    if route == "reveal":
        _, squeezed_shoe = new_shoe(api, squeeze_seconds=10)  # its cards face down: a reveal
        squeezed = api.post(f"/v1/shoes/{squeezed_shoe}/rounds", {"bets": star_city_bets()}).body
        return lambda k: api.post(
            f"/v1/rounds/{squeezed['round_id']}/reveal",
            {"bettor_id": "alice", "step": "initial"},
            headers=key(k),
        )
    if route == "urge":
        banked = api.post("/v1/tables", {**TABLE, "banking": "player_banker"}).body["table_id"]
        api.call("PUT", f"/v1/tables/{banked}/banker", {"bettor_id": "pat", "balance": 35_000})
        return lambda k: api.post(f"/v1/tables/{banked}/urge", {"bettor_id": "pat"}, headers=key(k))
    if route == "chat":
        api.call("PUT", f"/v1/tables/{table_id}/watchers/wes")
        return lambda k: api.post(
            f"/v1/tables/{table_id}/chat", {"bettor_id": "wes", "text": "hi"}, headers=key(k)
        )
    if route == "mint token":
        body = {"bettor_id": "alice", "role": "seat"}
        return lambda k: api.post(f"/v1/tables/{table_id}/tokens", body, headers=key(k))
    if route == "mint lobby token":
        return lambda k: api.post("/v1/lobby-tokens", {"ttl_seconds": 60}, headers=key(k))
    running = api.post("/v1/tables", {**TABLE, "dealing": "auto"}).body["table_id"]
    if route == "pause":
        return lambda k: api.post(f"/v1/tables/{running}/pause", headers=key(k))
    if route == "client seed":
        return lambda k: api.post(
            f"/v1/tables/{running}/client-seeds", {"client_seed": "s"}, headers=key(k)
        )
    assert route == "resume", route
    api.post(f"/v1/tables/{running}/pause")
    return lambda k: api.post(f"/v1/tables/{running}/resume", headers=key(k))


#: Each POST of the API (its operation id) → its call in :func:`_route`.
POSTS = {
    "create_table": "create table",
    "commit_shoe": "commit shoe",
    "deal_round": "deal",
    "settle_round": "settle",
    "void_round": "void",
    "close_shoe": "close",
    "open_betting": "open betting",
    "reveal_cards": "reveal",
    "urge": "urge",
    "pause_table": "pause",
    "resume_table": "resume",
    "retry_webhook_failure": "webhook retry",
    "give_client_seed": "client seed",
    "post_chat": "chat",
    "mint_token": "mint token",
    "mint_lobby_token": "mint lobby token",
}


def test_every_post_route_of_the_app_takes_an_idempotency_key() -> None:
    """Four POSTs ignored the header the docs promise on every POST. Every
    POST route of the app (its routes, as FastAPI has them) reads the key and documents it and
    its errors — and is one of the routes the replay tests below call: a new POST fails here
    until it honours the key and is tested."""
    app = create_app(*all_routers())
    posts = {
        r.operation_id: r for r in app.routes if isinstance(r, APIRoute) and "POST" in r.methods
    }
    assert set(posts) == set(POSTS), "a POST the replay tests do not cover"
    schema = app.openapi()["paths"]
    for op, route in posts.items():
        calls = {d.call for d in route.dependant.dependencies}
        assert idempotency_request in calls, f"{op} ignores the Idempotency-Key"
        doc = schema[route.path]["post"]
        headers = [p["name"] for p in doc.get("parameters", []) if p["in"] == "header"]
        assert headers == ["Idempotency-Key"], op
        for code in IDEM_ERRORS:
            assert any(code in json.dumps(r) for r in doc["responses"].values()), (op, code)


@pytest.mark.parametrize("route", list(POSTS.values()))
def test_a_retry_with_the_same_key_returns_the_original_response_even_after_a_cold_start(
    api: Api, stack: Stack, route: str
) -> None:
    call = _route(api, route)
    first = call(f"{route}-1")
    assert first.status in (200, 201), first.body
    assert "idempotent-replayed" not in first.headers
    state = items(stack)

    again = call(f"{route}-1")
    assert (again.status, again.body) == (first.status, first.body)
    assert again.headers["idempotent-replayed"] == "true"
    assert again.headers["content-length"] == first.headers["content-length"]  # byte for byte
    sender = runtime.get_runtime().__dict__.get("sender")
    runtime.reset()  # a cold start: nothing in memory, the record is in DynamoDB
    if sender is not None:
        runtime.get_runtime().__dict__["sender"] = sender
    cold = call(f"{route}-1")
    assert (cold.status, cold.body) == (first.status, first.body)
    assert items(stack) == state, "a replay changed the state"
    if route == "webhook retry":
        assert isinstance(sender, _Up) and sender.posts == 1  # the parked event was POSTed once
    other = api.post("/v1/tables", {**TABLE, "banking": "player_banker"}, headers=key(f"{route}-1"))
    assert (other.status, other.error["code"]) == (422, "idempotency_key_reused")
    assert items(stack) == state


@pytest.mark.parametrize(
    ("path", "body", "other"),
    [
        ("/v1/tables/{banked}/urge", {"bettor_id": "pat"}, {"bettor_id": "sue"}),
        (
            "/v1/rounds/{round_id}/reveal",
            {"bettor_id": "alice", "step": "initial"},
            {"bettor_id": "bob", "step": "initial"},
        ),
    ],
)
def test_the_same_key_with_another_body_is_refused_on_the_table_routes(
    api: Api, stack: Stack, path: str, body: dict[str, Any], other: dict[str, Any]
) -> None:
    """The same key on the same route with another body: 422 ``idempotency_key_reused``, and
    nothing written (the other body alone would be refused otherwise, or pressed again)."""
    banked = api.post("/v1/tables", {**TABLE, "banking": "player_banker"}).body["table_id"]
    api.call("PUT", f"/v1/tables/{banked}/banker", {"bettor_id": "pat", "balance": 35_000})
    _, shoe = new_shoe(api, squeeze_seconds=10)  # its cards face down: a reveal
    round_id = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": star_city_bets()}).body["round_id"]
    url = path.format(banked=banked, round_id=round_id)
    assert api.post(url, body, headers=key("k")).status == 200
    state = items(stack)
    again = api.post(url, other, headers=key("k"))
    assert (again.status, again.error["code"]) == (422, "idempotency_key_reused")
    assert items(stack) == state


def test_the_same_key_with_another_request_is_refused(api: Api, stack: Stack) -> None:
    _, shoe_id = new_shoe(api)
    first = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}, headers=key("k"))
    assert first.status == 201
    state = items(stack)
    other_bets = api.post(
        f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()[:1]}, headers=key("k")
    )
    other_path = api.post("/v1/tables", TABLE, headers=key("k"))
    for r in (other_bets, other_path):
        assert r.status == 422, r.body
        assert r.error["code"] == "idempotency_key_reused" and r.error["retryable"] is False
    assert items(stack) == state
    # JSON is compared as JSON: the same body with other whitespace and key order is the same
    same = api.call(
        "POST",
        f"/v1/shoes/{shoe_id}/rounds",
        raw_body='{ "bets" : ' + json.dumps(star_city_bets(), indent=2) + "}",
        headers=key("k"),
    )
    assert same.status == 201 and same.body == first.body


def test_keys_belong_to_one_operator(api: Api, stack: Stack) -> None:
    mine = api.post("/v1/tables", TABLE, headers=key("shared-key"))
    theirs = Api(stack.key_b).post("/v1/tables", TABLE, headers=key("shared-key"))
    assert mine.status == theirs.status == 201
    assert mine.body["table_id"] != theirs.body["table_id"]


def test_a_duplicate_in_flight_answers_the_first_ones_round(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both requests read before either wrote (the race window, made deterministic): the first
    commits; the second's transaction fails, it re-reads the round it wrote and finds its own
    write id there (the same request from the same state): it answers that round, no second
    one; a retry replays it."""
    _, shoe_id = new_shoe(api)
    ref_snapshot: dict[str, Snapshot] = {}
    real_load = DynamoRepository.load

    def stale_load(self: DynamoRepository, operator_id: str, **keys: Any) -> Snapshot:
        if "before" not in ref_snapshot:
            ref_snapshot["before"] = real_load(self, operator_id, **keys)
        return ref_snapshot["before"]

    monkeypatch.setattr(DynamoRepository, "load", stale_load)
    body = {"bets": star_city_bets()}
    first = api.post(f"/v1/shoes/{shoe_id}/rounds", body, headers=key("dup"))
    assert first.status == 201
    second = api.post(f"/v1/shoes/{shoe_id}/rounds", body, headers=key("dup"))
    assert second.status == 201 and second.body == first.body, second.body
    monkeypatch.undo()
    retry = api.post(f"/v1/shoes/{shoe_id}/rounds", body, headers=key("dup"))
    assert retry.status == 201 and retry.body == first.body
    assert api.get(f"/v1/shoes/{shoe_id}").body["rounds_dealt"] == 1


def test_a_settlement_duplicate_in_flight(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    _, shoe_id = new_shoe(api)
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    stale = DynamoRepository.load(
        runtime.get_runtime().repo,
        "operator-a",
        round_=parse_round_id(round_id),
        idem_key="0" * 64,
    )
    first = api.post(f"/v1/rounds/{round_id}/settlement", headers=key("s"))
    assert first.status == 200
    monkeypatch.setattr(DynamoRepository, "load", lambda self, op, **kw: stale)
    second = api.post(f"/v1/rounds/{round_id}/settlement", headers=key("s"))
    assert second.status == 200 and second.body == first.body, second.body
    monkeypatch.undo()
    assert api.post(f"/v1/rounds/{round_id}/settlement", headers=key("s")).body == first.body


@pytest.mark.parametrize("bad", ["", "x" * 256, "café", "tab\there"])
def test_a_malformed_key_is_refused(api: Api, bad: str) -> None:
    r = api.post("/v1/tables", TABLE, headers={"Idempotency-Key": bad})
    assert r.status == 400 and r.error["code"] == "invalid_request", r.body


def test_records_expire_after_the_retention_window(api: Api, stack: Stack) -> None:
    """A record past ``expires_at`` counts as absent even before DynamoDB's TTL removes it:
    the same key then makes a new request."""
    _, shoe_id = new_shoe(api)
    first = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}, headers=key("old"))
    records = [
        i
        for i in stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
        if i["kind"]["S"] == "idempotency"
    ]
    assert len(records) == 1
    record = records[0]
    assert record["pk"]["S"].startswith(idempotency_pk("operator-a", ""))
    expires = int(record["expires_at"]["N"])
    assert abs(expires - (time.time() + RETENTION_SECONDS)) < 600
    stack.dynamodb.update_item(
        TableName=TABLE_NAMES["StateTable"],
        Key={"pk": record["pk"], "sk": record["sk"]},
        UpdateExpression="SET expires_at = :past",
        ExpressionAttributeValues={":past": {"N": str(int(time.time()) - 1)}},
    )
    later = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}, headers=key("old"))
    assert later.status == 201 and later.body["round_number"] == first.body["round_number"] + 1


def test_ttl_is_enabled_on_the_state_table(stack: Stack) -> None:
    props = load()["Resources"]["StateTable"]["Properties"]
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    ttl = stack.dynamodb.describe_time_to_live(TableName=TABLE_NAMES["StateTable"])
    assert ttl["TimeToLiveDescription"]["AttributeName"] == "expires_at"
    assert ttl["TimeToLiveDescription"]["TimeToLiveStatus"] == "ENABLED"
    # no game item carries the TTL attribute: only idempotency records ever expire
    api = Api(stack.key_a)
    _, shoe_id = new_shoe(api)
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    api.post(f"/v1/rounds/{round_id}/settlement", headers=key("t"))
    api.post(f"/v1/shoes/{shoe_id}/close", headers=key("c"))
    for item in stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]:
        assert ("expires_at" in item) == (item["kind"]["S"] == "idempotency"), item["kind"]


def test_a_round_is_dealt_once_and_settled_once_whatever_keys_callers_use(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, shoe_id = new_shoe(api)
    # two deals racing from the same read, under different keys: one round, one 409
    real_load = DynamoRepository.load
    held: dict[str, Snapshot] = {}

    def stale(self: DynamoRepository, operator_id: str, **keys: Any) -> Snapshot:
        snap = real_load(self, operator_id, **keys)
        held.setdefault("shoe", snap)
        return Snapshot(
            shoe=held["shoe"].shoe, live=held["shoe"].live, idempotency=snap.idempotency
        )

    monkeypatch.setattr(DynamoRepository, "load", stale)
    a = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}, headers=key("a"))
    b = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}, headers=key("b"))
    monkeypatch.undo()
    assert a.status == 201 and b.status == 409 and b.error["code"] == "concurrent_update"
    assert api.get(f"/v1/shoes/{shoe_id}").body["rounds_dealt"] == 1
    round_id = a.body["round_id"]
    # settled under one key, then another key: the same settlement, no second one
    s1 = api.post(f"/v1/rounds/{round_id}/settlement", headers=key("s1"))
    s2 = api.post(f"/v1/rounds/{round_id}/settlement", headers=key("s2"))
    assert s1.status == s2.status == 200 and s1.body == s2.body
    other = api.post(
        f"/v1/rounds/{round_id}/settlement", {"bets": star_city_bets()[:1]}, headers=key("s3")
    )
    assert other.status == 400 and other.error["code"] == "invalid_request"
    void = api.post(f"/v1/rounds/{round_id}/void", {"reason": "misdeal"}, headers=key("v"))
    assert void.status == 409 and void.error["code"] == "round_settled"
    rounds = [i for i in items(stack) if i["kind"]["S"] == "round"]
    assert len(rounds) == 1 and "settled_at" in rounds[0]


def test_a_deal_retried_with_its_round_number_never_deals_another_round(
    api: Api, stack: Stack
) -> None:
    """Without an Idempotency-Key, a deal naming its round_number is safe to retry: the round
    already dealt with exactly that request is answered again (a replay), never a new one."""
    _, shoe_id = new_shoe(api)
    rounds = f"/v1/shoes/{shoe_id}/rounds"
    body = {"bets": star_city_bets(), "round_number": 1}
    first = api.post(rounds, body)
    assert first.status == 201 and first.body["round_number"] == 1
    before = items(stack)
    for _ in range(2):  # the answer was lost: the client sends it again
        again = api.post(rounds, body)
        assert again.status == 201 and again.body == first.body
        assert again.headers.get("idempotent-replayed") == "true"
    assert items(stack) == before  # nothing written
    # the same number with other bets, or a number that is not the next: refused, nothing dealt
    for wrong in (
        {"bets": star_city_bets()[:1], "round_number": 1},
        {"bets": [], "round_number": 1},
        {"bets": star_city_bets(), "round_number": 3},
    ):
        r = api.post(rounds, wrong)
        assert r.status == 409 and r.error["code"] == "round_mismatch", r.body
        assert r.error["details"]["next_round_number"] == 2
        assert r.error["retryable"] is False
    assert items(stack) == before
    settled = api.post(f"/v1/rounds/{first.body['round_id']}/settlement")  # before round 2
    assert settled.status == 200
    second = api.post(rounds, {"bets": [], "round_number": 2})
    assert second.status == 201 and second.body["round_number"] == 2
    # round 1's retry still answers round 1, also now that round 2 exists
    assert api.post(rounds, body).body == first.body
    assert api.get(f"/v1/shoes/{shoe_id}").body["rounds_dealt"] == 2


def test_replays_render_the_rounds_answers_byte_for_byte(api: Api, stack: Stack) -> None:
    """A round's answers are not copied into the key's record (it names the round): the replay
    is rendered from the round record and is the same bytes as the first answer; so is a
    re-read of the round."""
    _, shoe_id = new_shoe(api)
    deal = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}, headers=key("d"))
    round_id = deal.body["round_id"]
    settle = api.post(f"/v1/rounds/{round_id}/settlement", headers=key("s"))
    void_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    void = api.post(f"/v1/rounds/{void_id}/void", {"reason": "misdeal"}, headers=key("v"))
    records = [i for i in stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
               if i["kind"]["S"] == "idempotency"]  # fmt: skip
    assert len(records) == 3 and all(json.loads(unpack(r["body"]["B"])) == {} for r in records)
    assert {r["round_id"]["S"] for r in records} == {round_id, void_id}
    for first, path, body, k in (
        (deal, f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}, "d"),
        (settle, f"/v1/rounds/{round_id}/settlement", None, "s"),
        (void, f"/v1/rounds/{void_id}/void", {"reason": "misdeal"}, "v"),
    ):
        again = api.post(path, body, headers=key(k))
        assert again.headers.get("idempotent-replayed") == "true"
        assert json.dumps(again.body) == json.dumps(first.body)  # the same bytes, key order too
    detail = api.get(f"/v1/rounds/{round_id}").body
    assert json.dumps(detail["settlement"]) == json.dumps(settle.body)
    assert json.dumps({k: detail[k] for k in deal.body}) == json.dumps(deal.body)
    assert list(settle.body["nets"]) == ["alice", "bob"]  # bettors in the order of their first bet
