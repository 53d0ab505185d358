"""The DynamoDB adapter of :class:`~baccarat_api.ports.repository.Repository`: keys in
:mod:`.keys`, items in :mod:`.codec`, errors in :mod:`.errors`. The game-state writes are the
port's own (:class:`~baccarat_api.ports.writes.StateWrites`); this module turns their
:class:`~baccarat_api.ports.writes.Put` / ``Update`` lists into DynamoDB requests, and does the
reads. One instance per warm container; every method is exactly one DynamoDB call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb import pages as parts_of
from baccarat_api.adapters.dynamodb.codec import (
    Item,
    Shape,
    from_item,
    shape,
    tier_doc,
    tier_item,
    to_items,
)
from baccarat_api.adapters.dynamodb.errors import cancellation_reasons, mapped_errors
from baccarat_api.clock import Clock, system_clock
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.records import (
    FEED_SHARDS,
    KEY_FIELDS,
    DeliveryState,
    EventRecord,
    FairnessTotals,
    FeedEntry,
    FeedHead,
    FeedMark,
    IdempotencyRecord,
    LiveRecord,
    ProofRecord,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
    SigningKeyRecord,
    TableRecord,
    WebhookFailure,
    WebhookRecord,
)
from baccarat_api.ports.repository import (
    BadPosition,
    ConditionFailed,
    DayPosition,
    FairnessPage,
    Repository,
    ShoeHistory,
    Snapshot,
    StoreUnavailable,
)
from baccarat_api.ports.writes import ABSENT, Put, Update, Write

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_NEW = "attribute_not_exists(pk)"


def _key(pk: str, sk: str) -> Item:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _refuse_packed(s: Shape, write: Update) -> None:
    """A packed field (:attr:`~.codec.Shape.packed`) is fixed when its item is put: an update
    that sets, removes, adds to or tests one is a mistake, refused before anything is sent."""
    named = (*write.set, *write.remove, *write.add, *write.expect)
    packed = sorted({f for f in named if s.field(f).packed})
    if packed:
        raise ValueError(f"{s.kind}: {', '.join(packed)} packed: no update sets or tests them")


class DynamoRepository(Repository):
    def __init__(
        self,
        client: DynamoDBClient,
        state_table: str,
        config_table: str,
        clock: Clock = system_clock,
    ) -> None:
        self.clock = clock
        self.client = client
        self.state = state_table
        self.config = config_table

    # writes: the port's Put / Update → DynamoDB ------------------------------------------------
    def _requests(self, write: Write) -> list[dict[str, Any]]:
        """One write as ``TransactWriteItems`` elements (``{"Put": …}`` / ``{"Update": …}``):
        one, or for a record put with its packed fields apart one put per item (each on the
        write's condition)."""
        if isinstance(write, Update):
            return [{"Update": self._update(write)}]
        puts: list[dict[str, Any]] = []
        for item in to_items(write.record):
            put: dict[str, Any] = {"TableName": self.state, "Item": item}
            if write.if_absent and write.expired_by is not None:
                put["ConditionExpression"] = f"{_NEW} OR expires_at <= :now"
                put["ExpressionAttributeValues"] = {":now": {"N": str(write.expired_by)}}
            elif write.if_absent:
                put["ConditionExpression"] = _NEW
            puts.append({"Put": put})
        return puts

    def _request(self, write: Write) -> dict[str, Any]:
        """A write of one item as its ``TransactWriteItems`` element."""
        (request,) = self._requests(write)
        return request

    def _decoded(self, kind: type, item: Item) -> Any:
        """The record of an item a lost condition returned (``ALL_OLD``); a kind with its
        packed fields apart reads that item too (one ``GetItem``: a lost race only)."""
        s = shape(kind)
        key = s.apart_key(tuple(s.field(f).decode(item) for f in KEY_FIELDS[kind]))
        return from_item(kind, item, None if key is None else self._get("packed", *key))

    def _update(self, write: Update) -> dict[str, Any]:
        s = shape(write.kind)
        names: dict[str, str] = {}
        values: dict[str, Any] = {}

        _refuse_packed(s, write)

        def name(field: str) -> str:
            ref = f"#a{len(names)}"
            names[ref] = s.field(field).attribute
            return ref

        def value(field: str, v: Any) -> str:
            ref = f":v{len(values)}"
            values[ref] = s.field(field).encode(v)
            return ref

        sets = [f"{name(f)} = {value(f, v)}" for f, v in write.set.items()]
        if write.upsert:  # an item made by this update says its kind and its key fields
            names["#kind"], values[":kind"] = "kind", {"S": s.kind}
            sets.append("#kind = :kind")
            key = zip(KEY_FIELDS[write.kind], write.ident, strict=True)
            sets += [f"{name(f)} = {value(f, v)}" for f, v in key]
        adds = [f"{name(f)} {value(f, v)}" for f, v in write.add.items()]
        removed = [name(f) for f in write.remove]
        for f in write.set:  # derived attributes the change ends (the round leaves an index)
            for attribute in s.removed_by.get(f, ()):
                ref = f"#a{len(names)}"
                names[ref] = attribute
                removed.append(ref)
        for f in (*write.set, *write.remove):  # index keys that move with their field
            if f not in s.index_keys:
                continue
            for attribute, encoded in s.index_keys[f](write.ident, write.set.get(f, "")).items():
                ref = f"#a{len(names)}"
                names[ref] = attribute
                if f in write.set:
                    val = f":v{len(values)}"
                    values[val] = encoded
                    sets.append(f"{ref} = {val}")
                else:
                    removed.append(ref)
        conditions = [] if write.upsert else ["attribute_exists(pk)"]
        for f, v in write.expect.items():
            if v is ABSENT:
                conditions.append(f"attribute_not_exists({name(f)})")
            else:
                conditions.append(f"{name(f)} = {value(f, v)}")
        clauses = [("SET", sets), ("ADD", adds), ("REMOVE", removed)]
        update: dict[str, Any] = {
            "TableName": self.state,
            "Key": s.item_key(write.ident),
            "UpdateExpression": " ".join(f"{k} {', '.join(v)}" for k, v in clauses if v),
            "ExpressionAttributeNames": names,
        }
        if conditions:
            update["ConditionExpression"] = " AND ".join(conditions)
        if values:
            update["ExpressionAttributeValues"] = values
        if write.return_existing:
            update["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        return update

    def transact(self, what: str, writes: Sequence[Write], token: str | None = None) -> None:
        """One write → one ``PutItem``/``UpdateItem`` (which take no token); more → one
        ``TransactWriteItems`` with ``ClientRequestToken=token`` (botocore's own retries of it
        then send the same token, so DynamoDB applies it once)."""
        requests, owners = [], []  # each request, and the write it is (part of)
        for write in writes:
            for request in self._requests(write):
                requests.append(request)
                owners.append(write)
        if len(requests) == 1:
            ((verb, args),) = requests[0].items()
            try:
                with mapped_errors(what):
                    if verb == "Put":
                        self.client.put_item(**args)
                    else:
                        self.client.update_item(**args)
            except ConditionFailed as exc:
                (write,) = writes
                item = getattr(exc.__cause__, "response", {}).get("Item")
                if not (isinstance(write, Update) and write.return_existing and item):
                    raise
                winner: Any = self._decoded(write.kind, item)
                raise ConditionFailed(str(exc), existing=winner) from exc.__cause__
            return
        extra: dict[str, Any] = {} if token is None else {"ClientRequestToken": token}
        try:
            with mapped_errors(what):
                self.client.transact_write_items(TransactItems=requests, **extra)  # type: ignore[arg-type]
        except ConditionFailed as exc:
            reasons = cancellation_reasons(exc.__cause__)
            lost = [r.get("Code") == "ConditionalCheckFailed" for r in reasons]
            existing: Any = None
            for write, reason in zip(owners, reasons, strict=False):
                item = reason.get("Item")
                if isinstance(write, Update) and write.return_existing and item is not None:
                    existing = self._decoded(write.kind, item)
                    break
            duplicate = len(lost) == len(requests) and any(
                failed and isinstance(w, Put) and isinstance(w.record, IdempotencyRecord)
                for w, failed in zip(owners, lost, strict=True)
            )
            raise ConditionFailed(
                f"{what}: condition failed", existing=existing, duplicate=duplicate
            ) from exc.__cause__

    # configuration ---------------------------------------------------------------------------
    def operator_for_key(self, key_hash: str) -> str | None:
        with mapped_errors("api key"):
            out = self.client.get_item(
                TableName=self.config, Key=_key(keys.key_pk(key_hash), "KEY"), ConsistentRead=True
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
            out = self.client.get_item(TableName=self.config, Key=_key(*keys.tier_key(tier_id)))
        item = out.get("Item")
        return None if item is None else tier_doc(item)

    # single reads ----------------------------------------------------------------------------
    def _get(self, what: str, pk: str, sk: str) -> Item | None:
        with mapped_errors(what):
            out = self.client.get_item(TableName=self.state, Key=_key(pk, sk), ConsistentRead=True)
        item: Item | None = out.get("Item")
        return item

    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None:
        item = self._get("get table", *keys.table_key(operator_id, table_id))
        return None if item is None else from_item(TableRecord, item)

    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None:
        return self.load(operator_id, shoe=ref).shoe

    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None:
        key = keys.round_key(operator_id, ref.table_id, ref.shoe_number, ref.round_number)
        item = self._get("get round", *key)
        return None if item is None else from_item(RoundRecord, item)

    # idempotency, batched reads, the sweep's index, the audit --------------------------------
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
        if shoe is not None:  # the shoe's item and its constants' (codec.Shape.apart)
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

    def _fetch(self, wanted: dict[tuple[str, str], tuple[str, str]]) -> list[tuple[str, Item]]:
        """(slot, item) of each wanted key that exists: ONE ``GetItem`` or ``BatchGetItem``."""
        found: list[tuple[str, Item]] = []
        if len(wanted) == 1:
            ((pk, sk), (slot, name)) = next(iter(wanted.items()))
            with mapped_errors(f"get {slot}"):
                out = self.client.get_item(
                    TableName=name, Key=_key(pk, sk), ConsistentRead=name == self.state
                )
            if "Item" in out:
                found.append((slot, out["Item"]))
            return found
        request: dict[str, Any] = {}
        for (pk, sk), (_, name) in wanted.items():
            entry = request.setdefault(name, {"Keys": [], "ConsistentRead": name == self.state})
            entry["Keys"].append(_key(pk, sk))
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

    def _due(self, prefix: str, now: str, limit: int) -> list[Item]:
        """Items of the sparse DueRounds index in the shards ``<prefix>0`` … ``<prefix>7`` due
        by ``now`` (ISO 8601 UTC), oldest first per shard, at most ``limit``: one ``Query`` per
        shard (more only past a page). Eventually consistent: an item done a moment ago may
        still be listed; doing it again fails its condition, harmlessly."""
        out: list[Item] = []
        for shard in range(keys.DUE_SHARDS):
            args: dict[str, Any] = {
                "TableName": self.state,
                "IndexName": keys.DUE_INDEX,
                "KeyConditionExpression": "due_shard = :shard AND due_at <= :now",
                "ExpressionAttributeValues": {
                    ":shard": {"S": f"{prefix}{shard}"},
                    ":now": {"S": now},
                },
                "Limit": max(1, limit - len(out)),
            }
            with mapped_errors("due items"):
                while len(out) < limit:
                    page = self.client.query(**args)
                    out += page.get("Items", [])
                    if "LastEvaluatedKey" not in page:
                        break
                    args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
            if len(out) >= limit:
                break
        return out[:limit]

    def day_rounds(
        self,
        operator_id: str,
        day: str,
        *,
        table_id: str | None = None,
        after: DayPosition | None = None,
        limit: int,
        queries: int,
    ) -> tuple[list[RoundRecord], DayPosition | None]:
        """Shard by shard of the ``RoundsByDay`` index (only the table's shard with
        ``table_id``), each in ``day_key`` order (a table's rounds in play order): one ``Query``
        per shard and page, at most ``queries``. Eventually consistent (a GSI): a round dealt a
        moment ago may show up a moment later."""
        if after is not None and not keys.day_position_valid(after, table_id):
            raise BadPosition(f"not a position of this listing: {after!r}")
        shards = [keys.day_shard_of(table_id)] if table_id else list(range(keys.DAY_SHARDS))
        if after is not None:
            shards = [s for s in shards if s >= after[0]]
        out: list[RoundRecord] = []
        for shard in shards:
            last = after[1] if after is not None and after[0] == shard else ""
            while True:
                if len(out) >= limit or queries <= 0:
                    return out, (shard, last)
                args: dict[str, Any] = {
                    "TableName": self.state,
                    "IndexName": keys.DAY_INDEX,
                    "KeyConditionExpression": "day_shard = :p",
                    "ExpressionAttributeValues": {
                        ":p": {"S": keys.day_shard(operator_id, day, shard)}
                    },
                    "Limit": limit - len(out),
                }
                if table_id:
                    args["KeyConditionExpression"] += " AND begins_with(day_key, :t)"
                    args["ExpressionAttributeValues"][":t"] = {"S": f"{table_id}#"}
                if last:
                    t, shoe, rnd = keys.parse_day_key(last)
                    pk, sk = keys.round_key(operator_id, t, shoe, rnd)
                    args["ExclusiveStartKey"] = {
                        "pk": {"S": pk},
                        "sk": {"S": sk},
                        "day_shard": {"S": keys.day_shard(operator_id, day, shard)},
                        "day_key": {"S": last},
                    }
                queries -= 1
                with mapped_errors("rounds of a day"):
                    page = self.client.query(**args)
                for item in page.get("Items", []):
                    out.append(from_item(RoundRecord, item))
                    last = str(item["day_key"]["S"])
                if "LastEvaluatedKey" not in page:
                    break
        return out, None

    def due_rounds(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        """Rounds with locked bets whose settle-by time is at or before ``now``."""
        return [
            (
                str(item["operator_id"]["S"]),
                RoundRef(
                    str(item["table_id"]["S"]),
                    int(item["shoe_number"]["N"]),
                    int(item["round_number"]["N"]),
                ),
            )
            for item in self._due("DUE#", now, limit)
        ]

    def due_books(self, now: str, limit: int) -> list[tuple[str, str]]:
        """(operator id, table id) of betting windows to be dealt by ``now`` (``BOOK#k``)."""
        return [
            (str(item["operator_id"]["S"]), str(item["table_id"]["S"]))
            for item in self._due("BOOK#", now, limit)
        ]

    def idle_shoes(self, now: str, limit: int) -> list[tuple[str, ShoeRef]]:
        """(operator id, shoe) of open shoes to be closed by ``now`` (shards ``IDLE#k``)."""
        return [
            (
                str(item["operator_id"]["S"]),
                ShoeRef(str(item["table_id"]["S"]), int(item["shoe_number"]["N"])),
            )
            for item in self._due("IDLE#", now, limit)
        ]

    def due_proofs(self, now: str, limit: int) -> list[str]:
        """Proofs not final yet of shoes ended by ``now`` (shards ``FINAL#k``)."""
        return [
            ShoeRef(str(item["table_id"]["S"]), int(item["shoe_number"]["N"])).shoe_id
            for item in self._due("FINAL#", now, limit)
        ]

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

    # the operator feed ------------------------------------------------------------------------
    def feed_state(
        self, operator_id: str, shard: int, table_ids: Sequence[str]
    ) -> tuple[FeedHead, dict[str, FeedMark], dict[str, int]]:
        """ONE strongly consistent ``BatchGetItem`` of the shard's ``HEAD``, the tables'
        ``MARK#`` items and their ``LIVE`` items."""
        wanted = {keys.feed_head_key(operator_id, shard): ("head", self.state)}
        for t in table_ids:
            wanted[keys.feed_mark_key(operator_id, t)] = ("mark", self.state)
            wanted[keys.live_key(operator_id, t)] = ("live", self.state)
        head, marks = FeedHead(operator_id, shard), {t: FeedMark(operator_id, t) for t in table_ids}
        lives = dict.fromkeys(table_ids, 0)
        for slot, item in self._fetch(wanted):
            if slot == "head":
                head = from_item(FeedHead, item)
            elif slot == "mark":
                mark = from_item(FeedMark, item)
                marks[mark.table_id] = mark
            else:
                live = from_item(LiveRecord, item)
                lives[live.table_id] = live.seq
        return head, marks, lives

    def feed_heads(self, operator_id: str) -> list[int]:
        """ONE strongly consistent ``BatchGetItem`` of every shard's ``HEAD``."""
        wanted = {
            keys.feed_head_key(operator_id, k): ("head", self.state) for k in range(FEED_SHARDS)
        }
        heads = [0] * FEED_SHARDS
        for _, item in self._fetch(wanted):
            head = from_item(FeedHead, item)
            heads[head.shard] = head.pos
        return heads

    def feed_entries(self, operator_id: str, shard: int, after: int, limit: int) -> list[FeedEntry]:
        """ONE strongly consistent ``Query`` of ``POS#<after + 1>`` … (``Limit``: ``limit``)."""
        pk, first = keys.feed_entry_key(operator_id, shard, after + 1)
        page = self._between("feed entries", pk, first, keys.feed_pos_sk(10**12 - 1), limit)
        return [from_item(FeedEntry, item) for item in page.get("Items", [])]

    def events_at(self, operator_id: str, ids: Sequence[tuple[str, int]]) -> list[EventRecord]:
        if not ids:
            return []
        wanted = {keys.event_key(operator_id, t, n): ("event", self.state) for t, n in ids}
        return [from_item(EventRecord, item) for _, item in self._fetch(wanted)]

    def rounds_at(self, operator_id: str, refs: Sequence[RoundRef]) -> list[RoundRecord]:
        if not refs:
            return []
        wanted = {
            keys.round_key(operator_id, r.table_id, r.shoe_number, r.round_number): (
                "round",
                self.state,
            )
            for r in refs
        }
        return [from_item(RoundRecord, item) for _, item in self._fetch(wanted)]

    # webhooks ---------------------------------------------------------------------------------
    def get_webhook(self, operator_id: str, *, removed: bool = False) -> WebhookRecord | None:
        item = self._get("webhook", *keys.webhook_key(operator_id))
        hook = None if item is None else from_item(WebhookRecord, item)
        return None if hook is None or (hook.removed_at is not None and not removed) else hook

    def delivery_state(self, operator_id: str, shard: int) -> DeliveryState:
        item = self._get("delivery", *keys.delivery_key(operator_id, shard))
        return DeliveryState(operator_id, shard) if item is None else from_item(DeliveryState, item)

    def webhook_failures(self, operator_id: str, limit: int) -> list[WebhookFailure]:
        """The first ``limit`` failures still parked, by event id. A Query's ``Limit`` counts
        the items read BEFORE its filter (replayed failures stay, with ``delivered_at``), so
        pages are read on (each up to 1 MB: thousands of failures) until ``limit`` are found."""
        args: dict[str, Any] = {
            "TableName": self.state,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :fail)",
            "FilterExpression": "attribute_not_exists(delivered_at)",
            "ExpressionAttributeValues": {
                ":pk": {"S": keys.webhook_pk(operator_id)},
                ":fail": {"S": keys.FAILURE_PREFIX},
            },
            "ConsistentRead": True,
        }
        found: list[WebhookFailure] = []
        with mapped_errors("webhook failures"):
            while len(found) < limit:
                page = self.client.query(**args)
                found += [from_item(WebhookFailure, item) for item in page.get("Items", [])]
                if "LastEvaluatedKey" not in page:
                    break
                args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return found[:limit]

    def get_webhook_failure(self, operator_id: str, event_id: str) -> WebhookFailure | None:
        item = self._get("webhook failure", *keys.failure_key(operator_id, event_id))
        return None if item is None else from_item(WebhookFailure, item)

    def chain_head_of(self, operator_id: str, ref: ShoeRef) -> str | None:
        """One ``GetItem`` of the shoe projected to ``chain_head`` (a few dozen bytes)."""
        key = keys.shoe_key(operator_id, ref.table_id, ref.shoe_number)
        with mapped_errors("chain head"):
            out = self.client.get_item(
                TableName=self.state,
                Key=_key(*key),
                ConsistentRead=True,
                ProjectionExpression="chain_head",
            )
        item = out.get("Item")
        if item is None:
            return None
        return str(item.get("chain_head", {}).get("S", ""))

    # final proofs -----------------------------------------------------------------------------
    def proof_page(self, shoe_id: str, number: int) -> tuple[ProofRecord | None, bytes | None]:
        """ONE ``BatchGetItem``: the proof item and the first parts of page ``number``
        (:mod:`.pages`); a page of more parts than that (none at the documented limits) takes
        one more."""
        wanted = {keys.proof_key(shoe_id): ("proof", self.state)}
        prefetch = range(parts_of.PREFETCH_PARTS)
        wanted |= {k: ("part", self.state) for k in parts_of.part_keys(shoe_id, number, prefetch)}
        found = self._fetch(wanted)
        proof_items = [item for slot, item in found if slot == "proof"]
        parts = [item for slot, item in found if slot == "part"]
        proof = from_item(ProofRecord, proof_items[0]) if proof_items else None
        if parts and parts_of.parts_expected(parts[0]) > parts_of.PREFETCH_PARTS:
            rest = range(parts_of.PREFETCH_PARTS, parts_of.parts_expected(parts[0]))
            more = {k: ("part", self.state) for k in parts_of.part_keys(shoe_id, number, rest)}
            parts += [item for _, item in self._fetch(more)]
        return proof, parts_of.joined(parts)

    def put_proof_pages(self, shoe_id: str, pages: Sequence[bytes]) -> None:
        """One plain ``PutItem`` per part item (never ``BatchWriteItem``, which can delete: no
        code path and no policy here deletes anything)."""
        with mapped_errors("store proof pages"):
            for number, page in enumerate(pages, start=1):
                for item in parts_of.part_items(shoe_id, number, page):
                    self.client.put_item(TableName=self.state, Item=item)

    def open_rounds(self, shoe_id: str) -> list[tuple[int, str | None]]:
        """One ``Query`` of the sparse OpenRounds index (projected: round number, settle-by)."""
        items = self._query(
            "open rounds",
            IndexName=keys.OPEN_INDEX,
            KeyConditionExpression="open_in = :shoe",
            ExpressionAttributeValues={":shoe": {"S": shoe_id}},
        )
        out = [
            (int(i["round_number"]["N"]), i["settle_by"]["S"] if "settle_by" in i else None)
            for i in items
        ]
        return sorted(out)

    def record_signing_key(self, jwk: dict[str, str], signed_at: str) -> None:
        """ONE ``UpdateItem`` of the key's item (``PROOF#signing-keys`` / ``KEY#{kid}``): the JWK
        and ``first_signed_at`` if not there yet, ``last_signed_at`` moved forward only. When a
        concurrent finaliser already recorded a later time (the condition fails), one more
        ``UpdateItem`` moves ``first_signed_at`` back to this time if it is earlier: the record
        covers every time a signature was made at, whatever order the writes land in."""
        import json

        key = _key(*keys.signing_key_key(jwk["kid"]))
        try:
            with mapped_errors("record signing key"):
                self.client.update_item(
                    TableName=self.state,
                    Key=key,
                    UpdateExpression="SET jwk = if_not_exists(jwk, :jwk), "
                    "first_signed_at = if_not_exists(first_signed_at, :at), last_signed_at = :at",
                    ConditionExpression="attribute_not_exists(last_signed_at) OR "
                    "last_signed_at < :at",
                    ExpressionAttributeValues={
                        ":jwk": {"S": json.dumps(jwk, sort_keys=True)},
                        ":at": {"S": signed_at},
                    },
                )
        except ConditionFailed:  # a signature at a later time is already recorded
            try:
                with mapped_errors("record signing key (first)"):
                    self.client.update_item(
                        TableName=self.state,
                        Key=key,
                        UpdateExpression="SET first_signed_at = :at",
                        ConditionExpression="first_signed_at > :at",
                        ExpressionAttributeValues={":at": {"S": signed_at}},
                    )
            except ConditionFailed:
                pass  # an earlier (or this) time is already the first

    def signing_keys(self) -> list[SigningKeyRecord]:
        """ONE strongly consistent ``Query`` of the ``PROOF#signing-keys`` partition."""
        import json

        items = self._partition("signing keys", keys.SIGNING_KEYS_PK)
        out = [
            SigningKeyRecord(
                kid=i["sk"]["S"].removeprefix(keys.SIGNING_KEY_PREFIX),
                jwk=json.loads(i["jwk"]["S"]),
                first_signed_at=i["first_signed_at"]["S"],
                last_signed_at=i["last_signed_at"]["S"],
            )
            for i in items
        ]
        return sorted(out, key=lambda r: r.first_signed_at)

    def fairness(self, table_id: str, *, before: int | None, limit: int) -> FairnessPage:
        """From the newest: ONE ``Query`` of the table's ``FAIR#`` partition newest first (its
        ``TOTALS`` item sorts after every ``SHOE#``, so it comes first). From a cursor: a
        ``Query`` of the lines below it and a ``GetItem`` of the totals."""
        pk = keys.fairness_pk(table_id)
        args: dict[str, Any] = {"ScanIndexForward": False, "Limit": limit + 2}
        if before is None:
            condition, values = "pk = :pk", {":pk": {"S": pk}}
        else:
            condition = "pk = :pk AND sk < :before"
            values = {":pk": {"S": pk}, ":before": {"S": keys.shoe_sk(before)}}
        with mapped_errors("fairness"):
            out = self.client.query(
                TableName=self.state,
                KeyConditionExpression=condition,
                ExpressionAttributeValues=values,
                **args,
            )
        items = out.get("Items", [])
        page = FairnessPage()
        totals = [i for i in items if i["sk"]["S"] == keys.TOTALS_SK]
        if before is not None:
            got = self._get("fairness totals", *keys.fairness_totals_key(table_id))
            totals = [got] if got is not None else []
        page.totals = from_item(FairnessTotals, totals[0]) if totals else None
        lines = [from_item(ShoeFairness, i) for i in items if i["sk"]["S"] != keys.TOTALS_SK]
        page.shoes, page.more = lines[:limit], len(lines) > limit
        return page

    # seeding (local runner, custom resource, tests) ------------------------------------------
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
                        Key=_key(keys.TIER_PK, item["sk"]["S"]),
                        UpdateExpression="SET retired = :yes",
                        ExpressionAttributeValues={":yes": {"BOOL": True}},
                    )
