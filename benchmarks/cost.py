"""Cost per million rounds dealt and settled, from what this run measured: the request units of
each route (its DynamoDB calls and the items' sizes), its warm duration (in process, moto in
memory: an upper-bound proxy of the handler's time in Lambda, where a DynamoDB call takes a few
ms), the memory setting of template.yaml and the prices below.

A round = one deal (with bets) + one settlement; a shoe's commit and close are spread over its
rounds (star-city: 30), as is the KMS Decrypt of a container's first deal of a shoe."""

from __future__ import annotations

import math

from baccarat_dev.template import load

from .api import Measured

#: us-east-1 list prices (USD) — ASSUMPTIONS, as published in 2025; check the AWS pricing pages.
PRICES = {
    "lambda_gb_second_arm64": 0.0000133334,
    "lambda_request": 0.20 / 1e6,
    "dynamodb_write_request_unit": 0.625 / 1e6,  # on-demand, since the Nov 2024 price cut
    "dynamodb_read_request_unit": 0.125 / 1e6,
    "http_api_request": 1.00 / 1e6,  # first 300 M a month
    "kms_request": 0.03 / 1e4,
}
PRICES_AS_OF = "2025 list prices, us-east-1 (assumption)"
ROUNDS_PER_SHOE = 30

DEAL = "POST /v1/shoes/{shoe_id}/rounds"
SETTLE = "POST /v1/rounds/{round_id}/settlement"
COMMIT = "POST /v1/tables/{table_id}/shoes"
CLOSE = "POST /v1/shoes/{shoe_id}/close"


def memory_gb() -> float:
    return float(load()["Globals"]["Function"]["MemorySize"]) / 1024


def run(m: Measured) -> list[str]:
    gb = memory_gb()
    per_round = {DEAL: 1.0, SETTLE: 1.0, COMMIT: 1 / ROUNDS_PER_SHOE, CLOSE: 1 / ROUNDS_PER_SHOE}
    lam = ddb_r = ddb_w = api = 0.0
    for route, n in per_round.items():
        if route not in m.p50:
            continue
        billed_ms = math.ceil(m.p50[route] * 1e3)
        lam += n * (billed_ms / 1e3 * gb * PRICES["lambda_gb_second_arm64"])
        lam += n * PRICES["lambda_request"]
        read, write = m.units.get(route, (0.0, 0.0))
        ddb_r += n * read * PRICES["dynamodb_read_request_unit"]
        ddb_w += n * write * PRICES["dynamodb_write_request_unit"]
        api += n * PRICES["http_api_request"]
    # KMS: commit = Decrypt + Encrypt, close = Decrypt, first deal of a shoe on a container =
    # Decrypt (one container per table assumed).
    kms = 4 / ROUNDS_PER_SHOE * PRICES["kms_request"]
    rows = [
        ("Lambda (arm64, requests + GB-s)", lam),
        ("DynamoDB writes (on-demand)", ddb_w),
        ("DynamoDB reads (on-demand)", ddb_r),
        ("API Gateway HTTP API", api),
        ("KMS", kms),
    ]
    total = sum(c for _, c in rows)
    lines = [
        f"## Cost per million rounds dealt and settled ({PRICES_AS_OF}; Lambda {gb * 1024:.0f} MB; "
        f"{ROUNDS_PER_SHOE} rounds a shoe)",
        *(f"{name:<36}{cost * 1e6:9.2f} USD" for name, cost in rows),
        f"{'total':<36}{total * 1e6:9.2f} USD  (logs, X-Ray and storage not included)",
        f"# per round: deal {m.units.get(DEAL, (0, 0))[1]:.0f} WRU + settle "
        f"{m.units.get(SETTLE, (0, 0))[1]:.0f} WRU; durations (p50, in process) deal "
        f"{m.p50.get(DEAL, 0) * 1e3:.0f} ms, settle {m.p50.get(SETTLE, 0) * 1e3:.0f} ms",
    ]
    return lines
