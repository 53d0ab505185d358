"""Spectators and watchers at a table on DynamoDB (the presence half of
:class:`~baccarat_api.ports.book.BookStore`): an item each under the table's ``…#SPEC`` /
``…#WATCH`` partition, counted in :data:`~baccarat_api.ports.book.COUNT_SHARDS` count items
of the same partition (a join or leave is one transaction with its count's ``ADD``).

Nobody's item is ever deleted: a leave marks it ``present = false`` and moves its ``epoch``; a
join (new, or back after a leave) marks it ``present = true`` and moves the epoch again, which
never goes back, so a write made on a read from before a leave is refused after a rejoin. The
names pages filter the absent out (:meth:`PresenceStore._names`)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping
from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import key_item
from baccarat_api.adapters.dynamodb.errors import cancellation_reasons, mapped_errors
from baccarat_api.adapters.dynamodb.shape import Item
from baccarat_api.adapters.dynamodb.writes import WriteRequests
from baccarat_api.ports.book import (
    COUNT_SHARDS,
    NamesPage,
    NotPresent,
    PresenceMoved,
    Spectator,
    SpectatorsPage,
    Watcher,
    count_shard,
    slip_shard,
)
from baccarat_api.ports.repository import ConditionFailed, StoreUnavailable

#: Tries of a transaction AWS cancels for a conflict, and the pause before each retry (s).
CONFLICT_TRIES = 5
CONFLICT_PAUSE = (0.01, 0.08)
_NEW = "attribute_not_exists(pk) OR present = :false"
_THERE = "present = :true"
_TRUE, _FALSE = {"BOOL": True}, {"BOOL": False}


def spectator_fields(s: Spectator) -> Item:
    """The attributes a join sets on a spectator's item (``epoch`` and ``present`` aside)."""
    item: Item = {
        "kind": {"S": "spectator"},
        "bettor_id": {"S": s.bettor_id},
        "bettor_ref": {"S": s.bettor_ref},
        "balance": {"N": str(s.balance)},
        "joined_at": {"S": s.joined_at},
    }
    if s.personal_limits is not None:
        item["personal_limits"] = {"S": json.dumps(s.personal_limits, sort_keys=True)}
    return item


def spectator_of(item: Item) -> Spectator:
    limits = item.get("personal_limits")
    return Spectator(
        bettor_id=item["bettor_id"]["S"],
        bettor_ref=item["bettor_ref"]["S"],
        balance=int(item["balance"]["N"]),
        joined_at=item["joined_at"]["S"],
        personal_limits=None if limits is None else json.loads(limits["S"]),
        epoch=int(item["epoch"]["N"]),
    )


def _count_update(table: str, pk: str, bettor_id: str, by: int) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": table,
            "Key": key_item(pk, keys.count_sk(count_shard(bettor_id))),
            "UpdateExpression": "ADD n :by",
            "ExpressionAttributeValues": {":by": {"N": str(by)}},
        }
    }


