"""The DynamoDB adapter of :class:`~baccarat_api.repository.Repository`.

Two tables (template.yaml ``StateTable`` and ``ConfigTable``), both keyed ``pk`` (S) + ``sk`` (S).

State table: everything of one table lives in one partition, under the operator's id::

    pk = OP#<operator_id>#TABLE#<table_id>   sk = TABLE                       the table
                                             sk = SHOE#000001                 shoe 1
                                             sk = SHOE#000001#ROUND#00001     round 1 of shoe 1
    pk = PROOF#<shoe_id>                     sk = PROOF                       public proof (ended)

Ids carry the table id and the shoe and round numbers, so every read is one ``GetItem`` on a
key built from the caller's operator id and the path: another operator's id misses exactly like
an unknown one. Ordered sort keys keep a table's shoes and rounds in play order for later
queries (audit).

Config table::

    pk = KEY#<sha256(api key)>   sk = KEY       operator_id, revoked
    pk = TIER                    sk = <tier id> doc (Tier.to_dict() JSON), position

Nested documents (configuration, facts, bets, settlement) are stored as compact JSON strings;
what conditions and updates touch (version, status, numbers) are native attributes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .ids import RoundRef, ShoeRef
from .records import ENDED, OPEN, ProofRecord, RoundRecord, ShoeRecord, TableRecord
from .repository import ConditionFailed, StoreUnavailable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

#: Error codes after which the same request may succeed (the SDK already retried them).
RETRYABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionConflictException",
        "TransactionInProgressException",
        "LimitExceededException",
    }
)
_RETRYABLE_REASONS = frozenset(
    {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "InternalError"}
)


# --- keys -----------------------------------------------------------------------------------


def table_pk(operator_id: str, table_id: str) -> str:
    return f"OP#{operator_id}#TABLE#{table_id}"


def shoe_sk(shoe_number: int) -> str:
    return f"SHOE#{shoe_number:06d}"


def round_sk(shoe_number: int, round_number: int) -> str:
    return f"SHOE#{shoe_number:06d}#ROUND#{round_number:05d}"


def proof_pk(shoe_id: str) -> str:
    return f"PROOF#{shoe_id}"


def key_pk(key_hash: str) -> str:
    return f"KEY#{key_hash}"


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


# --- attribute values -----------------------------------------------------------------------


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: int) -> dict[str, str]:
    return {"N": str(value)}


def _j(value: Any) -> dict[str, str]:
    return {"S": json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)}


def _gs(item: dict[str, Any], name: str) -> str:
    return str(item[name]["S"])


def _gs_opt(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value["S"])


def _gn(item: dict[str, Any], name: str) -> int:
    return int(item[name]["N"])


def _gj(item: dict[str, Any], name: str, default: Any = None) -> Any:
    value = item.get(name)
    return default if value is None else json.loads(value["S"])


def _gb(item: dict[str, Any], name: str) -> bytes:
    return bytes(item[name]["B"])


# --- records <-> items ----------------------------------------------------------------------


def _table_item(t: TableRecord) -> dict[str, Any]:
    item: dict[str, Any] = {
        **_key(table_pk(t.operator_id, t.table_id), "TABLE"),
        "kind": _s("table"),
        "operator_id": _s(t.operator_id),
        "table_id": _s(t.table_id),
        "config": _j(t.config),
        "rules": _j(t.rules),
        "anchor": _s(t.anchor),
        "chain_length": _n(t.chain_length),
        "chain_secret_ct": {"B": t.chain_secret_ct},
        "next_shoe_number": _n(t.next_shoe_number),
        "created_at": _s(t.created_at),
    }
    if t.open_shoe_id is not None:
        item["open_shoe"] = _s(t.open_shoe_id)
    return item


def _table_record(item: dict[str, Any]) -> TableRecord:
    return TableRecord(
        operator_id=_gs(item, "operator_id"),
        table_id=_gs(item, "table_id"),
        config=_gj(item, "config"),
        rules=_gj(item, "rules"),
        anchor=_gs(item, "anchor"),
        chain_length=_gn(item, "chain_length"),
        chain_secret_ct=_gb(item, "chain_secret_ct"),
        next_shoe_number=_gn(item, "next_shoe_number"),
        open_shoe_id=_gs_opt(item, "open_shoe"),
        created_at=_gs(item, "created_at"),
    )


def _shoe_item(s: ShoeRecord) -> dict[str, Any]:
    item: dict[str, Any] = {
        **_key(table_pk(s.operator_id, s.table_id), shoe_sk(s.shoe_number)),
        "kind": _s("shoe"),
        "operator_id": _s(s.operator_id),
        "table_id": _s(s.table_id),
        "shoe_number": _n(s.shoe_number),
        "client_seed": _s(s.client_seed),
        "client_hash": _s(s.client_hash),
        "rules": _j(s.rules),
        "anchor": _s(s.anchor),
        "config": _j(s.config),
        "secret_ct": {"B": s.secret_ct},
        "status": _s(s.status),
        "rounds_dealt": _n(s.rounds_dealt),
        "cursor": _n(s.cursor),
        "version": _n(s.version),
        "results": _j(s.results),
        "recent_bettors": _j(s.recent_bettors),
        "created_at": _s(s.created_at),
    }
    return item


def _shoe_record(item: dict[str, Any]) -> ShoeRecord:
    return ShoeRecord(
        operator_id=_gs(item, "operator_id"),
        table_id=_gs(item, "table_id"),
        shoe_number=_gn(item, "shoe_number"),
        client_seed=_gs(item, "client_seed"),
        client_hash=_gs(item, "client_hash"),
        rules=_gj(item, "rules"),
        anchor=_gs(item, "anchor"),
        config=_gj(item, "config"),
        secret_ct=_gb(item, "secret_ct"),
        status=_gs(item, "status"),
        rounds_dealt=_gn(item, "rounds_dealt"),
        cursor=_gn(item, "cursor"),
        version=_gn(item, "version"),
        results=_gj(item, "results", []),
        recent_bettors=_gj(item, "recent_bettors", []),
        created_at=_gs(item, "created_at"),
        end_reason=_gs_opt(item, "end_reason"),
        ended_at=_gs_opt(item, "ended_at"),
        server_seed=_gs_opt(item, "server_seed"),
    )


def _round_item(r: RoundRecord) -> dict[str, Any]:
    item: dict[str, Any] = {
        **_key(table_pk(r.operator_id, r.table_id), round_sk(r.shoe_number, r.round_number)),
        "kind": _s("round"),
        "operator_id": _s(r.operator_id),
        "table_id": _s(r.table_id),
        "shoe_number": _n(r.shoe_number),
        "round_number": _n(r.round_number),
        "facts": _j(r.facts),
        "config": _j(r.config),
        "shoe_status": _s(r.shoe_status),
        "previous_bettors": _j(r.previous_bettors),
        "created_at": _s(r.created_at),
    }
    if r.bets is not None:
        item["bets"] = _j(r.bets)
    if r.player_banker is not None:
        item["player_banker"] = _j(r.player_banker)
    if r.squeeze is not None:
        item["squeeze"] = _j(r.squeeze)
    return item


def _round_record(item: dict[str, Any]) -> RoundRecord:
    return RoundRecord(
        operator_id=_gs(item, "operator_id"),
        table_id=_gs(item, "table_id"),
        shoe_number=_gn(item, "shoe_number"),
        round_number=_gn(item, "round_number"),
        facts=_gj(item, "facts"),
        config=_gj(item, "config"),
        bets=_gj(item, "bets"),
        player_banker=_gj(item, "player_banker"),
        squeeze=_gj(item, "squeeze"),
        shoe_status=_gs(item, "shoe_status"),
        previous_bettors=_gj(item, "previous_bettors", []),
        created_at=_gs(item, "created_at"),
        settlement=_gj(item, "settlement"),
        settlement_digest=_gs_opt(item, "settlement_digest"),
        settled_at=_gs_opt(item, "settled_at"),
    )


def _proof_item(p: ProofRecord) -> dict[str, Any]:
    return {
        **_key(proof_pk(p.shoe_id), "PROOF"),
        "kind": _s("proof"),
        "shoe_id": _s(p.shoe_id),
        "table_id": _s(p.table_id),
        "shoe_number": _n(p.shoe_number),
        "anchor": _s(p.anchor),
        "client_seed": _s(p.client_seed),
        "client_hash": _s(p.client_hash),
        "rules": _j(p.rules),
        "server_seed": _s(p.server_seed),
        "rounds_dealt": _n(p.rounds_dealt),
        "end_reason": _s(p.end_reason),
        "ended_at": _s(p.ended_at),
    }


def _proof_record(item: dict[str, Any]) -> ProofRecord:
    return ProofRecord(
        shoe_id=_gs(item, "shoe_id"),
        table_id=_gs(item, "table_id"),
        shoe_number=_gn(item, "shoe_number"),
        anchor=_gs(item, "anchor"),
        client_seed=_gs(item, "client_seed"),
        client_hash=_gs(item, "client_hash"),
        rules=_gj(item, "rules"),
        server_seed=_gs(item, "server_seed"),
        rounds_dealt=_gn(item, "rounds_dealt"),
        end_reason=_gs(item, "end_reason"),
        ended_at=_gs(item, "ended_at"),
    )


def tier_item(tier: dict[str, Any], position: int) -> dict[str, Any]:
    return {
        **_key("TIER", str(tier["id"])),
        "kind": _s("tier"),
        "position": _n(position),
        "doc": _j(tier),
    }


def api_key_item(key_hash: str, operator_id: str, created_at: str) -> dict[str, Any]:
    return {
        **_key(key_pk(key_hash), "KEY"),
        "kind": _s("api_key"),
        "operator_id": _s(operator_id),
        "revoked": {"BOOL": False},
        "created_at": _s(created_at),
    }


# --- errors ---------------------------------------------------------------------------------


@contextmanager
def _mapped_errors(what: str) -> Iterator[None]:
    """botocore failures → the port's: a lost condition → :class:`ConditionFailed`; throttling,
    transaction conflicts, timeouts → :class:`StoreUnavailable`; anything else propagates."""
    from botocore.exceptions import (
        ClientError,
        ConnectionError,
        ConnectTimeoutError,
        ReadTimeoutError,
    )

    try:
        yield
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code == "ConditionalCheckFailedException":
            raise ConditionFailed(f"{what}: condition failed") from exc
        if code == "TransactionCanceledException":
            reasons = [
                str(r.get("Code", "None")) for r in exc.response.get("CancellationReasons", [])
            ]
            if "ConditionalCheckFailed" in reasons:
                raise ConditionFailed(f"{what}: condition failed ({reasons})") from exc
            if set(reasons) & _RETRYABLE_REASONS or not reasons:
                raise StoreUnavailable(f"{what}: transaction cancelled ({reasons})") from exc
            raise
        if code in RETRYABLE_CODES:
            raise StoreUnavailable(f"{what}: {code}") from exc
        raise
    except (ConnectTimeoutError, ReadTimeoutError, ConnectionError) as exc:
        raise StoreUnavailable(f"{what}: {type(exc).__name__}") from exc


# --- the adapter ----------------------------------------------------------------------------


class DynamoRepository:
    """One instance per warm container; every method is exactly one DynamoDB call."""

    def __init__(self, client: DynamoDBClient, state_table: str, config_table: str) -> None:
        self.client = client
        self.state = state_table
        self.config = config_table

    # configuration ------------------------------------------------------------------------
    def operator_for_key(self, key_hash: str) -> str | None:
        with _mapped_errors("api key"):
            out = self.client.get_item(
                TableName=self.config, Key=_key(key_pk(key_hash), "KEY"), ConsistentRead=True
            )
        item = out.get("Item")
        if item is None or item.get("revoked", {}).get("BOOL", False):
            return None
        return _gs(item, "operator_id")

    def list_tiers(self) -> list[dict[str, Any]]:
        with _mapped_errors("tiers"):
            out = self.client.query(
                TableName=self.config,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": _s("TIER")},
            )
        items = sorted(out.get("Items", []), key=lambda i: _gn(i, "position"))
        return [_gj(i, "doc") for i in items]

    def get_tier(self, tier_id: str) -> dict[str, Any] | None:
        with _mapped_errors("tier"):
            out = self.client.get_item(TableName=self.config, Key=_key("TIER", tier_id))
        item = out.get("Item")
        return None if item is None else _gj(item, "doc")

    # tables -------------------------------------------------------------------------------
    def create_table(self, table: TableRecord) -> None:
        with _mapped_errors("create table"):
            self.client.put_item(
                TableName=self.state,
                Item=_table_item(table),
                ConditionExpression="attribute_not_exists(pk)",
            )

    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None:
        with _mapped_errors("get table"):
            out = self.client.get_item(
                TableName=self.state,
                Key=_key(table_pk(operator_id, table_id), "TABLE"),
                ConsistentRead=True,
            )
        item = out.get("Item")
        return None if item is None else _table_record(item)

    # shoes --------------------------------------------------------------------------------
    def commit_shoe(self, table: TableRecord, shoe: ShoeRecord) -> None:
        with _mapped_errors("commit shoe"):
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self.state,
                            "Item": _shoe_item(shoe),
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {
                        "Update": {
                            "TableName": self.state,
                            "Key": _key(table_pk(table.operator_id, table.table_id), "TABLE"),
                            "UpdateExpression": "SET open_shoe = :shoe, next_shoe_number = :next",
                            "ConditionExpression": (
                                "next_shoe_number = :number AND attribute_not_exists(open_shoe)"
                            ),
                            "ExpressionAttributeValues": {
                                ":shoe": _s(shoe.shoe_id),
                                ":next": _n(shoe.shoe_number + 1),
                                ":number": _n(shoe.shoe_number),
                            },
                        }
                    },
                ]
            )

    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None:
        with _mapped_errors("get shoe"):
            out = self.client.get_item(
                TableName=self.state,
                Key=_key(table_pk(operator_id, ref.table_id), shoe_sk(ref.shoe_number)),
                ConsistentRead=True,
            )
        item = out.get("Item")
        return None if item is None else _shoe_record(item)

    def _shoe_update(self, before: ShoeRecord, after: ShoeRecord) -> dict[str, Any]:
        sets = [
            "#status = :status",
            "rounds_dealt = :dealt",
            "#cursor = :cursor",
            "version = :new_version",
            "results = :results",
            "recent_bettors = :recent",
        ]
        values: dict[str, Any] = {
            ":status": _s(after.status),
            ":dealt": _n(after.rounds_dealt),
            ":cursor": _n(after.cursor),
            ":new_version": _n(after.version),
            ":results": _j(after.results),
            ":recent": _j(after.recent_bettors),
            ":version": _n(before.version),
            ":open": _s(OPEN),
        }
        if after.status == ENDED:
            assert after.server_seed and after.end_reason and after.ended_at
            sets += ["server_seed = :seed", "end_reason = :reason", "ended_at = :ended"]
            values |= {
                ":seed": _s(after.server_seed),
                ":reason": _s(after.end_reason),
                ":ended": _s(after.ended_at),
            }
        return {
            "Update": {
                "TableName": self.state,
                "Key": _key(
                    table_pk(before.operator_id, before.table_id), shoe_sk(before.shoe_number)
                ),
                "UpdateExpression": "SET " + ", ".join(sets),
                "ConditionExpression": "version = :version AND #status = :open",
                "ExpressionAttributeNames": {"#status": "status", "#cursor": "cursor"},
                "ExpressionAttributeValues": values,
            }
        }

    def _end_items(self, shoe: ShoeRecord, proof: ProofRecord) -> list[dict[str, Any]]:
        """Free the table and publish the proof (both part of ending a shoe)."""
        return [
            {
                "Update": {
                    "TableName": self.state,
                    "Key": _key(table_pk(shoe.operator_id, shoe.table_id), "TABLE"),
                    "UpdateExpression": "REMOVE open_shoe",
                    "ConditionExpression": "open_shoe = :shoe",
                    "ExpressionAttributeValues": {":shoe": _s(shoe.shoe_id)},
                }
            },
            {
                "Put": {
                    "TableName": self.state,
                    "Item": _proof_item(proof),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
        ]

    def record_round(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        round_: RoundRecord,
        proof: ProofRecord | None,
    ) -> None:
        items: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self.state,
                    "Item": _round_item(round_),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            self._shoe_update(before, after),
        ]
        if proof is not None:
            items += self._end_items(before, proof)
        with _mapped_errors("deal round"):
            self.client.transact_write_items(TransactItems=items)  # type: ignore[arg-type]

    def close_shoe(self, before: ShoeRecord, after: ShoeRecord, proof: ProofRecord) -> None:
        items = [self._shoe_update(before, after), *self._end_items(before, proof)]
        with _mapped_errors("close shoe"):
            self.client.transact_write_items(TransactItems=items)  # type: ignore[arg-type]

    # rounds -------------------------------------------------------------------------------
    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None:
        with _mapped_errors("get round"):
            out = self.client.get_item(
                TableName=self.state,
                Key=_key(
                    table_pk(operator_id, ref.table_id),
                    round_sk(ref.shoe_number, ref.round_number),
                ),
                ConsistentRead=True,
            )
        item = out.get("Item")
        return None if item is None else _round_record(item)

    def save_settlement(
        self, round_: RoundRecord, settlement: dict[str, Any], digest: str, settled_at: str
    ) -> None:
        from botocore.exceptions import ClientError

        key = _key(
            table_pk(round_.operator_id, round_.table_id),
            round_sk(round_.shoe_number, round_.round_number),
        )
        try:
            with _mapped_errors("settle round"):
                self.client.update_item(
                    TableName=self.state,
                    Key=key,
                    UpdateExpression="SET settlement = :s, settlement_digest = :d, settled_at = :t",
                    ConditionExpression="attribute_exists(pk) AND attribute_not_exists(settlement)",
                    ExpressionAttributeValues={
                        ":s": _j(settlement),
                        ":d": _s(digest),
                        ":t": _s(settled_at),
                    },
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
        except ConditionFailed as exc:
            cause = exc.__cause__
            item: Any = cause.response.get("Item") if isinstance(cause, ClientError) else None
            raise ConditionFailed(
                "round already settled", existing=None if item is None else _round_record(item)
            ) from cause

    # proofs -------------------------------------------------------------------------------
    def get_proof(self, shoe_id: str) -> ProofRecord | None:
        with _mapped_errors("get proof"):
            out = self.client.get_item(TableName=self.state, Key=_key(proof_pk(shoe_id), "PROOF"))
        item = out.get("Item")
        return None if item is None else _proof_record(item)

    # seeding (local runner, custom resource, tests) ---------------------------------------
    def put_tiers(self, tiers: list[dict[str, Any]]) -> None:
        """Make the config table's tiers exactly ``tiers`` (configuration, not game state: the
        writes are plain puts; tiers no longer in the file are removed — tables keep the copy of
        their tier they opened with)."""
        wanted = {str(t["id"]) for t in tiers}
        with _mapped_errors("seed tiers"):
            for position, tier in enumerate(tiers):
                self.client.put_item(TableName=self.config, Item=tier_item(tier, position))
            out = self.client.query(
                TableName=self.config,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": _s("TIER")},
                ProjectionExpression="sk",
            )
            for item in out.get("Items", []):
                if item["sk"]["S"] not in wanted:
                    self.client.delete_item(
                        TableName=self.config, Key=_key("TIER", item["sk"]["S"])
                    )

    def put_api_key(self, key_hash: str, operator_id: str, created_at: str) -> None:
        with _mapped_errors("put api key"):
            self.client.put_item(
                TableName=self.config,
                Item=api_key_item(key_hash, operator_id, created_at),
                ConditionExpression="attribute_not_exists(pk)",
            )
