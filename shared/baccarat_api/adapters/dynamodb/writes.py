"""The game-state writes: the port's :class:`~baccarat_api.ports.writes.Put` / ``Update``
lists as ONE DynamoDB request (``PutItem``, ``UpdateItem`` or ``TransactWriteItems``), and a
lost condition as :class:`~baccarat_api.ports.repository.ConditionFailed`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baccarat_api.adapters.dynamodb.base import DynamoBase
from baccarat_api.adapters.dynamodb.codec import from_item, shape, to_items
from baccarat_api.adapters.dynamodb.errors import cancellation_reasons, mapped_errors
from baccarat_api.adapters.dynamodb.shape import Item, Shape
from baccarat_api.ports.records import KEY_FIELDS, IdempotencyRecord
from baccarat_api.ports.repository import ConditionFailed
from baccarat_api.ports.writes import ABSENT, Below, Put, Update, Write

_NEW = "attribute_not_exists(pk)"


def _refuse_packed(s: Shape, write: Update) -> None:
    """A packed field (:attr:`~.shape.Shape.packed`) is fixed when its item is put: an update
    that sets, removes, adds to or tests one is a mistake, refused before anything is sent."""
    named = (*write.set, *write.remove, *write.add, *write.expect)
    packed = sorted({f for f in named if s.field(f).packed})
    if packed:
        raise ValueError(f"{s.kind}: {', '.join(packed)} packed: no update sets or tests them")


def _index_moves(s: Shape, write: Update) -> dict[str, Any]:
    """The sparse-index attributes ``write`` moves with the fields it sets or removes:
    attribute → its encoded value, or ``None`` to remove it. A set beats a removal; of two
    sets, the field later in ``s.index_keys`` wins (the live item's tick over its ``deal_by``)."""
    moves: dict[str, Any] = {}
    for f, index in s.index_keys.items():
        if f in write.set:
            moves |= index(write.ident, write.set[f])
        elif f in write.remove:
            for attribute in index(write.ident, ""):
                moves.setdefault(attribute, None)
    return moves


class WriteRequests(DynamoBase):
    """The port's :meth:`~baccarat_api.ports.writes.StateWrites.transact`."""

    def _requests(self, write: Write) -> list[dict[str, Any]]:
        """One write as ``TransactWriteItems`` elements (``{"Put": …}`` / ``{"Update": …}``):
        one, or for a record put with its packed fields apart one put per item (each on the
        write's condition)."""
        if isinstance(write, Update):
            return [{"Update": self._update(write)}]
        puts: list[dict[str, Any]] = []
        for item in to_items(write.record):
            put: dict[str, Any] = {"TableName": self.state, "Item": item}
            if write.if_absent and write.expired_by is not None:
                put["ConditionExpression"] = f"{_NEW} OR expires_at <= :now"
                put["ExpressionAttributeValues"] = {":now": {"N": str(write.expired_by)}}
            elif write.if_absent:
                put["ConditionExpression"] = _NEW
            puts.append({"Put": put})
        return puts

    def _request(self, write: Write) -> dict[str, Any]:
        """A write of one item as its ``TransactWriteItems`` element."""
        (request,) = self._requests(write)
        return request

    def _record_of(self, kind: type, item: Item) -> Any:
        """The record of an item a lost condition returned (``ALL_OLD``); a kind with its
        packed fields apart reads that item too (one ``GetItem``: a lost race only)."""
        s = shape(kind)
        key = s.apart_key(tuple(s.field(f).decode(item) for f in KEY_FIELDS[kind]))
        return from_item(kind, item, None if key is None else self._get("packed", *key))

    def _update(self, write: Update) -> dict[str, Any]:
        s = shape(write.kind)
        names: dict[str, str] = {}
        values: dict[str, Any] = {}

        _refuse_packed(s, write)

        def name(field: str) -> str:
            ref = f"#a{len(names)}"
            names[ref] = s.field(field).attribute
            return ref

        def value(field: str, v: Any) -> str:
            ref = f":v{len(values)}"
            values[ref] = s.field(field).encode(v)
            return ref

        sets = [f"{name(f)} = {value(f, v)}" for f, v in write.set.items()]
        if write.upsert:  # an item made by this update says its kind and its key fields
            names["#kind"], values[":kind"] = "kind", {"S": s.kind}
            sets.append("#kind = :kind")
            key = zip(KEY_FIELDS[write.kind], write.ident, strict=True)
            sets += [f"{name(f)} = {value(f, v)}" for f, v in key]
        adds = [f"{name(f)} {value(f, v)}" for f, v in write.add.items()]
        removed = [name(f) for f in write.remove]
        for f in write.set:  # derived attributes the change ends (the round leaves an index)
            for attribute in s.removed_by.get(f, ()):
                ref = f"#a{len(names)}"
                names[ref] = attribute
                removed.append(ref)
        for attribute, encoded in _index_moves(s, write).items():  # keys moving with fields
            ref = f"#a{len(names)}"
            names[ref] = attribute
            if encoded is None:
                removed.append(ref)
            else:
                val = f":v{len(values)}"
                values[val] = encoded
                sets.append(f"{ref} = {val}")
        conditions = [] if write.upsert else ["attribute_exists(pk)"]
        for f, v in write.expect.items():
            if v is ABSENT:
                conditions.append(f"attribute_not_exists({name(f)})")
            elif isinstance(v, Below):
                ref = name(f)
                conditions.append(f"(attribute_not_exists({ref}) OR {ref} < {value(f, v.value)})")
            else:
                conditions.append(f"{name(f)} = {value(f, v)}")
        clauses = [("SET", sets), ("ADD", adds), ("REMOVE", removed)]
        update: dict[str, Any] = {
            "TableName": self.state,
            "Key": s.item_key(write.ident),
            "UpdateExpression": " ".join(f"{k} {', '.join(v)}" for k, v in clauses if v),
            "ExpressionAttributeNames": names,
        }
        if conditions:
            update["ConditionExpression"] = " AND ".join(conditions)
        if values:
            update["ExpressionAttributeValues"] = values
        if write.return_existing:
            update["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        return update

    def transact(self, what: str, writes: Sequence[Write], token: str | None = None) -> None:
        """One write → one ``PutItem``/``UpdateItem`` (which take no token); more → one
        ``TransactWriteItems`` with ``ClientRequestToken=token`` (botocore's own retries of it
        then send the same token, so DynamoDB applies it once)."""
        requests, owners = [], []  # each request, and the write it is (part of)
        for write in writes:
            for request in self._requests(write):
                requests.append(request)
                owners.append(write)
        if len(requests) == 1:
            ((verb, args),) = requests[0].items()
            try:
                with mapped_errors(what):
                    if verb == "Put":
                        self.client.put_item(**args)
                    else:
                        self.client.update_item(**args)
            except ConditionFailed as exc:
                (write,) = writes
                item = getattr(exc.__cause__, "response", {}).get("Item")
                if not (isinstance(write, Update) and write.return_existing and item):
                    raise
                winner: Any = self._record_of(write.kind, item)
                raise ConditionFailed(str(exc), existing=winner) from exc.__cause__
            return
        extra: dict[str, Any] = {} if token is None else {"ClientRequestToken": token}
        try:
            with mapped_errors(what):
                self.client.transact_write_items(TransactItems=requests, **extra)  # type: ignore[arg-type]
        except ConditionFailed as exc:
            reasons = cancellation_reasons(exc.__cause__)
            lost = [r.get("Code") == "ConditionalCheckFailed" for r in reasons]
            existing: Any = None
            for write, reason in zip(owners, reasons, strict=False):
                item = reason.get("Item")
                if isinstance(write, Update) and write.return_existing and item is not None:
                    existing = self._record_of(write.kind, item)
                    break
            duplicate = len(lost) == len(requests) and any(
                failed and isinstance(w, Put) and isinstance(w.record, IdempotencyRecord)
                for w, failed in zip(owners, lost, strict=True)
            )
            raise ConditionFailed(
                f"{what}: condition failed", existing=existing, duplicate=duplicate
            ) from exc.__cause__
