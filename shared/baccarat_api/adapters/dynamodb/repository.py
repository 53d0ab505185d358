"""The DynamoDB adapter of :class:`~baccarat_api.ports.repository.Repository`.

Two tables (template.yaml ``StateTable`` and ``ConfigTable``), both keyed ``pk`` (S) + ``sk`` (S).

State table: everything of one table lives in one partition, under the operator's id::

    pk = OP#<operator_id>#TABLE#<table_id>   sk = TABLE                       the table
                                             sk = SHOE#000001                 shoe 1
                                             sk = SHOE#000001#ROUND#00001     round 1 of shoe 1
    pk = PROOF#<shoe_id>                     sk = PROOF                       public proof (ended)
                                             sk = ROUND#00001                 round 1's money

The ``PROOF#`` partition is the shoe's public side: the proof item, written by the transaction
that ends the shoe, and one item per settled (or voided) round, written by the same transaction
that settles (or voids) it, whether before or after the end. The proof route reads the whole
partition with one strongly consistent ``Query`` and answers 404 while it holds no proof item.

Idempotency records (``Idempotency-Key`` of a POST; :mod:`baccarat_api.service.idempotency`)
live in their own partition per operator and key, are written by the SAME transaction as the
request's effect, and expire by the table's TTL attribute ``expires_at`` (24 h)::

    pk = OP#<operator_id>#IDEM#<sha256(key)> sk = IDEM                        the stored response

A round dealt with locked bets carries ``due_shard`` (``DUE#0``…``DUE#7``, by table) and
``due_at`` (its settle-by time) until it is settled or voided: the sparse GSI ``DueRounds``
(template.yaml) holds exactly the rounds the auto-settlement sweep may have to settle.

Ids carry the table id and the shoe and round numbers, so every read is one ``GetItem`` on a
key built from the caller's operator id and the path: another operator's id misses exactly like
an unknown one. Ordered sort keys keep a table's shoes and rounds in play order for later
queries (audit).

Config table::

    pk = KEY#<sha256(api key)>   sk = KEY       operator_id, key_id, revoked (the auth lookup)
    pk = OPERATOR                sk = <operator id>[#KEY#<key id>]   operators and their keys
    pk = TIER                    sk = <tier id> doc (Tier.to_dict() JSON), position

(operators and keys are written only by :mod:`baccarat_api.adapters.dynamodb.operators`,
the admin command's store; the functions only read ``KEY#`` items.)

Nested documents (configuration, facts, bets, settlement) are stored as compact JSON strings;
what conditions and updates touch (version, status, numbers) are native attributes."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.records import (
    ENDED,
    OPEN,
    IdempotencyRecord,
    ProofRecord,
    PublicRound,
    RoundRecord,
    ShoeRecord,
    TableRecord,
)
from baccarat_api.ports.repository import ConditionFailed, Snapshot, StoreUnavailable, TableHistory

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


def public_round_sk(round_number: int) -> str:
    return f"ROUND#{round_number:05d}"


def idempotency_pk(operator_id: str, key_hash: str) -> str:
    return f"OP#{operator_id}#IDEM#{key_hash}"


#: Partitions of the sparse ``DueRounds`` index (rounds with locked bets awaiting settlement):
#: a table's rounds always land in the same shard; the sweep queries every shard.
DUE_SHARDS = 8
DUE_INDEX = "DueRounds"


def due_shard(table_id: str) -> str:
    return f"DUE#{int(hashlib.sha256(table_id.encode()).hexdigest()[:8], 16) % DUE_SHARDS}"


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


def _gn_opt(item: dict[str, Any], name: str, default: int) -> int:
    value = item.get(name)
    return default if value is None else int(value["N"])


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
        "settle_deadline_seconds": _n(t.settle_deadline_seconds),
        "chain_head": _s(t.chain_head),
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
        settle_deadline_seconds=_gn_opt(item, "settle_deadline_seconds", 60),
        chain_head=_gs_opt(item, "chain_head") or "",
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
        "settle_deadline_seconds": _n(s.settle_deadline_seconds),
        "chain_start": _s(s.chain_start),
        "chain_head": _s(s.chain_head),
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
        settle_deadline_seconds=_gn_opt(item, "settle_deadline_seconds", 60),
        chain_start=_gs_opt(item, "chain_start") or "",
        chain_head=_gs_opt(item, "chain_head") or "",
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
        "prev_hash": _s(r.prev_hash),
        "round_hash": _s(r.round_hash),
    }
    if r.settle_by is not None:
        # locked bets to settle by a deadline: the sparse DueRounds index finds the round
        # until its settlement (or void) removes these two attributes
        item["settle_by"] = _s(r.settle_by)
        item["due_shard"] = _s(due_shard(r.table_id))
        item["due_at"] = _s(r.settle_by)
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
        settle_by=_gs_opt(item, "settle_by"),
        prev_hash=_gs_opt(item, "prev_hash") or "",
        round_hash=_gs_opt(item, "round_hash") or "",
        settlement_hash=_gs_opt(item, "settlement_hash"),
    )


def _proof_item(p: ProofRecord) -> dict[str, Any]:
    item = {
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
    if p.config is not None:
        item["config"] = _j(p.config)
    return item


def _proof_record(item: dict[str, Any], rounds: dict[int, PublicRound]) -> ProofRecord:
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
        config=_gj(item, "config"),
        rounds=rounds,
    )


def public_round_item(p: PublicRound) -> dict[str, Any]:
    """A round's public money record (see :class:`~baccarat_api.ports.records.PublicRound`):
    put in the same transaction as the round's settlement or void."""
    item: dict[str, Any] = {
        **_key(proof_pk(p.shoe_id), public_round_sk(p.round_number)),
        "kind": _s("public_round"),
        "shoe_id": _s(p.shoe_id),
        "round_number": _n(p.round_number),
    }
    for name in ("settlement", "inputs", "void"):
        value = getattr(p, name)
        if value is not None:
            item[name] = _j(value)
    return item


