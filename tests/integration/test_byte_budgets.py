"""Byte budgets: the worst case of every limit at once — 200 bets, bettor ids of 64
characters, personal limits on every bet type, the largest amounts (:mod:`support.worst_case`) —
for both profiles and both banking modes, through deal, settlement, void, auto-settlement and
idempotent replay, by the real handlers (real HTTP API v2 events, the scheduled event) on
**DynamoDB Local** (Amazon's engine enforces the 400 KB item limit; moto does not). Every item
and every answer is measured against the worst case computed from the limits
(:func:`baccarat_api.limits.worst_case_bytes`), and that against the budgets. The same run pins
the stable maps: a first answer, its replay and a later read are the same bytes, every map in
the documented order (bettors by their first bet, then the player-banker)."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest
from support.stack import (
    Api,
    LambdaContext,
    Stack,
    function_module,
    make_due,
    scheduled_event,
)
from support.worst_case import TIERS, WORST_NOTE, worst_deal

from baccarat_api import limits
from baccarat_api.adapters.dynamodb.codec import item_size
from baccarat_api.adapters.dynamodb.keys import IDEM_SK


def _tier(tier_id: str) -> dict[str, Any]:
    from baccarat_dev.template import REPO_ROOT

    doc = json.loads((REPO_ROOT / "infra" / "tiers.json").read_text(encoding="utf-8"))
    (found,) = [t for t in doc["tiers"] if t["id"] == tier_id]
    return dict(found)


def _ordered(doc: Any) -> str:
    """JSON with the keys in the order given (so equal strings mean equal order too)."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


class Items:
    """The stored items of the test's own tables on DynamoDB Local, as the engine holds them."""

    def __init__(self, stack: Stack) -> None:
        self.dynamodb = stack.dynamodb
        self.table = os.environ["STATE_TABLE"]

    def all(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"TableName": self.table, "ConsistentRead": True}
        while True:
            page = self.dynamodb.scan(**kwargs)
            out += page["Items"]
            if "LastEvaluatedKey" not in page:
                return out
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def rounds(self) -> dict[int, int]:
        return {
            int(i["round_number"]["N"]): item_size(i)
            for i in self.all()
            if "#ROUND#" in i["sk"]["S"]
        }

    def shoes(self) -> list[int]:
        return [item_size(i) for i in self.all() if re.fullmatch(r"SHOE#\d+", i["sk"]["S"])]

    def idempotency(self) -> list[int]:
        return [item_size(i) for i in self.all() if i["sk"]["S"] == IDEM_SK]


@pytest.mark.parametrize("banking", ["house", "player_banker"])
@pytest.mark.parametrize("profile", ["star-city", "bid-squeeze"])
def test_the_worst_case_of_every_limit_fits_its_budget(
    dynamodb_local_stack: Stack,
    dynamodb_local_api: Api,
    monkeypatch: pytest.MonkeyPatch,
    profile: str,
    banking: str,
) -> None:
    api, stack = dynamodb_local_api, dynamodb_local_stack
    worst = limits.worst_case_bytes(profile)
    assert worst["round_item"] <= limits.ROUND_ITEM_BUDGET_BYTES < limits.DYNAMODB_ITEM_BYTES
    assert worst["lambda_response"] < limits.LAMBDA_RESPONSE_BYTES
    body = worst_deal(profile, banking, _tier(TIERS[profile]))
    assert len(json.dumps(body).encode()) < limits.MAX_BODY_BYTES
    table = api.post("/v1/tables", {"profile": profile, "tier": TIERS[profile], "banking": banking,
                                    "settle_deadline_seconds": 1,
                                    "squeeze_seconds": 0})  # fmt: skip
    assert table.status == 201, table.body
    table_id = table.body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "é" * 128}).body["shoe_id"]

    sizes: dict[str, int] = {}
    lambda_sizes: list[int] = []

    def measured(name: str, r: Any, status: int) -> Any:
        assert r.status == status, r.body
        sizes[name] = max(sizes.get(name, 0), len(r.text.encode("utf-8")))
        lambda_sizes.append(r.lambda_bytes)
        return r

    def replayed(path: str, payload: Any, key: str, status: int, name: str) -> Any:
        first = measured(name, api.post(path, payload, headers={"Idempotency-Key": key}), status)
        again = measured(name, api.post(path, payload, headers={"Idempotency-Key": key}), status)
        assert again.headers.get("idempotent-replayed") == "true"
        assert again.text == first.text  # byte for byte, rendered again from the round
        return first

    # round 1: dealt, left to the auto-settlement sweep (the scheduled function)
    r1 = measured("deal_response", api.post(f"/v1/shoes/{shoe_id}/rounds", body), 201).body
    again = api.post(f"/v1/shoes/{shoe_id}/rounds", {**body, "round_number": 1})
    assert again.status == 201 and again.headers.get("idempotent-replayed") == "true"
    make_due(stack.dynamodb, os.environ["STATE_TABLE"], "operator-a", table_id)
    out = function_module("functions/auto_settle/").handler(
        scheduled_event(), LambdaContext(function_name="AutoSettleFunction")
    )
    assert out["settled"] == [r1["round_id"]], out
    # round 2: dealt and settled with keys, both replayed
    r2 = replayed(f"/v1/shoes/{shoe_id}/rounds", body, "deal-2", 201, "deal_response").body
    settled = replayed(f"/v1/rounds/{r2['round_id']}/settlement", None, "settle-2", 200,
                       "settlement_response")  # fmt: skip
    # round 3: dealt and voided with the longest note, replayed
    r3 = measured("deal_response", api.post(f"/v1/shoes/{shoe_id}/rounds", body), 201).body
    void = {"reason": "technical_fault", "note": WORST_NOTE}
    voided = replayed(f"/v1/rounds/{r3['round_id']}/void", void, "void-3", 200, "void_response")

    # later reads answer the same documents, maps in the same order
    reads = {n: measured("round_response", api.get(f"/v1/rounds/{r['round_id']}"), 200)
             for n, r in ((1, r1), (2, r2), (3, r3))}  # fmt: skip
    assert _ordered(reads[2].body["settlement"]) == _ordered(settled.body)
    assert _ordered(reads[3].body["settlement"]) == _ordered(voided.body)
    assert reads[1].body["settlement"]["auto_settled"] is True
    for n, r in ((2, r2), (3, r3)):
        assert _ordered({k: reads[n].body[k] for k in r}) == _ordered(r)
    # the documented order of every map: bettors by their first bet, then the player-banker
    order = list(dict.fromkeys(b["bettor_id"] for b in body["bets"]))
    if banking == "player_banker":
        order.append(body["player_banker"]["bettor_id"])
    assert list(settled.body["nets"]) == order
    assert list(settled.body["eligibility"]["balances_after"]) == order
    assert list(voided.body["nets"]) == list(voided.body["void"]["replaced"]["nets"]) == order

    stored = Items(stack)
    rounds = stored.rounds()
    print(f"\n{profile}/{banking}: round items {rounds}, shoe {stored.shoes()}, answers {sizes}, "
          f"largest Lambda response {max(lambda_sizes)}, worst case {worst}")  # fmt: skip
    for size in rounds.values():
        assert size <= worst["round_item"]
    for name, size in sizes.items():
        assert size <= worst[name], (name, size, worst[name])
    assert max(lambda_sizes) <= worst["lambda_response"]
    (shoe,) = stored.shoes()
    assert shoe <= worst["shoe_item"]
    idem = stored.idempotency()
    assert len(idem) == 3 and max(idem) <= worst["idempotency_item"]
