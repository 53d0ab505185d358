"""Tamper evidence: each round record carries the hash of the table's previous
round record (across shoes, from a genesis value of the table id and anchor); ``GET
/v1/tables/{table_id}/audit`` recomputes the chain from the stored items and says where it
breaks. The tests tamper with items directly in DynamoDB, as someone with write access to the
table (not through the API) would."""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

import pytest
from support.stack import TABLE_NAMES, Api, Stack, star_city_bets

from baccarat.audit import canonical
from baccarat_api.adapters.dynamodb.keys import round_sk, table_pk

TABLE = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def played_table(api: Api) -> tuple[str, list[dict[str, Any]]]:
    """A table with two shoes: shoe 1 (3 rounds, one settled, one voided) closed; shoe 2 open
    with 2 rounds."""
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    rounds: list[dict[str, Any]] = []
    s1 = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "one"}).body["shoe_id"]
    rounds.append(api.post(f"/v1/shoes/{s1}/rounds", {"bets": star_city_bets()}).body)
    rounds.append(api.post(f"/v1/shoes/{s1}/rounds", {"bets": star_city_bets()}).body)
    rounds.append(api.post(f"/v1/shoes/{s1}/rounds", {"bets": []}).body)
    assert api.post(f"/v1/rounds/{rounds[0]['round_id']}/settlement").status == 200
    void = api.post(f"/v1/rounds/{rounds[1]['round_id']}/void", {"reason": "misdeal"})
    assert void.status == 200
    api.post(f"/v1/shoes/{s1}/close")
    s2 = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "two"}).body["shoe_id"]
    rounds.append(api.post(f"/v1/shoes/{s2}/rounds", {"bets": star_city_bets()}).body)
    rounds.append(api.post(f"/v1/shoes/{s2}/rounds", {"bets": star_city_bets()}).body)
    return table_id, rounds


def item_key(table_id: str, shoe: int, rnd: int) -> dict[str, Any]:
    return {"pk": {"S": table_pk("operator-a", table_id)}, "sk": {"S": round_sk(shoe, rnd)}}


def test_an_untouched_table_verifies_and_the_chain_crosses_shoes(api: Api) -> None:
    fresh = api.post("/v1/tables", TABLE).body["table_id"]
    empty = api.get(f"/v1/tables/{fresh}/audit")
    assert empty.status == 200 and empty.function == "ReadFunction", empty.body
    assert empty.body["verified"] and empty.body["rounds_checked"] == 0
    assert empty.body["head"] == empty.body["genesis"]

    table_id, rounds = played_table(api)
    audit = api.get(f"/v1/tables/{table_id}/audit").body
    assert audit["verified"] is True, audit["breaks"]
    assert audit["first_break"] is None and audit["breaks"] == []
    assert (audit["shoes_checked"], audit["rounds_checked"]) == (2, 5)
    # the settlement, the void, and the round nobody bet on (settled at its deal)
    assert audit["settlements_checked"] == 3
    anchor = api.get(f"/v1/tables/{table_id}").body["anchor"]
    genesis = hashlib.sha256(
        b"bacc-audit-v1/genesis\x00" + table_id.encode() + b"\x00" + anchor.encode()
    ).hexdigest()
    assert audit["genesis"] == genesis
    assert rounds[0]["prev_hash"] == genesis
    for before, after in itertools.pairwise(rounds):  # across the shoes too
        assert after["prev_hash"] == before["round_hash"]
    assert audit["head"] == rounds[-1]["round_hash"]


def test_the_round_hash_is_the_documented_canonical_form(api: Api, stack: Stack) -> None:
    """Recompute one round's hash from the stored item, by the rule in docs/guarantees-b.md."""
    table_id, rounds = played_table(api)
    item = stack.dynamodb.get_item(
        TableName=TABLE_NAMES["StateTable"], Key=item_key(table_id, 1, 1)
    )["Item"]

    def j(name: str) -> Any:
        return json.loads(item[name]["S"]) if name in item else None

    doc = {
        "spec": "bacc-audit-v1",
        "operator_id": item["operator_id"]["S"],
        "table_id": item["table_id"]["S"],
        "shoe_number": int(item["shoe_number"]["N"]),
        "round_number": int(item["round_number"]["N"]),
        "facts": j("facts"),
        "config": j("config"),
        "bets": j("bets"),
        "player_banker": j("player_banker"),
        "squeeze": j("squeeze"),
        "shoe_status": item["shoe_status"]["S"],
        "previous_bettors": j("previous_bettors"),
        "created_at": item["created_at"]["S"],
        "money": j("money"),
        "settle_by": item.get("settle_by", {}).get("S"),
        "void_window_seconds": int(item["void_window_seconds"]["N"]),
        "request_digest": item["request_digest"]["S"],
        "prev_hash": item["prev_hash"]["S"],
    }
    body = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical(doc) == body.encode("utf-8")
    expected = hashlib.sha256(b"bacc-audit-v1/round\x00" + body.encode("utf-8")).hexdigest()
    assert item["round_hash"]["S"] == expected == rounds[0]["round_hash"]
    # the settlement: the money computed at the deal, with when and how it was settled
    settlement = {
        **j("money"),
        "settled_at": item["settled_at"]["S"],
        "auto_settled": item["auto_settled"]["BOOL"],
    }
    settled = hashlib.sha256(
        b"bacc-audit-v1/settlement\x00" + expected.encode() + b"\x00" + canonical(settlement)
    ).hexdigest()
    assert item["settlement_hash"]["S"] == settled


