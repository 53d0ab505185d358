"""Tamper evidence: each round record carries the hash of the table's previous round record
(across shoes, from a genesis value of the table id and anchor); ``GET
/v1/tables/{table_id}/audit`` checks one shoe per call (``?shoe=N``, default the latest) with
bounded reads — the table item, that shoe's items, the previous shoe's stored head — recomputes
its part of the chain from the stored items and says where it breaks; consecutive shoes link
(shoe n starts where shoe n-1's head is). The tests tamper with items directly in DynamoDB, as
someone with write access to the table (not through the API) would."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from typing import Any

import pytest
from support.stack import TABLE_NAMES, Api, Stack, star_city_bets

from baccarat.audit import canonical
from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.keys import round_sk, shoe_sk, table_pk
from baccarat_api.adapters.dynamodb.shape import PACKED, pack, unpack

TABLE = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"}


def played_table(api: Api) -> tuple[str, list[dict[str, Any]]]:
    """A table with two shoes: shoe 1 (3 rounds: settled, voided, settled after the shoe was
    closed) closed; shoe 2 open with 2 rounds (the first settled). Each round is resolved before
    the next is dealt."""
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    rounds: list[dict[str, Any]] = []

    def settle(r: dict[str, Any]) -> None:
        assert api.post(f"/v1/rounds/{r['round_id']}/settlement").status == 200

    s1 = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "one"}).body["shoe_id"]
    rounds.append(api.post(f"/v1/shoes/{s1}/rounds", {"bets": star_city_bets()}).body)
    settle(rounds[0])
    rounds.append(api.post(f"/v1/shoes/{s1}/rounds", {"bets": star_city_bets()}).body)
    void = api.post(f"/v1/rounds/{rounds[1]['round_id']}/void", {"reason": "misdeal"})
    assert void.status == 200
    rounds.append(api.post(f"/v1/shoes/{s1}/rounds", {"bets": star_city_bets()}).body)
    api.post(f"/v1/shoes/{s1}/close")
    settle(rounds[2])
    s2 = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "two"}).body["shoe_id"]
    rounds.append(api.post(f"/v1/shoes/{s2}/rounds", {"bets": star_city_bets()}).body)
    settle(rounds[3])
    rounds.append(api.post(f"/v1/shoes/{s2}/rounds", {"bets": star_city_bets()}).body)
    return table_id, rounds


def audit(api: Api, table_id: str, query: str = "") -> dict[str, Any]:
    r = api.call("GET", f"/v1/tables/{table_id}/audit", query=query)
    assert r.status == 200 and r.function == "ReadFunction", r.body
    body: dict[str, Any] = r.body
    return body


def item_key(table_id: str, shoe: int, rnd: int | None = None) -> dict[str, Any]:
    sk = shoe_sk(shoe) if rnd is None else round_sk(shoe, rnd)
    return {"pk": {"S": table_pk("operator-a", table_id)}, "sk": {"S": sk}}


def genesis_of(api: Api, table_id: str) -> str:
    anchor = api.get(f"/v1/tables/{table_id}").body["anchor"]
    return hashlib.sha256(
        b"bacc-audit-v1/genesis\x00" + table_id.encode() + b"\x00" + anchor.encode()
    ).hexdigest()


def test_an_untouched_table_verifies_shoe_by_shoe_and_the_shoes_link(api: Api) -> None:
    fresh = api.post("/v1/tables", TABLE).body["table_id"]
    empty = audit(api, fresh)
    assert empty["verified"] and (empty["shoe_id"], empty["shoes"]) == (None, 0)
    assert empty["rounds_checked"] == empty["shoes_checked"] == 0
    assert empty["head"] == empty["start"] == empty["genesis"] == genesis_of(api, fresh)

    table_id, rounds = played_table(api)
    genesis = genesis_of(api, table_id)
    assert rounds[0]["prev_hash"] == genesis
    for before, after in itertools.pairwise(rounds):  # the chain runs across the shoes
        assert after["prev_hash"] == before["round_hash"]

    latest = audit(api, table_id)  # the default: the latest shoe (open)
    assert latest == audit(api, table_id, "shoe=2")
    assert latest["verified"] is True, latest["breaks"]
    assert latest["first_break"] is None and latest["breaks"] == []
    assert (latest["shoe_id"], latest["shoes"]) == (f"{table_id}_s2", 2)
    assert (latest["shoes_checked"], latest["rounds_checked"], latest["settlements_checked"]) == (
        1,
        2,
        1,
    )
    assert latest["start"] == rounds[2]["round_hash"] and latest["head"] == rounds[4]["round_hash"]

    first = audit(api, table_id, "shoe=1")
    assert first["verified"] is True, first["breaks"]
    assert (first["rounds_checked"], first["settlements_checked"]) == (3, 3)  # + voided
    assert first["start"] == first["genesis"] == genesis
    assert first["head"] == rounds[2]["round_hash"] == latest["start"]  # consecutive audits link

    # from a checkpoint: the head the auditor kept from shoe 1's audit
    assert audit(api, table_id, f"shoe=2&checkpoint={first['head']}") == latest
    wrong = audit(api, table_id, f"shoe=2&checkpoint={'0' * 64}")
    assert wrong["verified"] is False and wrong["start"] == "0" * 64
    assert wrong["first_break"] == {
        "round_id": None,
        "shoe_id": f"{table_id}_s2",
        "item": None,
        "field": "chain_start",
        "expected": "0" * 64,
        "found": first["head"],
    }


@pytest.mark.parametrize(
    "query",
    ["shoe=0", "shoe=01", "shoe=-1", "shoe=x", "shoe=1%0A", "shoe=+1", "shoe=1_0",
     f"checkpoint={'A' * 64}", f"checkpoint={'a' * 63}", f"checkpoint={'a' * 64}%0A"],
)  # fmt: skip
def test_a_malformed_shoe_or_checkpoint_is_400(api: Api, query: str) -> None:
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    r = api.call("GET", f"/v1/tables/{table_id}/audit", query=query)
    assert r.status == 400 and r.error["code"] == "invalid_request", r.body


def test_a_shoe_the_table_does_not_have_is_404(api: Api) -> None:
    table_id, _ = played_table(api)
    r = api.call("GET", f"/v1/tables/{table_id}/audit", query="shoe=3")
    assert r.status == 404 and r.error["code"] == "not_found"
    assert r.error["details"] == {"shoe": f"{table_id}_s3"}


def test_the_round_hash_is_the_documented_canonical_form(api: Api, stack: Stack) -> None:
    """Recompute one round's hash from the stored item, by the rule in docs/guarantees-b.md."""
    table_id, rounds = played_table(api)
    item = stack.dynamodb.get_item(
        TableName=TABLE_NAMES["StateTable"], Key=item_key(table_id, 1, 1)
    )["Item"]

    packed = packed_fields(item)  # what the deal fixed: one compressed JSON object

    def j(name: str) -> Any:
        return packed.get(name)

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
        "shoe_status": packed["shoe_status"],
        "previous_bettors": j("previous_bettors"),
        "created_at": packed["created_at"],
        "money": j("money"),
        "settle_by": item.get("settle_by", {}).get("S"),
        "void_window_seconds": packed["void_window_seconds"],
        "request_digest": packed["request_digest"],
        "prev_hash": packed["prev_hash"],
    }
    body = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical(doc) == body.encode("utf-8")
    expected = hashlib.sha256(b"bacc-audit-v1/round\x00" + body.encode("utf-8")).hexdigest()
    assert packed["round_hash"] == expected == rounds[0]["round_hash"]
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