def _public_round_record(item: dict[str, Any]) -> PublicRound:
    return PublicRound(
        shoe_id=_gs(item, "shoe_id"),
        round_number=_gn(item, "round_number"),
        settlement=_gj(item, "settlement"),
        inputs=_gj(item, "inputs"),
        void=_gj(item, "void"),
    )


def tier_item(tier: dict[str, Any], position: int) -> dict[str, Any]:
    return {
        **_key("TIER", str(tier["id"])),
        "kind": _s("tier"),
        "position": _n(position),
        "doc": _j(tier),
    }


#: ``settlement_digest`` of a void record (no settlement inputs digest to equal it).
VOID_DIGEST = "void"


def idempotency_item(r: IdempotencyRecord) -> dict[str, Any]:
    return {
        **_key(idempotency_pk(r.operator_id, r.key_hash), "IDEM"),
        "kind": _s("idempotency"),
        "operator_id": _s(r.operator_id),
        "fingerprint": _s(r.fingerprint),
        "status": _n(r.status),
        # as answered: key order kept, so a replay is byte for byte the first response
        "body": _s(json.dumps(r.body, separators=(",", ":"), ensure_ascii=False)),
        "created_at": _s(r.created_at),
        "expires_at": _n(r.expires_at),
    }


def _idempotency_record(item: dict[str, Any]) -> IdempotencyRecord:
    return IdempotencyRecord(
        operator_id=_gs(item, "operator_id"),
        key_hash=str(item["pk"]["S"]).rsplit("#", 1)[-1],
        fingerprint=_gs(item, "fingerprint"),
        status=_gn(item, "status"),
        body=_gj(item, "body"),
        created_at=_gs(item, "created_at"),
        expires_at=_gn(item, "expires_at"),
    )


# --- errors ---------------------------------------------------------------------------------


