"""Records ↔ DynamoDB items: one :class:`~.shape.Shape` per record kind (:data:`SHAPES`),
with the index attributes each kind derives and the fields it packs, and the tier items of the
config table. Adding a field is one dataclass field; adding a record kind is one
:class:`~.shape.Shape` in :data:`SHAPES` (and its key in :mod:`.keys`)."""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any, TypeVar

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.chunks import emitted_key, progress_due, progress_key
from baccarat_api.adapters.dynamodb.shape import Item, Shape, json_text, type_code
from baccarat_api.ports.documents import TickDoc
from baccarat_api.ports.records import (
    ENDED,
    ChatMessage,
    ChatPerson,
    ChatWindow,
    ChunkEmitted,
    DeliveryState,
    EventRecord,
    FairnessTotals,
    FeedEntry,
    FeedHead,
    FeedMark,
    IdempotencyRecord,
    LiveRecord,
    ProofRecord,
    Record,
    RoundRecord,
    SettleProgress,
    ShoeFairness,
    ShoeRecord,
    TableNumber,
    TableNumberCounter,
    TableRecord,
    WebhookFailure,
    WebhookRecord,
)

R = TypeVar("R")


def _round_indexes(r: RoundRecord) -> Item:
    """An unresolved round is in the sparse OpenRounds index (``open_in``: its shoe), and with
    locked bets to settle by a deadline in DueRounds, until its settlement (or void) removes
    these attributes."""
    if r.resolved:
        return {}
    out: Item = {"open_in": {"S": r.ref.shoe.shoe_id}}
    if r.settle_by is not None:
        out |= {"due_shard": {"S": keys.due_shard(r.table_id)}, "due_at": {"S": r.settle_by}}
    return out


def _proof_due(p: ProofRecord) -> Item:
    """A proof not yet final is in DueRounds (shard ``FINAL#k``) from the shoe's end, until the
    finalisation's signature removes it: the sweep finalises proofs nobody reads."""
    if p.signature is not None or not p.operator_id:
        return {}
    return {"due_shard": {"S": keys.final_shard(p.table_id)}, "due_at": {"S": p.ended_at}}


def _day(r: RoundRecord) -> Item:
    """Every round: its place in the ``RoundsByDay`` index (the UTC day of its deal, its
    table's shard; fixed at the deal)."""
    shard = keys.day_shard(r.operator_id, r.dealt_at[:10], keys.day_shard_of(r.table_id))
    return {
        "day_shard": {"S": shard},
        "day_key": {"S": keys.day_key(r.table_id, r.shoe_number, r.round_number)},
    }


def _book_due(ident: tuple[Any, ...], deal_by: str | None) -> Item:
    """A table whose betting window waits to be dealt is in DueRounds (shard ``BOOK#k``) at its
    ``deal_by`` time, until the deal (or the sweep's) removes ``deal_by``."""
    if deal_by is None:
        return {}
    return {"due_shard": {"S": keys.book_shard(ident[1])}, "due_at": {"S": deal_by}}


def _tick_due(ident: tuple[Any, ...], tick: TickDoc | str | None) -> Item:
    """A running table with a next step is in DueRounds (shard ``TICK#k``) at the step's due
    time, so the sweep delivers a tick its timer lost. The live item has one DueRounds slot:
    the tick takes it from ``deal_by``'s ``BOOK#k`` (a running table's window has a tick: its
    close); an operator table, which has no tick, keeps ``BOOK#k`` as before."""
    due = tick if isinstance(tick, str) else None if tick is None else tick.get("due")
    if not isinstance(due, str):  # ("": an update removing it asks for the attributes)
        return {}
    return {"due_shard": {"S": keys.tick_shard(ident[1])}, "due_at": {"S": due}}


def _live_due(live: LiveRecord) -> Item:
    ident = (live.operator_id, live.table_id)
    if live.tick is not None:
        return _tick_due(ident, live.tick)
    return _book_due(ident, live.deal_by)


def _idle_due(ident: tuple[Any, ...], close_by: str | None) -> Item:
    """An open shoe is in DueRounds (shard ``IDLE#k``) at its ``close_by`` time, moved by every
    deal, until its end removes ``close_by``: the sweep closes a shoe nobody dealt from."""
    if close_by is None:  # (an update removing it asks with "": the attributes to remove)
        return {}
    return {"due_shard": {"S": keys.idle_shard(ident[1])}, "due_at": {"S": close_by}}


