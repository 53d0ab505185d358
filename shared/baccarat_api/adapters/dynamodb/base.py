"""What every part of the DynamoDB repository (:mod:`.repository`) stands on: the client, the
two tables, and the requests the reads are made of: one ``GetItem``, one ``GetItem`` or
``BatchGetItem`` of several keys, one ``Query``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.adapters.dynamodb.shape import Item
from baccarat_api.clock import Clock, system_clock
from baccarat_api.ports.repository import StoreUnavailable
from baccarat_api.ports.scheduler import NoScheduler, Scheduler

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


def key_item(pk: str, sk: str) -> Item:
    """The ``Key`` of an item."""
    return {"pk": {"S": pk}, "sk": {"S": sk}}


class DynamoBase:
    """The client and the two tables; the single-request reads the other parts use."""

    def __init__(
        self,
        client: DynamoDBClient,
        state_table: str,
        config_table: str,
        clock: Clock = system_clock,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.clock = clock
        self.scheduler: Scheduler = NoScheduler() if scheduler is None else scheduler
        self.client = client
        self.state = state_table
        self.config = config_table

    def _get(self, what: str, pk: str, sk: str) -> Item | None:
        with mapped_errors(what):
            out = self.client.get_item(
                TableName=self.state, Key=key_item(pk, sk), ConsistentRead=True
            )
        item: Item | None = out.get("Item")
        return item

    def _fetch(self, wanted: dict[tuple[str, str], tuple[str, str]]) -> list[tuple[str, Item]]:
        """(slot, item) of each wanted key that exists: ONE ``GetItem`` or ``BatchGetItem``."""
        found: list[tuple[str, Item]] = []
        if len(wanted) == 1:
            ((pk, sk), (slot, name)) = next(iter(wanted.items()))
            with mapped_errors(f"get {slot}"):
                out = self.client.get_item(
                    TableName=name, Key=key_item(pk, sk), ConsistentRead=name == self.state
                )
            if "Item" in out:
                found.append((slot, out["Item"]))
            return found
        request: dict[str, Any] = {}
        for (pk, sk), (_, name) in wanted.items():
            entry = request.setdefault(name, {"Keys": [], "ConsistentRead": name == self.state})
            entry["Keys"].append(key_item(pk, sk))
        with mapped_errors("batch get"):
            for _attempt in range(5):
                if not request:
                    break
                batch = self.client.batch_get_item(RequestItems=request)
                for items in batch.get("Responses", {}).values():
                    for item in items:
                        slot = wanted[(str(item["pk"]["S"]), str(item["sk"]["S"]))][0]
                        found.append((slot, item))
                request = dict(batch.get("UnprocessedKeys") or {})
            else:
                if request:
                    raise StoreUnavailable("batch get: keys left unprocessed")
        return found

    def _query(self, what: str, **args: Any) -> list[Item]:
        """Every item a ``Query`` finds: ONE request (one more per MB)."""
        items: list[Item] = []
        with mapped_errors(what):
            while True:
                page = self.client.query(TableName=self.state, **args)
                items += page.get("Items", [])
                if "LastEvaluatedKey" not in page:
                    break
                args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return items

    def _partition(self, what: str, pk: str, sk_range: tuple[str, str] | None = None) -> list[Item]:
        """Every item of a partition (or of its sort keys in ``sk_range``, both ends included):
        ONE strongly consistent ``Query`` (one more per MB)."""
        condition, values = "pk = :pk", {":pk": {"S": pk}}
        if sk_range is not None:
            condition += " AND sk BETWEEN :first AND :last"
            values |= {":first": {"S": sk_range[0]}, ":last": {"S": sk_range[1]}}
        return self._query(
            what,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            ConsistentRead=True,
        )

    def _between(self, what: str, pk: str, first: str, last: str, limit: int) -> Any:
        """ONE strongly consistent ``Query`` of the partition ``pk``'s sort keys ``first`` …
        ``last``, at most ``limit`` items."""
        with mapped_errors(what):
            return self.client.query(
                TableName=self.state,
                KeyConditionExpression="pk = :pk AND sk BETWEEN :first AND :last",
                ExpressionAttributeValues={
                    ":pk": {"S": pk},
                    ":first": {"S": first},
                    ":last": {"S": last},
                },
                ConsistentRead=True,
                Limit=limit,
            )