@contextmanager
def _mapped_errors(what: str) -> Iterator[None]:
    """botocore failures → the port's: a lost condition → :class:`ConditionFailed`; throttling,
    transaction conflicts, timeouts → :class:`StoreUnavailable`; anything else propagates."""
    from botocore.exceptions import (
        ClientError,
        ConnectionError,
        ConnectTimeoutError,
        HTTPClientError,
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
    except (ConnectTimeoutError, ReadTimeoutError, ConnectionError, HTTPClientError) as exc:
        # a timeout may hide a write that did happen: the request's Idempotency-Key (if any)
        # makes its retry answer that write's response instead of repeating it
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
        return [_gj(i, "doc") for i in items if not i.get("retired", {}).get("BOOL")]

    def get_tier(self, tier_id: str) -> dict[str, Any] | None:
        with _mapped_errors("tier"):
            out = self.client.get_item(TableName=self.config, Key=_key("TIER", tier_id))
        item = out.get("Item")
        if item is None or item.get("retired", {}).get("BOOL"):
            return None
        doc: dict[str, Any] = _gj(item, "doc")
        return doc

    # tables -------------------------------------------------------------------------------
    def create_table(self, table: TableRecord, idem: IdempotencyRecord | None = None) -> None:
        if idem is not None:
            put = {
                "Put": {
                    "TableName": self.state,
                    "Item": _table_item(table),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
            self._transact("create table", [put], idem)
            return
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
    def commit_shoe(
        self, table: TableRecord, shoe: ShoeRecord, idem: IdempotencyRecord | None = None
    ) -> None:
        self._transact(
            "commit shoe",
            [
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
            ],
            idem,
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
            "chain_head = :head",
        ]
        values: dict[str, Any] = {
            ":status": _s(after.status),
            ":dealt": _n(after.rounds_dealt),
            ":cursor": _n(after.cursor),
            ":new_version": _n(after.version),
            ":results": _j(after.results),
            ":recent": _j(after.recent_bettors),
            ":head": _s(after.chain_head),
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

    def _end_items(
        self, shoe: ShoeRecord, proof: ProofRecord, chain_head: str
    ) -> list[dict[str, Any]]:
        """Free the table, hand it the shoe's chain head, and publish the proof (all part of
        ending a shoe)."""
        return [
            {
                "Update": {
                    "TableName": self.state,
                    "Key": _key(table_pk(shoe.operator_id, shoe.table_id), "TABLE"),
                    "UpdateExpression": "SET chain_head = :head REMOVE open_shoe",
                    "ConditionExpression": "open_shoe = :shoe",
                    "ExpressionAttributeValues": {
                        ":shoe": _s(shoe.shoe_id),
                        ":head": _s(chain_head),
                    },
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
        idem: IdempotencyRecord | None = None,
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
            items += self._end_items(before, proof, after.chain_head)
        self._transact("deal round", items, idem)

    def close_shoe(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        proof: ProofRecord,
        idem: IdempotencyRecord | None = None,
    ) -> None:
        items = [
            self._shoe_update(before, after),
            *self._end_items(before, proof, after.chain_head),
        ]
        self._transact("close shoe", items, idem)

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
        self,
        round_: RoundRecord,
        settlement: dict[str, Any],
        digest: str,
        settled_at: str,
        inputs: dict[str, Any] | None = None,
        idem: IdempotencyRecord | None = None,
    ) -> None:
        """One transaction: the round's settlement (conditional: none yet) and its public copy
        in the shoe's proof partition (:func:`public_round_item`). A lost condition brings the
        winner's round back in the same call (``ReturnValuesOnConditionCheckFailure``). The
        settlement's bacc-audit-v1 hash is stored with it, and the round leaves the DueRounds
        index (nothing left to auto-settle)."""
        key = _key(
            table_pk(round_.operator_id, round_.table_id),
            round_sk(round_.shoe_number, round_.round_number),
        )
        public = PublicRound(
            shoe_id=round_.ref.shoe.shoe_id,
            round_number=round_.round_number,
            settlement=settlement,
            inputs=inputs
            if inputs is not None
            else {"bets": round_.bets or [], "player_banker": round_.player_banker},
        )
        self._transact(
            "settle round",
            [
                self._settle_update(key, round_, settlement, digest, settled_at),
                {"Put": {"TableName": self.state, "Item": public_round_item(public)}},
            ],
            idem,
            existing=_round_record,
        )

    def _settle_update(
        self,
        key: dict[str, Any],
        round_: RoundRecord,
        doc: dict[str, Any],
        digest: str,
        settled_at: str,
    ) -> dict[str, Any]:
        """Store a settlement (or a void) on a round that has neither; the first item of its
        transaction, returning the winner's round when the condition fails."""
        from baccarat.audit import settlement_hash

        return {
            "Update": {
                "TableName": self.state,
                "Key": key,
                "UpdateExpression": (
                    "SET settlement = :s, settlement_digest = :d, settled_at = :t, "
                    "settlement_hash = :h REMOVE due_shard, due_at"
                ),
                "ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(settlement)",
                "ExpressionAttributeValues": {
                    ":s": _j(doc),
                    ":d": _s(digest),
                    ":t": _s(settled_at),
                    ":h": _s(settlement_hash(round_.round_hash, doc)),
                },
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        }

    def void_round(
        self,
        round_: RoundRecord,
        doc: dict[str, Any],
        voided_at: str,
        idem: IdempotencyRecord | None = None,
    ) -> None:
        """One transaction: the round's void record in place of a settlement (conditional: no
        settlement and no void yet; the same attribute, so a round is settled or voided, once)
        and its public copy in the shoe's proof partition (``void``, no settlement)."""
        key = _key(
            table_pk(round_.operator_id, round_.table_id),
            round_sk(round_.shoe_number, round_.round_number),
        )
        public = PublicRound(
            shoe_id=round_.ref.shoe.shoe_id, round_number=round_.round_number, void=doc
        )
        self._transact(
            "void round",
            [
                self._settle_update(key, round_, doc, VOID_DIGEST, voided_at),
                {"Put": {"TableName": self.state, "Item": public_round_item(public)}},
            ],
            idem,
            existing=_round_record,
        )

    # idempotency, batched reads, the sweep's index, the audit -----------------------------
    def _transact(
        self,
        what: str,
        items: list[dict[str, Any]],
        idem: IdempotencyRecord | None,
        existing: Any = None,
    ) -> None:
        """One ``TransactWriteItems`` of ``items`` plus, with ``idem``, the idempotency record's
        put (new, or replacing an expired one). A lost condition raises :class:`ConditionFailed`
        with ``duplicate`` (the idempotency record's condition failed: a request with the same
        key completed first) and, given ``existing``, the first item's current record."""
        from botocore.exceptions import ClientError

        all_items = list(items)
        if idem is not None:
            all_items.append(
                {
                    "Put": {
                        "TableName": self.state,
                        "Item": idempotency_item(idem),
                        "ConditionExpression": "attribute_not_exists(pk) OR expires_at <= :now",
                        "ExpressionAttributeValues": {":now": _n(int(time.time()))},
                    }
                }
            )
        try:
            with _mapped_errors(what):
                self.client.transact_write_items(TransactItems=all_items)  # type: ignore[arg-type]
        except ConditionFailed as exc:
            cause = exc.__cause__
            reasons: list[dict[str, Any]] = []
            if isinstance(cause, ClientError):
                reasons = list(cause.response.get("CancellationReasons") or [])  # type: ignore[arg-type]
            failed = [r.get("Code") == "ConditionalCheckFailed" for r in reasons]
            first = reasons[0].get("Item") if reasons else None
            raise ConditionFailed(
                f"{what}: condition failed",
                existing=None if existing is None or first is None else existing(first),
                duplicate=idem is not None and len(failed) == len(all_items) and failed[-1],
            ) from cause

    def load(
        self,
        operator_id: str,
        *,
        table_id: str | None = None,
        shoe: ShoeRef | None = None,
        round_: RoundRef | None = None,
        tier_id: str | None = None,
        idem_key: str | None = None,
    ) -> Snapshot:
        """The named items in ONE round trip: ``GetItem`` for one, ``BatchGetItem`` for more
        (strongly consistent on the state table; unprocessed keys, which only throttling
        leaves, are asked again a few times)."""
        wanted: dict[tuple[str, str], tuple[str, str]] = {}  # (pk, sk) -> (slot, table)
        if table_id is not None:
            wanted[(table_pk(operator_id, table_id), "TABLE")] = ("table", self.state)
        if shoe is not None:
            wanted[(table_pk(operator_id, shoe.table_id), shoe_sk(shoe.shoe_number))] = (
                "shoe",
                self.state,
            )
        if round_ is not None:
            sk = round_sk(round_.shoe_number, round_.round_number)
            wanted[(table_pk(operator_id, round_.table_id), sk)] = ("round", self.state)
        if tier_id is not None:
            wanted[("TIER", tier_id)] = ("tier", self.config)
        if idem_key is not None:
            wanted[(idempotency_pk(operator_id, idem_key), "IDEM")] = ("idem", self.state)
        found: list[tuple[str, dict[str, Any]]] = []
        if len(wanted) == 1:
            ((pk, sk), (slot, name)) = next(iter(wanted.items()))
            with _mapped_errors(f"get {slot}"):
                out = self.client.get_item(
                    TableName=name, Key=_key(pk, sk), ConsistentRead=name == self.state
                )
            if "Item" in out:
                found.append((slot, out["Item"]))
        elif wanted:
            request: dict[str, Any] = {}
            for (pk, sk), (_, name) in wanted.items():
                entry = request.setdefault(name, {"Keys": [], "ConsistentRead": name == self.state})
                entry["Keys"].append(_key(pk, sk))
            with _mapped_errors("batch get"):
                for _attempt in range(5):
                    batch = self.client.batch_get_item(RequestItems=request)
                    for items in batch.get("Responses", {}).values():
                        for item in items:
                            slot = wanted[(str(item["pk"]["S"]), str(item["sk"]["S"]))][0]
                            found.append((slot, item))
                    request = dict(batch.get("UnprocessedKeys") or {})
                    if not request:
                        break
                else:
                    raise StoreUnavailable("batch get: keys left unprocessed")
        snap = Snapshot()
        for slot, item in found:
            if slot == "table":
                snap.table = _table_record(item)
            elif slot == "shoe":
                snap.shoe = _shoe_record(item)
            elif slot == "round":
                snap.round = _round_record(item)
            elif slot == "tier":
                snap.tier = None if item.get("retired", {}).get("BOOL") else _gj(item, "doc")
            else:
                snap.idempotency = _idempotency_record(item)
        return snap

    def due_rounds(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        """Rounds with locked bets whose settle-by time is at or before ``now`` (ISO 8601 UTC),
        oldest first per shard, at most ``limit``: one ``Query`` per shard of the sparse
        DueRounds index (more only past a page). Eventually consistent: a round settled a
        moment ago may still be listed; settling it again fails its condition, harmlessly."""
        out: list[tuple[str, RoundRef]] = []
        for shard in range(DUE_SHARDS):
            args: dict[str, Any] = {
                "TableName": self.state,
                "IndexName": DUE_INDEX,
                "KeyConditionExpression": "due_shard = :shard AND due_at <= :now",
                "ExpressionAttributeValues": {":shard": _s(f"DUE#{shard}"), ":now": _s(now)},
                "Limit": max(1, limit - len(out)),
            }
            with _mapped_errors("due rounds"):
                while len(out) < limit:
                    page = self.client.query(**args)
                    for item in page.get("Items", []):
                        ref = RoundRef(
                            _gs(item, "table_id"),
                            _gn(item, "shoe_number"),
                            _gn(item, "round_number"),
                        )
                        out.append((_gs(item, "operator_id"), ref))
                    if "LastEvaluatedKey" not in page:
                        break
                    args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
            if len(out) >= limit:
                break
        return out[:limit]

    def table_history(self, operator_id: str, table_id: str) -> TableHistory:
        """Everything of one table, in play order, for the audit: ONE strongly consistent
        ``Query`` of the table's partition (another page per MB of history). Items that no
        longer parse are reported by sort key, not raised."""
        args: dict[str, Any] = {
            "TableName": self.state,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": _s(table_pk(operator_id, table_id))},
            "ConsistentRead": True,
        }
        history = TableHistory()
        with _mapped_errors("table history"):
            while True:
                page = self.client.query(**args)
                for item in page.get("Items", []):
                    sk = str(item["sk"]["S"])
                    try:
                        if sk == "TABLE":
                            history.table = _table_record(item)
                        elif "#ROUND#" in sk:
                            history.rounds.append(_round_record(item))
                        elif sk.startswith("SHOE#"):
                            history.shoes.append(_shoe_record(item))
                    except (KeyError, TypeError, ValueError):
                        history.unreadable.append(sk)
                if "LastEvaluatedKey" not in page:
                    break
                args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return history

    # proofs -------------------------------------------------------------------------------
    def get_proof(self, shoe_id: str) -> ProofRecord | None:
        """One strongly consistent Query of the shoe's public partition: the proof item and every
        settled or voided round's public record (more pages only past 1 MB)."""
        items: list[dict[str, Any]] = []
        args: dict[str, Any] = {
            "TableName": self.state,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": _s(proof_pk(shoe_id))},
            "ConsistentRead": True,
        }
        with _mapped_errors("get proof"):
            while True:
                out = self.client.query(**args)
                items += out.get("Items", [])
                if "LastEvaluatedKey" not in out:
                    break
                args["ExclusiveStartKey"] = out["LastEvaluatedKey"]
        proof = next((i for i in items if i["sk"]["S"] == "PROOF"), None)
        if proof is None:
            return None
        rounds = {
            r.round_number: r
            for r in (_public_round_record(i) for i in items if i["sk"]["S"].startswith("ROUND#"))
        }
        return _proof_record(proof, rounds)

    # seeding (local runner, custom resource, tests) ---------------------------------------
    def put_tiers(self, tiers: list[dict[str, Any]]) -> None:
        """Make the config table's live tiers exactly ``tiers`` (configuration, not game state:
        the writes are plain puts; a tier no longer in the file is marked ``retired`` — never
        deleted — and is no longer listed nor accepted for a new table; tables keep the copy of
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
                    self.client.update_item(
                        TableName=self.config,
                        Key=_key("TIER", item["sk"]["S"]),
                        UpdateExpression="SET retired = :yes",
                        ExpressionAttributeValues={":yes": {"BOOL": True}},
                    )