def _shoe_due(shoe: ShoeRecord) -> Item:
    if shoe.status == ENDED:
        return {}
    return _idle_due((shoe.operator_id, shoe.table_id, shoe.shoe_number), shoe.close_by)


def _lobby(t: TableRecord) -> Item:
    """A numbered table is in the sparse ``Lobby`` index: its operator's partition, in number
    order (fixed at its creation; a table without a number is in no lobby)."""
    if t.number is None:
        return {}
    return {
        "lobby_pk": {"S": keys.lobby_pk(t.operator_id)},
        "lobby_sk": {"S": keys.lobby_sk(t.number, t.table_id)},
    }


def _round_index_keys(r: RoundRecord) -> Item:
    return _round_indexes(r) | _day(r)


#: Every JSON document of a round record (kept in the order written).
ROUND_DOCUMENTS = frozenset(
    f.name
    for f in dataclasses.fields(RoundRecord)
    if type_code(typing.get_type_hints(RoundRecord)[f.name])[0] == "J"
)

#: A round's fields fixed at the deal (bacc-audit-v1 hashes them; nothing updates or tests
#: them): packed. Native: the key fields (DueRounds projects them), ``settle_by`` (OpenRounds
#: projects it) and what the resolution and the reveals set and test.
ROUND_PACKED = frozenset(
    {
        "facts", "config", "bets", "player_banker", "squeeze", "shoe_status",
        "previous_bettors", "created_at", "money", "void_window_seconds", "request_digest",
        "write_id", "prev_hash", "round_hash", "lock", "beacon",
    }
)  # fmt: skip

#: A shoe's fields fixed at its commit: packed. Native: the key fields, what every deal moves
#: (``status``, ``version`` — the deal's condition —, ``rounds_dealt``, ``cursor``,
#: ``chain_head`` — also read alone, by projection), what its end sets; the two documents every
#: deal rewrites whole (``results``, ``recent_bettors``) compressed.
SHOE_PACKED = frozenset(
    {
        "client_seed", "client_hash", "rules", "anchor", "config", "secret_ct", "created_at",
        "settle_deadline_seconds", "void_window_seconds", "ref_key_ct", "write_id",
        "chain_start", "betting_seconds", "squeeze_seconds", "idle_shoe_close_seconds",
        "fairness", "beacon",
    }
)  # fmt: skip

#: A table's fields fixed at its creation: packed. Native: the key fields and what a shoe's
#: commit and end set and test (``open_shoe_id``, ``next_shoe_number``, ``chain_head``).
TABLE_PACKED = frozenset(
    {
        "config", "rules", "anchor", "chain_length", "chain_secret_ct", "created_at",
        "settle_deadline_seconds", "ref_key_ct", "void_window_seconds", "write_id",
        "betting_seconds", "squeeze_seconds", "idle_shoe_close_seconds", "fairness", "beacon",
    }
)  # fmt: skip

#: A table's live state documents that grow with the people at the table (seats, spectators,
#: watchers, the book of slips, the idle counters) or with a running table's queue of client
#: seeds (up to 3 × 256 bytes): compressed — every event-emitting change updates the live item
#: and is charged on its whole size. Only ``seq`` is ever in a condition.
LIVE_COMPRESSED = frozenset({"seats", "spectators", "watchers", "book", "idle", "client_seeds"})

