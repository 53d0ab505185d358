"""DynamoDB and KMS round trips per request, counted with botocore's event hooks on the
service's own clients: ONE counting code path and ONE walk over the routes, shared by
``tests/integration/test_round_trips.py`` (which pins the counts) and ``make bench`` (which prints
them).

:func:`walk_routes` drives any :class:`~tests.support.stack.Api`-like client (a real HTTP API v2
event through each route's Lambda handler) on a warm container: operator key and derived shoe
cached first, so each count is what a warm request costs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from baccarat_api import runtime

from .stack import Response, star_city_bets


class Client(Protocol):
    def call(self, method: str, path: str, body: Any = None, **kw: Any) -> Response: ...
    def get(self, path: str, **kw: Any) -> Response: ...
    def post(self, path: str, body: Any = None, **kw: Any) -> Response: ...


class Calls:
    """Operation name → calls, per service, since the last :meth:`clear`."""

    def __init__(self) -> None:
        self.dynamodb: Counter[str] = Counter()
        self.kms: Counter[str] = Counter()

    def hook(self, service: str) -> Callable[..., None]:
        def count(event_name: str, **_: Any) -> None:
            getattr(self, service)[event_name.rsplit(".", 1)[-1]] += 1

        return count

    def clear(self) -> None:
        self.dynamodb.clear()
        self.kms.clear()


def count_calls() -> Calls:
    """Count every call the container's clients (``runtime.get_runtime()``) make from now on."""
    c = Calls()
    rt = runtime.get_runtime()
    rt.dynamodb.meta.events.register("before-call.dynamodb", c.hook("dynamodb"))
    rt.kms.meta.events.register("before-call.kms", c.hook("kms"))
    return c


#: What one measured request cost: (response, DynamoDB calls, KMS calls, DynamoDB operations).
Measured = tuple[Response, int, int, Counter[str]]


def measure(calls: Calls, fn: Callable[[], Response]) -> Measured:
    calls.clear()
    r = fn()
    assert r.status < 300 or r.status == 304, r.body
    return r, sum(calls.dynamodb.values()), sum(calls.kms.values()), Counter(calls.dynamodb)


#: route (as the pinned table names it) → (DynamoDB calls, KMS calls, DynamoDB operations).
Counts = dict[str, tuple[int, int, Counter[str]]]


def walk_routes(api: Client, calls: Calls, operator_id: str = "operator-a") -> Counts:
    """Every route once on a warm container, in the order a table's life uses them
    (``operator_id``: the operator of ``api``'s key)."""
    measured: Counts = {}

    def run(name: str, fn: Callable[[], Response]) -> Response:
        r, ddb, kms, ops = measure(calls, fn)
        measured[name] = (ddb, kms, ops)
        return r

    api.get("/v1/tiers")  # warm: the operator key is now cached
    run("GET /v1/tiers", lambda: api.get("/v1/tiers"))
    table = run(
        "POST /v1/tables",
        lambda: api.post(
            "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
        ),
    ).body
    run("GET /v1/tables/{table_id}", lambda: api.get(f"/v1/tables/{table['table_id']}"))
    shoe = run(
        "POST /v1/tables/{table_id}/shoes",
        lambda: api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "rt"}),
    ).body
    api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"bets": []})  # warm: the shoe is now derived
    rnd = run(
        "POST /v1/shoes/{shoe_id}/rounds",
        lambda: api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"bets": star_city_bets()}),
    ).body
    reveal = f"/v1/rounds/{rnd['round_id']}/reveal"  # alice leads the squeeze (largest stake)
    opened = {"bettor_id": "alice", "step": "initial"}
    run("POST /v1/rounds/{round_id}/reveal", lambda: api.post(reveal, opened))
    # the third cards too (409 no_draws when there are none): a round is settled once every
    # card is shown
    api.post(reveal, {**opened, "step": "draws"})
    settle = f"/v1/rounds/{rnd['round_id']}/settlement"
    run("POST /v1/rounds/{round_id}/settlement", lambda: api.post(settle))
    run("POST /v1/rounds/{round_id}/settlement (again)", lambda: api.post(settle))
    run("GET /v1/rounds/{round_id}", lambda: api.get(f"/v1/rounds/{rnd['round_id']}"))
    run("GET /v1/shoes/{shoe_id}", lambda: api.get(f"/v1/shoes/{shoe['shoe_id']}"))
    run("POST /v1/shoes/{shoe_id}/close", lambda: api.post(f"/v1/shoes/{shoe['shoe_id']}/close"))
    proof = f"/v1/shoes/{shoe['shoe_id']}/proof"
    run("GET /v1/shoes/{shoe_id}/proof (finalises)", lambda: api.get(proof, key=None))
    run("GET /v1/shoes/{shoe_id}/proof", lambda: api.get(proof, key=None))
    run("GET /v1/signing-keys", lambda: api.get("/v1/signing-keys", key=None))
    fairness = f"/v1/tables/{table['table_id']}/fairness"
    run("GET /v1/tables/{table_id}/fairness", lambda: api.get(fairness, key=None))
    _walk_trust_routes(api, run)
    _walk_table_routes(api, run, table["table_id"])
    _walk_betting_routes(api, run)
    _walk_operator_feed(api, run, operator_id, table["table_id"])
    return measured


