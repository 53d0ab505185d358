"""Operators (casinos) and their API keys, in the config table; used by the admin command, ``make
run`` and the tests, not by the Lambda functions.

Keys come from the OS CSPRNG, are shown once and stored only as their SHA-256; an operator may
hold several (rotation); a revoked key is kept, marked. Items (``pk`` + ``sk``)::

    pk = KEY#<sha256(key)>  sk = KEY                      operator_id, key_id, revoked
    pk = OPERATOR           sk = <operator_id>            the operator: name, created_at
    pk = OPERATOR           sk = <operator_id>#KEY#<id>   its key <id>: key_hash, revoked

Every change is one ``TransactWriteItems``: an operator never exists without its first key."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.adapters.dynamodb.keys import key_pk
from baccarat_api.apikeys import hash_key, new_key
from baccarat_api.clock import Clock, system_clock
from baccarat_api.ports.repository import ConditionFailed

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

#: Operator ids become part of DynamoDB keys (``OP#<id>#…``): no separators, nothing to escape.
OPERATOR_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
#: Display names: printable, bounded.
MAX_NAME_LENGTH = 200
KEY_ID_HEX = 12
_PARTITION = "OPERATOR"


class OperatorError(Exception):
    """A refused admin action (unknown operator, unknown key, a malformed id …)."""


class OperatorExists(OperatorError):
    """``create`` of an operator id that is taken."""


def key_id_of(key: str) -> str:
    """The public id of a key: the first 12 hex digits of its SHA-256."""
    return hash_key(key)[:KEY_ID_HEX]


@dataclass(frozen=True, slots=True)
class KeyInfo:
    operator_id: str
    key_id: str
    key_hash: str
    created_at: str
    revoked: bool = False
    revoked_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """What the admin command shows (never the hash: the id names the key)."""
        return {
            "key_id": self.key_id,
            "created_at": self.created_at,
            "revoked": self.revoked,
            "revoked_at": self.revoked_at,
        }


@dataclass(frozen=True, slots=True)
class OperatorInfo:
    operator_id: str
    name: str
    created_at: str
    keys: list[KeyInfo] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "operator_id": self.operator_id,
            "name": self.name,
            "created_at": self.created_at,
            "keys": [k.as_dict() for k in self.keys],
        }


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A key as it is handed out: the only time the key itself exists outside its holder."""

    operator_id: str
    key_id: str
    key: str
    created_at: str
    name: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {
            "operator_id": self.operator_id,
            "key_id": self.key_id,
            "key": self.key,
            "created_at": self.created_at,
        }
        if self.name is not None:
            out["name"] = self.name
        return out


def check_operator_id(operator_id: str) -> str:
    if not OPERATOR_ID.fullmatch(operator_id):
        raise OperatorError(
            f"operator ids are 1-63 lowercase letters, digits and '-', starting with a letter or "
            f"digit: {operator_id!r}"
        )
    return operator_id


def _check_name(name: str) -> str:
    if not name or len(name) > MAX_NAME_LENGTH or not name.isprintable():
        raise OperatorError(f"a name is 1-{MAX_NAME_LENGTH} printable characters")
    return name


# --- items ------------------------------------------------------------------------------------


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _listing_sk(operator_id: str, key_id: str) -> str:
    return f"{operator_id}#KEY#{key_id}"


def _key_items(info: KeyInfo) -> tuple[dict[str, Any], dict[str, Any]]:
    common = {
        "operator_id": {"S": info.operator_id},
        "key_id": {"S": info.key_id},
        "revoked": {"BOOL": False},
        "created_at": {"S": info.created_at},
    }
    lookup = {**_key(key_pk(info.key_hash), "KEY"), "kind": {"S": "api_key"}, **common}
    listing = {
        **_key(_PARTITION, _listing_sk(info.operator_id, info.key_id)),
        "kind": {"S": "operator_key"},
        "key_hash": {"S": info.key_hash},
        **common,
    }
    return lookup, listing