def packed_fields(item: dict[str, Any]) -> dict[str, Any]:
    """The fields an item stores packed (``codec.PACKED``: one JSON object, compressed)."""
    doc: dict[str, Any] = json.loads(unpack(item[PACKED]["B"]))
    return doc


def repacked(item: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    return {**item, PACKED: {"B": pack(json.dumps(doc, separators=(",", ":")))}}


def rebind_settlement(
    stack: Stack, key: dict[str, Any], item: dict[str, Any], doc: dict[str, Any]
) -> None:
    """A careful forger of a resolved round also rebinds its ``settlement_hash`` to the forged
    ``round_hash`` (a round is resolved before the next is dealt, so the rounds rewritten here
    are)."""
    from baccarat.audit import settlement_hash
    from baccarat_api.adapters.dynamodb.codec import from_item
    from baccarat_api.ports.records import RoundRecord

    record = from_item(RoundRecord, repacked(item, doc))
    assert record.resolution is not None
    set_string(stack, key, "settlement_hash", settlement_hash(doc["round_hash"], record.resolution))


def tamper(stack: Stack, key: dict[str, Any], field: str, change: Any) -> None:
    """Rewrite one JSON field of a stored item (packed with the fields fixed when the item was
    written), as a person with table access could."""
    item = stack.dynamodb.get_item(TableName=TABLE_NAMES["StateTable"], Key=key)["Item"]
    doc = packed_fields(item)
    change(doc[field])
    stack.dynamodb.put_item(TableName=TABLE_NAMES["StateTable"], Item=repacked(item, doc))


def set_string(stack: Stack, key: dict[str, Any], attribute: str, value: str) -> None:
    stack.dynamodb.update_item(
        TableName=TABLE_NAMES["StateTable"],
        Key=key,
        UpdateExpression="SET #a = :v",
        ExpressionAttributeNames={"#a": attribute},
        ExpressionAttributeValues={":v": {"S": value}},
    )


def test_a_rewritten_round_is_found_in_its_shoe(api: Api, stack: Stack) -> None:
    table_id, rounds = played_table(api)
    target = rounds[2]  # shoe 1, round 3: flip its result

    def flip(facts: dict[str, Any]) -> None:
        facts["result"] = "player" if facts["result"] != "player" else "banker"

    tamper(stack, item_key(table_id, 1, 3), "facts", flip)
    found = audit(api, table_id, "shoe=1")
    assert found["verified"] is False
    first = found["first_break"]
    assert first["round_id"] == target["round_id"] and first["field"] == "round_hash"
    assert first["found"] == target["round_hash"]  # the stored hash no longer matches
    assert first["expected"] != target["round_hash"]
    # the shoe's stored head still names the original: the recomputed chain ends elsewhere
    (head,) = [b for b in found["breaks"] if b["field"] == "chain_head"]
    assert head["shoe_id"] == f"{table_id}_s1" and head["found"] == target["round_hash"]
    assert head["expected"] == first["expected"] == found["head"]
    assert audit(api, table_id)["verified"]  # shoe 2 itself is intact


def test_rewritten_money_or_settlement_is_found(api: Api, stack: Stack) -> None:
    table_id, rounds = played_table(api)

    def richer(money: dict[str, Any]) -> None:
        money["nets"]["alice"] += 1_000_000

    # the money is fixed at the deal: it is part of the round's own hash
    tamper(stack, item_key(table_id, 1, 1), "money", richer)
    found = audit(api, table_id, "shoe=1")
    assert found["verified"] is False
    assert found["first_break"]["round_id"] == rounds[0]["round_id"]
    assert found["first_break"]["field"] == "round_hash"

    # when it was settled is the settlement's: its hash breaks, the chain of rounds does not
    table_id, rounds = played_table(api)
    set_string(stack, item_key(table_id, 1, 1), "settled_at", "2000-01-01T00:00:00.000Z")
    found = audit(api, table_id, "shoe=1")
    assert found["verified"] is False
    assert found["first_break"]["round_id"] == rounds[0]["round_id"]
    assert found["first_break"]["field"] == "settlement_hash"
    assert len(found["breaks"]) == 1  # the chain of round records itself is intact


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
        doc = packed_fields(item)
        facts = doc["facts"]
        facts["banker"]["total"] = (facts["banker"]["total"] + 1) % 10  # always a real change
        doc["round_hash"] = record_hash(from_item(RoundRecord, repacked(item, doc)))
        stack.dynamodb.put_item(TableName=TABLE_NAMES["StateTable"], Item=repacked(item, doc))
        rebind_settlement(stack, key, item, doc)  # the round is settled: its hash too
    else:
        stack.dynamodb.delete_item(TableName=TABLE_NAMES["StateTable"], Key=key)
    found = audit(api, table_id)
    assert found["verified"] is False
    fields = {(b["round_id"], b["field"]) for b in found["breaks"]}
    if how == "rehash the round":
        assert (rounds[4]["round_id"], "prev_hash") in fields
        assert found["first_break"]["round_id"] == rounds[4]["round_id"]
    else:
        assert (rounds[3]["round_id"], "round_number") in fields  # a gap where round 1 was
        assert (rounds[4]["round_id"], "prev_hash") in fields
        assert (None, "rounds_dealt") in fields


def test_a_shoe_rewritten_whole_breaks_the_link_to_the_next_shoe(api: Api, stack: Stack) -> None:
    """A forger rewrites shoe 1's last round, its hash and the shoe's head (shoe 1 then verifies
    alone): shoe 2 still starts at the original head, so its audit finds the link broken — and
    an auditor holding shoe 1's original head as a checkpoint finds the forgery in shoe 1."""
    from baccarat_api.adapters.dynamodb.codec import from_item
    from baccarat_api.ports.records import RoundRecord
    from baccarat_api.service.audit import record_hash

    table_id, rounds = played_table(api)
    kept = audit(api, table_id, "shoe=1")["head"]  # an earlier audit's head, kept elsewhere
    item = stack.dynamodb.get_item(
        TableName=TABLE_NAMES["StateTable"], Key=item_key(table_id, 1, 3)
    )["Item"]
    doc = packed_fields(item)
    doc["created_at"] = "1999-01-01T00:00:00.000Z"
    forged = record_hash(from_item(RoundRecord, repacked(item, doc)))
    doc["round_hash"] = forged
    stack.dynamodb.put_item(TableName=TABLE_NAMES["StateTable"], Item=repacked(item, doc))
    rebind_settlement(stack, item_key(table_id, 1, 3), item, doc)  # settled: its hash too
    set_string(stack, item_key(table_id, 1), "chain_head", forged)
    set_string(stack, {**item_key(table_id, 1), "sk": {"S": "TABLE"}}, "chain_head", forged)

    assert audit(api, table_id, "shoe=1")["verified"]  # consistent in itself
    second = audit(api, table_id, "shoe=2")
    assert second["verified"] is False and second["start"] == forged
    assert (second["first_break"]["field"], second["first_break"]["found"]) == (
        "chain_start",
        rounds[2]["round_hash"],
    )
    assert {b["field"] for b in second["breaks"]} >= {"chain_start", "prev_hash"}
    # from the kept checkpoint shoe 2's own records verify; only the table's forged head is off
    checked = api.call("GET", f"/v1/tables/{table_id}/audit", query=f"shoe=2&checkpoint={kept}")
    assert [(b["item"], b["field"], b["found"]) for b in checked.body["breaks"]] == [
        ("TABLE", "chain_head", forged)
    ]


def test_the_audit_is_the_operators_own(api: Api, stack: Stack) -> None:
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    theirs = Api(stack.key_b).get(f"/v1/tables/{table_id}/audit")
    nobodys = api.get("/v1/tables/tbl_zzzzzzzzzzzzzzzz/audit")
    assert theirs.status == nobodys.status == 404
    assert theirs.error["code"] == nobodys.error["code"] == "not_found"


# --- bounded reads ----------------------------------------------------------------------------


class Reads:
    """DynamoDB operations and the bytes of their answers (what was read off the wire), counted
    with botocore's event hooks on the service's own client."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.bytes = 0
        client = runtime.get_runtime().dynamodb
        client.meta.events.register("after-call.dynamodb", self._count)

    def _count(self, event_name: str, http_response: Any, **_: Any) -> None:
        self.calls[event_name.rsplit(".", 1)[-1]] += 1
        self.bytes += len(http_response.content)

    def of(self, api: Api, table_id: str, query: str = "") -> tuple[dict[str, int], int]:
        self.calls.clear()
        self.bytes = 0
        assert audit(api, table_id, query)["verified"]
        return dict(self.calls), self.bytes


@pytest.mark.parametrize("engine", ["moto", "DynamoDB Local"])
def test_one_audit_reads_the_same_however_many_shoes_the_table_has(
    request: pytest.FixtureRequest, engine: str
) -> None:
    """As the table grows from 1 to 3 shoes (each 4 rounds with the same bets, then closed):
    the audit of shoe 1 makes the same DynamoDB calls and reads the same bytes every time, and
    the audit of the latest shoe reads as much as one shoe's audit does — not the history. On
    moto and on Amazon's own engine (the bytes are what each answered on the wire)."""
    api: Api = request.getfixturevalue("api" if engine == "moto" else "dynamodb_local_api")
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    api.get(f"/v1/tables/{table_id}/audit")  # warm: the operator key is cached
    reads = Reads()
    first: list[tuple[dict[str, int], int]] = []
    latest: list[tuple[dict[str, int], int]] = []
    for n in (1, 2, 3):
        shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "s"}).body["shoe_id"]
        for _ in range(4):
            dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
            assert dealt.status == 201
            settled = api.post(f"/v1/rounds/{dealt.body['round_id']}/settlement")
            assert settled.status == 200
        assert api.post(f"/v1/shoes/{shoe_id}/close").status == 200
        first.append(reads.of(api, table_id, "shoe=1"))
        latest.append(reads.of(api, table_id))
        print(f"\n{engine}, {n} shoes: audit of shoe 1 {first[-1]}, of the latest {latest[-1]}")
    assert first[0] == first[1] == first[2]
    assert first[0][0] == {"GetItem": 1, "Query": 1}  # the table; shoe 1's items (from genesis)
    assert latest[0] == first[0]  # one shoe: the latest is shoe 1
    # shoes 2 and 3: the table, the shoe's items, the previous shoe's head (a projected GetItem)
    assert latest[1][0] == latest[2][0] == {"GetItem": 2, "Query": 1}
    one_shoe = first[0][1]
    for _, read in latest[1:]:  # the same work as shoe 1's audit, cards aside: ±5 %, not ×n
        assert abs(read - one_shoe) < 0.05 * one_shoe, (read, one_shoe)
