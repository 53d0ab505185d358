"""The repository port: what the service needs from storage, and the failures it can see.

The DynamoDB adapter (:mod:`baccarat_api.adapters.dynamodb.repository`) implements it; each method
is one round trip, and each state change is one conditional write or one transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.ports.records import (
    IdempotencyRecord,
    ProofRecord,
    RoundRecord,
    ShoeRecord,
    TableRecord,
)


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


@dataclass(slots=True)
class Snapshot:
    """What one batched read (:meth:`Repository.load`) found; ``None`` = no such item."""

    table: TableRecord | None = None
    shoe: ShoeRecord | None = None
    round: RoundRecord | None = None
    tier: dict[str, Any] | None = None
    idempotency: IdempotencyRecord | None = None


@dataclass(slots=True)
class TableHistory:
    """A table's partition in play order (:meth:`Repository.table_history`): the table, its
    shoes and its rounds (sorted by shoe, then round), and the sort keys of unreadable items."""

    table: TableRecord | None = None
    shoes: list[ShoeRecord] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


class Repository(Protocol):
    # --- configuration ---------------------------------------------------------------------
    def operator_for_key(self, key_hash: str) -> str | None:
        """The operator id of an API key (by its SHA-256), or ``None`` (unknown or revoked)."""

    def list_tiers(self) -> list[dict[str, Any]]:
        """Every tier (``Tier.to_dict()`` form), in the data file's order."""

    def get_tier(self, tier_id: str) -> dict[str, Any] | None: ...

    # --- game state ------------------------------------------------------------------------
    def create_table(self, table: TableRecord, idem: IdempotencyRecord | None = None) -> None:
        """Put a new table; :class:`ConditionFailed` if the id exists. Every write that takes
        ``idem`` puts that idempotency record in the SAME transaction (new, or replacing an
        expired one); if a live one exists, :class:`ConditionFailed` with ``duplicate``."""

    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None: ...

    def commit_shoe(
        self, table: TableRecord, shoe: ShoeRecord, idem: IdempotencyRecord | None = None
    ) -> None:
        """One transaction: put the shoe (new) and, on the table as it was read (same next shoe
        number, no open shoe), set the open shoe and advance the next shoe number."""

    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None: ...

    def record_round(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        round_: RoundRecord,
        proof: ProofRecord | None,
        idem: IdempotencyRecord | None = None,
    ) -> None:
        """One transaction: put the round (new) and move the shoe from ``before`` to ``after``
        (conditional on ``before.version`` and the shoe being open). When the round ends the
        shoe, the same transaction frees the table and publishes ``proof``."""

    def close_shoe(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        proof: ProofRecord,
        idem: IdempotencyRecord | None = None,
    ) -> None:
        """One transaction: end the shoe (conditional on ``before.version``), free the table,
        publish the proof."""

    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None: ...

    def save_settlement(
        self,
        round_: RoundRecord,
        settlement: dict[str, Any],
        digest: str,
        settled_at: str,
        inputs: dict[str, Any] | None = None,
        idem: IdempotencyRecord | None = None,
    ) -> None:
        """Store the round's settlement if it has none, and in the same transaction its public
        copy for the shoe's proof (with ``inputs``, the bets and player-banker it was computed
        from; default: the round's locked ones). :class:`ConditionFailed` otherwise, with
        ``existing`` = the stored :class:`RoundRecord`."""

    def get_proof(self, shoe_id: str) -> ProofRecord | None:
        """The ended shoe's proof with every settled or voided round's public record, or
        ``None`` while the shoe has not ended."""

    # --- trust: batched reads, void, auto-settlement, audit ---------------------------------
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

    def void_round(
        self,
        round_: RoundRecord,
        doc: dict[str, Any],
        voided_at: str,
        idem: IdempotencyRecord | None = None,
    ) -> None:
        """Store the round's void record if it has no settlement (nor void), and its public
        copy; :class:`ConditionFailed` otherwise, with ``existing`` = the stored round."""

    def due_rounds(self, now: str, limit: int) -> list[tuple[str, RoundRef]]:
        """(operator id, round) of rounds with locked bets due by ``now``, at most ``limit``."""

    def table_history(self, operator_id: str, table_id: str) -> TableHistory:
        """The table's whole partition, in play order (the audit)."""
