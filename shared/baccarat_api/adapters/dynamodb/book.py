"""The :class:`~baccarat_api.ports.book.BookStore` on DynamoDB: presence (:mod:`.presence`)
plus a round's book — one partition per book shard (``OP#<op>#ROUND#<round>#BOOK#<c>``) holding
its ``WINDOW`` item and its ``SLIP#<bettor_ref>`` items. A confirm is ONE transaction of three
actions (the shard's window open, the spectator at its epoch, the slip's put); the lock is ONE
transaction flipping every shard's window (and the caller's live-item writes). No new index:
every read is a ``GetItem``, a ``BatchGetItem`` or a ``Query`` on a key built here. Nothing is
deleted: a cancelled slip is marked ``cancelled`` (every read skips it; a confirm's ``Put``
replaces the mark)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import key_item
from baccarat_api.adapters.dynamodb.errors import cancellation_reasons, mapped_errors
from baccarat_api.adapters.dynamodb.presence import PresenceStore
from baccarat_api.adapters.dynamodb.shape import Item
from baccarat_api.ports.book import (
    BOOK_SHARDS,
    SHARD_CHARS,
    BookCursor,
    BookPage,
    Line,
    PresenceMoved,
    Slip,
    Window,
    WindowClosed,
    WindowExists,
    slip_shard,
)
from baccarat_api.ports.repository import ConditionFailed
from baccarat_api.ports.writes import Write

__all__ = ["DynamoBookStore"]

_FAILED = "ConditionalCheckFailed"
_NAMES = {"#s": "status", "#e": "epoch", "#c": "closes_at"}


def slip_item(operator_id: str, round_id: str, slip: Slip) -> Item:
    pk, sk = keys.slip_key(operator_id, round_id, slip_shard(slip.bettor_ref), slip.bettor_ref)
    return {
        "pk": {"S": pk},
        "sk": {"S": sk},
        "kind": {"S": "slip"},
        "bettor_id": {"S": slip.bettor_id},
        "bettor_ref": {"S": slip.bettor_ref},
        "lines": {
            "L": [
                {"M": {"type": {"S": x.type}, "amount": {"N": str(x.amount)}}} for x in slip.lines
            ]
        },
        "total": {"N": str(slip.total)},
        "placed_at": {"S": slip.placed_at},
        "spec_epoch": {"N": str(slip.spec_epoch)},
    }


def slip_of(item: Item) -> Slip:
    return Slip(
        bettor_id=item["bettor_id"]["S"],
        bettor_ref=item["bettor_ref"]["S"],
        lines=tuple(
            Line(x["M"]["type"]["S"], int(x["M"]["amount"]["N"])) for x in item["lines"]["L"]
        ),
        placed_at=item["placed_at"]["S"],
        spec_epoch=int(item["spec_epoch"]["N"]),
    )


def window_of(round_id: str, item: Item) -> Window:
    return Window(
        round_id=round_id,
        status=item["status"]["S"],
        epoch=item["epoch"]["S"],
        closes_at=item["closes_at"]["S"],
        shards=int(item["shards"]["N"]),
    )


class DynamoBookStore(PresenceStore):
    """The book over the state table (``DynamoBookStore(client, state_table, config_table)``)."""

    def _window_check(
        self, operator_id: str, round_id: str, shard: str, epoch: str, now: str
    ) -> Any:
        return {
            "ConditionCheck": {
                "TableName": self.state,
                "Key": key_item(*keys.window_key(operator_id, round_id, shard)),
                "ConditionExpression": "#s = :open AND #e = :epoch AND #c > :now",
                "ExpressionAttributeNames": _NAMES,
                "ExpressionAttributeValues": {
                    ":open": {"S": "open"},
                    ":epoch": {"S": epoch},
                    ":now": {"S": now},
                },
            }
        }

    def open_window(self, operator_id: str, round_id: str, epoch: str, closes_at: str) -> Window:
        puts: list[Any] = []
        for shard in SHARD_CHARS:
            pk, sk = keys.window_key(operator_id, round_id, shard)
            item: Item = {
                "pk": {"S": pk},
                "sk": {"S": sk},
                "kind": {"S": "window"},
                "status": {"S": "open"},
                "epoch": {"S": epoch},
                "closes_at": {"S": closes_at},
                "shards": {"N": str(BOOK_SHARDS)},
            }
            put = {  # a cancelled window of another epoch is opened again
                "TableName": self.state,
                "Item": item,
                "ConditionExpression": "attribute_not_exists(pk) OR (#s = :x AND #e <> :e)",
                "ExpressionAttributeNames": {"#s": "status", "#e": "epoch"},
                "ExpressionAttributeValues": {":x": {"S": "cancelled"}, ":e": {"S": epoch}},
            }
            puts.append({"Put": put})
        if not self._transact("open window", puts):
            return Window(round_id, "open", epoch, closes_at, BOOK_SHARDS)
        found = self.window(operator_id, round_id)
        if found is None or found.epoch != epoch:
            raise WindowExists(round_id)
        return found

    def window(self, operator_id: str, round_id: str) -> Window | None:
        wanted = {
            keys.window_key(operator_id, round_id, shard): (shard, self.state)
            for shard in SHARD_CHARS
        }
        found = dict(self._fetch(wanted))
        if len(found) != BOOK_SHARDS:
            return None
        return window_of(round_id, found[SHARD_CHARS[0]])

    def cancel_window(self, operator_id: str, round_id: str, epoch: str) -> bool:
        flips: list[Any] = [
            {
                "Update": {
                    "TableName": self.state,
                    "Key": key_item(*keys.window_key(operator_id, round_id, shard)),
                    "UpdateExpression": "SET #s = :x",
                    "ConditionExpression": "#e = :e AND #s IN (:open, :locked)",
                    "ExpressionAttributeNames": {"#s": "status", "#e": "epoch"},
                    "ExpressionAttributeValues": {
                        ":x": {"S": "cancelled"},
                        ":e": {"S": epoch},
                        ":open": {"S": "open"},
                        ":locked": {"S": "locked"},
                    },
                }
            }
            for shard in SHARD_CHARS
        ]
        return not self._transact("cancel window", flips)

    def confirm_slip(
        self,
        operator_id: str,
        table_id: str,
        round_id: str,
        window_epoch: str,
        slip: Slip,
        now: str,
    ) -> None:
        shard = slip_shard(slip.bettor_ref)
        spectator = {
            "ConditionCheck": {
                "TableName": self.state,
                "Key": key_item(
                    keys.spectators_pk(operator_id, table_id), keys.SPEC_PREFIX + slip.bettor_id
                ),
                "ConditionExpression": "epoch = :e",
                "ExpressionAttributeValues": {":e": {"N": str(slip.spec_epoch)}},
            }
        }
        put = {"Put": {"TableName": self.state, "Item": slip_item(operator_id, round_id, slip)}}
        check = self._window_check(operator_id, round_id, shard, window_epoch, now)
        reasons = self._transact("confirm slip", [check, spectator, put])
        if reasons and reasons[0] == _FAILED:
            raise WindowClosed(round_id)
        if reasons:
            raise PresenceMoved(slip.bettor_id)

    def cancel_slip(
        self, operator_id: str, round_id: str, window_epoch: str, bettor_ref: str, now: str
    ) -> bool:
        shard = slip_shard(bettor_ref)
        check = self._window_check(operator_id, round_id, shard, window_epoch, now)
        key = key_item(*keys.slip_key(operator_id, round_id, shard, bettor_ref))
        mark = {
            "Update": {
                "TableName": self.state,
                "Key": key,
                "UpdateExpression": "SET cancelled = :true",
                "ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(cancelled)",
                "ExpressionAttributeValues": {":true": {"BOOL": True}},
            }
        }
        reasons = self._transact("cancel slip", [check, mark])
        if reasons and reasons[0] == _FAILED:
            raise WindowClosed(round_id)
        return not reasons

    def get_slip(self, operator_id: str, round_id: str, bettor_ref: str) -> Slip | None:
        pk, sk = keys.slip_key(operator_id, round_id, slip_shard(bettor_ref), bettor_ref)
        item = self._get("get slip", pk, sk)
        return None if item is None or "cancelled" in item else slip_of(item)

    def lock(
        self,
        operator_id: str,
        round_id: str,
        window_epoch: str,
        also: Sequence[Write] = (),
        what: str = "lock book",
    ) -> None:
        flips: list[Any] = []
        for shard in SHARD_CHARS:
            flips.append(
                {
                    "Update": {
                        "TableName": self.state,
                        "Key": key_item(*keys.window_key(operator_id, round_id, shard)),
                        "UpdateExpression": "SET #s = :locked",
                        "ConditionExpression": "#s = :open AND #e = :epoch",
                        "ExpressionAttributeNames": {"#s": "status", "#e": "epoch"},
                        "ExpressionAttributeValues": {
                            ":open": {"S": "open"},
                            ":locked": {"S": "locked"},
                            ":epoch": {"S": window_epoch},
                        },
                    }
                }
            )
        flips += [request for write in also for request in self._requests(write)]
        try:
            self._send(what, flips)
        except ConditionFailed as exc:
            reasons = [str(r.get("Code")) for r in cancellation_reasons(exc.__cause__)]
            if _FAILED in reasons[:BOOK_SHARDS]:
                raise WindowClosed(round_id) from exc
            raise

    def book_page(
        self, operator_id: str, round_id: str, cursor: BookCursor | None = None, limit: int = 1000
    ) -> BookPage:
        at = cursor or BookCursor(0)
        pk = keys.book_pk(operator_id, round_id, SHARD_CHARS[at.shard])
        args: dict[str, Any] = {
            "TableName": self.state,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :slip)",
            "FilterExpression": "attribute_not_exists(cancelled)",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":slip": {"S": keys.SLIP_PREFIX}},
            "ConsistentRead": True,
            "Limit": limit + 1,
        }
        if at.after:
            args["ExclusiveStartKey"] = key_item(pk, keys.SLIP_PREFIX + at.after)
        items: list[Item] = []
        with mapped_errors("book page"):
            while len(items) <= limit:
                out = self.client.query(**args)
                items += out.get("Items", [])
                if "LastEvaluatedKey" not in out:
                    break
                args["ExclusiveStartKey"] = out["LastEvaluatedKey"]
        slips = tuple(slip_of(item) for item in items[:limit])
        if len(items) > limit:
            return BookPage(slips, BookCursor(at.shard, slips[-1].bettor_ref))
        return BookPage(slips, BookCursor(at.shard + 1) if at.shard + 1 < BOOK_SHARDS else None)
