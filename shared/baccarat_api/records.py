"""What the service stores: one record type per item kind, independent of DynamoDB.

Every record belongs to one operator (``operator_id``), except the public proof of an ended shoe.
Secrets appear only as KMS ciphertext (``chain_secret_ct``, ``secret_ct``); ``server_seed`` is
set only once the shoe has ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .ids import RoundRef, ShoeRef

OPEN = "open"
ENDED = "ended"


@dataclass(frozen=True, slots=True)
class TableRecord:
    operator_id: str
    table_id: str
    #: ``TableConfig.to_dict()``: profile, the tier as it was when the table opened, banking,
    #: pay-table choices, rounding rule.
    config: dict[str, Any]
    #: The shoe rules (``ShoeRules.as_dict()``) every shoe of the table commits to.
    rules: dict[str, int]
    anchor: str
    chain_length: int
    chain_secret_ct: bytes
    next_shoe_number: int
    open_shoe_id: str | None
    created_at: str

    @property
    def profile(self) -> str:
        return str(self.config["profile"])

    @property
    def tier_id(self) -> str:
        return str(self.config["tier"]["id"])

    @property
    def banking(self) -> str:
        return str(self.config["banking"])


@dataclass(frozen=True, slots=True)
class ShoeRecord:
    operator_id: str
    table_id: str
    shoe_number: int
    client_seed: str
    client_hash: str
    rules: dict[str, int]
    anchor: str
    #: A copy of the table's configuration, so dealing needs no table read.
    config: dict[str, Any]
    #: ``s_i`` encrypted under the KMS key (encryption context: operator, shoe).
    secret_ct: bytes
    status: str
    rounds_dealt: int
    #: Shoe position where the next round starts.
    cursor: int
    #: Optimistic-lock counter: every deal and the close condition on it.
    version: int
    #: Per dealt round, what the roads need: result, totals, pairs.
    results: list[dict[str, Any]] = field(default_factory=list)
    #: Bettors of the last rounds (newest last), for the idle-bettor rule.
    recent_bettors: list[list[str]] = field(default_factory=list)
    created_at: str = ""
    end_reason: str | None = None
    ended_at: str | None = None
    #: ``s_i`` in hex, present only once the shoe has ended.
    server_seed: str | None = None

    @property
    def ref(self) -> ShoeRef:
        return ShoeRef(self.table_id, self.shoe_number)

    @property
    def shoe_id(self) -> str:
        return self.ref.shoe_id


@dataclass(frozen=True, slots=True)
class RoundRecord:
    operator_id: str
    table_id: str
    shoe_number: int
    round_number: int
    #: ``Round.facts()`` (cards as codes, positions, totals, every outcome fact).
    facts: dict[str, Any]
    #: A copy of the table's configuration, so settling needs no other read.
    config: dict[str, Any]
    #: Bets locked at deal time (API form, accepted order), or ``None``.
    bets: list[dict[str, Any]] | None
    #: The player-banker locked at deal time (API form), or ``None``.
    player_banker: dict[str, Any] | None
    squeeze: dict[str, Any] | None
    shoe_status: str
    #: Bettors of the rounds before this one in the shoe (oldest first), for eligibility.
    previous_bettors: list[list[str]] = field(default_factory=list)
    created_at: str = ""
    settlement: dict[str, Any] | None = None
    #: SHA-256 of the canonical settlement inputs (bets + player-banker).
    settlement_digest: str | None = None
    settled_at: str | None = None

    @property
    def ref(self) -> RoundRef:
        return RoundRef(self.table_id, self.shoe_number, self.round_number)

    @property
    def round_id(self) -> str:
        return self.ref.round_id


@dataclass(frozen=True, slots=True)
class ProofRecord:
    """The public record of an ended shoe: everything a third party needs, nothing secret
    that is still in use. Keyed by shoe id alone (the proof route needs no operator key)."""

    shoe_id: str
    table_id: str
    shoe_number: int
    anchor: str
    client_seed: str
    client_hash: str
    rules: dict[str, int]
    server_seed: str
    rounds_dealt: int
    end_reason: str
    ended_at: str