def tamper(stack: Stack, key: dict[str, Any], attribute: str, change: Any) -> None:
    """Rewrite one attribute of a stored item (a JSON document, or a plain string when
    ``change`` returns the new value), as a person with table access could."""
    item = stack.dynamodb.get_item(TableName=TABLE_NAMES["StateTable"], Key=key)["Item"]
    doc = json.loads(item[attribute]["S"]) if item[attribute]["S"][:1] in "{[" else None
    new = change(doc if doc is not None else item[attribute]["S"])
    text = new if doc is None else json.dumps(doc, separators=(",", ":"))
    stack.dynamodb.update_item(
        TableName=TABLE_NAMES["StateTable"],
        Key=key,
        UpdateExpression="SET #a = :v",
        ExpressionAttributeNames={"#a": attribute},
        ExpressionAttributeValues={":v": {"S": text}},
    )


def test_a_rewritten_round_is_found(api: Api, stack: Stack) -> None:
    table_id, rounds = played_table(api)
    target = rounds[2]  # shoe 1, round 3: flip its result

    def flip(facts: dict[str, Any]) -> None:
        facts["result"] = "player" if facts["result"] != "player" else "banker"

    tamper(stack, item_key(table_id, 1, 3), "facts", flip)
    audit = api.get(f"/v1/tables/{table_id}/audit").body
    assert audit["verified"] is False
    first = audit["first_break"]
    assert first["round_id"] == target["round_id"] and first["field"] == "round_hash"
    assert first["found"] == target["round_hash"]  # the stored hash no longer matches
    assert first["expected"] != target["round_hash"]
    # the next record (in the next shoe) names the original hash as its predecessor
    nxt = next(b for b in audit["breaks"] if b["round_id"] == rounds[3]["round_id"])
    assert nxt["field"] == "prev_hash" and nxt["found"] == target["round_hash"]
    assert nxt["expected"] == first["expected"]


def test_rewritten_money_or_settlement_is_found(api: Api, stack: Stack) -> None:
    table_id, rounds = played_table(api)

    def richer(money: dict[str, Any]) -> None:
        money["nets"]["alice"] += 1_000_000

    # the money is fixed at the deal: it is part of the round's own hash
    tamper(stack, item_key(table_id, 1, 1), "money", richer)
    audit = api.get(f"/v1/tables/{table_id}/audit").body
    assert audit["verified"] is False
    assert audit["first_break"]["round_id"] == rounds[0]["round_id"]
    assert audit["first_break"]["field"] == "round_hash"

    table_id, rounds = played_table(api)
    tamper(stack, item_key(table_id, 1, 1), "settled_at", lambda _: "2000-01-01T00:00:00.000Z")
    audit = api.get(f"/v1/tables/{table_id}/audit").body
    assert audit["verified"] is False
    assert audit["first_break"]["round_id"] == rounds[0]["round_id"]
    assert audit["first_break"]["field"] == "settlement_hash"
    assert len(audit["breaks"]) == 1  # the chain of round records itself is intact


@pytest.mark.parametrize("how", ["rehash the round", "remove the round"])
def test_a_hidden_change_still_breaks_the_chain_at_the_next_round(
    api: Api, stack: Stack, how: str
) -> None:
    """A careful forger rewrites a round AND its stored ``round_hash`` (or removes the round):
    the next round's ``prev_hash`` still names the original."""
    from baccarat_api.adapters.dynamodb.codec import from_item
    from baccarat_api.ports.records import RoundRecord
    from baccarat_api.service.audit import record_hash

    table_id, rounds = played_table(api)
    key = item_key(table_id, 2, 1)
    if how == "rehash the round":
        item = stack.dynamodb.get_item(TableName=TABLE_NAMES["StateTable"], Key=key)["Item"]
        facts = json.loads(item["facts"]["S"])
        facts["banker"]["total"] = (facts["banker"]["total"] + 1) % 10  # always a real change
        item["facts"] = {"S": json.dumps(facts)}
        item["round_hash"] = {"S": record_hash(from_item(RoundRecord, item))}
        stack.dynamodb.put_item(TableName=TABLE_NAMES["StateTable"], Item=item)
    else:
        stack.dynamodb.delete_item(TableName=TABLE_NAMES["StateTable"], Key=key)
    audit = api.get(f"/v1/tables/{table_id}/audit").body
    assert audit["verified"] is False
    fields = {(b["round_id"], b["field"]) for b in audit["breaks"]}
    if how == "rehash the round":
        assert (rounds[4]["round_id"], "prev_hash") in fields
        assert audit["first_break"]["round_id"] == rounds[4]["round_id"]
    else:
        assert (rounds[3]["round_id"], "round_number") in fields  # a gap where round 1 was
        assert (rounds[4]["round_id"], "prev_hash") in fields


def test_the_audit_is_the_operators_own(api: Api, stack: Stack) -> None:
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    theirs = Api(stack.key_b).get(f"/v1/tables/{table_id}/audit")
    nobodys = api.get("/v1/tables/tbl_zzzzzzzzzzzzzzzz/audit")
    assert theirs.status == nobodys.status == 404
    assert theirs.error["code"] == nobodys.error["code"] == "not_found"
