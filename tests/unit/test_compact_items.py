"""Compact items (writes are charged per started KB, an update on the whole item): what
a record fixes when its item is put is stored packed — one compressed JSON object — and read back
exactly (documents in the order written, binary as it was); what an update sets or a condition
tests stays a native attribute, and the adapter refuses an update naming a packed field. The
deal's byte budget still bounds the stored item, and the bench's round fits two write units."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.worst_case import TIERS, WORST_NOTE, fullest_presence, worst_deal

from baccarat_api import limits
from baccarat_api.adapters.dynamodb.codec import SHAPES, from_item, item_size, to_item, to_items
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.adapters.dynamodb.shape import PACKED, Shape, pack, unpack
from baccarat_api.ids import parse_shoe_id
from baccarat_api.ports.records import LiveRecord, RoundRecord, ShoeRecord, TableRecord
from baccarat_api.ports.writes import ABSENT, StateWrites, Update
from baccarat_api.service import tables
from baccarat_api.service.dealing import deal_round, stored_bytes
from baccarat_api.service.models import CreateTableRequest, DealRequest
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round

from .conftest import Game, star_city_bets
from .test_service import present

OP = "operator-a"

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=20)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
documents = st.dictionaries(text, json_values, max_size=5)
numbers = st.integers(min_value=0, max_value=99_999)


def strategy(kind: type) -> st.SearchStrategy[Any]:
    """Records of ``kind`` with every field drawn by its type (ids for the key fields)."""
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for f in SHAPES[kind].fields:
        if f.name in ("operator_id", "table_id"):
            fields[f.name] = ids
        elif f.name in ("shoe_number", "round_number"):
            fields[f.name] = numbers
        elif f.type == "S":
            fields[f.name] = text
        elif f.type == "N":
            fields[f.name] = st.integers()
        elif f.type == "B":
            fields[f.name] = st.binary(max_size=64)
        elif f.type == "BOOL":
            fields[f.name] = st.booleans()
        else:  # JSON: lists where the record keeps lists
            fields[f.name] = st.lists(json_values, max_size=4) if f.name in _LISTS else documents
        if f.default is not None and f.default() is None:
            fields[f.name] = st.none() | fields[f.name]
    return st.builds(kind, **fields)


_LISTS = {"bets", "previous_bettors", "reveals", "results", "recent_bettors", "watchers"}


def ordered(record: Any) -> str:
    """Every field as JSON with its keys in the order they have (equal text: equal order)."""
    return json.dumps(
        dataclasses.asdict(record), ensure_ascii=False, default=lambda b: b.hex(), sort_keys=False
    )


@settings(max_examples=60, deadline=None)
@given(st.one_of(*map(strategy, (RoundRecord, ShoeRecord, TableRecord, LiveRecord))))
def test_a_compact_item_reads_back_as_the_record_with_its_documents_in_order(record: Any) -> None:
    item, *apart = to_items(record)
    back = from_item(type(record), item, *apart)
    assert back == record
    if type(record) is RoundRecord:  # a round's documents keep the order they were written in
        assert ordered(back) == ordered(record)
    compressed = {f.attribute for f in SHAPES[type(record)].fields if f.type == "Z"}
    assert all(isinstance(item[a]["B"], bytes) for a in compressed & set(item))
    packed = {f.name for f in SHAPES[type(record)].fields if f.packed}
    assert not packed & set(item), "a packed field has no attribute of its own"


@settings(max_examples=200, deadline=None)
@given(st.one_of(text, st.binary(max_size=400).map(lambda b: b.hex()), st.text(max_size=400)))
def test_packing_restores_the_text_and_never_adds_more_than_one_byte(value: str) -> None:
    try:
        raw = value.encode("utf-8")
    except UnicodeEncodeError:
        return  # not storable text in the first place (a lone surrogate)
    assert unpack(pack(value)) == value
    assert len(pack(value)) <= len(raw) + 1


def test_an_update_naming_a_packed_field_is_refused_by_the_adapter() -> None:
    """What an update sets or a condition tests must be an attribute of its own; the deal's
    writes, the settlement, the void and the reveals name none of the packed fields."""
    repo = DynamoRepository(None, "state", "config")  # type: ignore[arg-type]
    ident = ("op", "tbl_aaaaaaaaaaaaaaaa", 1, 2)
    for bad in (
        Update(RoundRecord, ident, set={"money": {}}),
        Update(RoundRecord, ident, set={}, expect={"round_hash": "x"}),
        Update(RoundRecord, ident, set={}, remove=("player_banker",)),
        Update(ShoeRecord, ident[:3], set={"config": {}}),
        Update(TableRecord, ident[:2], set={"anchor": "x"}),
    ):
        with pytest.raises(ValueError, match="packed"):
            repo._request(bad)
    record = to_round_record()
    allowed = [
        StateWrites._resolution_update(record, {"settled_at": "t", "auto_settled": False}, {}),
        StateWrites._resolution_update(record, {"void": {"reason": "misdeal"}}, {}),
        Update(RoundRecord, ident, set={"reveals": [{"step": 1}]}, expect={"void": ABSENT}),
    ]
    for write in allowed:
        assert "UpdateExpression" in repo._request(write)["Update"]


def to_round_record() -> RoundRecord:
    return RoundRecord(
        "op", "tbl_aaaaaaaaaaaaaaaa", 1, 2, {}, {}, [], None, None, "open", round_hash="h"
    )


# --- sizes --------------------------------------------------------------------------------------


def plain_size(record: Any) -> int:
    """The item's size with nothing packed or compressed (every field its own attribute)."""
    shape = SHAPES[type(record)]
    plain = dataclasses.replace(shape, packed=frozenset(), compressed=frozenset(), apart=None)
    return item_size(Shape.encode(plain, record))


