"""Records ↔ DynamoDB items, driven by the record dataclasses.

Each field is stored under its own name (unless :attr:`Shape.attributes` renames it) in the type
its annotation says: ``str`` → ``S``, ``int`` → ``N``, ``bytes`` → ``B``, ``bool`` → ``BOOL``,
anything else (dicts, lists) → a compact JSON string (``S``, keys sorted unless the field is in
:attr:`Shape.ordered_json`: a round's documents keep the order they were written in, so what is
read back renders byte for byte as it was first answered). A ``None`` value is not stored; a
missing attribute reads back as its stored default (:mod:`~baccarat_api.ports.stored_defaults`)
or else the field's dataclass default (or ``None``). So adding a field
to a record is ONE change — the dataclass field with its default — and adding a record kind is
one :class:`Shape` in :data:`SHAPES` (plus its key in :mod:`.keys`). What conditions and updates
touch (version, status, numbers) are therefore native attributes; nested documents are JSON.

Compact storage (issue 17: writes are charged per KB, an update on the whole item's size): the
fields a record kind fixes when its item is put and never updates nor tests in a condition
(:attr:`Shape.packed`) are stored together as ONE binary attribute, :data:`PACKED` — a JSON
object of those fields (each as the JSON it would be alone: a document's key order kept, binary
in base64) compressed by :func:`pack` — decoded once per item; for a shoe, whose item every deal
updates, on an item of its own (:attr:`Shape.apart`: ``SHOE#n#COMMIT``). The large documents an
update rewrites whole (:attr:`Shape.compressed`: a shoe's results, a live table's seats and
book) are each one binary attribute, the same way. Keys, index keys and what an index projects,
a condition tests or an update sets stay native attributes; the adapter refuses an update that
names a packed field."""

from __future__ import annotations

import base64
import dataclasses
import json
import typing
import zlib
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass
from types import NoneType, UnionType
from typing import Any, TypeVar

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.ports.records import (
    ENDED,
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
    Record,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
    TableRecord,
    WebhookFailure,
    WebhookRecord,
)
from baccarat_api.ports.stored_defaults import STORED_DEFAULTS

Item = dict[str, Any]
R = TypeVar("R")


def json_text(value: Any, *, ordered: bool = False) -> str:
    """Compact JSON as stored: keys sorted, unless ``ordered`` (kept as given)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=not ordered)


#: The attribute holding a record's packed fields (:attr:`Shape.packed`).
PACKED = "packed"

#: The first byte of a packed or compressed value: what follows is the UTF-8 JSON text as is
#: (when compressing would not shrink it: so a stored value is never longer than its text plus
#: this byte), or that text compressed (raw DEFLATE, level 9: the same bytes for the same text).
_PLAIN, _DEFLATE = 0, 1


def pack(text: str) -> bytes:
    """``text`` (JSON) as stored in a binary attribute: compressed, unless that does not
    shrink it — at most ``len(text.encode()) + 1`` bytes."""
    raw = text.encode("utf-8")
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = deflate.compress(raw) + deflate.flush()
    if len(packed) < len(raw):
        return bytes([_DEFLATE]) + packed
    return bytes([_PLAIN]) + raw


def unpack(blob: bytes) -> str:
    """The JSON text of a :func:`pack` value."""
    body = bytes(blob[1:])
    if blob[0] == _DEFLATE:
        return zlib.decompress(body, -15).decode("utf-8")
    if blob[0] == _PLAIN:
        return body.decode("utf-8")
    raise ValueError(f"unknown packed format {blob[0]}")


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    attribute: str
    #: "S", "N", "B", "BOOL", "J" (JSON in an S) or "Z" (JSON, :func:`pack`-ed, in a B)
    type: str
    ordered: bool
    default: Callable[[], Any] | None
    #: stored in the item's :data:`PACKED` attribute, not as an attribute of its own
    packed: bool = False

    def encode(self, value: Any) -> dict[str, Any]:
        if self.type == "S":
            return {"S": value}
        if self.type == "N":
            return {"N": str(value)}
        if self.type == "B":
            return {"B": value}
        if self.type == "BOOL":
            return {"BOOL": bool(value)}
        if self.type == "Z":
            return {"B": pack(json_text(value, ordered=self.ordered))}
        return {"S": json_text(value, ordered=self.ordered)}

    def decode(self, item: Item) -> Any:
        value = item.get(self.attribute)
        if value is None:
            return self._missing()
        if self.type == "S":
            return str(value["S"])
        if self.type == "N":
            return int(value["N"])
        if self.type == "B":
            return bytes(value["B"])
        if self.type == "BOOL":
            return bool(value["BOOL"])
        if self.type == "Z":
            return json.loads(unpack(value["B"]))
        return json.loads(value["S"])

    def _missing(self) -> Any:
        if self.default is None:
            raise KeyError(self.attribute)
        return self.default()

    def packed_text(self, value: Any) -> str:
        """The field's ``"name":value`` member of the packed JSON object."""
        if self.type == "B":
            text = json.dumps(base64.b64encode(value).decode("ascii"))
        elif self.type in ("J", "Z"):
            text = json_text(value, ordered=self.ordered)
        else:
            text = json.dumps(value, ensure_ascii=False)
        return f"{json.dumps(self.name)}:{text}"

    def unpacked(self, doc: Mapping[str, Any]) -> Any:
        """The field's value from the packed JSON object ``doc``."""
        if self.name not in doc:
            return self._missing()
        value = doc[self.name]
        if self.type == "B":
            return base64.b64decode(value)
        if self.type == "N":
            return int(value)
        if self.type == "S":
            return str(value)
        if self.type == "BOOL":
            return bool(value)
        return value


