"""The API in this process, moto in memory (``mock_aws``), every request a real HTTP API v2
event through the Lambda handler of the function that serves its route:

* DynamoDB and KMS round trips per route on a warm container — the walk and the counting code
  of ``tests/integration/test_round_trips.py`` (``tests/support/roundtrips.py``), which pins
  these numbers;
* warm latency per route (p50, p99) over a session of tables, shoes, rounds and settlements,
  the events carrying the Lambda authorizer's context as API Gateway hands it over;
* the size of each kind of item in DynamoDB's own accounting (for docs/scaling.md)."""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from typing import Any

from baccarat_api.adapters.dynamodb.codec import item_size

from ._lambda import LambdaContext, LocalAws, http_event, moto_in_memory, percentile, route_of

SHOES = 3
ROUNDS = 20


def round_trips(aws: LocalAws) -> list[str]:
    from baccarat_dev.template import routes
    from tests.support.roundtrips import count_calls, walk_routes
    from tests.support.stack import Api

    api = Api(aws.key)
    calls = count_calls()
    with redirect_stdout(io.StringIO()):  # the service's metric lines
        counted = walk_routes(api, calls, aws.operator_id)
    lines = [
        "## DynamoDB round trips per request (warm container; botocore event hooks; the walk "
        "pinned by tests/integration/test_round_trips.py)",
        f"{'route':<50}{'DynamoDB':>9}{'KMS':>5}  operations",
    ]
    for name, (ddb, kms, ops) in counted.items():
        detail = ", ".join(f"{op} {n}" for op, n in sorted(ops.items()))
        lines.append(f"{name:<50}{ddb:>9}{kms:>5}  {detail}")
    walked = {name.split(" (")[0] for name in counted}
    missing = sorted({r.route_key for r in routes()} - walked)
    if missing:
        lines.append(f"(routes not in the pinned walk yet: {', '.join(missing)})")
    return lines


