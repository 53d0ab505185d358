"""Records and their DynamoDB items: every field of every record is stored once, under its name
(or its one declared rename) or in the item's packed attribute, and read back equal; a missing
attribute reads back as the dataclass default; the audit hash covers every round field unless
the record says otherwise."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from baccarat.audit import OPTIONAL_ROUND_FIELDS, ROUND_FIELDS
from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.codec import SHAPES, from_item, to_item, to_items
from baccarat_api.adapters.dynamodb.shape import PACKED, pack, unpack
from baccarat_api.ports.chat_records import ChatMessage, ChatPerson, ChatWindow
from baccarat_api.ports.chunks import ChunkEmitted, SettleProgress
from baccarat_api.ports.records import (
    KEY_FIELDS,
    DeliveryState,
    EventRecord,
    FairnessTotals,
    FeedEntry,
    FeedHead,
    FeedMark,
    IdempotencyRecord,
    LiveRecord,
    ProofRecord,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
    TableNumber,
    TableNumberCounter,
    TableRecord,
    WebhookFailure,
    WebhookRecord,
    feed_shard,
)
from baccarat_api.ports.stored_defaults import STORED_DEFAULTS

CONFIG = {"profile": "star-city", "tier": {"id": "t"}, "banking": "house"}
RULES = {"decks": 8, "burn": 1, "cut_min": 14, "cut_max": 80, "round_limit": 80}
TABLE = TableRecord(
    "op", "tbl_aaaaaaaaaaaaaaaa", CONFIG, RULES, "ab", 10, b"\x00ct", 2, "tbl_aaaaaaaaaaaaaaaa_s1",
    "2026-01-01T00:00:00.000Z", 90, "head", b"\x02ref", 30,
)  # fmt: skip
SHOE = ShoeRecord(
    "op", "tbl_aaaaaaaaaaaaaaaa", 1, "seed ✓", "hash", RULES, "ab", CONFIG, b"\x01", "ended", 3, 20,
    4, [{"result": "tie"}], [["alice"], []], "2026-01-01T00:00:00.000Z", "closed",
    "2026-01-01T00:01:00.000Z", "ff" * 32, 90, 30, b"\x02ref", "start", "head",
)  # fmt: skip
ROUND = RoundRecord(
    "op", "tbl_aaaaaaaaaaaaaaaa", 1, 2, {"result": "banker"}, CONFIG,
    [{"bettor_id": "alice", "bettor_ref": "br_a", "amount": 100}],
    {"bettor_id": "pb", "bettor_ref": "br_p", "balance": 5}, {"initial": [], "draws": []},
    "open", [["alice"]], "2026-01-01T00:00:00.000Z", {"nets": {"alice": 95}},
    "2026-01-01T00:00:30.000Z", True, None, "2026-01-01T00:01:00.000Z", 30, "digest", "prev",
    "hash", "shash",
)  # fmt: skip
VOIDED = dataclasses.replace(
    ROUND,
    settled_at=None,
    auto_settled=False,
    void={"reason": "misdeal", "note": None, "voided_at": "2026-01-01T00:00:10.000Z"},
)
BEACON = {
    "name": "test", "chain_hash": "cd" * 32, "public_key": "ab" * 96,
    "scheme": "bls-unchained-g1-rfc9380", "period_ms": 3000, "genesis_ms": 0, "test": True,
}  # fmt: skip
V2_TABLE = dataclasses.replace(TABLE, fairness="bacc-pf-v2", beacon=BEACON)  # type: ignore[arg-type]
V2_SHOE = dataclasses.replace(
    SHOE, status="open", fairness="bacc-pf-v2", beacon=BEACON,  # type: ignore[arg-type]
    v2={"drawn": "0f" + "00" * 51, "dealt": 1, "last_due": False, "locked": None},
)  # fmt: skip
V2_ROUND = dataclasses.replace(
    ROUND, lock={"locked_at": "2026-01-01T00:00:00.000Z", "book_root": "ee" * 32,
                 "beacon_round": 7}, beacon={"round": 7, "signature": "99" * 48},
)  # fmt: skip
#: A beacon void priced later: its beacon fetched after the void (not hashed)
PRICED_VOID = dataclasses.replace(
    ROUND, lock={"locked_at": "2026-01-01T00:00:00.000Z", "book_root": "ee" * 32,
                 "beacon_round": 8}, late_beacon={"round": 8, "signature": "88" * 48},
)  # fmt: skip
PROOF = ProofRecord(
    "tbl_aaaaaaaaaaaaaaaa_s1", "tbl_aaaaaaaaaaaaaaaa", 1, "ab", "seed", "hash", RULES, "ff", 3,
    "rules", "2026-01-01T00:01:00.000Z", CONFIG, "op",
)  # fmt: skip
FINAL = dataclasses.replace(
    PROOF, operator_id="op", signature={"alg": "ES256"}, page_count=2, finalised_at="2026-01-02"
)
LINE = ShoeFairness(
    "tbl_aaaaaaaaaaaaaaaa", 1, "tbl_aaaaaaaaaaaaaaaa_s1", "2026-01-01T00:01:00.000Z", "rules",
    {"voided_rounds": 0}, "2026-01-02",
)  # fmt: skip
TOTALS = FairnessTotals("tbl_aaaaaaaaaaaaaaaa", 3, 1, -500, 1, 60, 90)
IDEM = IdempotencyRecord("op", "k" * 64, "fp", 201, {"z": 1, "a": 2}, "2026-01-01", 1_800_000_000)
LIVE = LiveRecord("op", "tbl_aaaaaaaaaaaaaaaa", 7, "2026-01-01T00:00:00.000Z")
EVENT = EventRecord(
    "op", "tbl_aaaaaaaaaaaaaaaa", 7, "round_settled", "2026-01-01T00:00:00.000Z",
    {"round_id": "r", "nets": {"zed": 5, "alice": -5}},
)  # fmt: skip
HEAD = FeedHead("op", 3, 12)
MARK = FeedMark("op", "tbl_aaaaaaaaaaaaaaaa", 7)
ENTRY = FeedEntry("op", 3, 12, "tbl_aaaaaaaaaaaaaaaa", 5, 7)
HOOK = WebhookRecord("op", "https://example.com/hook", b"\x01sealed", "2026-01-01")
DELIVERY = DeliveryState("op", 3, 12, 1, 2, 1_767_225_600_000, 1_767_225_610_000)
PARKED = WebhookFailure(
    "op", "tbl_aaaaaaaaaaaaaaaa:7", "tbl_aaaaaaaaaaaaaaaa", 7, 40, "a", "b", "500"
)
AT = "2026-01-01T00:00:05.000Z"
#: The samples again with every field that has a default set to something else: a field the
#: codec forgot would read back as its default, so its round trip must start from another value.
FULL = [
    dataclasses.replace(
        TABLE, write_id="w", betting_seconds=25, squeeze_seconds=0, idle_shoe_close_seconds=600
    ),
    dataclasses.replace(
        SHOE, chain_start="c0", chain_head="c1", betting_seconds=25, squeeze_seconds=0,
        idle_shoe_close_seconds=600, close_by=AT, client_seed_given_at=AT,
    ),
    dataclasses.replace(
        ROUND, round_hash="rh", settlement_hash="sh",
        reveals=[{"step": "initial", "bettor_id": "alice", "at": AT}],  # type: ignore[list-item]
        book={"root": "ab" * 32, "count": 2, "chunks": 1, "shards": 32, "totals": {
            "bettors": 2, "stake": 300, "net": -100, "by_type": {"banker": {
                "stake": 300, "gross_win": 0, "commission": 0, "net": -100}},
            "house": {"covered": 100, "commission": 0, "take": 100}}},
    ),
    dataclasses.replace(
        TOTALS, voided_player_banker_net=-7, operator_id="op", latest_shoe_number=4
    ),
    dataclasses.replace(IDEM, round_id="tbl_aaaaaaaaaaaaaaaa_s1_r2"),
    dataclasses.replace(
        LIVE,
        seats={"1": {"bettor_id": "alice", "balance": 500, "level": 2}},
        banker={"bettor_id": "pb", "balance": 9_000},
        spectators={"zed": {"balance": 70, "personal_limits": None}},
        watchers=["wes"],
        betting={
            "shoe_id": "tbl_aaaaaaaaaaaaaaaa_s1", "round_number": 3, "opened_at": AT,
            "closes_at": AT, "status": "open", "round_id": None,
        },
        book={"alice": {"role": "seat", "seat": 1, "bets": [{"type": "banker", "amount": 5}],
                        "placed_at": AT, "order": 8}},  # type: ignore[typeddict-item]
        idle={"alice": 1},
        last_round={
            "round_id": "tbl_aaaaaaaaaaaaaaaa_s1_r2", "shoe_id": "tbl_aaaaaaaaaaaaaaaa_s1",
            "round_number": 2, "resolved": True, "spectators": ["zed"],
        },
        squeeze={"round_id": "tbl_aaaaaaaaaaaaaaaa_s1_r2"},  # type: ignore[typeddict-item]
        deal_by=AT,
        open_shoe_id="tbl_aaaaaaaaaaaaaaaa_s1",
        urged_at=AT,
        clock={"dealing": "auto", "pause_seconds": 5, "paused": False, "needs_banker": True,
               "waiting": None},
        tick={"step": "close", "key": AT, "due": AT},
        client_seeds=[{"client_seed": "s", "client_hash": "h", "given_at": AT,
                       "for_shoe_number": 2}],
        push_epoch=3,
    ),
    dataclasses.replace(EVENT, epoch=2),
    dataclasses.replace(HOOK, removed_at=AT),
    dataclasses.replace(PARKED, delivered_at=AT, retrying_at=AT),
]  # fmt: skip
RUNNING = dataclasses.replace(
    TABLE, table_id="tbl_bbbbbbbbbbbbbbbb", dealing="auto", pause_seconds=7, bet_behind="book"
)
PROGRESS = SettleProgress(
    "op", "tbl_aaaaaaaaaaaaaaaa", 1, 2, chunks=10, resolved_at="2026-01-01T00:00:00.000Z",
    due_at="2026-01-01T00:01:00.000Z", voided=True,
)  # fmt: skip
EMITTED = ChunkEmitted("op", "tbl_aaaaaaaaaaaaaaaa", 1, 2, 3, "2026-01-01T00:00:01.000Z")
#: A numbered table (issue 27), its number's claim and the operator's counter.
NUMBERED = dataclasses.replace(
    TABLE, table_id="tbl_cccccccccccccccc", number=7, name="Dragon 龍 <b>"
)
CLAIM = TableNumber("op", 7, "tbl_cccccccccccccccc")
COUNTER = TableNumberCounter("op", 12)
CHAT = ChatMessage(
    "op", "tbl_aaaaaaaaaaaaaaaa", "ch_2222222222aaaaaa", bettor_id="alice", text="<b>好</b> 👍",
    at="2026-01-01T00:00:01.000Z", expires_at=1_767_312_001, epoch=3,
)  # fmt: skip
CHAT_ITEMS = [
    CHAT,
    dataclasses.replace(CHAT, text=None, removed=True),
    ChatPerson(
        "op", "tbl_aaaaaaaaaaaaaaaa", "alice", muted_until="2026-01-01T00:00:31.000Z", posts=4,
        last_at="2026-01-01T00:00:01.000Z", expires_at=1_767_312_031,
    ),
    ChatWindow("op", "tbl_aaaaaaaaaaaaaaaa", "*", 176_722_560, n=7, expires_at=1_767_225_670),
]  # fmt: skip
RECORDS = [
    TABLE, RUNNING, SHOE, ROUND, VOIDED, PROOF, FINAL, LINE, TOTALS, IDEM, LIVE, EVENT, HEAD, MARK,
    V2_TABLE, V2_SHOE, V2_ROUND, PRICED_VOID, ENTRY, HOOK, DELIVERY, PARKED, *FULL, PROGRESS,
    EMITTED, *CHAT_ITEMS, NUMBERED, CLAIM, COUNTER,
]  # fmt: skip


def test_every_field_with_a_default_is_sampled_at_another_value() -> None:
    """Else the round trip of that field proves nothing (it would read back as its default)."""
    untried = {}
    for kind in {type(r) for r in RECORDS}:
        samples = [r for r in RECORDS if type(r) is kind]
        untried[kind.__name__] = [
            f.name
            for f in dataclasses.fields(kind)
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            if all(
                getattr(r, f.name)
                == (f.default if f.default is not dataclasses.MISSING else f.default_factory())  # type: ignore[misc]
                for r in samples
            )
        ]
    assert {k: v for k, v in untried.items() if v} == {}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_every_record_round_trips_through_its_item(record: object) -> None:
    item, *apart = to_items(record)  # type: ignore[arg-type]
    assert item["kind"] == {"S": SHAPES[type(record)].kind}
    assert from_item(type(record), item, *apart) == record
    assert len(apart) == (SHAPES[type(record)].apart is not None)


def test_a_shoes_constants_are_an_item_of_their_own_beside_it() -> None:
    """Every deal updates the shoe: what its commit fixed (configuration, rules, ciphertexts,
    hashes) is put once, on ``SHOE#n#COMMIT`` — sorted between the shoe and its rounds."""
    item, apart = to_items(SHOE)
    assert apart["pk"] == item["pk"] and apart["sk"] == {"S": "SHOE#000001#COMMIT"}
    assert item["sk"]["S"] < apart["sk"]["S"] < keys.round_sk(1, 1)
    v2_only = {"fairness", "beacon"}  # a bacc-pf-v1 shoe stores them not at all
    assert PACKED not in item and set(packed_doc(apart)) == SHAPES[ShoeRecord].packed - v2_only
    _, apart = to_items(V2_SHOE)
    assert set(packed_doc(apart)) == SHAPES[ShoeRecord].packed
    assert set(apart) == {"pk", "sk", "kind", PACKED}
    with pytest.raises(KeyError):  # the shoe is not readable without them
        from_item(ShoeRecord, item)