_SCALARS: dict[Any, str] = {str: "S", int: "N", bytes: "B", bool: "BOOL"}


def _type_code(hint: Any) -> tuple[str, bool]:
    """(type code, may be ``None``) of a field annotation."""
    args = typing.get_args(hint)
    optional = typing.get_origin(hint) in (typing.Union, UnionType) and NoneType in args
    if optional:
        (hint,) = (a for a in args if a is not NoneType)
    return _SCALARS.get(hint, "J"), optional


@dataclass(frozen=True)
class Shape:
    """How one record kind is stored."""

    #: the item's ``kind`` attribute
    kind: str
    record: type
    #: (pk, sk) of the record's key values (``KEY_FIELDS`` order)
    key: Callable[..., tuple[str, str]]
    #: field → attribute name, where they differ
    attributes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: fields that are not attributes of the item (read from the key or from other items)
    not_stored: frozenset[str] = frozenset()
    #: JSON fields whose key order is kept as written (a response replayed byte for byte)
    ordered_json: frozenset[str] = frozenset()
    #: fields fixed when the item is put — never updated, never in a condition, in no index
    #: nor projection — stored together in the :data:`PACKED` attribute
    packed: frozenset[str] = frozenset()
    #: JSON fields stored :func:`pack`-ed in a binary attribute of their own (large documents
    #: an update rewrites whole; never in a condition)
    compressed: frozenset[str] = frozenset()
    #: the key (pk, sk) of an item of its own holding the :data:`PACKED` attribute, from the
    #: record's key values: put with the item, never updated — so an update of the item (a
    #: shoe's, at every deal) is charged on the moving part alone. ``None``: packed in the item.
    apart: Callable[..., tuple[str, str]] | None = None
    #: attributes derived from the record (a sparse index's keys) and the fields whose update
    #: removes them again
    derived: Callable[[Any], Item] | None = None
    removed_by: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    #: fields that also key a sparse index: field → the index attributes of (the record's key
    #: values, the field's value), set by an update that sets the field, removed by one that
    #: removes it (a Put has them from ``derived``)
    index_keys: Mapping[str, Callable[[tuple[Any, ...], Any], Item]] = dataclasses.field(
        default_factory=dict
    )
    #: fields read from the item's key instead of attributes
    from_key: Callable[[Item], dict[str, Any]] | None = None
    #: computed from the dataclass: every stored field, its attribute, type and default
    fields: tuple[_Field, ...] = dataclasses.field(init=False, repr=False)
    _by_name: Mapping[str, _Field] = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(self.record)
        out = []
        for f in dataclasses.fields(self.record):
            if f.name in self.not_stored:
                continue
            code, optional = _type_code(hints[f.name])
            if f.name in self.compressed:
                assert code == "J", f"{f.name}: only JSON documents are compressed"
                code = "Z"
            default: Callable[[], Any] | None = None
            if f.name in STORED_DEFAULTS:  # what an item written before the field meant
                default = (lambda v: lambda: v)(STORED_DEFAULTS[f.name])
            elif f.default is not MISSING:
                default = (lambda v: lambda: v)(f.default)
            elif f.default_factory is not MISSING:
                default = f.default_factory
            elif optional:
                default = _none
            out.append(
                _Field(
                    f.name, self.attributes.get(f.name, f.name), code,
                    f.name in self.ordered_json, default, f.name in self.packed,
                )
            )  # fmt: skip
        unknown = (self.packed | self.compressed) - {f.name for f in out}
        assert not unknown, f"{self.kind}: no stored fields {sorted(unknown)}"
        assert not self.packed & set(KEY_FIELDS[self.record]), "key fields stay attributes"
        object.__setattr__(self, "fields", tuple(out))
        object.__setattr__(self, "_by_name", {f.name: f for f in out})

    def field(self, name: str) -> _Field:
        return self._by_name[name]

    def item_key(self, ident: tuple[Any, ...]) -> Item:
        pk, sk = self.key(*ident)
        return {"pk": {"S": pk}, "sk": {"S": sk}}

    def encode_all(self, record: Any) -> list[Item]:
        """The record's items: its item, and with :attr:`apart` the item of its packed fields."""
        item = self.encode(record)
        if self.apart is None:
            return [item]
        ident = tuple(getattr(record, n) for n in KEY_FIELDS[self.record])
        pk, sk = self.apart(*ident)
        apart = {"pk": {"S": pk}, "sk": {"S": sk}, "kind": {"S": f"{self.kind}_packed"}}
        if PACKED in item:
            apart[PACKED] = item.pop(PACKED)
        return [item, apart]

    def apart_key(self, ident: tuple[Any, ...]) -> tuple[str, str] | None:
        return None if self.apart is None else self.apart(*ident)

    def encode(self, record: Any) -> Item:
        item = self.item_key(tuple(getattr(record, n) for n in KEY_FIELDS[self.record]))
        item["kind"] = {"S": self.kind}
        packed: list[str] = []
        for f in self.fields:
            value = getattr(record, f.name)
            if value is None:
                continue
            if f.packed:
                packed.append(f.packed_text(value))
            else:
                item[f.attribute] = f.encode(value)
        if packed:
            item[PACKED] = {"B": pack("{" + ",".join(packed) + "}")}
        if self.derived is not None:
            item |= self.derived(record)
        return item

    def decode(self, item: Item, apart: Item | None = None, **extra: Any) -> Any:
        """The record of ``item`` (and, with :attr:`apart`, of the item of its packed fields:
        ``apart``)."""
        doc: dict[str, Any] = {}
        if self.packed:
            blob = (item if self.apart is None else apart or {}).get(PACKED)
            doc = {} if blob is None else json.loads(unpack(blob["B"]))
        values = {f.name: f.unpacked(doc) if f.packed else f.decode(item) for f in self.fields}
        if self.from_key is not None:
            values |= self.from_key(item)
        return self.record(**values, **extra)