class Capacity:
    """Every DynamoDB call of a request with its parameters and parsed answer (botocore event
    hooks on the service's own client), for request units by DynamoDB's rules."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    def register(self) -> None:
        from baccarat_api import runtime

        events = runtime.get_runtime().dynamodb.meta.events
        events.register("before-parameter-build.dynamodb", self._params)
        events.register("after-call.dynamodb", self._parsed)

    def _params(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        self.calls.append((model.name, dict(params), {}))

    def _parsed(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if self.calls and self.calls[-1][0] == model.name:
            self.calls[-1][2].update(parsed)

    def take(self) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        out, self.calls = self.calls, []
        return out


def request_units(
    calls: list[tuple[str, dict[str, Any], dict[str, Any]]], size_of: dict[tuple[str, str], int]
) -> tuple[float, float]:
    """(read, write) request units of one request's calls: reads 1 per 4 KB strongly consistent
    (½ eventually), writes 1 per 1 KB, both doubled inside transactions; an update or condition
    check is charged on the item's size (its final size here: an upper bound)."""

    def kb(n: int, unit: int) -> int:
        return max(1, -(-n // unit))

    def key_size(key: dict[str, Any]) -> int:
        return size_of.get((key["pk"]["S"], key["sk"]["S"]), 0)

    read = write = 0.0
    for op, params, parsed in calls:
        consistent = 1.0 if params.get("ConsistentRead") else 0.5
        if op == "GetItem":
            read += kb(item_size(parsed.get("Item", {})), 4096) * consistent
        elif op == "Query":
            total = sum(item_size(i) for i in parsed.get("Items", []))
            read += kb(total, 4096) * consistent
        elif op == "BatchGetItem":
            for items in parsed.get("Responses", {}).values():
                read += sum(kb(item_size(i), 4096) for i in items) * 0.5
        elif op == "PutItem":
            write += kb(item_size(params["Item"]), 1024)
        elif op in ("UpdateItem", "DeleteItem"):
            write += kb(key_size(params["Key"]), 1024)
        elif op == "TransactWriteItems":
            for entry in params["TransactItems"]:
                ((kind, body),) = entry.items()
                size = item_size(body["Item"]) if kind == "Put" else key_size(body["Key"])
                write += 2 * kb(size, 1024)
    return read, write


class Session:
    """Invokes each route's handler with a real v2 event, timing every call by route."""

    def __init__(self, aws: LocalAws) -> None:
        from tests.support.stack import function_module

        self.aws = aws
        self.module = function_module
        self.samples: dict[str, list[float]] = {}
        self.errors: list[str] = []
        self.capacity = Capacity()
        self.capacity.register()
        self.calls: dict[str, list[list[tuple[str, dict[str, Any], dict[str, Any]]]]] = {}

    def index(self, label: str, table_id: str) -> None:
        """The feed indexer over ``table_id``'s new events (its calls recorded, not timed)."""
        from baccarat_api.runtime import get_runtime
        from baccarat_api.service import feed

        self.capacity.take()
        feed.index(get_runtime().repo, [(self.aws.operator_id, table_id, 1)])
        self.calls.setdefault(label, []).append(self.capacity.take())

    def call(self, label: str, method: str, path: str, body: Any = None, key: bool = True) -> Any:
        route = route_of(method, path)
        event = http_event(
            method,
            path,
            body,
            key=self.aws.key if key else None,
            operator_id=self.aws.operator_id if key else None,
        )
        handler = self.module(route.code_uri).handler
        t0 = time.perf_counter()
        out = handler(event, LambdaContext(function_name=route.function))
        self.samples.setdefault(label, []).append(time.perf_counter() - t0)
        self.calls.setdefault(label, []).append(self.capacity.take())
        if out["statusCode"] >= 300:
            self.errors.append(f"{label}: {out['statusCode']} {out['body'][:200]}")
        return json.loads(out["body"]) if out.get("body") else None


#: The feed indexer's work after one request's events, as FeedIndexerFunction does it from the
#: stream when each request's events arrive in a batch of their own (a quiet table: each batch
#: moves the shard's head too; a busy operator's batch shares one head update among its tables).
FEED_AFTER_DEAL = "feed index (a deal's events)"
FEED_AFTER_SETTLE = "feed index (a settlement's events)"


def latency(aws: LocalAws, feed: bool = False) -> tuple[list[str], Session]:
    """The session; with ``feed``, the indexer's calls after each deal and settlement too
    (their request units, under :data:`FEED_AFTER_DEAL` / :data:`FEED_AFTER_SETTLE`)."""
    from tests.support.stack import star_city_bets

    s = Session(aws)
    bets = star_city_bets()
    table_body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    with redirect_stdout(io.StringIO()):
        s.call("warm-up", "GET", "/v1/tiers")
        for _ in range(SHOES):
            table = s.call("POST /v1/tables", "POST", "/v1/tables", table_body)["table_id"]
            s.call("GET /v1/tables/{table_id}", "GET", f"/v1/tables/{table}")
            shoe = s.call(
                "POST /v1/tables/{table_id}/shoes",
                "POST",
                f"/v1/tables/{table}/shoes",
                {"client_seed": "latency"},
            )["shoe_id"]
            for r in range(ROUNDS):
                label = "POST /v1/shoes/{shoe_id}/rounds" + (
                    " (first of the shoe: KMS + derive)" if r == 0 else ""
                )
                rnd = s.call(label, "POST", f"/v1/shoes/{shoe}/rounds", {"bets": bets})
                if feed:
                    s.index(FEED_AFTER_DEAL, table)
                settle = f"/v1/rounds/{rnd['round_id']}/settlement"
                s.call("POST /v1/rounds/{round_id}/settlement", "POST", settle)
                if feed:
                    s.index(FEED_AFTER_SETTLE, table)
                s.call("POST /v1/rounds/{round_id}/settlement (again)", "POST", settle)
                s.call("GET /v1/rounds/{round_id}", "GET", f"/v1/rounds/{rnd['round_id']}")
                s.call("GET /v1/shoes/{shoe_id}", "GET", f"/v1/shoes/{shoe}")
            s.call("POST /v1/shoes/{shoe_id}/close", "POST", f"/v1/shoes/{shoe}/close")
            for _ in range(ROUNDS // 2):
                s.call("GET /v1/shoes/{shoe_id}/proof", "GET", f"/v1/shoes/{shoe}/proof", key=False)
                s.call("GET /v1/tiers", "GET", "/v1/tiers")
    s.samples.pop("warm-up", None)
    s.calls.pop("warm-up", None)
    lines = [
        "## Warm latency per route, in process: Lambda handler ← real v2 event, moto in memory",
        f"{'route':<58}{'n':>4}{'p50':>10}{'p99':>10}",
    ]
    for label, xs in s.samples.items():
        lines.append(
            f"{label:<58}{len(xs):>4}{percentile(xs, 50) * 1e3:7.2f} ms"
            f"{percentile(xs, 99) * 1e3:7.2f} ms"
        )
    lines.append(f"errors: {len(s.errors)}" + (f" — {s.errors[:3]}" if s.errors else ""))
    return lines, s


# --- item sizes ---------------------------------------------------------------------------


_KINDS: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    ("table", lambda pk, sk: sk == "TABLE"),
    ("shoe", lambda pk, sk: re.fullmatch(r"SHOE#\d+", sk) is not None),
    ("shoe: constants (put at its commit)", lambda pk, sk: sk.endswith("#COMMIT")),
    ("round (with locked bets, settled)", lambda pk, sk: "#ROUND#" in sk),
    ("proof", lambda pk, sk: pk.startswith("PROOF#") and sk == "PROOF"),
    ("proof: public round money", lambda pk, sk: pk.startswith("PROOF#") and sk != "PROOF"),
    ("idempotency record", lambda pk, sk: "#IDEM#" in pk),
)


def item_sizes(aws: LocalAws) -> tuple[list[str], dict[tuple[str, str], int]]:
    """Sizes of every item the session left in the tables, by kind (bytes); and by key."""
    from baccarat_api import runtime

    client = runtime.get_runtime().dynamodb
    by_kind: dict[str, list[int]] = {}
    size_of: dict[tuple[str, str], int] = {}
    for name in (aws.names["StateTable"], aws.names["ConfigTable"]):
        for page in client.get_paginator("scan").paginate(TableName=name):
            for item in page["Items"]:
                pk, sk = item["pk"]["S"], item["sk"]["S"]
                size_of[pk, sk] = item_size(item)
                if name == aws.names["StateTable"]:
                    kind = next((k for k, test in _KINDS if test(pk, sk)), "other")
                    by_kind.setdefault(kind, []).append(item_size(item))
    lines = [
        "## Item sizes (DynamoDB accounting; 1 WCU per 1 KB written, 1 RCU per 4 KB read)",
        f"{'item':<36}{'n':>4}{'median':>9}{'max':>9}",
    ]
    for kind, sizes in sorted(by_kind.items()):
        sizes.sort()
        lines.append(f"{kind:<36}{len(sizes):>4}{sizes[len(sizes) // 2]:>7} B{sizes[-1]:>7} B")
    return lines, size_of


@dataclass
class Measured:
    """What the cost model needs: per route, p50 duration and mean request units."""

    p50: dict[str, float] = field(default_factory=dict)
    units: dict[str, tuple[float, float]] = field(default_factory=dict)  # (read, write) per call
    calls: dict[str, float] = field(default_factory=dict)  # DynamoDB calls per request (mean)


def units_by_route(s: Session, size_of: dict[tuple[str, str], int]) -> list[str]:
    lines = [
        "## DynamoDB request units per request (from the calls above and the items' sizes)",
        f"{'route':<58}{'read':>7}{'write':>7}",
    ]
    for label, per_request in s.calls.items():
        units = [request_units(calls, size_of) for calls in per_request]
        r = sum(u[0] for u in units) / len(units)
        w = sum(u[1] for u in units) / len(units)
        lines.append(f"{label:<58}{r:7.1f}{w:7.1f}")
    return lines


def run() -> tuple[list[str], Measured]:
    with moto_in_memory() as aws:
        lines = round_trips(aws)
        lat, session = latency(aws, feed=True)
        lines += ["", *lat]
        sizes, size_of = item_sizes(aws)
        lines += ["", *sizes, "", *units_by_route(session, size_of)]
        measured = Measured()
        for label, xs in session.samples.items():
            measured.p50[label] = percentile(xs, 50)
        for label in session.calls:
            units = [request_units(c, size_of) for c in session.calls[label]]
            measured.calls[label] = sum(map(len, session.calls[label])) / len(units)
            measured.units[label] = (
                sum(u[0] for u in units) / len(units),
                sum(u[1] for u in units) / len(units),
            )
    return lines, measured


if __name__ == "__main__":
    print("\n".join(run()[0]))
