"""The repository port: what the service needs from storage, and the failures it can see.

The DynamoDB adapter (:mod:`baccarat_api.adapters.dynamodb.repository`) and the in-memory one
(:mod:`baccarat_api.adapters.memory`) implement its reads, one round trip each; its writes, each
one conditional write or one transaction, are written once (:mod:`.writes`)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from baccarat_api.clock import Clock
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.book import BookStore
from baccarat_api.ports.chat import ChatReads
from baccarat_api.ports.chunks import ChunkQueue, ChunkStore
from baccarat_api.ports.documents import RoundBeacon
from baccarat_api.ports.lobby import LobbyPage, LobbyPosition
from baccarat_api.ports.records import (
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
    TableNumber,
    TableRecord,
    WebhookFailure,
    WebhookRecord,
)
from baccarat_api.ports.scheduler import Scheduler
from baccarat_api.ports.tokens import TokenStore
from baccarat_api.ports.writes import ABSENT, StateWrites, Update


class StoreError(Exception):
    """Base of the storage failures the service maps to HTTP."""


class ConditionFailed(StoreError):
    """A conditional write lost: the item changed (or exists) since it was read.

    ``existing`` carries the item's current record when the store returned it with the
    failure (settlement), else ``None``. ``duplicate`` is true when the write carried an
    idempotency record and that record's condition failed: a request with the same
    ``Idempotency-Key`` completed first (:mod:`baccarat_api.service.idempotency`)."""

    def __init__(self, message: str, existing: Any = None, *, duplicate: bool = False) -> None:
        super().__init__(message)
        self.existing = existing
        self.duplicate = duplicate


class BadPosition(ValueError):
    """A listing position the adapter never gave (a forged or tampered cursor): the caller's
    input is wrong, not the store."""


class StoreUnavailable(StoreError):
    """Throttling, a transaction conflict, a timeout: the same request may succeed later."""


class OutcomeUnknown(StoreUnavailable):
    """A write whose outcome cannot be known: it timed out (or its connection broke) after it
    was sent, or its token came back with other writes (DynamoDB's
    ``IdempotentParameterMismatchException``). It may have been applied: re-read before
    answering."""


@dataclass(slots=True)
class Snapshot:
    """What one batched read (:meth:`Repository.load`) found; ``None`` = no such item."""

    table: TableRecord | None = None
    shoe: ShoeRecord | None = None
    round: RoundRecord | None = None
    tier: dict[str, Any] | None = None
    idempotency: IdempotencyRecord | None = None
    live: LiveRecord | None = None


@dataclass(slots=True)
class ShoeHistory:
    """One shoe's items in play order (:meth:`Repository.shoe_history`): the shoe (``None`` when
    its item is missing), its rounds (by round number), and the sort keys of unreadable items."""

    shoe: ShoeRecord | None = None
    rounds: list[RoundRecord] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


@dataclass(slots=True)
class FairnessPage:
    """One read of a table's public fairness summary (:meth:`Repository.fairness`): its totals
    (``None``: no such table), up to ``limit`` shoes newest first, and whether older ones
    remain."""

    totals: FairnessTotals | None = None
    shoes: list[ShoeFairness] = field(default_factory=list)
    more: bool = False


#: Where a listing of a day's rounds stopped: (shard, the last round's index key); adapter-made.
DayPosition = tuple[int, str]


class Repository(ChatReads, StateWrites):
    """The repository port: what the service reads (abstract here, one round trip each, in
    each adapter) and the game-state writes, each one transaction, written once for every
    adapter in :class:`~baccarat_api.ports.writes.StateWrites` over the adapter's
    :meth:`~baccarat_api.ports.writes.StateWrites.transact`: ``create_table``, ``commit_shoe``,
    ``record_round``, ``close_shoe``, ``save_settlement``, ``void_round``. Every write that takes
    ``idem`` puts that idempotency record in the SAME transaction (new, or replacing an expired
    one); if a live one exists, :class:`ConditionFailed` with ``duplicate``."""

    #: The time every use case over this repository reads (``repo.clock()``).
    clock: Clock
    #: Where a running table's next step goes once the change that made it due has committed
    #: (:meth:`~baccarat_api.ports.writes.StateWrites.emitting`); ``NoScheduler`` by default.
    scheduler: Scheduler
    #: The book of spectators' slips at ``bet_behind: book`` tables, in the same tables
    #: (:mod:`baccarat_api.ports.book`).
    book: BookStore
    #: A locked book's leaves and its settlement's receipts and pages
    #: (:mod:`baccarat_api.ports.chunks`).
    chunks: ChunkStore
    #: Player tokens' keys and each table's revocations (:mod:`baccarat_api.ports.tokens`).
    token_store: TokenStore
    #: Where a book round's settlement chunks are sent once its settlement committed (SQS in
    #: AWS, a thread under ``make run``); ``None``: run at once by the caller
    #: (:class:`baccarat_api.service.settle_chunks.InlineQueue`).
    chunk_queue: ChunkQueue | None = None

    # --- configuration ---------------------------------------------------------------------
    @abstractmethod
    def operator_for_key(self, key_hash: str) -> str | None:
        """The operator id of an API key (by its SHA-256), or ``None`` (unknown or revoked)."""

    @abstractmethod
    def list_tiers(self) -> list[dict[str, Any]]:
        """Every live tier (``Tier.to_dict()`` form), in the data file's order."""

    @abstractmethod
    def get_tier(self, tier_id: str) -> dict[str, Any] | None:
        """A live tier, or ``None`` (unknown, or retired from the data file)."""

    @abstractmethod
    def put_tiers(self, tiers: list[dict[str, Any]]) -> None:
        """Make the live tiers exactly ``tiers`` (seeding; a tier gone from the file is retired,
        never deleted)."""

    def price_beacon_void(self, round_: RoundRecord, beacon: RoundBeacon) -> None:
        """Store a ``beacon_unavailable`` void's verified beacon, fetched after the void
        (``late_beacon``: not hashed, the round stays voided), if it has none;
        ``ConditionFailed`` otherwise."""
        key = (round_.operator_id, round_.table_id, round_.shoe_number, round_.round_number)
        expect = {"late_beacon": ABSENT}
        self.transact("price beacon void", [Update(RoundRecord, key, {"late_beacon": beacon},
                                                   expect=expect)])  # fmt: skip

    # --- game state ------------------------------------------------------------------------
    @abstractmethod
    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None: ...

    @abstractmethod
    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None: ...

    @abstractmethod
    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None: ...

    @abstractmethod
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
        """The named items (the operator's, its idempotency record of ``idem_key``, the live
        state of table ``live``) in one round trip."""

    @abstractmethod
    def due_rounds(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        """(operator id, round) of rounds with locked bets due by ``now``, at most ``limit``."""

    @abstractmethod
    def due_books(self, now: str, limit: int) -> list[tuple[str, str]]:
        """(operator id, table id) of tables whose betting window is due to be dealt by
        ``now`` (its ``deal_by``), at most ``limit``."""

    @abstractmethod
    def due_ticks(self, now: str, limit: int) -> list[tuple[str, str]]:
        """(operator id, table id) of running tables whose next step (``LiveRecord.tick``) was
        due by ``now``, at most ``limit``: the sweep delivers the ticks a timer lost."""

    @abstractmethod
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
        """The operator's rounds dealt on the UTC ``day`` (``YYYY-MM-DD``; only ``table_id``'s
        with it), in a stable order — each table's in play order —, from just after ``after``:
        at most ``limit`` rounds and ``queries`` reads. Returns them and the position to go on
        from (``None``: the day has no more). Positions are the adapter's; the caller only
        hands them back: one it never gave (a forged cursor) raises :class:`BadPosition`."""

    @abstractmethod
    def shoe_history(self, operator_id: str, ref: ShoeRef) -> ShoeHistory:
        """One shoe's item and its rounds, in play order: ONE bounded read of that shoe alone,
        however many shoes the table has (the audit)."""

    @abstractmethod
    def chain_head_of(self, operator_id: str, ref: ShoeRef) -> str | None:
        """The shoe's stored bacc-audit-v1 ``chain_head`` alone (the audit's link between
        consecutive shoes), or ``None`` when there is no such shoe."""

    @abstractmethod
    def table_events(
        self, operator_id: str, table_id: str, after: int, limit: int
    ) -> tuple[list[EventRecord], LiveRecord | None]:
        """The table's events numbered after ``after`` (at most ``limit``, in order) and, when
        the read reached it, the table's live state: ONE strongly consistent Query of the sort
        keys from the next event's to ``LIVE``."""

    # --- final proofs (service/proofs.py) ---------------------------------------------------
    @abstractmethod
    def proof_page(self, shoe_id: str, number: int) -> tuple[ProofRecord | None, bytes | None]:
        """The proof item and the stored bytes of its page ``number`` (``None``: no such page
        stored): one round trip (at the documented limits)."""

    @abstractmethod
    def put_proof_pages(self, shoe_id: str, pages: Sequence[bytes]) -> None:
        """Store a final proof's pages (canonical JSON without the signature), page ``k`` =
        ``pages[k-1]``. Plain puts: a second finaliser writes the same bytes."""

    @abstractmethod
    def open_rounds(self, shoe_id: str) -> list[tuple[int, str | None]]:
        """(round number, settle-by time) of the shoe's rounds not yet settled or voided, from
        the sparse ``OpenRounds`` index (eventually consistent, cheap: no round item is read)."""

    @abstractmethod
    def idle_shoes(self, now: str, limit: int) -> list[tuple[str, ShoeRef]]:
        """(operator id, shoe) of open shoes whose ``close_by`` is at or before ``now`` (no
        deal since), at most ``limit``: eventually consistent — the closer checks again."""

    @abstractmethod
    def due_proofs(self, now: str, limit: int) -> list[str]:
        """Ids of ended shoes whose proof is not final yet, ended by ``now``, at most
        ``limit``."""

    @abstractmethod
    def record_signing_key(self, jwk: dict[str, str], signed_at: str) -> None:
        """Before a signature at ``signed_at`` with the key ``jwk``: its history record, created
        on its first signature (``first_signed_at``) and its ``last_signed_at`` moved forward
        (never back: of two concurrent finalisers the later time stays)."""

    @abstractmethod
    def signing_keys(self) -> list[SigningKeyRecord]:
        """Every key that ever signed a proof, oldest first signature first."""

    @abstractmethod
    def fairness(self, table_id: str, *, before: int | None, limit: int) -> FairnessPage:
        """The table's fairness totals and up to ``limit`` of its lines, newest first, of shoes
        numbered below ``before`` (``None``: from the newest)."""

    # --- the operator feed (service/feed.py) -------------------------------------------------
    @abstractmethod
    def feed_state(
        self, operator_id: str, shard: int, table_ids: Sequence[str]
    ) -> tuple[FeedHead, dict[str, FeedMark], dict[str, int]]:
        """The feed shard's head, the marks of ``table_ids`` (at most 49; all of that shard),
        missing ones as their defaults (0), and each table's live ``seq`` (its last event; 0:
        none): ONE strongly consistent batched read."""

    @abstractmethod
    def feed_heads(self, operator_id: str) -> list[int]:
        """Every feed shard's last position (0: none yet), by shard: ONE strongly consistent
        batched read."""

    @abstractmethod
    def feed_entries(self, operator_id: str, shard: int, after: int, limit: int) -> list[FeedEntry]:
        """The shard's entries at positions after ``after``, in order, at most ``limit``: ONE
        strongly consistent ``Query``."""

    @abstractmethod
    def events_at(self, operator_id: str, ids: Sequence[tuple[str, int]]) -> list[EventRecord]:
        """The events named by (table id, seq) (at most 100) that exist, in any order: ONE
        strongly consistent batched read."""

    @abstractmethod
    def rounds_at(self, operator_id: str, refs: Sequence[RoundRef]) -> list[RoundRecord]:
        """The rounds of ``refs`` (at most 100) that exist, in any order: ONE strongly
        consistent batched read (more requests only past 16 MB)."""

    # --- webhooks (service/webhooks.py) -------------------------------------------------------
    @abstractmethod
    def get_webhook(self, operator_id: str, *, removed: bool = False) -> WebhookRecord | None:
        """The operator's webhook, or ``None``: one strongly consistent ``GetItem``. A removed
        one (``removed_at`` set) reads as ``None`` unless ``removed`` (a PUT after a DELETE
        conditions its write on it)."""

    @abstractmethod
    def delivery_state(self, operator_id: str, shard: int) -> DeliveryState:
        """How far the webhook delivered the feed shard (defaults: from its start): one
        strongly consistent ``GetItem``."""

    @abstractmethod
    def webhook_failures(self, operator_id: str, limit: int) -> list[WebhookFailure]:
        """The operator's parked deliveries, by event id, at most ``limit``: one ``Query``."""

    @abstractmethod
    def get_webhook_failure(self, operator_id: str, event_id: str) -> WebhookFailure | None: ...

    # --- table numbers and the lobby (service/table_numbers.py, service/lobby.py) -------------
    @abstractmethod
    def table_number(self, operator_id: str, number: int) -> TableNumber | None:
        """The claim of ``number`` (strongly consistent ``GetItem``), or ``None``: free."""

    @abstractmethod
    def next_table_number(self, operator_id: str) -> int:
        """The operator's number counter moved up by one, atomically, and its new value (one
        ``UpdateItem`` ``ADD``: racing callers each get their own number, none retries)."""

    @abstractmethod
    def taken_table_numbers(self, operator_id: str, first: int, limit: int) -> list[int]:
        """The claimed numbers from ``first`` up, ascending, at most ``limit``: one strongly
        consistent ``Query`` of the claims' partition."""

    @abstractmethod
    def lobby_page(self, operator_id: str, after: LobbyPosition | None, limit: int) -> LobbyPage:
        """The operator's numbered tables after ``after`` in number order, at most ``limit``
        (≤ 50), each with its live state, its shown shoe's progress and, at a book table, its
        spectators' and watchers' counts: one ``Query`` of the ``Lobby`` index (eventually
        consistent: a table created a moment ago may be missing) and one ``BatchGetItem``
        (more only past 100 keys: book tables' count shards)."""
