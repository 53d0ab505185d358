"""An item written before one of its fields existed reads back with the field's frozen stored
default (``ports.stored_defaults``), not with today's API default: changing an API default
changes new tables only, never how an old item reads nor its audit hash."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import MISSING
from typing import Any

import pytest

from baccarat_api.adapters.dynamodb.codec import SHAPES, to_items
from baccarat_api.adapters.dynamodb.shape import PACKED, pack, unpack
from baccarat_api.ports import records
from baccarat_api.ports.records import RoundRecord, ShoeRecord, TableRecord
from baccarat_api.ports.stored_defaults import STORED_DEFAULTS
from baccarat_api.service.audit import record_hash

from .test_records_and_codec import ROUND, SHOE, TABLE


def _without(item: dict[str, Any], name: str) -> dict[str, Any]:
    """``item`` as written before field ``name`` existed (no attribute, nothing packed)."""
    old = dict(item)
    old.pop(name, None)
    if PACKED in old:
        doc = json.loads(unpack(old[PACKED]["B"]))
        doc.pop(name, None)
        old[PACKED] = {"B": pack(json.dumps(doc))}
    return old


def _old_items(record: Any, name: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The item (and the item of its packed fields, for a kind that keeps them apart) of
    ``record`` as written before field ``name`` existed."""
    items = [_without(i, name) for i in to_items(record)]
    return items[0], items[1] if len(items) > 1 else None


def _record_classes() -> list[type]:
    return [
        c
        for c in vars(records).values()
        if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == records.__name__
    ]


def test_every_valued_default_is_a_stored_default() -> None:
    """A field whose record default is a value (an API default), not an empty one, reads back
    from the frozen stored defaults: a new such field must say what an old item meant."""
    valued = {
        (c.__name__, f.name)
        for c in _record_classes()
        for f in dataclasses.fields(c)
        if f.default is not MISSING and f.default not in (None, "", 0, False, b"")
    }
    assert valued, "the records have API defaults"
    assert {name for _, name in valued} == set(STORED_DEFAULTS)


@pytest.mark.parametrize("record", [TABLE, SHOE, ROUND], ids=lambda r: type(r).__name__)
def test_an_old_item_reads_back_with_the_stored_defaults(record: Any) -> None:
    shape = SHAPES[type(record)]
    for name, stored in STORED_DEFAULTS.items():
        if name not in {f.name for f in shape.fields}:
            continue
        old = shape.decode(*_old_items(record, name))
        assert getattr(old, name) == stored, name


@pytest.mark.parametrize("kind", [TableRecord, ShoeRecord, RoundRecord], ids=lambda k: k.__name__)
def test_changing_an_api_default_does_not_change_an_old_item(
    kind: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API default changed (the record's field default, as ``limits`` sets it) and the
    codec built again: an item written before the field existed reads the same, and a round's
    audit hash is the same."""
    record = {TableRecord: TABLE, ShoeRecord: SHOE, RoundRecord: ROUND}[kind]
    items = _old_items(record, "void_window_seconds")
    before = SHAPES[kind].decode(*items)

    field = next(f for f in dataclasses.fields(kind) if f.name == "void_window_seconds")
    monkeypatch.setattr(field, "default", field.default * 5 + 1)
    rebuilt = dataclasses.replace(SHAPES[kind])  # the codec, as imported after the edit
    after = rebuilt.decode(*items)

    assert after == before
    assert after.void_window_seconds == STORED_DEFAULTS["void_window_seconds"]
    if kind is RoundRecord:
        assert record_hash(after) == record_hash(before)