SHAPES: dict[type, Shape] = {
    s.record: s
    for s in (
        Shape(
            "table", TableRecord, keys.table_key, attributes={"open_shoe_id": "open_shoe"},
            packed=TABLE_PACKED, derived=_lobby,
        ),
        Shape(
            "shoe", ShoeRecord, keys.shoe_key, packed=SHOE_PACKED,
            compressed=frozenset({"results", "recent_bettors"}), apart=keys.shoe_commit_key,
            derived=_shoe_due, index_keys={"close_by": _idle_due},
        ),
        Shape(
            "round", RoundRecord, keys.round_key, ordered_json=ROUND_DOCUMENTS,
            packed=ROUND_PACKED, derived=_round_index_keys,
            removed_by={f: ("due_shard", "due_at", "open_in") for f in ("settled_at", "void")},
        ),
        Shape(
            "proof", ProofRecord, keys.proof_key,
            derived=_proof_due, removed_by={"signature": ("due_shard", "due_at")},
        ),
        Shape("shoe_fairness", ShoeFairness, keys.shoe_fairness_key),
        Shape("fairness_totals", FairnessTotals, keys.fairness_totals_key),
        Shape(
            "idempotency", IdempotencyRecord, keys.idempotency_key,
            not_stored=frozenset({"key_hash"}), ordered_json=frozenset({"body"}),
            compressed=frozenset({"body"}),  # a stored answer: up to 3.4 KB of JSON, put once
            from_key=lambda item: {"key_hash": str(item["pk"]["S"]).rsplit("#", 1)[-1]},
        ),
        Shape(
            "live", LiveRecord, keys.live_key, compressed=LIVE_COMPRESSED,
            derived=_live_due,
            # in this order: when one change moves both, the tick's slot wins (shape.py)
            index_keys={"deal_by": _book_due, "tick": _tick_due},
        ),
        # Events are written once and never updated (every event is written through
        # ``StateWrites.emitting``).
        Shape("event", EventRecord, keys.event_key, ordered_json=frozenset({"data"})),
        Shape("feed_head", FeedHead, keys.feed_head_key),
        Shape("feed_mark", FeedMark, keys.feed_mark_key),
        Shape("feed_entry", FeedEntry, keys.feed_entry_key),
        Shape("webhook", WebhookRecord, keys.webhook_key),
        Shape("delivery", DeliveryState, keys.delivery_key),
        Shape("webhook_failure", WebhookFailure, keys.failure_key),
        # A book round's settlement fan-out (adapters/dynamodb/chunks.py adds its number sets).
        Shape("settle_progress", SettleProgress, progress_key, derived=progress_due),
        Shape("chunk_emitted", ChunkEmitted, emitted_key),
        # A table's chat (ports/chat_records.py): messages, each person's mute, rate windows.
        Shape("chat", ChatMessage, keys.chat_message_key),
        Shape("chat_person", ChatPerson, keys.chat_person_key),
        Shape("chat_window", ChatWindow, keys.chat_window_key),
        # A table's number claimed (put once, with the table) and the operator's counter.
        Shape("table_number", TableNumber, keys.table_number_key),
        Shape("table_number_counter", TableNumberCounter, keys.number_counter_key),
    )
}  # fmt: skip


def shape(kind: type) -> Shape:
    return SHAPES[kind]


def to_items(record: Record) -> list[Item]:
    """The items storing ``record``: one, or two for a kind with its packed fields apart (the
    record's item first)."""
    return SHAPES[type(record)].encode_all(record)


def to_item(record: Record) -> Item:
    """The one item of ``record`` (a kind with its packed fields apart: :func:`to_items`)."""
    (item,) = to_items(record)
    return item


def from_item(kind: type[R], item: Item, apart: Item | None = None, **extra: Any) -> R:
    """The record of ``item`` — for a kind with its packed fields apart, with ``apart``, the
    item of those fields."""
    record: R = SHAPES[kind].decode(item, apart, **extra)
    return record


def tier_item(tier: dict[str, Any], position: int) -> Item:
    """A tier (``Tier.to_dict()``) in the config table: its document and its place in the file."""
    pk, sk = keys.tier_key(str(tier["id"]))
    return {
        "pk": {"S": pk},
        "sk": {"S": sk},
        "kind": {"S": "tier"},
        "position": {"N": str(position)},
        "doc": {"S": json_text(tier)},
    }


def tier_doc(item: Item) -> dict[str, Any] | None:
    """A tier item's document, ``None`` once retired (gone from the data file)."""
    if item.get("retired", {}).get("BOOL"):
        return None
    doc: dict[str, Any] = json.loads(item["doc"]["S"])
    return doc


def item_size(item: dict[str, Any]) -> int:
    """An item's bytes by DynamoDB's accounting: attribute names + values (strings and binary
    by length, numbers ≈ 1 byte per 2 significant digits + 1, maps and lists 3 + their contents)."""
    return sum(len(name.encode()) + _value_size(v) for name, v in item.items())


def _value_size(v: dict[str, Any]) -> int:
    ((kind, x),) = v.items()
    if kind == "S":
        return len(str(x).encode())
    if kind == "B":
        return len(x)
    if kind == "N":
        digits = str(x).lstrip("-").replace(".", "").strip("0") or "0"
        return (len(digits) + 1) // 2 + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + 1 + _value_size(e) for k, e in x.items())
    if kind == "L":
        return 3 + sum(1 + _value_size(e) for e in x)
    if kind in ("SS", "NS", "BS"):
        return sum(_value_size({kind[0]: e}) for e in x)
    return 0
