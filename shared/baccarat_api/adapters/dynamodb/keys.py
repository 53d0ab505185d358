"""The key schema of the DynamoDB adapter (template.yaml ``StateTable`` and ``ConfigTable``, both
keyed ``pk`` (S) + ``sk`` (S)).

State table: everything of one table lives in one partition, under the operator's id::

    pk = OP#<operator_id>#TABLE#<table_id>   sk = TABLE                       the table
                                             sk = SHOE#000001                 shoe 1
                                             sk = SHOE#000001#ROUND#00001     round 1 of shoe 1
    pk = PROOF#<shoe_id>                     sk = PROOF                       public proof (ended)

The ``PROOF#`` partition is the shoe's public side: the proof item, written by the transaction
that ends the shoe (404 while there is none). The rounds' money lives on the round items only
(their bets, the money computed at the deal, how they were resolved); a proof reads them with
one Query of the shoe's items in the operator's partition (``Repository.shoe_history``), the
proof item naming the operator.

Idempotency records (``Idempotency-Key`` of a POST; :mod:`baccarat_api.service.idempotency`)
live in their own partition per operator and key, are written by the SAME transaction as the
request's effect, and expire by the table's TTL attribute ``expires_at`` (24 h)::

    pk = OP#<operator_id>#IDEM#<sha256(key)> sk = IDEM                        the stored response

A round dealt with locked bets carries ``due_shard`` (``DUE#0``…``DUE#7``, by table) and
``due_at`` (its settle-by time) until it is settled or voided: the sparse GSI ``DueRounds``
(template.yaml) holds exactly the rounds the auto-settlement sweep may have to settle.

Every round also carries ``day_shard`` (``OP#<operator>#DAY#<YYYY-MM-DD>#<NN>``: the UTC day it
was dealt, and one of 32 shards by table) and ``day_key`` (``<table_id>#<shoe 6>#<round 5>``):
the GSI ``RoundsByDay`` (reconciliation: ``GET /v1/rounds``, ``GET /v1/reports/daily``) lists
an operator's rounds of one day, a table's rounds in play order, spread over 32 partitions per
operator and day (docs/scaling.md). Both are fixed at the deal: the round never moves.

Ids carry the table id and the shoe and round numbers, so every read is one ``GetItem`` on a
key built from the caller's operator id and the path: another operator's id misses exactly like
an unknown one. Ordered sort keys keep a table's shoes and rounds in play order for later
queries (audit).

Config table::

    pk = KEY#<sha256(api key)>   sk = KEY       operator_id, key_id, revoked (the auth lookup)
    pk = OPERATOR                sk = <operator id>[#KEY#<key id>]   operators and their keys
    pk = TIER                    sk = <tier id> doc (Tier.to_dict() JSON), position

(operators and keys are written only by :mod:`baccarat_api.adapters.dynamodb.operators`, the
admin command's store; the functions only read ``KEY#`` items.)

Every item's attributes are its record's fields (:mod:`.codec`); each item also says its
``kind``."""

from __future__ import annotations

import hashlib

#: Partitions of the sparse ``DueRounds`` index (rounds with locked bets awaiting settlement):
#: a table's rounds always land in the same shard; the sweep queries every shard.
DUE_SHARDS = 8
DUE_INDEX = "DueRounds"
#: Partitions per operator and UTC day of the ``RoundsByDay`` index (a table's rounds in one).
DAY_SHARDS = 32
DAY_INDEX = "RoundsByDay"
TABLE_SK = "TABLE"
PROOF_SK = "PROOF"
IDEM_SK = "IDEM"
TIER_PK = "TIER"


def table_pk(operator_id: str, table_id: str) -> str:
    return f"OP#{operator_id}#TABLE#{table_id}"


def shoe_sk(shoe_number: int) -> str:
    return f"SHOE#{shoe_number:06d}"


def round_sk(shoe_number: int, round_number: int) -> str:
    return f"SHOE#{shoe_number:06d}#ROUND#{round_number:05d}"


def proof_pk(shoe_id: str) -> str:
    return f"PROOF#{shoe_id}"


def idempotency_pk(operator_id: str, key_hash: str) -> str:
    return f"OP#{operator_id}#IDEM#{key_hash}"


def _bucket(table_id: str, buckets: int) -> int:
    return int(hashlib.sha256(table_id.encode()).hexdigest()[:8], 16) % buckets


def due_shard(table_id: str) -> str:
    return f"DUE#{_bucket(table_id, DUE_SHARDS)}"


def day_shard_of(table_id: str) -> int:
    """The ``RoundsByDay`` shard of a table's rounds (the same every day)."""
    return _bucket(table_id, DAY_SHARDS)


def day_shard(operator_id: str, day: str, shard: int) -> str:
    return f"OP#{operator_id}#DAY#{day}#{shard:02d}"


def day_key(table_id: str, shoe_number: int, round_number: int) -> str:
    return f"{table_id}#{shoe_number:06d}#{round_number:05d}"


def parse_day_key(key: str) -> tuple[str, int, int]:
    table_id, shoe, round_ = key.split("#")
    return table_id, int(shoe), int(round_)


def key_pk(key_hash: str) -> str:
    return f"KEY#{key_hash}"


# (pk, sk) of each record kind, from its KEY_FIELDS values (baccarat_api.ports.records) --------


def table_key(operator_id: str, table_id: str) -> tuple[str, str]:
    return table_pk(operator_id, table_id), TABLE_SK


def shoe_key(operator_id: str, table_id: str, shoe_number: int) -> tuple[str, str]:
    return table_pk(operator_id, table_id), shoe_sk(shoe_number)


def round_key(
    operator_id: str, table_id: str, shoe_number: int, round_number: int
) -> tuple[str, str]:
    return table_pk(operator_id, table_id), round_sk(shoe_number, round_number)


def proof_key(shoe_id: str) -> tuple[str, str]:
    return proof_pk(shoe_id), PROOF_SK


def idempotency_key(operator_id: str, key_hash: str) -> tuple[str, str]:
    return idempotency_pk(operator_id, key_hash), IDEM_SK


def tier_key(tier_id: str) -> tuple[str, str]:
    return TIER_PK, tier_id
