"""The repository port: what the service needs from storage, and the failures it can see.

The DynamoDB adapter (:mod:`baccarat_api.adapters.dynamodb.repository`) and the in-memory one
(:mod:`baccarat_api.adapters.memory`) implement its reads, one round trip each; its writes, each
one conditional write or one transaction, are written once (:mod:`.writes`)."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any

from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.records import (
    IdempotencyRecord,
    ProofRecord,
    RoundRecord,
    ShoeRecord,
    TableRecord,
)
from baccarat_api.ports.writes import StateWrites


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


@dataclass(slots=True)
class ShoeHistory:
    """One shoe's items in play order (:meth:`Repository.shoe_history`): the shoe (``None`` when
    its item is missing), its rounds (by round number), and the sort keys of unreadable items."""

    shoe: ShoeRecord | None = None
    rounds: list[RoundRecord] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


#: Where a listing of a day's rounds stopped: (shard, the last round's index key); adapter-made.
DayPosition = tuple[int, str]


class Repository(StateWrites):
    """The repository port: what the service reads (abstract here, one round trip each, in
    each adapter) and the game-state writes, each one transaction, written once for every
    adapter in :class:`~baccarat_api.ports.writes.StateWrites` over the adapter's
    :meth:`~baccarat_api.ports.writes.StateWrites.transact`: ``create_table``, ``commit_shoe``,
    ``record_round``, ``close_shoe``, ``save_settlement``, ``void_round``. Every write that takes
    ``idem`` puts that idempotency record in the SAME transaction (new, or replacing an expired
    one); if a live one exists, :class:`ConditionFailed` with ``duplicate``."""

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

    # --- game state ------------------------------------------------------------------------
    @abstractmethod
    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None: ...

    @abstractmethod
    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None: ...

    @abstractmethod
    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None: ...

    @abstractmethod
    def get_proof(self, shoe_id: str) -> ProofRecord | None:
        """The ended shoe's proof item (no operator key needed), or ``None`` while the shoe has
        not ended."""

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
    ) -> Snapshot:
        """The named items (the operator's, and its idempotency record of ``idem_key``) in one
        round trip."""

    @abstractmethod
    def due_rounds(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        """(operator id, round) of rounds with locked bets due by ``now``, at most ``limit``."""

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
        hands them back."""

    @abstractmethod
    def shoe_history(self, operator_id: str, ref: ShoeRef) -> ShoeHistory:
        """One shoe's item and its rounds, in play order: ONE bounded read of that shoe alone,
        however many shoes the table has (the audit)."""

    @abstractmethod
    def chain_head_of(self, operator_id: str, ref: ShoeRef) -> str | None:
        """The shoe's stored bacc-audit-v1 ``chain_head`` alone (the audit's link between
        consecutive shoes), or ``None`` when there is no such shoe."""