def _walk_betting_routes(
    api: Client, run: Callable[[str, Callable[[], Response]], Response]
) -> None:
    """The betting window: each change is the table + live state in one read and one
    transaction (a slip confirmed again: the read alone); a from-book deal costs a deal's 2."""
    table = api.post(
        "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    ).body["table_id"]
    shoe = api.post(f"/v1/tables/{table}/shoes", {"client_seed": "rt-book"}).body["shoe_id"]
    api.post(f"/v1/shoes/{shoe}/rounds", {"bets": []})  # warm: the shoe and its ref key
    api.call("PUT", f"/v1/tables/{table}/seats/1", {"bettor_id": "rt-bob", "balance": 50_000})
    run("POST /v1/tables/{table_id}/betting", lambda: api.post(f"/v1/tables/{table}/betting"))
    slip = f"/v1/tables/{table}/bets/rt-bob"
    body = {"bets": [{"type": "banker", "amount": 1000}]}
    run("PUT /v1/tables/{table_id}/bets/{bettor_id}", lambda: api.call("PUT", slip, body))
    run("PUT /v1/tables/{table_id}/bets/{bettor_id} (again)", lambda: api.call("PUT", slip, body))
    run("DELETE /v1/tables/{table_id}/bets/{bettor_id}", lambda: api.call("DELETE", slip))
    api.call("PUT", slip, body)
    deal = f"/v1/shoes/{shoe}/rounds"
    dealt = run(
        "POST /v1/shoes/{shoe_id}/rounds (from_book)",
        lambda: api.post(deal, {"from_book": True}),
    ).body
    assert [b["bettor_id"] for b in dealt["bets"]] == ["rt-bob"], dealt


def _walk_table_routes(
    api: Client, run: Callable[[str, Callable[[], Response]], Response], table_id: str
) -> None:
    """Live tables: presence (each change: the table + live state in one read, one
    transaction; a no-op: the read alone), the table's event feed, and the same page again."""
    seat = f"/v1/tables/{table_id}/seats/2"
    body = {"bettor_id": "rt-alice", "balance": 50_000}
    run("PUT /v1/tables/{table_id}/seats/{seat}", lambda: api.call("PUT", seat, body))
    run("PUT /v1/tables/{table_id}/seats/{seat} (again)", lambda: api.call("PUT", seat, body))
    run("DELETE /v1/tables/{table_id}/seats/{seat}", lambda: api.call("DELETE", seat))
    watcher = f"/v1/tables/{table_id}/watchers/rt-wendy"
    run("PUT /v1/tables/{table_id}/watchers/{bettor_id}", lambda: api.call("PUT", watcher))
    run("DELETE /v1/tables/{table_id}/watchers/{bettor_id}", lambda: api.call("DELETE", watcher))
    feed = f"/v1/tables/{table_id}/events"
    query = "after=0&limit=50"
    page = run("GET /v1/tables/{table_id}/events", lambda: api.get(feed, query=query))
    assert page.body["events"], page.body
    tag = page.headers["etag"]
    again = run(
        "GET /v1/tables/{table_id}/events (304)",
        lambda: api.get(feed, query=query, headers={"If-None-Match": tag}),
    )
    assert again.status == 304
    state = f"/v1/tables/{table_id}/state"
    now = run("GET /v1/tables/{table_id}/state", lambda: api.get(state))
    assert now.body["shoe"] is not None, now.body
    same = {"If-None-Match": now.headers["etag"]}
    run("GET /v1/tables/{table_id}/state (304)", lambda: api.get(state, headers=same))
    api.get("/v1/tables")  # warm: the tiers' units (for 倍率) are now cached
    lobby = run("GET /v1/tables (lobby)", lambda: api.get("/v1/tables"))
    assert lobby.body["tables"], lobby.body
    seen = {"If-None-Match": lobby.headers["etag"]}
    run("GET /v1/tables (lobby, 304)", lambda: api.get("/v1/tables", headers=seen))
    banked = api.post(
        "/v1/tables",
        {"profile": "star-city", "tier": "star-city-fun", "banking": "player_banker"},
    ).body["table_id"]
    api.call("PUT", f"/v1/tables/{banked}/banker", {"bettor_id": "rt-pat", "balance": 35_000})
    urge = f"/v1/tables/{banked}/urge"
    run("POST /v1/tables/{table_id}/urge", lambda: api.post(urge, {"bettor_id": "rt-pat"}))


def _walk_operator_feed(
    api: Client,
    run: Callable[[str, Callable[[], Response]], Response],
    operator_id: str,
    table_id: str,
) -> None:
    """The operator feed: the table's events indexed (what FeedIndexerFunction does
    from the stream; not counted), then one page: the shards' heads, a Query of the shard with
    events, one BatchGetItem of the events, one of the money events' rounds."""
    from baccarat_api.runtime import get_runtime
    from baccarat_api.service import feed

    feed.index(get_runtime().repo, [(operator_id, table_id, 1)])
    page = run("GET /v1/events", lambda: api.get("/v1/events", query="limit=100"))
    assert any(e["settlement"] for e in page.body["events"]), page.body
    hook = {"url": "https://example.com/hook"}
    run("PUT /v1/webhook", lambda: api.call("PUT", "/v1/webhook", hook))
    run("GET /v1/webhook/failures", lambda: api.get("/v1/webhook/failures"))
    # a parked delivery (as 24 h of failures leave it), retried against a receiver that is up
    from baccarat_api.ports.records import WebhookFailure
    from baccarat_api.ports.webhooks import Sent
    from baccarat_api.ports.writes import Put

    rt = get_runtime()
    parked = WebhookFailure(operator_id, f"{table_id}:1", table_id, 1, 40, "", "", "HTTP 500")
    rt.repo.transact("park", [Put(parked)])

    class Up:
        def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
            return Sent(204)

    rt.sender = Up()  # type: ignore[misc,assignment]
    retry = f"/v1/webhook/failures/{table_id}:1/retry"
    done = run("POST /v1/webhook/failures/{event_id}/retry", lambda: api.post(retry))
    assert done.body["delivered"], done.body
    del rt.sender
    run("DELETE /v1/webhook", lambda: api.call("DELETE", "/v1/webhook"))


def _walk_trust_routes(api: Client, run: Callable[[str, Callable[[], Response]], Response]) -> None:
    """Idempotency costs: every POST with an ``Idempotency-Key`` (its record is read in the same
    round trip as the item, and written in the same transaction) and its replay (1); void; the
    audit (one Query)."""

    def keyed(name: str, path: str, body: Any = None) -> Response:
        headers = {"Idempotency-Key": f"rt-{name}-{path}"}
        first = run(f"{name} (Idempotency-Key)", lambda: api.post(path, body, headers=headers))
        replay = run(f"{name} (replay)", lambda: api.post(path, body, headers=headers))
        assert replay.body == first.body
        return first

    # no squeeze: every card shown at the deal, the round settled at once
    table_body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
                  "squeeze_seconds": 0}  # fmt: skip
    table = keyed("POST /v1/tables", "/v1/tables", table_body).body
    shoe = keyed(
        "POST /v1/tables/{table_id}/shoes",
        f"/v1/tables/{table['table_id']}/shoes",
        {"client_seed": "rt"},
    ).body
    rounds = f"/v1/shoes/{shoe['shoe_id']}/rounds"
    api.post(rounds, {"bets": []})  # warm: the shoe is now derived
    dealt = keyed("POST /v1/shoes/{shoe_id}/rounds", rounds, {"bets": star_city_bets()}).body
    keyed("POST /v1/rounds/{round_id}/settlement", f"/v1/rounds/{dealt['round_id']}/settlement")
    to_void = api.post(rounds, {"bets": star_city_bets()}).body["round_id"]
    void = f"/v1/rounds/{to_void}/void"
    run("POST /v1/rounds/{round_id}/void", lambda: api.post(void, {"reason": "misdeal"}))
    run("POST /v1/rounds/{round_id}/void (again)", lambda: api.post(void, {"reason": "misdeal"}))
    keyed_void = api.post(rounds, {"bets": star_city_bets()}).body["round_id"]
    keyed("POST /v1/rounds/{round_id}/void", f"/v1/rounds/{keyed_void}/void", {"reason": "misdeal"})
    keyed("POST /v1/shoes/{shoe_id}/close", f"/v1/shoes/{shoe['shoe_id']}/close")
    run(
        "GET /v1/tables/{table_id}/audit",
        lambda: api.get(f"/v1/tables/{table['table_id']}/audit"),
    )
    # reconciliation: one table's rounds of a day are one Query of its RoundsByDay shard; the
    # whole day (the report, or a listing of every table) one Query per shard (and per page)
    run(
        "GET /v1/rounds?table_id=",
        lambda: api.get("/v1/rounds", query=f"table_id={table['table_id']}"),
    )
    run(
        "GET /v1/reports/daily",
        lambda: api.get("/v1/reports/daily", query=f"date={dealt['dealt_at'][:10]}"),
    )