def game_round(game: Game, request: dict[str, Any], body: dict[str, Any]) -> RoundRecord:
    table = tables.create_table(
        game.repo, game.vault, OP, CreateTableRequest.model_validate(request)
    )
    shoe = tables.commit_shoe(game.repo, game.vault, OP, table.table_id, "é" * 128)
    present(game, table.table_id, body["bets"], body.get("player_banker"))
    dealt = deal_round(game.repo, game.shoes, OP, shoe.shoe_id, DealRequest.model_validate(body))
    return stored_round(game, dealt.round_id)


def stored_round(game: Game, round_id: str) -> RoundRecord:
    (record,) = [
        r for r in game.repo.items.values() if isinstance(r, RoundRecord) and r.round_id == round_id
    ]
    return record


@pytest.mark.parametrize("banking", ["house", "player_banker"])
@pytest.mark.parametrize("profile", ["star-city", "bid-squeeze"])
def test_the_largest_round_the_limits_allow_stays_under_its_budget_compact(
    game: Game, profile: str, banking: str
) -> None:
    """The worst case of every limit (200 bets, 64-character ids, personal limits on every bet
    type), voided with the longest note — the item's largest form: the compact item is under
    what the deal checks (``stored_bytes``), that under the budget, and smaller than the same
    record stored uncompressed."""
    tier = game.repo.get_tier(TIERS[profile])
    assert tier is not None
    request = {"profile": profile, "tier": TIERS[profile], "banking": banking}
    record = game_round(game, request, worst_deal(profile, banking, tier))
    estimate = stored_bytes(record)
    void_round(game.repo, OP, record.round_id, reason="technical_fault", note=WORST_NOTE)
    voided = stored_round(game, record.round_id)
    assert voided.void is not None
    compact = item_size(to_item(voided))
    assert compact <= estimate <= limits.ROUND_ITEM_BUDGET_BYTES
    assert compact < plain_size(voided) <= estimate
    assert from_item(RoundRecord, to_item(voided)) == voided


