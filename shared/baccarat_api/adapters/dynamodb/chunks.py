"""The :class:`~baccarat_api.ports.chunks.ChunkStore` on DynamoDB, in the round's own book
partition ``OP#<op>#ROUND#<round_id>``:

- ``LEAVES#<nnnnn>``: at most :data:`LEAVES_PER_ITEM` leaves each, a binary attribute of
  (27-byte ref ‖ 32-byte hash) per leaf in book order (≈ 295 KB per full item: under the
  400 KB item limit by construction);
- ``PROGRESS`` (:class:`~baccarat_api.ports.chunks.SettleProgress`, put by the settlement's
  transaction through the codec) with the number sets ``done`` and ``emitted`` added here, in
  the sparse ``DueRounds`` index (shard ``CHUNK#k``) until the fan-out is complete;
- ``EMIT#<nnnnn>``: a chunk's event marker (the codec's, put in the event's transaction);
- ``RCPT#<bettor_id>``: a receipt (its JSON zlib-compressed, its ``bettor_ref`` beside) under
  the bettor's id, the key the operator reads it by (one ``GetItem``; one write per slip);
- ``PAGE#<nnnnn>``: the operator's settlement page, ``BOOK#<nnnnn>``: the public book page
  (each zlib-compressed canonical JSON: ≤ 100 entries, ≤ 220 KB raw at the longest).

Every write is a ``PutItem`` of bytes that depend only on the round and the chunk (or an
``ADD`` to a set), so a redelivered chunk rewrites identical items and adds nothing twice."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from baccarat.audit import canonical
from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import DynamoBase, key_item
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.adapters.dynamodb.shape import Item
from baccarat_api.ids import RoundRef
from baccarat_api.ports.chunks import ChunkOut, Leaf, PageEntry, Progress, ReceiptItem
from baccarat_api.ports.repository import ConditionFailed

__all__ = [
    "LEAVES_PER_ITEM",
    "DynamoChunkStore",
    "emitted_key",
    "progress_due",
    "progress_key",
    "round_pk",
]

#: Leaves per ``LEAVES#`` item.
LEAVES_PER_ITEM = 5000
_REF = 27
_HASH = 32
_LEAVES = "LEAVES#"
_PROGRESS = "PROGRESS"
#: ``PutItem`` requests of one chunk in flight at once.
WRITERS = 16
#: zlib level of the stored documents (any level decompresses the same).
LEVEL = 6
#: The ``DueRounds`` shard prefix of book rounds whose fan-out is not complete.
DUE_PREFIX = "CHUNK#"


def round_pk(operator_id: str, round_id: str) -> str:
    """The partition of a round's book-wide items (leaves; the settlement's chunks)."""
    return f"OP#{operator_id}#ROUND#{round_id}"


def _pk(operator_id: str, ref: RoundRef) -> str:
    return round_pk(operator_id, ref.round_id)


def progress_key(
    operator_id: str, table_id: str, shoe_number: int, round_number: int
) -> tuple[str, str]:
    return _pk(operator_id, RoundRef(table_id, shoe_number, round_number)), _PROGRESS


def emitted_key(
    operator_id: str, table_id: str, shoe_number: int, round_number: int, chunk: int
) -> tuple[str, str]:
    return _pk(operator_id, RoundRef(table_id, shoe_number, round_number)), f"EMIT#{chunk:05d}"


def progress_due(progress: Any) -> Item:
    """A new progress is in ``DueRounds`` (shard ``CHUNK#k``) at its ``due_at``."""
    shard = keys.due_shard(progress.table_id).replace("DUE#", DUE_PREFIX)
    return {"due_shard": {"S": shard}, "due_at": {"S": progress.due_at}}


def _pack(doc: Any) -> bytes:
    return zlib.compress(canonical(doc), LEVEL)


def _unpack(blob: Any) -> Any:
    return json.loads(zlib.decompress(bytes(blob)))


def _numbers(item: Item, name: str) -> frozenset[int]:
    return frozenset(int(n) for n in item.get(name, {}).get("NS", ()))


class DynamoChunkStore(DynamoBase):
    """The settlement's storage over the state table."""

    def put_leaves(self, operator_id: str, round_id: str, leaves: Sequence[Leaf]) -> None:
        pk = round_pk(operator_id, round_id)
        for n, start in enumerate(range(0, len(leaves), LEAVES_PER_ITEM)):
            part = leaves[start : start + LEAVES_PER_ITEM]
            blob = bytearray()
            for leaf in part:
                ref = leaf.bettor_ref.encode("ascii")
                if len(ref) != _REF or len(leaf.hash) != _HASH:
                    raise ValueError(f"not a leaf: {leaf!r}")
                blob += ref + leaf.hash
            with mapped_errors("put leaves"):
                self.client.put_item(
                    TableName=self.state,
                    Item={
                        "pk": {"S": pk},
                        "sk": {"S": f"{_LEAVES}{n:05d}"},
                        "kind": {"S": "leaves"},
                        "n": {"N": str(len(part))},
                        "b": {"B": bytes(blob)},
                    },
                )

    def leaves(self, operator_id: str, round_id: str) -> list[Leaf]:
        pk = round_pk(operator_id, round_id)
        items = self._partition("read leaves", pk, (_LEAVES, _LEAVES + "~"))
        out: list[Leaf] = []
        step = _REF + _HASH
        for item in items:
            blob = item["b"]["B"]
            for i in range(0, len(blob), step):
                out.append(Leaf(blob[i : i + _REF].decode("ascii"), blob[i + _REF : i + step]))
        return out

    # the fan-out ---------------------------------------------------------------------------

    def progress(self, operator_id: str, ref: RoundRef) -> Progress | None:
        item = self._get("read progress", _pk(operator_id, ref), _PROGRESS)
        return None if item is None else _progress_of(item)

    def put_chunk(self, operator_id: str, ref: RoundRef, out: ChunkOut) -> None:
        pk = _pk(operator_id, ref)
        items: list[Item] = [
            {
                "pk": {"S": pk},
                "sk": {"S": f"RCPT#{r.bettor_id}"},
                "kind": {"S": "receipt"},
                "bettor_ref": {"S": r.bettor_ref},
                "chunk": {"N": str(out.chunk)},
                "doc": {"B": _pack(r.doc)},
            }
            for r in out.receipts
        ]
        with ThreadPoolExecutor(WRITERS) as pool:
            list(pool.map(self._put, items))  # a failure raises here: the chunk is redelivered
        self._put(
            {
                "pk": {"S": pk},
                "sk": {"S": f"PAGE#{out.chunk:05d}"},
                "kind": {"S": "settlement_page"},
                "doc": {"B": _pack([e.as_dict() for e in out.page])},
            }
        )
        self._put(
            {
                "pk": {"S": pk},
                "sk": {"S": f"BOOK#{out.chunk:05d}"},
                "kind": {"S": "book_page"},
                "doc": {"B": _pack(out.book_page)},
            }
        )
        self._add(pk, "done", out.chunk)

    def _put(self, item: Item) -> None:
        with mapped_errors("put chunk"):
            self.client.put_item(TableName=self.state, Item=item)

    def _add(self, pk: str, name: str, chunk: int) -> Item:
        with mapped_errors(f"progress {name}"):
            out = self.client.update_item(
                TableName=self.state,
                Key=key_item(pk, _PROGRESS),
                UpdateExpression="ADD #s :k",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#s": name},
                ExpressionAttributeValues={":k": {"NS": [str(chunk)]}},
                ReturnValues="ALL_NEW",
            )
        item: Item = out["Attributes"]
        return item

    def mark_emitted(self, operator_id: str, ref: RoundRef, chunk: int) -> Progress:
        pk = _pk(operator_id, ref)
        progress = _progress_of(self._add(pk, "emitted", chunk))
        if progress.complete:  # out of the sweep's index
            with mapped_errors("progress complete"):
                self.client.update_item(
                    TableName=self.state,
                    Key=key_item(pk, _PROGRESS),
                    UpdateExpression="REMOVE due_shard, due_at",
                )
        return progress

    def receipt(self, operator_id: str, ref: RoundRef, bettor_id: str) -> ReceiptItem | None:
        item = self._get("read receipt", _pk(operator_id, ref), f"RCPT#{bettor_id}")
        if item is None:
            return None
        return ReceiptItem(bettor_id, str(item["bettor_ref"]["S"]), _unpack(item["doc"]["B"]))

    def page(self, operator_id: str, ref: RoundRef, chunk: int) -> list[PageEntry] | None:
        item = self._get("read settlement page", _pk(operator_id, ref), f"PAGE#{chunk:05d}")
        if item is None:
            return None
        return [PageEntry(**e) for e in _unpack(item["doc"]["B"])]

    def book_page(self, operator_id: str, ref: RoundRef, chunk: int) -> dict[str, Any] | None:
        item = self._get("read book page", _pk(operator_id, ref), f"BOOK#{chunk:05d}")
        if item is None:
            return None
        doc: dict[str, Any] = _unpack(item["doc"]["B"])
        return doc

    def postpone(self, operator_id: str, ref: RoundRef, due_at: str) -> None:
        try:
            with mapped_errors("postpone progress"):
                self.client.update_item(
                    TableName=self.state,
                    Key=key_item(_pk(operator_id, ref), _PROGRESS),
                    UpdateExpression="SET due_at = :d",
                    ConditionExpression="attribute_exists(due_shard)",  # not complete
                    ExpressionAttributeValues={":d": {"S": due_at}},
                )
        except ConditionFailed:
            pass  # complete meanwhile: out of the index, and stays out

    def emitted_marker(self, operator_id: str, ref: RoundRef, chunk: int) -> bool:
        return (
            self._get("read chunk marker", _pk(operator_id, ref), f"EMIT#{chunk:05d}") is not None
        )

    def due_progress(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        out: list[tuple[str, RoundRef]] = []
        for shard in range(keys.DUE_SHARDS):
            if len(out) >= limit:
                break
            items = self._query(
                "due chunks",
                IndexName=keys.DUE_INDEX,
                KeyConditionExpression="due_shard = :shard AND due_at <= :now",
                ExpressionAttributeValues={
                    ":shard": {"S": f"{DUE_PREFIX}{shard}"},
                    ":now": {"S": now},
                },
                Limit=limit,
            )
            out += [
                (
                    str(i["operator_id"]["S"]),
                    RoundRef(
                        str(i["table_id"]["S"]),
                        int(i["shoe_number"]["N"]),
                        int(i["round_number"]["N"]),
                    ),
                )
                for i in items
            ]
        return out[:limit]


def _progress_of(item: Item) -> Progress:
    return Progress(
        chunks=int(item["chunks"]["N"]),
        resolved_at=str(item["resolved_at"]["S"]),
        due_at=str(item.get("due_at", {}).get("S", "")),
        voided=bool(item.get("voided", {}).get("BOOL", False)),
        done=_numbers(item, "done"),
        emitted=_numbers(item, "emitted"),
    )
