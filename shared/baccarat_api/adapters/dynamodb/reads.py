"""The reads of a table's state: its table, shoe, round, live and idempotency items, one round
trip each."""

from __future__ import annotations

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb.base import DynamoBase
from baccarat_api.adapters.dynamodb.codec import from_item, tier_doc
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.records import (
    EventRecord,
    IdempotencyRecord,
    LiveRecord,
    RoundRecord,
    ShoeRecord,
    TableRecord,
)
from baccarat_api.ports.repository import ShoeHistory, Snapshot


class StateReads(DynamoBase):
    """Single items, a batch of them, a shoe's history and a table's events."""

    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None:
        item = self._get("get table", *keys.table_key(operator_id, table_id))
        return None if item is None else from_item(TableRecord, item)

    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None:
        return self.load(operator_id, shoe=ref).shoe

    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None:
        key = keys.round_key(operator_id, ref.table_id, ref.shoe_number, ref.round_number)
        item = self._get("get round", *key)
        return None if item is None else from_item(RoundRecord, item)

    def load(
        self,
        operator_id: str,
        *,
        table_id: str | None = None,
        shoe: ShoeRef | None = None,
        round_: RoundRef | None = None,
        tier_id: str | None = None,
        idem_key: str | None = None,
        live: str | None = None,
    ) -> Snapshot:
        """The named items in ONE round trip: ``GetItem`` for one, ``BatchGetItem`` for more
        (strongly consistent on the state table; unprocessed keys, which only throttling
        leaves, are asked again a few times)."""
        wanted: dict[tuple[str, str], tuple[str, str]] = {}  # (pk, sk) -> (slot, table)
        if table_id is not None:
            wanted[keys.table_key(operator_id, table_id)] = ("table", self.state)
        if shoe is not None:  # the shoe's item and its constants' (shape.Shape.apart)
            ident = (shoe.table_id, shoe.shoe_number)
            wanted[keys.shoe_key(operator_id, *ident)] = ("shoe", self.state)
            wanted[keys.shoe_commit_key(operator_id, *ident)] = ("shoe_packed", self.state)
        if round_ is not None:
            key = keys.round_key(
                operator_id, round_.table_id, round_.shoe_number, round_.round_number
            )
            wanted[key] = ("round", self.state)
        if tier_id is not None:
            wanted[keys.tier_key(tier_id)] = ("tier", self.config)
        if idem_key is not None:
            wanted[keys.idempotency_key(operator_id, idem_key)] = ("idem", self.state)
        if live is not None:
            wanted[keys.live_key(operator_id, live)] = ("live", self.state)
        snap = Snapshot()
        found = self._fetch(wanted)
        packed = next((item for slot, item in found if slot == "shoe_packed"), None)
        for slot, item in found:
            if slot == "table":
                snap.table = from_item(TableRecord, item)
            elif slot == "shoe":
                snap.shoe = from_item(ShoeRecord, item, packed)
            elif slot == "shoe_packed":
                continue
            elif slot == "round":
                snap.round = from_item(RoundRecord, item)
            elif slot == "tier":
                snap.tier = tier_doc(item)
            elif slot == "live":
                snap.live = from_item(LiveRecord, item)
            else:
                snap.idempotency = from_item(IdempotencyRecord, item)
        return snap

    def shoe_history(self, operator_id: str, ref: ShoeRef) -> ShoeHistory:
        """The shoe's item and its rounds: ONE ``Query`` of the sort keys from ``SHOE#n`` to
        ``SHOE#n#~`` (the shoe, then ``SHOE#n#ROUND#…`` in round order; another page per MB),
        whatever the table's other shoes hold. Items that no longer parse are reported by sort
        key, not raised."""
        first = keys.shoe_sk(ref.shoe_number)
        items = self._partition(
            "shoe history", keys.table_pk(operator_id, ref.table_id), (first, first + "#~")
        )
        history = ShoeHistory()
        commit = first + keys.SHOE_COMMIT_SUFFIX
        packed = next((item for item in items if item["sk"]["S"] == commit), None)
        for item in items:
            sk = str(item["sk"]["S"])
            try:
                if sk == first:
                    history.shoe = from_item(ShoeRecord, item, packed)
                elif sk == commit:
                    continue
                else:
                    history.rounds.append(from_item(RoundRecord, item))
            except (KeyError, TypeError, ValueError):
                history.unreadable.append(sk)
        return history

    def table_events(
        self, operator_id: str, table_id: str, after: int, limit: int
    ) -> tuple[list[EventRecord], LiveRecord | None]:
        """ONE strongly consistent ``Query`` of the sort keys ``EV#<after + 1>`` … ``LIVE``
        (``Limit``: ``limit`` items): the events in order, then the live item if the page
        reached it."""
        pk, first = keys.event_key(operator_id, table_id, after + 1)
        page = self._between("table events", pk, first, keys.LIVE_SK, limit)
        events: list[EventRecord] = []
        live: LiveRecord | None = None
        for item in page.get("Items", []):
            if item["sk"]["S"] == keys.LIVE_SK:
                live = from_item(LiveRecord, item)
            else:
                events.append(from_item(EventRecord, item))
        return events, live
