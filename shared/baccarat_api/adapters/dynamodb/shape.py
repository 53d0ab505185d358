"""How one record kind is stored (:class:`Shape`), field by field.

Each field is one attribute under its name (or :attr:`Shape.attributes`' rename), typed by
its annotation: ``str`` → ``S``, ``int`` → ``N``, ``bytes`` → ``B``, ``bool`` → ``BOOL``, a
document → compact JSON (keys sorted, unless in :attr:`Shape.ordered_json`: kept as written,
so an answer rendered from it is byte for byte the first). ``None`` is not stored; a missing
attribute reads back as its stored default (:mod:`~baccarat_api.ports.stored_defaults`) or the
field's default.

Writes are charged per KB of the whole item, so the fields a kind fixes at its put
(:attr:`Shape.packed`) share ONE :func:`pack`-ed attribute, :data:`PACKED` (a shoe's on an item
of their own, :attr:`Shape.apart`), and large documents rewritten whole
(:attr:`Shape.compressed`) are each packed alone; keys, indexes, conditions and updates touch
native attributes only."""

from __future__ import annotations

import base64
import dataclasses
import json
import typing
import zlib
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass
from types import NoneType, UnionType
from typing import Any

from baccarat_api.ports.records import KEY_FIELDS
from baccarat_api.ports.stored_defaults import STORED_DEFAULTS

Item = dict[str, Any]


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


def _none() -> None:
    return None


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

    def value_in(self, doc: Mapping[str, Any]) -> Any:
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


def type_code(hint: Any) -> tuple[str, bool]:
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
    #: removes it (a Put has them from ``derived``); when one update moves several fields
    #: keying the same attributes, a set beats a removal and the later field's set wins
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
            code, optional = type_code(hints[f.name])
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
        values = {f.name: f.value_in(doc) if f.packed else f.decode(item) for f in self.fields}
        if self.from_key is not None:
            values |= self.from_key(item)
        return self.record(**values, **extra)