def test_the_benchs_round_settled_fits_two_write_units_less_than_half_its_plain_size(
    game: Game,
) -> None:
    """The bench's round (benchmarks/api.py: these bets at the star-city fun tier), settled —
    its largest form there. Measured: ≈ 1.8 KB compact against ≈ 4.1–4.2 KB plain (2 write units
    instead of 5, doubled in a transaction)."""
    request = {
        "profile": "star-city",
        "tier": "star-city-fun",
        "banking": "house",
        "squeeze_seconds": 0,
    }  # settled at once: a table without a squeeze
    record = game_round(game, request, {"bets": star_city_bets()})
    settle_round(game.repo, OP, record.round_id)
    settled = stored_round(game, record.round_id)
    assert settled.settled_at is not None
    compact, plain = item_size(to_item(settled)), plain_size(settled)
    assert compact <= 2 * 1024 < plain
    assert compact * 2 <= plain
    print(f"\nbench round: compact {compact} B, plain {plain} B")
    assert PACKED in to_item(settled)


def test_the_shoe_item_every_deal_updates_stays_under_one_write_unit_to_the_shoes_end(
    game: Game,
) -> None:
    """The deal's update of the shoe is charged on the shoe's item alone (its constants are an
    item of their own, put once): dealt to its end with the bench's bets, the item — results
    and recent bettors compressed — stays ≤ 1 KB, where it was 2.0–3.9 KB stored plain."""
    request = {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
               "squeeze_seconds": 0}  # each round settled at once  # fmt: skip
    table = tables.create_table(
        game.repo, game.vault, OP, CreateTableRequest.model_validate(request)
    )
    shoe = tables.commit_shoe(game.repo, game.vault, OP, table.table_id, "latency")
    ref = parse_shoe_id(shoe.shoe_id)
    assert ref is not None
    sizes, plain = [], []
    present(game, table.table_id, star_city_bets(), None)
    while True:
        body = DealRequest.model_validate({"bets": star_city_bets()})
        dealt = deal_round(game.repo, game.shoes, OP, shoe.shoe_id, body)
        if dealt.shoe_status != "ended":  # the next round follows once this one is settled
            settle_round(game.repo, OP, dealt.round_id)
        record = game.repo.get_shoe(OP, ref)
        assert record is not None
        item, commit = to_items(record)
        sizes.append(item_size(item))
        plain.append(plain_size(record))
        if dealt.shoe_status == "ended":
            break
    assert record.rounds_dealt == len(sizes) >= 30 and record.results and record.recent_bettors
    print(f"\nshoe item over {len(sizes)} deals: {min(sizes)}–{max(sizes)} B; plain {min(plain)}–"
          f"{max(plain)} B; constants {item_size(commit)} B")  # fmt: skip
    assert max(sizes) <= 1024 < min(plain)


def test_a_full_tables_live_item_stays_under_one_write_unit(game: Game) -> None:
    """Every event-emitting change updates the table's live item, charged on its whole size:
    its documents that grow with the people at the table are compressed. Seven seats with a
    book of slips and their idle counters fit one write unit (≈ 2 KB stored plain); the largest
    live state the limits allow (every spectator and watcher) shrinks tenfold."""

    at = "2026-01-01T00:00:00.000Z"
    seats = {
        str(n): {"bettor_id": f"player-{n}", "balance": 50_000, "level": 3} for n in range(1, 8)
    }
    bets = [{"type": "banker", "amount": 2000}, {"type": "tie", "amount": 100}]
    book = {
        f"player-{n}": {
            "role": "seated",
            "seat": n,
            "bets": bets,
            "placed_at": at,
            "orders": [n, n + 7],
            "order": n + 7,
        }
        for n in range(1, 8)
    }
    window = {"shoe_id": "tbl_aaaaaaaaaaaaaaaa_s1", "round_number": 12, "opened_at": at,
              "closes_at": at, "status": "open", "round_id": None}  # fmt: skip
    busy = LiveRecord(
        OP, "tbl_aaaaaaaaaaaaaaaa", 1234, at, seats=seats, book=book, betting=window,
        idle={f"player-{n}": 0 for n in range(1, 8)},
    )  # fmt: skip
    largest = LiveRecord(OP, "tbl_aaaaaaaaaaaaaaaa", 10**12 - 1, at, **fullest_presence())
    for live in (busy, largest):
        assert from_item(LiveRecord, to_item(live)) == live
    assert item_size(to_item(busy)) <= 1024 < plain_size(busy)
    assert item_size(to_item(largest)) * 10 <= plain_size(largest)