class PresenceStore(WriteRequests):
    """The presence methods of the book store."""

    def _send(self, what: str, items: list[dict[str, Any]]) -> None:
        """ONE ``TransactWriteItems``, sent again (at most :data:`CONFLICT_TRIES` times in all,
        full jitter) while AWS cancels it for a conflict with another transaction on one of
        its items (a cancelled transaction wrote nothing): many confirms on one shard's
        ``WINDOW`` at once. Then ``StoreUnavailable``; a lost condition ``ConditionFailed``."""
        for attempt in range(1, CONFLICT_TRIES + 1):
            try:
                with mapped_errors(what):
                    self.client.transact_write_items(TransactItems=items)  # type: ignore[arg-type]
                return
            except StoreUnavailable as exc:
                reasons = {str(r.get("Code")) for r in cancellation_reasons(exc.__cause__)}
                if "TransactionConflict" not in reasons or attempt == CONFLICT_TRIES:
                    raise
                time.sleep(random.uniform(*CONFLICT_PAUSE))  # full jitter

    def _transact(self, what: str, items: list[dict[str, Any]]) -> list[str]:
        """:meth:`_send`: ``[]`` when it committed, else (a lost condition) the cancellation
        reason code of each item, in order."""
        try:
            self._send(what, items)
        except ConditionFailed as exc:
            return [str(r.get("Code", "None")) for r in cancellation_reasons(exc.__cause__)]
        return []

    def _join(self, what: str, pk: str, sk: str, fields: Item, bettor_id: str) -> bool:
        """Mark the item present (made if new) with ``fields``, its epoch one up, and count
        it: ONE transaction, refused (``False``, nothing written) while it is present."""
        values: dict[str, Any] = {":true": _TRUE, ":false": _FALSE, ":zero": {"N": "0"}}
        values[":one"] = {"N": "1"}
        names = {f"#f{n}": name for n, name in enumerate(fields)}
        sets = [f"#f{n} = :f{n}" for n in range(len(fields))]
        values.update({f":f{n}": value for n, value in enumerate(fields.values())})
        expression = "SET " + ", ".join(
            [*sets, "present = :true", "epoch = if_not_exists(epoch, :zero) + :one"]
        )
        if "personal_limits" not in fields and "balance" in fields:
            expression += " REMOVE personal_limits"
        update = {
            "Update": {
                "TableName": self.state,
                "Key": key_item(pk, sk),
                "UpdateExpression": expression,
                "ConditionExpression": _NEW,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
            }
        }
        return not self._transact(what, [update, _count_update(self.state, pk, bettor_id, 1)])

    def _leave_mark(self, pk: str, sk: str) -> dict[str, Any]:
        """The action marking a present item absent, its epoch one up (refused if absent)."""
        return {
            "Update": {
                "TableName": self.state,
                "Key": key_item(pk, sk),
                "UpdateExpression": "SET present = :false, epoch = epoch + :one",
                "ConditionExpression": _THERE,
                "ExpressionAttributeValues": {
                    ":true": _TRUE,
                    ":false": _FALSE,
                    ":one": {"N": "1"},
                },
            }
        }

    def _leave(self, what: str, pk: str, sk: str, bettor_id: str) -> bool:
        mark = self._leave_mark(pk, sk)
        return not self._transact(what, [mark, _count_update(self.state, pk, bettor_id, -1)])

    def _page(
        self, what: str, pk: str, limit: int, after: str | None, prefix: str
    ) -> tuple[int, list[Item], bool]:
        """The count (its shards summed) and the first ``limit`` present items after ``after``,
        and whether more follow. The absent are filtered out AFTER the read (a filter saves no
        read), so a query page may hold fewer than asked: pages are read on until ``limit + 1``
        items or the partition's end — a page read past many who left reads (and pays for)
        them too."""
        wanted = {(pk, keys.count_sk(k)): (str(k), self.state) for k in range(COUNT_SHARDS)}
        count = sum(int(item.get("n", {"N": "0"})["N"]) for _, item in self._fetch(wanted))
        args: dict[str, Any] = {
            "TableName": self.state,
            "KeyConditionExpression": "pk = :pk AND sk > :start",
            "FilterExpression": "present = :true",
            "ExpressionAttributeValues": {
                ":pk": {"S": pk},
                ":start": {"S": prefix + (after or "")},
                ":true": _TRUE,
            },
            "ConsistentRead": True,
            "Limit": limit + 1,
        }
        items: list[Item] = []
        with mapped_errors(what):
            while len(items) <= limit:
                out = self.client.query(**args)
                items += out.get("Items", [])
                if "LastEvaluatedKey" not in out:
                    break
                args["ExclusiveStartKey"] = out["LastEvaluatedKey"]
        return count, items[:limit], len(items) > limit

    def _names(self, what: str, pk: str, prefix: str, limit: int, after: str | None) -> NamesPage:
        count, items, more = self._page(what, pk, limit, after, prefix)
        names = tuple(str(item["sk"]["S"])[len(prefix) :] for item in items)
        return NamesPage(count, names, names[-1] if more else None)

    def spectator_page(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> SpectatorsPage:
        pk = keys.spectators_pk(operator_id, table_id)
        count, items, more = self._page("spectators", pk, limit, after, keys.SPEC_PREFIX)
        spectators = tuple(spectator_of(item) for item in items)
        return SpectatorsPage(count, spectators, spectators[-1].bettor_id if more else None)

    def join_spectator(self, operator_id: str, table_id: str, spectator: Spectator) -> bool:
        slip_shard(spectator.bettor_ref)
        pk = keys.spectators_pk(operator_id, table_id)
        sk = keys.SPEC_PREFIX + spectator.bettor_id
        fields = spectator_fields(spectator)
        return self._join("join spectator", pk, sk, fields, spectator.bettor_id)

    def get_spectator(self, operator_id: str, table_id: str, bettor_id: str) -> Spectator | None:
        pk = keys.spectators_pk(operator_id, table_id)
        item = self._get("get spectator", pk, keys.SPEC_PREFIX + bettor_id)
        return None if item is None or not _present(item) else spectator_of(item)

    def update_spectator(
        self,
        operator_id: str,
        table_id: str,
        bettor_id: str,
        epoch: int,
        balance: int,
        personal_limits: Mapping[str, Any] | None,
        drop_slip: str | None = None,
    ) -> Spectator:
        values: dict[str, Any] = {
            ":b": {"N": str(balance)},
            ":e": {"N": str(epoch)},
            ":one": {"N": "1"},
            ":true": _TRUE,
        }
        expression = "SET balance = :b, epoch = epoch + :one"
        if personal_limits is None:
            expression += " REMOVE personal_limits"
        else:
            values[":l"] = {"S": json.dumps(personal_limits, sort_keys=True)}
            expression += ", personal_limits = :l"
        update: dict[str, Any] = {
            "TableName": self.state,
            "Key": key_item(
                keys.spectators_pk(operator_id, table_id), keys.SPEC_PREFIX + bettor_id
            ),
            "UpdateExpression": expression,
            "ConditionExpression": f"{_THERE} AND epoch = :e",
            "ExpressionAttributeValues": values,
        }
        if drop_slip is not None:
            before = self.get_spectator(operator_id, table_id, bettor_id)
            if before is None:
                raise NotPresent(bettor_id)
            if before.epoch != epoch:
                raise PresenceMoved(bettor_id)
            drop = self._open_slip_drop(operator_id, drop_slip, before.bettor_ref)
            reasons = self._transact("update spectator", [{"Update": update}, *drop])
            if not reasons:
                return Spectator(
                    bettor_id,
                    before.bettor_ref,
                    balance,
                    before.joined_at,
                    personal_limits,
                    epoch + 1,
                )
            if reasons[0] == "ConditionalCheckFailed":
                raise PresenceMoved(bettor_id)  # changed (or left) since the read
            # the window is not open: the slip stays (it is dealt), the change alone
        try:
            with mapped_errors("update spectator"):
                out = self.client.update_item(
                    **update, ReturnValues="ALL_NEW", ReturnValuesOnConditionCheckFailure="ALL_OLD"
                )
        except ConditionFailed as exc:
            old = getattr(exc.__cause__, "response", {}).get("Item")
            if old and _present(old):
                raise PresenceMoved(bettor_id) from exc
            raise NotPresent(bettor_id) from exc
        return spectator_of(out["Attributes"])

    def _open_slip_drop(self, operator_id: str, round_id: str, bettor_ref: str) -> list[Any]:
        """The transaction actions marking the bettor's slip of ``round_id`` cancelled while its
        shard's window is open (a ConditionCheck of the ``WINDOW``, the slip's mark). The mark
        is unconditional — if there is no slip it is a bare cancelled mark, which every read
        skips — so a slip confirmed on the epoch this transaction moves cannot slip past it."""
        shard = slip_shard(bettor_ref)
        check = {
            "ConditionCheck": {
                "TableName": self.state,
                "Key": key_item(*keys.window_key(operator_id, round_id, shard)),
                "ConditionExpression": "#s = :open",
                "ExpressionAttributeNames": {"#s": "status"},
                "ExpressionAttributeValues": {":open": {"S": "open"}},
            }
        }
        slip = keys.slip_key(operator_id, round_id, shard, bettor_ref)
        mark = {
            "TableName": self.state,
            "Key": key_item(*slip),
            "UpdateExpression": "SET cancelled = :true",
            "ExpressionAttributeValues": {":true": _TRUE},
        }
        return [check, {"Update": mark}]

    def spectators(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> NamesPage:
        pk = keys.spectators_pk(operator_id, table_id)
        return self._names("spectators", pk, keys.SPEC_PREFIX, limit, after)

    def join_watcher(self, operator_id: str, table_id: str, watcher: Watcher) -> bool:
        pk = keys.watchers_pk(operator_id, table_id)
        sk = keys.WATCH_PREFIX + watcher.bettor_id
        fields: Item = {"kind": {"S": "watcher"}, "joined_at": {"S": watcher.joined_at}}
        return self._join("join watcher", pk, sk, fields, watcher.bettor_id)

    def get_watcher(self, operator_id: str, table_id: str, bettor_id: str) -> Watcher | None:
        item = self._get(
            "get watcher", keys.watchers_pk(operator_id, table_id), keys.WATCH_PREFIX + bettor_id
        )
        if item is None or not _present(item):
            return None
        return Watcher(bettor_id, item["joined_at"]["S"])

    def leave_watcher(self, operator_id: str, table_id: str, bettor_id: str) -> bool:
        pk = keys.watchers_pk(operator_id, table_id)
        return self._leave("leave watcher", pk, keys.WATCH_PREFIX + bettor_id, bettor_id)

    def watchers(
        self, operator_id: str, table_id: str, limit: int, after: str | None = None
    ) -> NamesPage:
        pk = keys.watchers_pk(operator_id, table_id)
        return self._names("watchers", pk, keys.WATCH_PREFIX, limit, after)

    def leave_spectator(
        self, operator_id: str, table_id: str, bettor_id: str, round_id: str | None = None
    ) -> bool:
        pk = keys.spectators_pk(operator_id, table_id)
        sk = keys.SPEC_PREFIX + bettor_id
        spectator = self.get_spectator(operator_id, table_id, bettor_id)
        if spectator is None:
            return False
        if round_id is None:
            return self._leave("leave spectator", pk, sk, bettor_id)
        mark = self._leave_mark(pk, sk)
        drop = self._open_slip_drop(operator_id, round_id, spectator.bettor_ref)
        count = _count_update(self.state, pk, bettor_id, -1)
        reasons = self._transact("leave spectator", [mark, count, *drop])
        if not reasons:
            return True
        if reasons[0] == "ConditionalCheckFailed":
            return False  # left already (a leave at once won)
        return self._leave("leave spectator", pk, sk, bettor_id)  # locked: the slip stays


def _present(item: Item) -> bool:
    return bool(item.get("present", _FALSE).get("BOOL"))
