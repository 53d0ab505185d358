"""The repository port: what the service needs from storage, and the failures it can see.

The DynamoDB adapter (:mod:`baccarat_api.dynamodb`) implements it; each method is one round
trip, and each state change is one conditional write or one transaction."""

from __future__ import annotations

from typing import Any, Protocol

from .ids import RoundRef, ShoeRef
from .records import ProofRecord, RoundRecord, ShoeRecord, TableRecord


class StoreError(Exception):
    """Base of the storage failures the service maps to HTTP."""


class ConditionFailed(StoreError):
    """A conditional write lost: the item changed (or exists) since it was read.

    ``existing`` carries the item's current record when the store returned it with the
    failure (settlement), else ``None``."""

    def __init__(self, message: str, existing: Any = None) -> None:
        super().__init__(message)
        self.existing = existing


class StoreUnavailable(StoreError):
    """Throttling, a transaction conflict, a timeout: the same request may succeed later."""


class Repository(Protocol):
    # --- configuration ---------------------------------------------------------------------
    def operator_for_key(self, key_hash: str) -> str | None:
        """The operator id of an API key (by its SHA-256), or ``None`` (unknown or revoked)."""

    def list_tiers(self) -> list[dict[str, Any]]:
        """Every tier (``Tier.to_dict()`` form), in the data file's order."""

    def get_tier(self, tier_id: str) -> dict[str, Any] | None: ...

    # --- game state ------------------------------------------------------------------------
    def create_table(self, table: TableRecord) -> None:
        """Put a new table; :class:`ConditionFailed` if the id exists."""

    def get_table(self, operator_id: str, table_id: str) -> TableRecord | None: ...

    def commit_shoe(self, table: TableRecord, shoe: ShoeRecord) -> None:
        """One transaction: put the shoe (new) and, on the table as it was read (same next shoe
        number, no open shoe), set the open shoe and advance the next shoe number."""

    def get_shoe(self, operator_id: str, ref: ShoeRef) -> ShoeRecord | None: ...

    def record_round(
        self,
        before: ShoeRecord,
        after: ShoeRecord,
        round_: RoundRecord,
        proof: ProofRecord | None,
    ) -> None:
        """One transaction: put the round (new) and move the shoe from ``before`` to ``after``
        (conditional on ``before.version`` and the shoe being open). When the round ends the
        shoe, the same transaction frees the table and publishes ``proof``."""

    def close_shoe(self, before: ShoeRecord, after: ShoeRecord, proof: ProofRecord) -> None:
        """One transaction: end the shoe (conditional on ``before.version``), free the table,
        publish the proof."""

    def get_round(self, operator_id: str, ref: RoundRef) -> RoundRecord | None: ...

    def save_settlement(
        self, round_: RoundRecord, settlement: dict[str, Any], digest: str, settled_at: str
    ) -> None:
        """Store the round's settlement if it has none. :class:`ConditionFailed` otherwise,
        with ``existing`` = the stored :class:`RoundRecord`."""

    def get_proof(self, shoe_id: str) -> ProofRecord | None: ...
