"""The sparse indexes the jobs and the reconciliation read: rounds, betting windows, running
tables' next steps, idle shoes and proofs due by a time; a day's rounds; a shoe's open rounds."""

from __future__ import annotations

from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import DynamoBase
from baccarat_api.adapters.dynamodb.codec import from_item
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.adapters.dynamodb.shape import Item
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import BadPosition, DayPosition


class Listings(DynamoBase):
    """Due items by shard, a day's rounds, a shoe's open rounds."""

    def _due(self, prefix: str, now: str, limit: int) -> list[Item]:
        """Items of the sparse DueRounds index in the shards ``<prefix>0`` … ``<prefix>7`` due
        by ``now`` (ISO 8601 UTC), oldest first per shard, at most ``limit``: one ``Query`` per
        shard (more only past a page). Eventually consistent: an item done a moment ago may
        still be listed; doing it again fails its condition, harmlessly."""
        out: list[Item] = []
        for shard in range(keys.DUE_SHARDS):
            args: dict[str, Any] = {
                "TableName": self.state,
                "IndexName": keys.DUE_INDEX,
                "KeyConditionExpression": "due_shard = :shard AND due_at <= :now",
                "ExpressionAttributeValues": {
                    ":shard": {"S": f"{prefix}{shard}"},
                    ":now": {"S": now},
                },
                "Limit": max(1, limit - len(out)),
            }
            with mapped_errors("due items"):
                while len(out) < limit:
                    page = self.client.query(**args)
                    out += page.get("Items", [])
                    if "LastEvaluatedKey" not in page:
                        break
                    args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
            if len(out) >= limit:
                break
        return out[:limit]

    def day_rounds(
        self,
        operator_id: str,
        day: str,
        *,
        table_id: str | None = None,
        after: DayPosition | None = None,
        limit: int,
        queries: int,
    ) -> tuple[list[RoundRecord], DayPosition | None]:
        """Shard by shard of the ``RoundsByDay`` index (only the table's shard with
        ``table_id``), each in ``day_key`` order (a table's rounds in play order): one ``Query``
        per shard and page, at most ``queries``. Eventually consistent (a GSI): a round dealt a
        moment ago may show up a moment later."""
        if after is not None and not keys.day_position_valid(after, table_id):
            raise BadPosition(f"not a position of this listing: {after!r}")
        shards = [keys.day_shard_of(table_id)] if table_id else list(range(keys.DAY_SHARDS))
        if after is not None:
            shards = [s for s in shards if s >= after[0]]
        out: list[RoundRecord] = []
        for shard in shards:
            last = after[1] if after is not None and after[0] == shard else ""
            while True:
                if len(out) >= limit or queries <= 0:
                    return out, (shard, last)
                args: dict[str, Any] = {
                    "TableName": self.state,
                    "IndexName": keys.DAY_INDEX,
                    "KeyConditionExpression": "day_shard = :p",
                    "ExpressionAttributeValues": {
                        ":p": {"S": keys.day_shard(operator_id, day, shard)}
                    },
                    "Limit": limit - len(out),
                }
                if table_id:
                    args["KeyConditionExpression"] += " AND begins_with(day_key, :t)"
                    args["ExpressionAttributeValues"][":t"] = {"S": f"{table_id}#"}
                if last:
                    t, shoe, rnd = keys.parse_day_key(last)
                    pk, sk = keys.round_key(operator_id, t, shoe, rnd)
                    args["ExclusiveStartKey"] = {
                        "pk": {"S": pk},
                        "sk": {"S": sk},
                        "day_shard": {"S": keys.day_shard(operator_id, day, shard)},
                        "day_key": {"S": last},
                    }
                queries -= 1
                with mapped_errors("rounds of a day"):
                    page = self.client.query(**args)
                for item in page.get("Items", []):
                    out.append(from_item(RoundRecord, item))
                    last = str(item["day_key"]["S"])
                if "LastEvaluatedKey" not in page:
                    break
        return out, None

    def due_rounds(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        """Rounds with locked bets whose settle-by time is at or before ``now``."""
        return [
            (
                str(item["operator_id"]["S"]),
                RoundRef(
                    str(item["table_id"]["S"]),
                    int(item["shoe_number"]["N"]),
                    int(item["round_number"]["N"]),
                ),
            )
            for item in self._due("DUE#", now, limit)
        ]

    def due_books(self, now: str, limit: int) -> list[tuple[str, str]]:
        """(operator id, table id) of betting windows to be dealt by ``now`` (``BOOK#k``)."""
        return [
            (str(item["operator_id"]["S"]), str(item["table_id"]["S"]))
            for item in self._due("BOOK#", now, limit)
        ]

    def due_ticks(self, now: str, limit: int) -> list[tuple[str, str]]:
        """(operator id, table id) of running tables whose next step was due by ``now``
        (shards ``TICK#k``)."""
        return [
            (str(item["operator_id"]["S"]), str(item["table_id"]["S"]))
            for item in self._due("TICK#", now, limit)
        ]

    def idle_shoes(self, now: str, limit: int) -> list[tuple[str, ShoeRef]]:
        """(operator id, shoe) of open shoes to be closed by ``now`` (shards ``IDLE#k``)."""
        return [
            (
                str(item["operator_id"]["S"]),
                ShoeRef(str(item["table_id"]["S"]), int(item["shoe_number"]["N"])),
            )
            for item in self._due("IDLE#", now, limit)
        ]

    def due_proofs(self, now: str, limit: int) -> list[str]:
        """Proofs not final yet of shoes ended by ``now`` (shards ``FINAL#k``)."""
        return [
            ShoeRef(str(item["table_id"]["S"]), int(item["shoe_number"]["N"])).shoe_id
            for item in self._due("FINAL#", now, limit)
        ]

    def open_rounds(self, shoe_id: str) -> list[tuple[int, str | None]]:
        """One ``Query`` of the sparse OpenRounds index (projected: round number, settle-by)."""
        items = self._query(
            "open rounds",
            IndexName=keys.OPEN_INDEX,
            KeyConditionExpression="open_in = :shoe",
            ExpressionAttributeValues={":shoe": {"S": shoe_id}},
        )
        out = [
            (int(i["round_number"]["N"]), i["settle_by"]["S"] if "settle_by" in i else None)
            for i in items
        ]
        return sorted(out)