def _put_new(table: str, item: dict[str, Any]) -> dict[str, Any]:
    return {
        "Put": {"TableName": table, "Item": item, "ConditionExpression": "attribute_not_exists(pk)"}
    }


def _cancellation_reasons(exc: BaseException) -> list[str]:
    from botocore.exceptions import ClientError

    cause = exc.__cause__ if isinstance(exc, ConditionFailed) else exc
    if isinstance(cause, ClientError):
        return [str(r.get("Code", "None")) for r in cause.response.get("CancellationReasons", [])]
    return []


class OperatorStore:
    """The config table's operators and keys (one DynamoDB call per method)."""

    def __init__(
        self, client: DynamoDBClient, config_table: str, clock: Clock = system_clock
    ) -> None:
        self.clock = clock
        self.client = client
        self.table = config_table

    def _transact(self, what: str, items: list[dict[str, Any]]) -> None:

        with mapped_errors(what):
            self.client.transact_write_items(TransactItems=items)  # type: ignore[arg-type]

    def create(self, operator_id: str, name: str, first_key: KeyInfo) -> None:
        """One transaction: the operator (new) and its first key (new)."""
        operator = {
            **_key(_PARTITION, operator_id),
            "kind": {"S": "operator"},
            "operator_id": {"S": operator_id},
            "name": {"S": name},
            "created_at": {"S": first_key.created_at},
        }
        lookup, listing = _key_items(first_key)
        items = [_put_new(self.table, operator), _put_new(self.table, lookup)]
        items.append(_put_new(self.table, listing))
        try:
            self._transact("create operator", items)
        except ConditionFailed as exc:
            reasons = _cancellation_reasons(exc)
            if reasons[:1] == ["ConditionalCheckFailed"]:
                raise OperatorExists(f"operator {operator_id!r} already exists") from None
            raise OperatorError("that key is already registered") from None

    def add_key(self, info: KeyInfo) -> None:
        """One transaction: the operator must exist; the key's two items (new)."""
        lookup, listing = _key_items(info)
        check = {
            "ConditionCheck": {
                "TableName": self.table,
                "Key": _key(_PARTITION, info.operator_id),
                "ConditionExpression": "attribute_exists(pk)",
            }
        }
        try:
            self._transact(
                "add key", [check, _put_new(self.table, lookup), _put_new(self.table, listing)]
            )
        except ConditionFailed as exc:
            if _cancellation_reasons(exc)[:1] == ["ConditionalCheckFailed"]:
                raise OperatorError(f"no operator {info.operator_id!r}") from None
            raise OperatorError("that key is already registered") from None

    def get_key(self, operator_id: str, key_id: str) -> KeyInfo | None:

        with mapped_errors("get key"):
            out = self.client.get_item(
                TableName=self.table,
                Key=_key(_PARTITION, _listing_sk(operator_id, key_id)),
                ConsistentRead=True,
            )
        item = out.get("Item")
        return None if item is None else _key_info(item)

    def revoke(self, info: KeyInfo, revoked_at: str) -> None:
        """One transaction: both items of the key marked revoked (never deleted)."""
        update = {
            "UpdateExpression": "SET revoked = :t, revoked_at = :at",
            "ConditionExpression": "attribute_exists(pk) AND operator_id = :op",
            "ExpressionAttributeValues": {
                ":t": {"BOOL": True},
                ":at": {"S": revoked_at},
                ":op": {"S": info.operator_id},
            },
        }
        keys = (
            _key(key_pk(info.key_hash), "KEY"),
            _key(_PARTITION, _listing_sk(info.operator_id, info.key_id)),
        )
        try:
            self._transact(
                "revoke key",
                [{"Update": {"TableName": self.table, "Key": k, **update}} for k in keys],
            )
        except ConditionFailed:
            raise OperatorError(
                f"no key {info.key_id!r} of operator {info.operator_id!r}"
            ) from None

    def list(self) -> list[OperatorInfo]:
        """Every operator with its keys (one ``Query``, paged), by operator id."""

        items: list[dict[str, Any]] = []
        args: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": _PARTITION}},
            "ConsistentRead": True,
        }
        while True:
            with mapped_errors("list operators"):
                out = self.client.query(**args)
            items += out.get("Items", [])
            if "LastEvaluatedKey" not in out:
                break
            args["ExclusiveStartKey"] = out["LastEvaluatedKey"]
        operators: dict[str, OperatorInfo] = {}
        keys: dict[str, list[KeyInfo]] = {}
        for item in items:
            if item["kind"]["S"] == "operator":
                op = item["operator_id"]["S"]
                operators[op] = OperatorInfo(op, item["name"]["S"], item["created_at"]["S"])
            elif item["kind"]["S"] == "operator_key":
                info = _key_info(item)
                keys.setdefault(info.operator_id, []).append(info)
        return [
            OperatorInfo(o.operator_id, o.name, o.created_at, sorted(keys.get(op, []), key=_by_age))
            for op, o in sorted(operators.items())
        ]


