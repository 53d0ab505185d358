"""Cost per million rounds dealt and settled, from what this run measured: the request units of
each route (its DynamoDB calls and the items' sizes), its warm duration, the memory setting of
template.yaml and the prices below.

The duration billed is modelled twice, both from this run: (1) the route's p50 in process on
moto in memory (an upper bound: moto's own Python work is far slower than DynamoDB answering);
(2) our own p50 (the overhead section: DynamoDB and KMS answered instantly) plus each DynamoDB
call of the route at :data:`DYNAMODB_CALL_MS` — an ASSUMPTION (DynamoDB's single-digit-ms
latency in-region, plus the SDK), not a measurement. The total uses (2) when the overhead
section ran.

A round = one deal (with bets) + one settlement; a shoe's commit and close are spread over its
rounds (star-city: 30), as is the KMS Decrypt of a container's first deal of a shoe."""

from __future__ import annotations

import math

from baccarat_dev.template import load

from .api import FEED_AFTER_DEAL, FEED_AFTER_SETTLE, Measured

#: us-east-1 list prices (USD) — ASSUMPTIONS, as published in 2025; check the AWS pricing pages.
PRICES = {
    "lambda_gb_second_arm64": 0.0000133334,
    "lambda_request": 0.20 / 1e6,
    "dynamodb_write_request_unit": 0.625 / 1e6,  # on-demand, since the Nov 2024 price cut
    "dynamodb_read_request_unit": 0.125 / 1e6,
    "http_api_request": 1.00 / 1e6,  # first 300 M a month
    "kms_request": 0.03 / 1e4,
    # the push channel (docs/architecture.md "Push: AppSync Events")
    "appsync_events_operation": 1.00 / 1e6,  # each publish and each delivery
    "appsync_connection_minute": 0.08 / 1e6,
    "apigw_websocket_message": 1.00 / 1e6,  # billed per 32 KB
    "apigw_websocket_connection_minute": 0.25 / 1e6,
}
PRICES_AS_OF = "2025 list prices, us-east-1 (assumption)"
ROUNDS_PER_SHOE = 30
#: Assumed billed time of one feed-indexer invocation (ms): its two DynamoDB calls and a little.
FEED_MS = 15.0
#: Assumed time of one DynamoDB call from Lambda in the same region, SDK included (ms).
DYNAMODB_CALL_MS = 6.0

DEAL = "POST /v1/shoes/{shoe_id}/rounds"
SETTLE = "POST /v1/rounds/{round_id}/settlement"
COMMIT = "POST /v1/tables/{table_id}/shoes"
CLOSE = "POST /v1/shoes/{shoe_id}/close"


def memory_gb() -> float:
    return float(load()["Globals"]["Function"]["MemorySize"]) / 1024


def billed_ms(m: Measured, route: str, ours: dict[str, float] | None) -> int:
    """Model (2) when ``ours`` has the route, else model (1); Lambda bills whole ms."""
    if ours is not None and route in ours:
        return math.ceil(ours[route] * 1e3 + m.calls.get(route, 0.0) * DYNAMODB_CALL_MS)
    return math.ceil(m.p50[route] * 1e3)


def run(m: Measured, ours: dict[str, float] | None = None) -> list[str]:
    gb = memory_gb()
    per_round = {DEAL: 1.0, SETTLE: 1.0, COMMIT: 1 / ROUNDS_PER_SHOE, CLOSE: 1 / ROUNDS_PER_SHOE}
    lam = ddb_r = ddb_w = api = feed_w = feed_r = feed_lam = 0.0
    for route, n in per_round.items():
        if route not in m.p50:
            continue
        ms = billed_ms(m, route, ours)
        lam += n * (ms / 1e3 * gb * PRICES["lambda_gb_second_arm64"])
        lam += n * PRICES["lambda_request"]
        read, write = m.units.get(route, (0.0, 0.0))
        ddb_r += n * read * PRICES["dynamodb_read_request_unit"]
        ddb_w += n * write * PRICES["dynamodb_write_request_unit"]
        api += n * PRICES["http_api_request"]
    # the operator feed's indexer (FeedIndexerFunction, from the stream): its DynamoDB units
    # after each deal and settlement, and one invocation each (a quiet table: a batch each)
    for route in (FEED_AFTER_DEAL, FEED_AFTER_SETTLE):
        read, write = m.units.get(route, (0.0, 0.0))
        feed_w += write * PRICES["dynamodb_write_request_unit"]
        feed_r += read * PRICES["dynamodb_read_request_unit"]
        if route in m.units:
            feed_lam += (
                PRICES["lambda_request"] + FEED_MS / 1e3 * gb * PRICES["lambda_gb_second_arm64"]
            )
    # KMS: commit = Decrypt + Encrypt, close = Decrypt, first deal of a shoe on a container =
    # Decrypt (one container per table assumed).
    kms = 4 / ROUNDS_PER_SHOE * PRICES["kms_request"]
    rows = [
        ("Lambda (arm64, requests + GB-s)", lam),
        ("DynamoDB writes (on-demand)", ddb_w),
        ("DynamoDB reads (on-demand)", ddb_r),
        ("API Gateway HTTP API", api),
        ("KMS", kms),
        ("feed indexer: DynamoDB writes", feed_w),
        ("feed indexer: reads + Lambda", feed_r + feed_lam),
    ]
    total = sum(c for _, c in rows)
    lines = [
        f"## Cost per million rounds dealt and settled ({PRICES_AS_OF}; Lambda {gb * 1024:.0f} MB; "
        f"{ROUNDS_PER_SHOE} rounds a shoe)",
        *(f"{name:<36}{cost * 1e6:9.2f} USD" for name, cost in rows),
        f"{'total':<36}{total * 1e6:9.2f} USD  (logs, X-Ray and storage not included)",
        f"# per round: deal {m.units.get(DEAL, (0, 0))[1]:.1f} WRU + settle "
        f"{m.units.get(SETTLE, (0, 0))[1]:.1f} WRU (means over the session); the feed indexer "
        f"{m.units.get(FEED_AFTER_DEAL, (0, 0))[1]:.1f} + "
        f"{m.units.get(FEED_AFTER_SETTLE, (0, 0))[1]:.1f} WRU (a batch per request; a busy "
        "operator's batches share the shard head's update); webhook delivery not included",
        "# billed duration: "
        + (
            f"ours + {DYNAMODB_CALL_MS:g} ms per DynamoDB call (assumed): "
            if ours is not None
            else "moto-in-process p50 (upper bound): "
        )
        + ", ".join(
            f"{name} {billed_ms(m, route, ours)} ms"
            for name, route in (("deal", DEAL), ("settle", SETTLE))
            if route in m.p50
        )
        + (
            "; on moto in process the Lambda line would be "
            f"{_lambda_only(m, gb, per_round) * 1e6:.2f} USD"
            if ours is not None
            else ""
        ),
    ]
    return lines


def _lambda_only(m: Measured, gb: float, per_round: dict[str, float]) -> float:
    """The Lambda line with model (1)."""
    return sum(
        n * (billed_ms(m, r, None) / 1e3 * gb * PRICES["lambda_gb_second_arm64"])
        + n * PRICES["lambda_request"]
        for r, n in per_round.items()
        if r in m.p50
    )