def _none() -> None:
    return None


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


def _round_index_keys(r: RoundRecord) -> Item:
    return _round_indexes(r) | _day(r)


#: Every JSON document of a round record (kept in the order written).
ROUND_DOCUMENTS = frozenset(
    f.name
    for f in dataclasses.fields(RoundRecord)
    if _type_code(typing.get_type_hints(RoundRecord)[f.name])[0] == "J"
)

#: A round's fields fixed at the deal (bacc-audit-v1 hashes them; nothing updates or tests
#: them): packed. Native: the key fields (DueRounds projects them), ``settle_by`` (OpenRounds
#: projects it) and what the resolution and the reveals set and test.
ROUND_PACKED = frozenset(
    {
        "facts", "config", "bets", "player_banker", "squeeze", "shoe_status",
        "previous_bettors", "created_at", "money", "void_window_seconds", "request_digest",
        "write_id", "prev_hash", "round_hash",
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
    }
)  # fmt: skip

#: A table's fields fixed at its creation: packed. Native: the key fields and what a shoe's
#: commit and end set and test (``open_shoe_id``, ``next_shoe_number``, ``chain_head``).
TABLE_PACKED = frozenset(
    {
        "config", "rules", "anchor", "chain_length", "chain_secret_ct", "created_at",
        "settle_deadline_seconds", "ref_key_ct", "void_window_seconds", "write_id",
        "betting_seconds", "squeeze_seconds", "idle_shoe_close_seconds",
    }
)  # fmt: skip

#: A table's live state documents that grow with the people at the table (seats, spectators,
#: watchers, the book of slips, the idle counters): compressed — every event-emitting change
#: updates the live item and is charged on its whole size. Only ``seq`` is ever in a condition.
LIVE_COMPRESSED = frozenset({"seats", "spectators", "watchers", "book", "idle"})

SHAPES: dict[type, Shape] = {
    s.record: s
    for s in (
        Shape(
            "table", TableRecord, keys.table_key, attributes={"open_shoe_id": "open_shoe"},
            packed=TABLE_PACKED,
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
            derived=lambda live: _book_due((live.operator_id, live.table_id), live.deal_by),
            index_keys={"deal_by": _book_due},
        ),
        # Events are written once and never updated (issue 14 may add index attributes here,
        # with ``derived``: every event is written through ``StateWrites.emitting``).
        Shape("event", EventRecord, keys.event_key, ordered_json=frozenset({"data"})),
        Shape("feed_head", FeedHead, keys.feed_head_key),
        Shape("feed_mark", FeedMark, keys.feed_mark_key),
        Shape("feed_entry", FeedEntry, keys.feed_entry_key),
        Shape("webhook", WebhookRecord, keys.webhook_key),
        Shape("delivery", DeliveryState, keys.delivery_key),
        Shape("webhook_failure", WebhookFailure, keys.failure_key),
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
