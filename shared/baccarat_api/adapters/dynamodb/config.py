"""The configuration table: API keys and tiers."""

from __future__ import annotations

from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import DynamoBase, key_item
from baccarat_api.adapters.dynamodb.codec import tier_doc, tier_item
from baccarat_api.adapters.dynamodb.errors import mapped_errors


class ConfigStore(DynamoBase):
    """API keys, tiers, and the seeding of tiers."""

    def operator_for_key(self, key_hash: str) -> str | None:
        with mapped_errors("api key"):
            out = self.client.get_item(
                TableName=self.config,
                Key=key_item(keys.key_pk(key_hash), "KEY"),
                ConsistentRead=True,
            )
        item = out.get("Item")
        if item is None or item.get("revoked", {}).get("BOOL", False):
            return None
        return str(item["operator_id"]["S"])

    def list_tiers(self) -> list[dict[str, Any]]:
        with mapped_errors("tiers"):
            out = self.client.query(
                TableName=self.config,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": keys.TIER_PK}},
            )
        items = sorted(out.get("Items", []), key=lambda i: int(i["position"]["N"]))
        return [doc for doc in map(tier_doc, items) if doc is not None]

    def get_tier(self, tier_id: str) -> dict[str, Any] | None:
        with mapped_errors("tier"):
            out = self.client.get_item(TableName=self.config, Key=key_item(*keys.tier_key(tier_id)))
        item = out.get("Item")
        return None if item is None else tier_doc(item)

    def put_tiers(self, tiers: list[dict[str, Any]]) -> None:
        """Make the config table's live tiers exactly ``tiers`` (configuration, not game state:
        the writes are plain puts; a tier no longer in the file is marked ``retired`` — never
        deleted — and is no longer listed nor accepted for a new table; tables keep the copy of
        their tier they opened with)."""
        wanted = {str(t["id"]) for t in tiers}
        with mapped_errors("seed tiers"):
            for position, tier in enumerate(tiers):
                self.client.put_item(TableName=self.config, Item=tier_item(tier, position))
            out = self.client.query(
                TableName=self.config,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": keys.TIER_PK}},
                ProjectionExpression="sk",
            )
            for item in out.get("Items", []):
                if item["sk"]["S"] not in wanted:
                    self.client.update_item(
                        TableName=self.config,
                        Key=key_item(keys.TIER_PK, item["sk"]["S"]),
                        UpdateExpression="SET retired = :yes",
                        ExpressionAttributeValues={":yes": {"BOOL": True}},
                    )