def test_every_record_kind_has_a_key_and_a_shape() -> None:
    assert set(SHAPES) == set(KEY_FIELDS) == {type(r) for r in RECORDS}


def test_items_keep_the_schema_of_the_key_module() -> None:
    assert to_item(TABLE)["pk"] == {"S": keys.table_pk("op", "tbl_aaaaaaaaaaaaaaaa")}
    assert to_item(ROUND)["sk"] == {"S": "SHOE#000001#ROUND#00002"}
    assert to_item(PROOF)["pk"] == {"S": "PROOF#tbl_aaaaaaaaaaaaaaaa_s1"}
    assert to_item(IDEM)["pk"] == {"S": f"OP#op#IDEM#{'k' * 64}"}
    assert to_item(TABLE)["open_shoe"] == {"S": "tbl_aaaaaaaaaaaaaaaa_s1"}  # the one rename
    assert to_item(LINE)["pk"] == {"S": "FAIR#tbl_aaaaaaaaaaaaaaaa"}
    assert to_item(LINE)["sk"] == {"S": "SHOE#000001"}
    assert to_item(TOTALS)["sk"] == {"S": "TOTALS"}
    assert to_item(HEAD)["pk"] == {"S": "OP#op#FEED#03"}
    assert to_item(ENTRY)["sk"] == {"S": "POS#000000000012"}
    shard = feed_shard("tbl_aaaaaaaaaaaaaaaa")
    assert to_item(MARK)["pk"] == {"S": f"OP#op#FEED#{shard:02d}"}


