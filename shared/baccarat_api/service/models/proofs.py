"""The public proof (docs/bacc-pf-v1.md "The public proof"): what
GET /v1/shoes/{shoe_id}/proof serves, byte for byte (tests validate every served page against
these models), and the signing keys."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from baccarat.bets import BetType, Role
from baccarat_api.service.models.common import Banking, EndReason, Result, RulesOut, Strict
from baccarat_api.service.models.settlements import HouseOut, VoidOut


class ProofBetOut(Strict):
    bettor_ref: str = Field(description="the bettor's pseudonym at this table (br_…, 27 chars)")
    role: Role
    seat: int | None = None
    type: BetType
    amount: int


class ProofPlayerBankerOut(Strict):
    bettor_ref: str


class ProofLineOut(Strict):
    index: int
    bettor_ref: str
    type: str
    stake: int
    grade: Literal["win", "push", "lose"]
    multiplier: str
    gross_win: int
    commission: int
    net: int
    covered_by: Banking


class ProofParticipantOut(Strict):
    bettor_ref: str
    role: str
    stake: int
    gross: int
    commission: int
    net: int


class ProofSettlementOut(Strict):
    round_id: str
    round_number: int
    profile: str
    tier: str
    banking: str
    rounding: str
    result: Result
    lines: list[ProofLineOut]
    bettors: list[ProofParticipantOut]
    player_banker: ProofParticipantOut | None
    house: HouseOut
    nets: dict[str, int] = Field(description="bettor_ref → net (bettors and the player-banker)")
    settled_at: str
    auto_settled: bool


class ProofRoundOut(Strict):
    round_number: int
    start: int
    player: list[str]
    banker: list[str]
    player_total: int
    banker_total: int
    result: Result
    dealt_at: str
    bets_locked_at: str = Field(description="always equal to dealt_at: bets lock at the deal")
    bets: list[ProofBetOut]
    player_banker: ProofPlayerBankerOut | None
    voided: bool
    settled_at: str | None
    voided_at: str | None
    settlement: ProofSettlementOut | None
    void: VoidOut | None = Field(
        description="the void: reason, note, when, and the settlement it replaced (nets by "
        "bettor_ref)"
    )


class InterventionsOut(Strict):
    voided_rounds: int
    voided_player_net: int = Field(
        description="Σ of the bettors' replaced nets over voided rounds: what the voids took "
        "from the bettors (positive: they lost that much through voids); the player-banker "
        "is not in it"
    )
    voided_player_banker_net: int = Field(
        description="Σ of the player-banker's replaced nets over voided rounds, shown apart "
        "(0 at a house-banked table)"
    )
    closed_early: bool
    rounds_dealt: int
    rounds_possible: int | None = Field(
        description="rounds the shoe's own rules deal (from the seed); null for a bacc-pf-v2 "
        "shoe with a cut card closed early (its undealt rounds have no beacon: unknowable)"
    )
    beacon_voids: int | None = Field(
        default=None,
        description="bacc-pf-v2: rounds voided beacon_unavailable, apart from the operator's "
        "voids (absent for bacc-pf-v1)",
    )
    beacon_voids_priced: int | None = Field(
        default=None, description="bacc-pf-v2: of them, those whose beacon came later (priced)"
    )
    beacon_voided_player_net: int | None = Field(
        default=None, description="bacc-pf-v2: what the priced beacon voids took from the bettors"
    )
    beacon_voided_player_banker_net: int | None = Field(
        default=None, description="bacc-pf-v2: and from the player-banker, apart"
    )


class ProofPageInfoOut(Strict):
    number: int
    count: int
    first_round: int | None
    last_round: int | None
    next: str | None = Field(description="relative URL of the next page, null on the last")


class ManifestOut(Strict):
    spec: Literal["bacc-proof-sig-v1"]
    shoe_id: str
    key_id: str
    signed_at: str
    pages: list[str] = Field(description="SHA-256 (hex) of each page without its signature")


class SignatureOut(Strict):
    alg: Literal["ES256"]
    key_id: str = Field(description="RFC 7638 thumbprint of the signing key")
    manifest: ManifestOut
    value: str = Field(description="base64url (no padding) of r ‖ s over canonical(manifest)")


class ProofPageOut(Strict):
    """One page of a shoe's final, signed proof: the header (the same on every page), ``page``,
    some of the rounds, and the ``signature`` (the same on every page)."""

    spec: Literal["bacc-pf-v1"]
    shoe_id: str
    table_id: str
    anchor: str
    shoe_number: int
    client_seed: str
    client_hash: str
    rules: RulesOut
    server_seed: str
    end_reason: EndReason
    ended_at: str
    cut_index: int | None
    burn: int
    burn_exposed: str | None
    first_round_start: int
    table_config: dict[str, Any] = Field(
        description=(
            "the table's configuration (TableConfig.to_dict: profile, tier with its limits, "
            "banking, banker_pays, dragon_table, rounding): what recomputing a settlement needs"
        ),
    )
    committed_by: Literal["clock"] | None = Field(
        None,
        description="present only when the running table committed the shoe itself, with a "
        "client seed the operator gave it in advance",
    )
    committed_at: str | None = Field(None, description="the automatic commit's time")
    client_seed_given_at: str | None = Field(
        None, description="when that client seed was given: not after committed_at"
    )
    interventions: InterventionsOut
    page: ProofPageInfoOut
    rounds: list[ProofRoundOut]
    signature: SignatureOut


class JwkOut(Strict):
    kty: Literal["EC"]
    crv: Literal["P-256"]
    x: str
    y: str
    kid: str = Field(description="RFC 7638 thumbprint: the key_id proofs name")
    alg: Literal["ES256"]
    use: Literal["sig"]
    status: Literal["current", "retired"] = Field(
        description="current: the key that signs now; retired: a key that signed before"
    )
    not_before: str | None = Field(
        description="when it first signed a proof (null: it has not signed yet); a proof it "
        "signed has signed_at at or after it"
    )
    not_after: str | None = Field(
        description="retired: when it last signed (a proof it signed has signed_at at or "
        "before it); current: null"
    )


class SigningKeysOut(Strict):
    keys: list[JwkOut]
