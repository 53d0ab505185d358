"""The :class:`~baccarat_api.ports.tokens.TokenStore` on DynamoDB: token keys in the config table
(``pk = TOKENKEY``, ``sk`` = kid; the ciphertext as sealed by the vault), a table's revocations
in ONE item of its partition (``sk = TOKENS``), written whole, conditional on its ``version``."""

from __future__ import annotations

from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import key_item
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.ports.repository import ConditionFailed
from baccarat_api.ports.tokens import Revocations, RevocationsMoved, TokenKey


def _numbers(attr: dict[str, Any] | None) -> dict[str, int]:
    return {k: int(v["N"]) for k, v in ((attr or {}).get("M") or {}).items()}


def _map(values: dict[str, int]) -> dict[str, Any]:
    return {"M": {k: {"N": str(v)} for k, v in values.items()}}


class DynamoTokenStore:
    def __init__(self, client: Any, state_table: str, config_table: str) -> None:
        self.client = client
        self.state = state_table
        self.config = config_table

    def token_keys(self) -> list[TokenKey]:
        with mapped_errors("token keys"):
            out = self.client.query(
                TableName=self.config,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": keys.TOKEN_KEY_PK}},
                ConsistentRead=True,
            )
        return [
            TokenKey(i["sk"]["S"], bytes(i["ciphertext"]["B"]), int(i["created_at"]["N"]))
            for i in out.get("Items", [])
        ]

    def add_token_key(self, key: TokenKey) -> bool:
        item = {
            **key_item(keys.TOKEN_KEY_PK, key.kid),
            "ciphertext": {"B": key.ciphertext},
            "created_at": {"N": str(key.created_at)},
        }
        try:
            with mapped_errors("token key"):
                self.client.put_item(
                    TableName=self.config,
                    Item=item,
                    ConditionExpression="attribute_not_exists(pk)",
                )
        except ConditionFailed:
            return False
        return True

    def revocations(self, operator_id: str, table_id: str) -> Revocations:
        with mapped_errors("token revocations"):
            out = self.client.get_item(
                TableName=self.state,
                Key=key_item(*keys.tokens_key(operator_id, table_id)),
                ConsistentRead=True,
            )
        item = out.get("Item")
        if item is None:
            return Revocations()
        return Revocations(
            _numbers(item.get("revoked")), _numbers(item.get("floor")), int(item["version"]["N"])
        )

    def put_revocations(self, operator_id: str, table_id: str, revocations: Revocations) -> None:
        item = {
            **key_item(*keys.tokens_key(operator_id, table_id)),
            "revoked": _map(revocations.revoked),
            "floor": _map(revocations.floor),
            "version": {"N": str(revocations.version)},
        }
        condition = "attribute_not_exists(pk)" if revocations.version == 1 else "version = :before"
        values = (
            {} if revocations.version == 1
            else {"ExpressionAttributeValues": {":before": {"N": str(revocations.version - 1)}}}
        )  # fmt: skip
        try:
            with mapped_errors("revoke tokens"):
                self.client.put_item(
                    TableName=self.state, Item=item, ConditionExpression=condition, **values
                )
        except ConditionFailed as exc:
            raise RevocationsMoved(table_id) from exc