def packed_doc(item: dict[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(unpack(item[PACKED]["B"]))
    return doc


def test_every_field_is_one_attribute_or_packed_and_none_is_not_stored() -> None:
    for record in RECORDS:
        shape = SHAPES[type(record)]
        native = {f.attribute for f in shape.fields if not f.packed}
        names = {f.name for f in dataclasses.fields(record)}  # type: ignore[arg-type]
        assert {f.name for f in shape.fields} == names - shape.not_stored
        assert {f.name for f in shape.fields if f.packed} == shape.packed
        item, *apart = to_items(record)  # type: ignore[arg-type]
        given = {f for f in shape.fields if getattr(record, f.name) is not None}
        present = {f.attribute for f in given if not f.packed}
        packed = {f.name for f in given if f.packed}
        derived = set(shape.derived(record)) if shape.derived else set()
        with_packed = {PACKED} if packed and not apart else set()
        assert set(item) == {"pk", "sk", "kind"} | present | derived | with_packed
        assert present <= native
        if packed:
            (holder,) = apart or [item]
            assert set(packed_doc(holder)) == packed
            assert isinstance(holder[PACKED]["B"], bytes)


def test_a_missing_attribute_reads_back_as_the_field_default() -> None:
    item = to_item(TABLE)
    for name in ("chain_head", "open_shoe"):
        del item[name]
    doc = packed_doc(item)
    del doc["settle_deadline_seconds"]
    item[PACKED] = {"B": pack(json.dumps(doc))}
    old = from_item(TableRecord, item)
    assert old.settle_deadline_seconds == STORED_DEFAULTS["settle_deadline_seconds"]
    assert (old.chain_head, old.open_shoe_id) == ("", None)
    del doc["anchor"]  # a field without a default is required
    item[PACKED] = {"B": pack(json.dumps(doc))}
    with pytest.raises(KeyError):
        from_item(TableRecord, item)
    item = to_item(TABLE)
    del item["next_shoe_number"]  # natively stored too
    with pytest.raises(KeyError):
        from_item(TableRecord, item)


def test_idempotency_bodies_and_round_documents_keep_their_key_order_other_json_is_sorted() -> None:
    assert unpack(to_item(IDEM)["body"]["B"]) == '{"z":1,"a":2}'
    round_text, table_text = (
        unpack(to_item(ROUND)[PACKED]["B"]),
        unpack(to_item(TABLE)[PACKED]["B"]),
    )
    assert '"player_banker":{"bettor_id":"pb","bettor_ref":"br_p","balance":5}' in round_text
    assert '"config":{"banking":"house","profile":"star-city","tier":{"id":"t"}}' in table_text
    assert to_item(ROUND)["auto_settled"] == {"BOOL": True}


def test_a_round_with_locked_bets_is_in_the_due_index_until_settled_or_voided() -> None:
    unsettled = dataclasses.replace(ROUND, settled_at=None)
    item = to_item(unsettled)
    assert item["due_at"] == {"S": ROUND.settle_by}
    assert item["due_shard"] == {"S": keys.due_shard(ROUND.table_id)}
    assert "due_at" not in to_item(ROUND)  # settled: out of the index
    assert "due_at" not in to_item(VOIDED)  # voided: out of the index
    removed = {f: ("due_shard", "due_at", "open_in") for f in ("settled_at", "void")}
    assert SHAPES[RoundRecord].removed_by == removed


def test_an_unresolved_round_is_in_the_open_rounds_index_with_or_without_locked_bets() -> None:
    for unresolved in (
        dataclasses.replace(ROUND, settled_at=None),
        dataclasses.replace(ROUND, settled_at=None, settle_by=None),
    ):
        assert to_item(unresolved)["open_in"] == {"S": "tbl_aaaaaaaaaaaaaaaa_s1"}
    assert "open_in" not in to_item(ROUND)
    assert "open_in" not in to_item(VOIDED)


def test_a_proof_awaits_finalisation_in_the_due_index_until_signed() -> None:
    waiting = dataclasses.replace(FINAL, signature=None)
    item = to_item(waiting)
    assert item["due_shard"] == {"S": keys.final_shard(PROOF.table_id)}
    assert item["due_shard"]["S"].replace("FINAL", "DUE") == keys.due_shard(PROOF.table_id)
    assert item["due_at"] == {"S": PROOF.ended_at}
    assert "due_at" not in to_item(FINAL)
    assert "due_at" not in to_item(dataclasses.replace(waiting, operator_id=""))  # nothing to read
    assert SHAPES[ProofRecord].removed_by == {"signature": ("due_shard", "due_at")}


def test_every_round_field_is_hashed_or_declared_not_hashed() -> None:
    """Adding a field to RoundRecord fails here until it is decided: in the bacc-audit-v1 hash
    (``baccarat.audit.ROUND_FIELDS``, and the spec) or in ``RoundRecord.NOT_HASHED``."""
    fields = {f.name for f in dataclasses.fields(RoundRecord)}
    hashed = (set(ROUND_FIELDS) | set(OPTIONAL_ROUND_FIELDS)) - {"spec"}
    assert not hashed & RoundRecord.NOT_HASHED
    assert hashed | RoundRecord.NOT_HASHED == fields
