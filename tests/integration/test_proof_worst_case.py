"""The worst-case proof: an 8-deck bid-squeeze shoe on a player-banker table, EVERY
round dealt with the worst case of every limit (200 bets, a distinct 64-character bettor id per
bet, personal limits on every type, the largest amounts: :mod:`support.worst_case`), settled or
voided with the longest note, played to the cut card — then finalised by the first proof read and
served page by page through the read function's real handler, on **DynamoDB Local** (which, unlike
moto, enforces the 400 KB item limit). Asserted: every stored page part is an item under the
limit, every page ≤ the split rule's budget (+ its ``page`` member), every Lambda response (the
proxy envelope mangum hands to Lambda) far under Lambda's 6 MB, each page read is one
``BatchGetItem`` and no KMS call, and ``baccarat verify`` (the CLI, in process, with the keys of
``GET /v1/signing-keys``) says verified over all the pages."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from support.roundtrips import count_calls
from support.stack import Api, Stack
from support.worst_case import WORST_NOTE, worst_deal

from baccarat import proofdoc
from baccarat_api import limits
from baccarat_api.adapters.dynamodb import pages as parts_of
from baccarat_api.adapters.dynamodb.codec import item_size
from baccarat_dev.template import REPO_ROOT
from baccarat_verify.cli import main as baccarat

TIER = "bid-squeeze-high"
#: Every VOID_EVERY-th round is voided (with the longest note: its replaced settlement is shown
#: too), the others settled.
VOID_EVERY = 10


def _tier() -> dict[str, Any]:
    doc = json.loads((REPO_ROOT / "infra" / "tiers.json").read_text(encoding="utf-8"))
    (found,) = [t for t in doc["tiers"] if t["id"] == TIER]
    return dict(found)


def _proof_items(stack: Stack, shoe_id: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    args: dict[str, Any] = {
        "TableName": os.environ["STATE_TABLE"],
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"PROOF#{shoe_id}"}},
        "ConsistentRead": True,
    }
    while True:
        page = stack.dynamodb.query(**args)
        out += page["Items"]
        if "LastEvaluatedKey" not in page:
            return out
        args["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_the_worst_case_shoe_is_finalised_served_in_pages_and_verified(
    dynamodb_local_stack: Stack, dynamodb_local_api: Api, tmp_path: Path
) -> None:
    api, stack = dynamodb_local_api, dynamodb_local_stack
    tier = _tier()
    body = worst_deal("bid-squeeze", "player_banker", tier)
    # Big and Small close after round 20: later rounds stake Player (its maximum) instead
    late = {**body, "bets": [
        {**b, "type": "player", "amount": tier["limits"]["player"]["max"]}
        if b["type"] in ("big", "small") else b
        for b in body["bets"]
    ]}  # fmt: skip
    table = api.post("/v1/tables", {"squeeze_seconds": 0, "profile": "bid-squeeze", "tier": TIER,
                                    "banking": "player_banker"})  # fmt: skip
    assert table.status == 201, table.body
    table_id = table.body["table_id"]
    shoe = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "é" * 128})
    assert shoe.status == 201, shoe.body
    shoe_id = shoe.body["shoe_id"]

    started = time.monotonic()
    rounds = 0
    while True:
        dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", body if rounds < 20 else late)
        assert dealt.status == 201, dealt.body
        rounds += 1
        round_id = dealt.body["round_id"]
        if rounds % VOID_EVERY == 0:
            void = {"reason": "technical_fault", "note": WORST_NOTE}
            assert api.post(f"/v1/rounds/{round_id}/void", void).status == 200
        else:
            assert api.post(f"/v1/rounds/{round_id}/settlement").status == 200
        if dealt.body["shoe_status"] == "ended":
            break
    played = time.monotonic() - started

    # the first read finalises (the Query of the shoe's rounds, the pages, one KMS Sign)
    calls = count_calls()
    first = api.get(f"/v1/shoes/{shoe_id}/proof", key=None)
    assert first.status == 200, first.body
    finalising = (dict(calls.dynamodb), dict(calls.kms))
    assert calls.kms["Sign"] == 1, finalising
    count = first.body["page"]["count"]
    assert count >= 2  # this shoe does not fit one page
    served: list[dict[str, Any]] = []
    lambda_bytes: list[int] = []
    page_bytes: list[int] = []
    for k in range(1, count + 1):
        calls.clear()
        got = api.call("GET", f"/v1/shoes/{shoe_id}/proof", key=None, query=f"page={k}")
        assert got.status == 200, got.body
        assert calls.dynamodb == {"BatchGetItem": 1} and not calls.kms, (k, calls.dynamodb)
        served.append(got.body)
        lambda_bytes.append(got.lambda_bytes)
        page_bytes.append(len(got.text.encode("utf-8")))
    assert served[0] == first.body
    after = api.call("GET", f"/v1/shoes/{shoe_id}/proof", key=None, query=f"page={count + 1}")
    assert after.status == 404

    items = _proof_items(stack, shoe_id)
    part_sizes = [item_size(i) for i in items if i["sk"]["S"].startswith("PAGE#")]
    print(
        f"\nworst-case shoe: {rounds} rounds × {len(body['bets'])} bets dealt and resolved in "
        f"{played:.0f} s; {count} pages of {page_bytes} bytes; stored parts {part_sizes} bytes "
        f"(≤ {parts_of.MAX_PART_ITEM_BYTES} by construction); Lambda responses {lambda_bytes} "
        f"bytes (limit {limits.LAMBDA_RESPONSE_BYTES}); the finalising read: {finalising}"
    )
    assert rounds >= 60  # 8 decks to the cut card
    assert sum(len(p["rounds"]) for p in served) == rounds
    assert max(page_bytes) <= proofdoc.PAGE_BUDGET + parts_of.PAGE_MEMBER_BYTES + 200  # signature
    assert max(lambda_bytes) <= 1_100_000 < limits.LAMBDA_RESPONSE_BYTES
    assert max(part_sizes) <= parts_of.MAX_PART_ITEM_BYTES < limits.DYNAMODB_ITEM_BYTES
    text = json.dumps(served)
    assert "b.001:" not in text and '"bettor_id"' not in text and '"balance' not in text

    # the CLI (the same `baccarat verify` a stranger runs) over the saved pages and the keys
    files = []
    for k, page in enumerate(served, start=1):
        path = tmp_path / f"page{k}.json"
        path.write_text(json.dumps(page), encoding="utf-8")
        files.append(str(path))
    keys = api.get("/v1/signing-keys", key=None)
    (tmp_path / "keys.json").write_text(keys.text, encoding="utf-8")
    assert baccarat(["verify", "--keys", str(tmp_path / "keys.json"), *files]) == 0


@pytest.fixture(autouse=True)
def _quiet_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 160-odd requests' log lines are not what this test reads."""
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "WARNING")
