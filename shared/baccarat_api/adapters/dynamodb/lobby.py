"""Table numbers and the lobby on DynamoDB: the operator's number counter and claims (its
``OP#<op>#TABLENO`` partition, :mod:`.keys`), and a page of the sparse ``Lobby`` index with
each table's live state, shown shoe and — at a book table — count shards, batched."""

from __future__ import annotations

from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.codec import from_item, shape
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.adapters.dynamodb.shape import Item
from baccarat_api.adapters.dynamodb.writes import WriteRequests
from baccarat_api.ports.book import COUNT_SHARDS
from baccarat_api.ports.lobby import (
    LobbyPage,
    LobbyPosition,
    LobbyRow,
    LobbyShoe,
    shown_shoe_number,
)
from baccarat_api.ports.records import (
    LiveRecord,
    ShoeRecord,
    TableNumber,
    TableNumberCounter,
    TableRecord,
)
from baccarat_api.ports.writes import Update

#: Keys of one ``BatchGetItem`` (DynamoDB's limit).
BATCH_KEYS = 100


class LobbyReads(WriteRequests):
    """The counter, the claims, the lobby's pages."""

    def table_number(self, operator_id: str, number: int) -> TableNumber | None:
        item = self._get("table number", *keys.table_number_key(operator_id, number))
        return None if item is None else from_item(TableNumber, item)

    def next_table_number(self, operator_id: str) -> int:
        draw = Update(TableNumberCounter, (operator_id,), set={}, add={"last": 1}, upsert=True)
        with mapped_errors("table number counter"):
            out = self.client.update_item(**self._update(draw), ReturnValues="UPDATED_NEW")
        last = shape(TableNumberCounter).field("last")
        return int(last.decode(out["Attributes"]))

    def taken_table_numbers(self, operator_id: str, first: int, limit: int) -> list[int]:
        last = keys.table_number_sk(99_999)
        out = self._between(
            "taken table numbers",
            keys.table_numbers_pk(operator_id),
            keys.table_number_sk(first),
            last,
            limit,
        )
        return [int(item["sk"]["S"]) for item in out.get("Items", [])]

    def lobby_page(self, operator_id: str, after: LobbyPosition | None, limit: int) -> LobbyPage:
        condition = "lobby_pk = :pk"
        values: dict[str, Any] = {":pk": {"S": keys.lobby_pk(operator_id)}}
        if after is not None:
            condition += " AND lobby_sk > :after"
            values[":after"] = {"S": keys.lobby_sk(*after)}
        with mapped_errors("lobby"):
            page = self.client.query(
                TableName=self.state,
                IndexName=keys.LOBBY_INDEX,
                KeyConditionExpression=condition,
                ExpressionAttributeValues=values,
                Limit=limit + 1,
            )
        items = page.get("Items", [])
        tables = [from_item(TableRecord, item) for item in items[:limit]]
        found = self._batch(_wanted(tables, self.state))
        return LobbyPage([_row(t, found) for t in tables], len(items) > limit)

    def _batch(self, wanted: dict[tuple[str, str], tuple[str, str]]) -> dict[str, Item]:
        """Each wanted key's item by its slot: ``BatchGetItem`` of at most 100 keys each."""
        found: dict[str, Item] = {}
        pairs = list(wanted.items())
        for start in range(0, len(pairs), BATCH_KEYS):
            found |= dict(self._fetch(dict(pairs[start : start + BATCH_KEYS])))
        return found


def _wanted(tables: list[TableRecord], state: str) -> dict[tuple[str, str], tuple[str, str]]:
    """The keys a page reads, slotted ``live|<table>``, ``shoe|<table>``, ``spec|<table>|k``,
    ``watch|<table>|k`` (the first two before any count shard: one request when it fits)."""
    wanted: dict[tuple[str, str], tuple[str, str]] = {}
    for t in tables:
        wanted[keys.live_key(t.operator_id, t.table_id)] = (f"live|{t.table_id}", state)
        number = shown_shoe_number(t)
        if number is not None:
            wanted[keys.shoe_key(t.operator_id, t.table_id, number)] = (f"shoe|{t.table_id}", state)
    for t in tables:
        if t.bet_behind == "book":
            for kind, pk in (
                ("spec", keys.spectators_pk(t.operator_id, t.table_id)),
                ("watch", keys.watchers_pk(t.operator_id, t.table_id)),
            ):
                for k in range(COUNT_SHARDS):
                    wanted[(pk, keys.count_sk(k))] = (f"{kind}|{t.table_id}|{k}", state)
    return wanted


def _count(found: dict[str, Item], kind: str, table_id: str) -> int:
    return sum(
        int(found[slot].get("n", {}).get("N", "0"))
        for k in range(COUNT_SHARDS)
        if (slot := f"{kind}|{table_id}|{k}") in found
    )


def _row(t: TableRecord, found: dict[str, Item]) -> LobbyRow:
    live_item = found.get(f"live|{t.table_id}")
    shoe_item = found.get(f"shoe|{t.table_id}")
    counts: dict[str, Any] = {}
    if t.bet_behind == "book":
        counts = {
            "spectators": _count(found, "spec", t.table_id),
            "watchers": _count(found, "watch", t.table_id),
        }
    return LobbyRow(
        t,
        None if live_item is None else from_item(LiveRecord, live_item),
        None if shoe_item is None else _progress(shoe_item),
        **counts,
    )


def _progress(item: Item) -> LobbyShoe:
    """A shoe's progress from its own item (its packed constants, apart, are not read)."""
    s = shape(ShoeRecord)
    return LobbyShoe(
        shoe_number=s.field("shoe_number").decode(item),
        status=s.field("status").decode(item),
        rounds_dealt=s.field("rounds_dealt").decode(item),
        cursor=s.field("cursor").decode(item),
        results=s.field("results").decode(item),
    )