def _by_age(k: KeyInfo) -> tuple[str, str]:
    return (k.created_at, k.key_id)


def _key_info(item: dict[str, Any]) -> KeyInfo:
    revoked_at = item.get("revoked_at")
    return KeyInfo(
        operator_id=item["operator_id"]["S"],
        key_id=item["key_id"]["S"],
        key_hash=item["key_hash"]["S"],
        created_at=item["created_at"]["S"],
        revoked=bool(item.get("revoked", {}).get("BOOL", False)),
        revoked_at=None if revoked_at is None else revoked_at["S"],
    )


# --- use cases --------------------------------------------------------------------------------


def _issue(store: OperatorStore, operator_id: str, key: str | None) -> tuple[str, KeyInfo]:
    key = key or new_key()
    return key, KeyInfo(operator_id, key_id_of(key), hash_key(key), store.clock())


def create_operator(
    store: OperatorStore, operator_id: str, name: str | None = None, key: str | None = None
) -> IssuedKey:
    """A new operator and its first key (fresh from the CSPRNG unless given)."""
    check_operator_id(operator_id)
    name = _check_name(operator_id if name is None else name)
    key, info = _issue(store, operator_id, key)
    store.create(operator_id, name, info)
    return IssuedKey(operator_id, info.key_id, key, info.created_at, name)


def add_key(store: OperatorStore, operator_id: str, key: str | None = None) -> IssuedKey:
    """Another key for an existing operator (rotation: the old keys keep working until revoked)."""
    check_operator_id(operator_id)
    key, info = _issue(store, operator_id, key)
    store.add_key(info)
    return IssuedKey(operator_id, info.key_id, key, info.created_at)


def revoke_key(store: OperatorStore, operator_id: str, key_id: str) -> KeyInfo:
    """Mark the key revoked (kept, never deleted). Revoking a revoked key changes nothing."""
    check_operator_id(operator_id)
    if not re.fullmatch(rf"[0-9a-f]{{{KEY_ID_HEX}}}", key_id):
        raise OperatorError(f"a key id is {KEY_ID_HEX} hex digits (see `baccarat operator list`)")
    info = store.get_key(operator_id, key_id)
    if info is None:
        raise OperatorError(f"no key {key_id!r} of operator {operator_id!r}")
    if info.revoked:
        return info
    at = store.clock()
    store.revoke(info, at)
    return KeyInfo(info.operator_id, info.key_id, info.key_hash, info.created_at, True, at)


def list_operators(store: OperatorStore) -> list[OperatorInfo]:
    return store.list()


def ensure_operator_key(store: OperatorStore, operator_id: str, key: str | None = None) -> str:
    """A key for ``operator_id``, creating the operator if it does not exist yet (``make run``'s
    demo operator, the tests); returns the key."""
    try:
        return create_operator(store, operator_id, key=key).key
    except OperatorExists:
        return add_key(store, operator_id, key).key
