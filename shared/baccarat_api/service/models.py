"""The HTTP contract (v1) as pydantic models: strict requests (unknown fields refused, integers
never coerced from strings or floats) and the responses, which are validated on the way out so
``docs/openapi.json`` cannot lie. JSON is snake_case; money is integer minor units."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
    model_validator,
)

from baccarat.bets import BetType, Role
from baccarat.proofdoc import VOID_REASONS
from baccarat.settlement import RESERVED_IDS
from baccarat.squeeze import SYSTEM
from baccarat_api.limits import (
    BETTOR_ID_PATTERN,
    DEFAULT_BETTING_SECONDS,
    DEFAULT_IDLE_SHOE_CLOSE_SECONDS,
    DEFAULT_SETTLE_DEADLINE_SECONDS,
    DEFAULT_SQUEEZE_SECONDS,
    DEFAULT_VOID_WINDOW_SECONDS,
    MAX_BETTING_SECONDS,
    MAX_ID_LENGTH,
    MAX_IDLE_SHOE_CLOSE_SECONDS,
    MAX_MONEY,
    MAX_SETTLE_DEADLINE_SECONDS,
    MAX_SQUEEZE_SECONDS,
    MAX_VOID_NOTE_LENGTH,
    MAX_VOID_WINDOW_SECONDS,
    MIN_IDLE_SHOE_CLOSE_SECONDS,
)
from baccarat_api.limits import CLIENT_SEED_BYTES as MAX_CLIENT_SEED_BYTES
from baccarat_api.limits import MAX_BETS_PER_ROUND as MAX_BETS
from baccarat_api.service.errors import DomainError

Money = Annotated[StrictInt, Field(ge=-MAX_MONEY, le=MAX_MONEY)]
Id = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]


#: Ids no bettor may have: the settlement's own participants (``house``, ``player_banker``)
#: and the squeeze's ``system`` (who opens the cards nobody opened by their ``reveal_by``).
RESERVED_BETTOR_IDS = RESERVED_IDS | {SYSTEM}

#: The reserved ids in any case (``System``, ``HOUSE``, ``Player_Banker`` pose as them as well),
#: as the contract's JSON Schema says it: ``{"not": {"pattern": …}}``.
RESERVED_SCHEMA = {
    "not": {
        "pattern": "^(?:"
        + "|".join(
            "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)
            for word in sorted(RESERVED_BETTOR_IDS)
        )
        + ")$"
    }
}


def check_bettor_id(value: str) -> str:
    """A bettor's id as every route takes it, in a body or in a path: none of the reserved ids,
    whatever its case."""
    if not re.fullmatch(BETTOR_ID_PATTERN, value):
        raise ValueError(f"a bettor id is 1 to {MAX_ID_LENGTH} characters of A-Z a-z 0-9 . _ : @ -")
    if value.lower() in RESERVED_BETTOR_IDS:
        raise ValueError(f"{value!r} is reserved (the settlement's or the squeeze's own name)")
    return value


#: A bettor's id (bets, the player-banker): ASCII ``[A-Za-z0-9._:@-]{1,64}``, matched whole,
#: and none of :data:`RESERVED_BETTOR_IDS` in any case.
BettorId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ID_LENGTH,
        json_schema_extra={
            "pattern": f"^{BETTOR_ID_PATTERN}$",
            **RESERVED_SCHEMA,
        },
    ),
    AfterValidator(check_bettor_id),
]


def _valid_unicode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode (no lone surrogates)") from None
    return value


#: Every money answer's currency and exponent (docs/api.md, Currency).
CurrencyCode = Annotated[
    str, Field(description="every amount's currency: ISO 4217 code, or XCN (play-money coins)")
]
MinorUnitExponent = Annotated[
    int, Field(description="amounts are integers in minor units: amount / 10**minor_unit_exponent")
]


class _Strict(BaseModel):
    # defer_build: a model's validator is built when first used, not at import, so a function
    # builds only the models of its own routes (cold start).
    model_config = ConfigDict(extra="forbid", defer_build=True)


# --- requests -------------------------------------------------------------------------------


class CreateTableRequest(_Strict):
    profile: Literal["star-city", "bid-squeeze"]
    tier: Id = Field(
        description="a tier id of GET /v1/tiers, of the same profile",
        examples=["star-city-fun", "bid-squeeze-standard"],
    )
    banking: Literal["house", "player_banker"]
    chain_length: StrictInt = Field(
        default=10_000, ge=1, le=100_000, description="shoes in the table's seed chain"
    )
    banker_pays: Literal["1", "0.95"] | None = Field(
        default=None, description="Banker pay variant the profile allows (default: its first)"
    )
    dragon_table: Literal["seed", "common"] | None = Field(
        default=None, description="dragon pay table the profile allows (default: its first)"
    )
    rounding: Literal["floor_house_favour", "half_up"] = Field(
        default="floor_house_favour",
        description=(
            "the table's rounding rule for every amount a participant receives "
            "(docs/api.md, Amounts): floored (the default) or rounded half up"
        ),
    )
    currency: str | None = Field(
        default=None,
        pattern=r"^[A-Z]{3}$",
        description=(
            "the table's currency: an ISO 4217 code (e.g. USD) or XCN (play-money coins); it "
            "must be the tier's (422 currency_mismatch). Default: the tier's"
        ),
        examples=["XCN", "USD"],
    )
    minor_unit_exponent: StrictInt | None = Field(
        default=None,
        ge=0,
        le=4,
        description=(
            "digits of the currency's minor unit (amounts are integers in minor units: USD 2, "
            "JPY 0, KWD 3); it must be the tier's. Default: the tier's"
        ),
    )
    settle_deadline_seconds: StrictInt = Field(
        default=DEFAULT_SETTLE_DEADLINE_SECONDS,
        ge=1,
        le=MAX_SETTLE_DEADLINE_SECONDS,
        description=(
            "a round dealt with locked bets and not settled this many seconds after the deal "
            "is settled by the system (auto_settled: true)"
        ),
    )
    void_window_seconds: StrictInt = Field(
        default=DEFAULT_VOID_WINDOW_SECONDS,
        ge=0,
        le=MAX_VOID_WINDOW_SECONDS,
        description=(
            "an unsettled round may be voided only this many seconds after its deal "
            "(0: voids disabled at this table)"
        ),
    )
    betting_seconds: StrictInt = Field(
        default=DEFAULT_BETTING_SECONDS,
        ge=1,
        le=MAX_BETTING_SECONDS,
        description="a betting window (POST …/betting) closes this many seconds after it opens",
    )
    squeeze_seconds: StrictInt = Field(
        default=DEFAULT_SQUEEZE_SECONDS,
        ge=0,
        le=MAX_SQUEEZE_SECONDS,
        description="a squeeze step not revealed this many seconds after it began is revealed "
        "by the system; 0: no squeeze — every card is dealt face up, the round is shown (and "
        "may be settled) at once",
    )
    idle_shoe_close_seconds: StrictInt = Field(
        default=DEFAULT_IDLE_SHOE_CLOSE_SECONDS,
        ge=MIN_IDLE_SHOE_CLOSE_SECONDS,
        le=MAX_IDLE_SHOE_CLOSE_SECONDS,
        description=(
            "an open shoe with no deal for this many seconds (since its last deal, or its "
            "commit) is closed by the service itself, like POST /v1/shoes/{id}/close, once no "
            "round of it awaits settlement: its proof is published like any other"
        ),
    )


class CommitShoeRequest(_Strict):
    client_seed: str = Field(
        max_length=MAX_CLIENT_SEED_BYTES,
        description=f"at most {MAX_CLIENT_SEED_BYTES} UTF-8 bytes, used exactly as sent",
    )

    @field_validator("client_seed")
    @classmethod
    def _at_most_256_bytes(cls, value: str) -> str:
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise ValueError("the client seed must be valid Unicode (no lone surrogates)") from None
        if size > MAX_CLIENT_SEED_BYTES:
            raise ValueError(
                f"the client seed is {size} UTF-8 bytes; at most {MAX_CLIENT_SEED_BYTES} allowed"
            )
        return value


class PersonalLimitIn(_Strict):
    """A personal limit (個人限紅) as a range: a minimum, a maximum, or both."""

    min: Money | None = Field(default=None, description="the least the bettor stakes on it")
    max: Money | None = Field(default=None, description="the most the bettor stakes on it")

    @model_validator(mode="after")
    def _a_bound(self) -> PersonalLimitIn:
        """A range naming neither bound is 422 ``invalid_personal_limit`` (the schema cannot
        say "at least one of" for nullable fields, so it is a typed refusal, not a 400)."""
        if self.min is None and self.max is None:
            raise DomainError(
                "invalid_personal_limit",
                "a personal limit names a min, a max or both",
                details={"limit": None, "attempted": self.model_dump()},
            )
        return self


#: A spectator's personal limits (個人限紅), per bet type: a maximum alone (the earlier form) or a
#: range. Checked against the tier where entered (422 invalid_personal_limit).
PersonalLimits = dict[BetType, Money | PersonalLimitIn]


def personal_limits_json(limits: PersonalLimits | None) -> dict[str, Any] | None:
    """Personal limits in API form (JSON-ready, as stored and locked with a bet)."""
    if limits is None:
        return None
    return {
        str(k): v if isinstance(v, int) else v.model_dump(exclude_none=True)
        for k, v in limits.items()
    }


class BetIn(_Strict):
    bettor_id: BettorId
    role: Role
    seat: StrictInt | None = Field(default=None, ge=0, le=1000)
    type: BetType
    amount: Money
    level: StrictInt | None = Field(default=None, ge=0, le=10_000)
    balance: Money | None = None
    personal_limits: PersonalLimits | None = Field(
        default=None, description="a spectator's own limits per bet type: a max, or {min?, max?}"
    )


class PlayerBankerIn(_Strict):
    bettor_id: BettorId
    balance: Money


class DealRequest(_Strict):
    bets: list[BetIn] | None = Field(
        default=None,
        max_length=MAX_BETS,
        description=(
            "the round's bets (required unless from_book), validated and locked with it before "
            "any card exists; [] deals a round nobody bet on (settled at once, with no lines)"
        ),
        examples=[
            [
                {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker",
                 "amount": 2000, "balance": 50_000, "level": 3},
                {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player",
                 "amount": 1000, "balance": 20_000},
            ]
        ],
    )  # fmt: skip
    player_banker: PlayerBankerIn | None = Field(
        default=None, description="the player-banker seat (player_banker tables, with bets)"
    )
    round_number: StrictInt | None = Field(
        default=None,
        ge=1,
        le=999_999,
        description=(
            "optional: the round you expect to deal. If it is already dealt with exactly these "
            "bets and player-banker, the answer is that round again (Idempotent-Replayed: "
            "true); another round number than the next → 409 round_mismatch. The safe way to "
            "retry a deal without an Idempotency-Key"
        ),
    )
    from_book: StrictBool = Field(
        default=False,
        description=(
            "true: deal the table's betting window for this round with exactly its book's "
            "bets (closing betting if still open); no bets or player_banker then"
        ),
    )

    def bets_or_book(self) -> None:
        """A deal carries its bets or ``from_book: true``, never both, never neither: 422
        ``bets_or_from_book`` (the schema cannot say it, so it is a typed refusal, not a 400)."""
        if self.from_book and (self.bets is not None or self.player_banker is not None):
            raise DomainError(
                "bets_or_from_book", "a from_book deal takes its bets from the book: send no bets"
            )
        if not self.from_book and self.bets is None:
            raise DomainError("bets_or_from_book", "bets is required (or from_book: true)")


class SettleRequest(_Strict):
    """A settlement takes no body (or ``{}``): it settles the bets locked at the deal."""

    @model_validator(mode="before")
    @classmethod
    def _nothing(cls, data: Any) -> Any:
        if isinstance(data, dict) and data:
            raise ValueError(
                "a settlement takes no body: the round's bets were locked when it was dealt "
                f"(found {', '.join(sorted(map(str, data)))})"
            )
        return data


class VoidRequest(_Strict):
    reason: str = Field(
        description="why the round is voided: " + ", ".join(VOID_REASONS),
        json_schema_extra={"enum": list(VOID_REASONS)},
    )
    note: Annotated[str, AfterValidator(_valid_unicode)] | None = Field(
        default=None,
        max_length=MAX_VOID_NOTE_LENGTH,
        description="optional, published with the void in the shoe's proof",
    )

    @field_validator("reason")
    @classmethod
    def _known_reason(cls, value: str) -> str:
        if value not in VOID_REASONS:
            raise ValueError(f"the reason is one of {', '.join(VOID_REASONS)}")
        return value


# --- responses ------------------------------------------------------------------------------


class RulesOut(_Strict):
    decks: int
    burn: int
    cut_min: int
    cut_max: int
    round_limit: int


class TableOut(_Strict):
    table_id: str
    profile: str
    tier: str
    banking: str
    rules: RulesOut
    anchor: str = Field(description="s_0 of the table's seed chain (hex)")
    chain_length: int
    next_shoe_number: int
    open_shoe_id: str | None
    banker_pays: str
    dragon_table: str | None
    rounding: str
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    pay_table: dict[str, Any]
    created_at: str
    settle_deadline_seconds: int = Field(
        description="locked bets not settled this long after the deal are auto-settled"
    )
    void_window_seconds: int = Field(
        description="an unsettled round may be voided this long after its deal (0: never)"
    )
    betting_seconds: int = Field(description="how long a betting window stays open")
    squeeze_seconds: int = Field(description="how long a squeeze step may wait for its squeezer")
    idle_shoe_close_seconds: int = Field(
        description="an open shoe with no deal this long is closed by the service"
    )


class ShoeOut(_Strict):
    shoe_id: str
    table_id: str
    shoe_number: int
    client_seed: str
    client_hash: str
    rules: RulesOut
    anchor: str
    status: Literal["open", "ended"]


class ShoeStateOut(ShoeOut):
    rounds_dealt: int
    cards_remaining: int
    last_round_id: str | None
    history: list[dict[str, Any]] = Field(description="the last 30 rounds (star-city history)")
    roads: dict[str, Any] = Field(
        description="bead_plate, big_road, big_eye_boy, small_road, cockroach_pig"
    )
    end_reason: Literal["rules", "closed"] | None
    ended_at: str | None
    server_seed: str | None = Field(description="s_i (hex), only once the shoe has ended")
    created_at: str
    close_by: str | None = Field(
        description="while open: when the service closes the shoe if nothing is dealt from "
        "it before (its last deal, or its commit, + the table's idle_shoe_close_seconds; "
        "later if a round then still awaits settlement); null once ended"
    )


class HandOut(_Strict):
    cards: list[str]
    positions: list[int]
    total: int


class BetOut(BetIn):
    bettor_id: str
    bettor_ref: str = Field(description="the bettor's pseudonym in the public proof")


class PlayerBankerOut(PlayerBankerIn):
    bettor_id: str
    bettor_ref: str = Field(description="the player-banker's pseudonym in the public proof")


class RoundOut(_Strict):
    round_id: str
    shoe_id: str
    table_id: str
    round_number: int
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    start: int
    player: HandOut
    banker: HandOut
    result: Literal["player", "banker", "tie"]
    natural: bool
    player_natural: bool
    banker_natural: bool
    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool
    cards_dealt: int
    banker_card_count: int
    winning_margin: int
    bets: list[BetOut] = Field(description="the bets locked at the deal (accepted order)")
    player_banker: PlayerBankerOut | None
    squeeze: dict[str, Any] = Field(
        description="squeeze rights and the reveal plan: initial (the first four cards, safe "
        "to show before the reveal) and draws (third cards, for after the initial reveal)"
    )
    shoe_status: Literal["open", "ended"]
    dealt_at: str = Field(description="when the round was dealt: its bets were locked then")
    settle_by: str | None = Field(
        description="with locked bets: settled by the system (auto_settled) if not by then; "
        "null for a round nobody bet on (settled at its deal)"
    )
    void_by: str | None = Field(
        description="the end of the round's void window (null: voids disabled at the table)"
    )
    prev_hash: str = Field(description="bacc-audit-v1 hash of the table's previous round record")
    round_hash: str = Field(description="bacc-audit-v1 hash of this round record (as dealt)")


class LineOut(_Strict):
    index: int
    bettor_id: str
    bettor_ref: str
    type: str
    stake: int
    grade: Literal["win", "push", "lose", "void"]
    multiplier: str
    gross_win: int
    commission: int
    net: int
    covered_by: Literal["house", "player_banker"]


class ParticipantOut(_Strict):
    id: str
    bettor_ref: str
    role: str
    stake: int
    gross: int
    commission: int
    net: int


class HouseOut(_Strict):
    covered: int
    commission: int
    take: int


class EligibilityOut(_Strict):
    below_min_balance: list[str]
    player_banker_below_min_balance: str | None
    balances_after: dict[str, int]
    idle_bettors: list[str]
    idle_round_limit: int | None


class ReplacedOut(_Strict):
    nets: dict[str, int] = Field(description="the nets the settlement would have had")
    house_take: int


class VoidOut(_Strict):
    reason: str = Field(description=", ".join(VOID_REASONS))
    note: str | None
    voided_at: str
    replaced: ReplacedOut = Field(
        description="the settlement the void replaced, computed exactly as settling would have"
    )


class SettlementOut(_Strict):
    """A settlement — or a void, settlement-shaped: every line graded ``void``, every net 0."""

    round_id: str
    shoe_id: str
    round_number: int
    profile: str
    tier: str
    banking: str
    rounding: str
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    result: Literal["player", "banker", "tie"]
    lines: list[LineOut]
    bettors: list[ParticipantOut]
    player_banker: ParticipantOut | None
    house: HouseOut
    nets: dict[str, int] = Field(
        description="participant → net: what to apply to each wallet (bettors in order of "
        "their first bet, then the player-banker)"
    )
    eligibility: EligibilityOut
    settled_at: str = Field(description="when it was settled (or voided)")
    auto_settled: bool = Field(
        default=False, description="settled by the system after the table's deadline"
    )
    voided: bool = Field(
        default=False, description="a void: every stake returned (net 0), never to be settled"
    )
    void: VoidOut | None = Field(default=None, description="the void, if voided")


class RoundDetailOut(RoundOut):
    settlement: SettlementOut | None


# --- the public proof (v2: docs/bacc-pf-v1.md "The public proof"), documentation of what
# GET /v1/shoes/{shoe_id}/proof serves (the stored signed page, byte for byte; tests validate
# every served page against these models) ---------------------------------------------------


class ProofBetOut(_Strict):
    bettor_ref: str = Field(description="the bettor's pseudonym at this table (br_…, 27 chars)")
    role: Role
    seat: int | None = None
    type: BetType
    amount: int


class ProofPlayerBankerOut(_Strict):
    bettor_ref: str


class ProofLineOut(_Strict):
    index: int
    bettor_ref: str
    type: str
    stake: int
    grade: Literal["win", "push", "lose"]
    multiplier: str
    gross_win: int
    commission: int
    net: int
    covered_by: Literal["house", "player_banker"]


class ProofParticipantOut(_Strict):
    bettor_ref: str
    role: str
    stake: int
    gross: int
    commission: int
    net: int


class ProofSettlementOut(_Strict):
    round_id: str
    round_number: int
    profile: str
    tier: str
    banking: str
    rounding: str
    result: Literal["player", "banker", "tie"]
    lines: list[ProofLineOut]
    bettors: list[ProofParticipantOut]
    player_banker: ProofParticipantOut | None
    house: HouseOut
    nets: dict[str, int] = Field(description="bettor_ref → net (bettors and the player-banker)")
    settled_at: str
    auto_settled: bool


class ProofRoundOut(_Strict):
    round_number: int
    start: int
    player: list[str]
    banker: list[str]
    player_total: int
    banker_total: int
    result: Literal["player", "banker", "tie"]
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


class InterventionsOut(_Strict):
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
    rounds_possible: int = Field(description="rounds the shoe's own rules deal (from the seed)")


class ProofPageInfoOut(_Strict):
    number: int
    count: int
    first_round: int | None
    last_round: int | None
    next: str | None = Field(description="relative URL of the next page, null on the last")


class ManifestOut(_Strict):
    spec: Literal["bacc-proof-sig-v1"]
    shoe_id: str
    key_id: str
    signed_at: str
    pages: list[str] = Field(description="SHA-256 (hex) of each page without its signature")


class SignatureOut(_Strict):
    alg: Literal["ES256"]
    key_id: str = Field(description="RFC 7638 thumbprint of the signing key")
    manifest: ManifestOut
    value: str = Field(description="base64url (no padding) of r ‖ s over canonical(manifest)")


class ProofPageOut(_Strict):
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
    end_reason: Literal["rules", "closed"]
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
    interventions: InterventionsOut
    page: ProofPageInfoOut
    rounds: list[ProofRoundOut]
    signature: SignatureOut


class JwkOut(_Strict):
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


class SigningKeysOut(_Strict):
    keys: list[JwkOut]


class FairnessTotalsOut(_Strict):
    shoes: int = Field(description="ended shoes with a final proof")
    voided_rounds: int
    voided_player_net: int = Field(description="what the voids took from the bettors")
    voided_player_banker_net: int = Field(
        description="what the voids gave or took from the player-banker, apart"
    )
    closed_early: int = Field(description="how many of them were closed early")
    rounds_dealt: int
    rounds_possible: int


class ShoeFairnessOut(_Strict):
    shoe_id: str
    shoe_number: int
    ended_at: str
    end_reason: Literal["rules", "closed"]
    interventions: InterventionsOut
    proof: str = Field(description="relative URL of the shoe's proof (page 1)")


class OpenVoidOut(_Strict):
    round_number: int
    reason: str
    note: str | None
    voided_at: str
    replaced: dict[str, Any] | None = Field(
        description="the settlement the void replaced: nets by bettor_ref and house_take "
        "(null while the round's cards are not all shown yet)"
    )


class OpenInterventionsOut(_Strict):
    voided_rounds: int
    voided_player_net: int = Field(description="what the voids so far took from the bettors")
    voided_player_banker_net: int = Field(description="the player-banker's, apart")
    rounds_dealt: int


class OpenShoeFairnessOut(_Strict):
    """The table's open shoe as far as it went — no card, no seed: its proof comes at its
    end."""

    shoe_id: str
    shoe_number: int
    created_at: str
    close_by: str | None = Field(
        description="when the service closes it if nothing is dealt before (later if a round "
        "then still awaits settlement)"
    )
    interventions: OpenInterventionsOut
    voids: list[OpenVoidOut] = Field(description="its voided rounds so far, in round order")


class FairnessOut(_Strict):
    table_id: str
    totals: FairnessTotalsOut = Field(
        description="summed over every shoe listed (all pages); the open shoe is not in them"
    )
    open_shoe: OpenShoeFairnessOut | None = Field(
        description="the table's open shoe: its rounds dealt and its voids so far (first page "
        "only; null when none, or on a later page)"
    )
    shoes: list[ShoeFairnessOut] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as ?cursor= for the next (older) shoes")


class TiersOut(_Strict):
    tiers: list[dict[str, Any]]


class ErrorBody(_Strict):
    code: str
    message: str
    retryable: bool
    details: dict[str, Any]
    request_id: str


class ErrorOut(_Strict):
    error: ErrorBody


class AuditBreakOut(_Strict):
    round_id: str | None = Field(description="the round where the chain breaks (if a round)")
    shoe_id: str | None = Field(description="the shoe where it breaks (if a shoe)")
    item: str | None = Field(description="the item's sort key (the table, an unreadable item)")
    field: str = Field(
        description=(
            "prev_hash | round_hash | settlement_hash | round_number | rounds_dealt | chain_start"
            " | chain_head | shoe | item"
        )
    )
    expected: Any
    found: Any


class AuditOut(_Strict):
    spec: Literal["bacc-audit-v1"]
    table_id: str
    shoe_id: str | None = Field(description="the shoe checked (null: the table has no shoe yet)")
    shoes: int = Field(description="the table's shoes so far (ask ?shoe=1 … ?shoe=shoes for all)")
    verified: bool
    genesis: str = Field(description="H(bacc-audit-v1/genesis, table id, anchor)")
    start: str = Field(
        description=(
            "where the shoe's chain must start: the genesis value for shoe 1, else the previous "
            "shoe's head (its stored chain_head, or the checkpoint given)"
        )
    )
    head: str = Field(
        description=(
            "the hash of the shoe's latest round record, recomputed (its start if it has none): "
            "the next shoe's start, and the checkpoint to audit it from"
        )
    )
    shoes_checked: int = Field(description="1, or 0 for a table without shoes")
    rounds_checked: int
    settlements_checked: int
    first_break: AuditBreakOut | None
    breaks: list[AuditBreakOut] = Field(description="every break found (at most 100)")


# --- live tables (issue 13) -----------------------------------------------------------------


class EventOut(_Strict):
    event_id: str = Field(description="<table_id>:<seq>: unique across the operator, stable")
    seq: int = Field(description="the table's event number: 1, 2, 3 … gap-free")
    type: str = Field(description="what happened (docs/api.md lists every type and its data)")
    at: str = Field(description="when (ISO 8601 UTC, milliseconds)")
    data: dict[str, Any]


class EventsPageOut(_Strict):
    table_id: str
    events: list[EventOut] = Field(description="in order, oldest first")
    next_after: int = Field(description="pass as `after` for the next page (the last seq here)")
    more: bool = Field(description="more events follow this page right now")


class SeatRequest(_Strict):
    bettor_id: BettorId
    balance: Money = Field(description="the bettor's balance now (held to the tier's minimum)")
    level: StrictInt | None = Field(
        default=None, ge=0, le=10_000, description="VIP level (bid-squeeze seats need a minimum)"
    )


class BankerRequest(_Strict):
    bettor_id: BettorId
    balance: Money = Field(description="held to the tier's player-banker minimum")


class SpectatorRequest(_Strict):
    balance: Money
    personal_limits: PersonalLimits | None = Field(
        default=None,
        description='個人限紅 per bet type: a maximum (`{"banker": 5000}`) or a range '
        '(`{"banker": {"min": 2000, "max": 5000}}`), each bound within the tier\'s '
        "own limits for that type (422 invalid_personal_limit)",
    )


class RemovedOut(_Strict):
    bettor_id: str
    where: str = Field(description="the place they held: `seat N`, `banker` or `spectator`")
    reason: Literal["balance"] = Field(description="the removal event's reason")
    limit: int = Field(description="the tier's minimum balance for that place")
    attempted: int = Field(description="the balance reported")


class PresenceOut(_Strict):
    table_id: str
    seats: dict[int, dict[str, Any]] = Field(
        description="seat number → {bettor_id, balance, level}"
    )
    banker: dict[str, Any] | None = Field(description="the player-banker {bettor_id, balance}")
    spectators: dict[str, dict[str, Any]] = Field(
        description="bettor id → {balance, personal_limits}"
    )
    watchers: list[str] = Field(description="the observer list, in order of arrival")
    seq: int = Field(description="the table's last event number after this change")
    removed: RemovedOut | None = Field(
        default=None,
        description="who this change removed: a balance reported below the tier's minimum for "
        "someone already at the table (seed 000: 星幣金額不足底限時，系統將自動踢除)",
    )


# --- the betting window and the book (issue 13) ---------------------------------------------

BettingStatus = Literal["open", "closed", "dealt"]


class BettingWindowOut(_Strict):
    shoe_id: str = Field(description="the open shoe the window's round is dealt from")
    round_number: int = Field(description="the round the window takes bets for")
    opened_at: str
    closes_at: str = Field(description="no slip is accepted from this instant")
    status: BettingStatus = Field(
        description="open (slips accepted), closed (no more bets), dealt (round_id)"
    )
    round_id: str | None = Field(default=None, description="the round dealt from the book")


class SlipBetIn(_Strict):
    type: BetType
    amount: Money


class SlipBetOut(_Strict):
    type: BetType
    amount: int
    order: int = Field(
        description="the line's accepted order (the squeeze's earlier bet): the seq of the "
        "bet_placed that confirmed it — a re-confirmed slip's unchanged line keeps its order"
    )


class SlipOut(_Strict):
    bettor_id: str
    role: Role
    seat: int | None = Field(description="the seat the slip was placed from (null: spectator)")
    bets: list[SlipBetOut]
    total: int = Field(description="the slip's stakes summed")
    placed_at: str = Field(description="when the slip (or its replacement) was confirmed")
    order: int = Field(
        description="the seq of its latest bet_placed event (each line's own order: bets)"
    )


class BookOut(_Strict):
    """What each seat and spectator shows on the table (對應押注區) for the current window."""

    table_id: str
    betting: BettingWindowOut | None = Field(description="null: betting never opened here")
    seats: dict[int, SlipOut] = Field(description="seat number → its bettor's confirmed slip")
    spectators: dict[str, SlipOut] = Field(description="spectator id → their confirmed slip")
    total: int = Field(description="every slip's stakes summed")


class SlipRequest(_Strict):
    bets: list[SlipBetIn] = Field(
        min_length=1,
        # one line per bet type at most: 7 seats and MAX_SPECTATORS spectators then stay within
        # a round's MAX_BETS, so a whole book is always one dealable round
        max_length=len(BetType),
        description=(
            "the bettor's whole slip for the open window (replaces an earlier one): one line "
            "per bet type (a type twice is 422 duplicate_bet_type — a stake is one line, and a "
            "line's time is when its amount was confirmed)"
        ),
    )
    round_number: int | None = Field(
        default=None,
        ge=1,
        description=(
            "the round the slip is for (the window's round_number): another round is 409 "
            "round_mismatch — a PUT retried after its answer was lost never lands in a later "
            "round's window"
        ),
    )

    @field_validator("bets")
    @classmethod
    def _one_line_per_type(cls, bets: list[SlipBetIn]) -> list[SlipBetIn]:
        """A type twice is 422 ``duplicate_bet_type`` (the schema cannot say "unique by type",
        so it is a typed refusal, not a 400)."""
        types = [b.type for b in bets]
        twice = sorted({t for t in types if types.count(t) > 1})
        if twice:
            raise DomainError(
                "duplicate_bet_type",
                f"one line per bet type: {', '.join(twice)} given more than once",
                details={"bet_types": twice},
            )
        return bets


# --- reconciliation (GET /v1/rounds, GET /v1/reports/daily) -----------------------------------

RoundStatus = Literal["dealt", "settled", "auto_settled", "voided"]


class RoundSummaryOut(_Strict):
    """One round as reconciliation sees it: its state and its money."""

    round_id: str
    table_id: str
    shoe_id: str
    round_number: int
    status: RoundStatus = Field(
        description="dealt (not resolved yet), settled (by a call), auto_settled (by the "
        "system after the table's deadline), voided"
    )
    dealt_at: str
    resolved_at: str | None = Field(description="when it was settled or voided")
    result: Literal["player", "banker", "tie"] | None = Field(
        description="null while a card of the round is still face down at its table (a "
        "squeeze counting down): nothing of a round's outcome is shown before its table shows it"
    )
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    lines: int = Field(description="bet lines")
    staked: int = Field(description="Σ stakes (a void returned them)")
    commission: int = Field(description="every commission of the round (0 unless settled)")
    house_take: int = Field(description="the house's take (0 unless settled)")
    nets: dict[str, int] = Field(
        description="participant → net applied to its wallet (all 0 until settled, and when "
        "voided); bettors in the order of their first bet, then the player-banker"
    )


class RoundListOut(_Strict):
    rounds: list[RoundSummaryOut]
    next_cursor: str | None = Field(
        description="pass as ?cursor= for the next page; null: no more. A page may be short "
        "(even empty) and still have a next_cursor"
    )


class ReportTotalsOut(_Strict):
    rounds: int = Field(description="rounds dealt that day")
    dealt: int = Field(description="of which not resolved yet")
    settled: int = Field(description="of which settled by a call")
    auto_settled: int = Field(description="of which settled by the system")
    voided: int
    staked: int = Field(description="Σ stakes of the settled rounds (voids returned theirs)")
    paid: int = Field(description="Σ of the participants' positive nets (what wallets got)")
    collected: int = Field(description="Σ of the participants' negative nets, as a positive sum")
    commission: int = Field(description="Σ of the settled rounds' commission")
    house_take: int = Field(description="Σ of the settled rounds' house take = collected - paid")
    nets: dict[str, int] = Field(
        description="participant → Σ of its nets (bettors and player-bankers by id)"
    )


class ReportTableOut(ReportTotalsOut):
    table_id: str
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent


class _InCurrency(_Strict):
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent


class ReportCurrencyOut(ReportTotalsOut, _InCurrency):  # (the currency first)
    """The day's total in one currency (and exponent): two currencies are never added."""


class DailyReportOut(_Strict):
    date: str = Field(description="the UTC day: every round dealt on it, however resolved")
    final: bool = Field(
        description="no round of the day is still unresolved: the report will not change"
    )
    tables: list[ReportTableOut] = Field(description="per table with rounds that day, by id")
    totals: list[ReportCurrencyOut] = Field(
        description="per currency (and minor_unit_exponent) of the day's tables, by code: the "
        "sum of its tables' rows"
    )


# --- the squeeze countdown and the urge button (issue 13) -------------------------------------


class RevealRequest(_Strict):
    bettor_id: BettorId = Field(description="the squeezer opening their cards")
    step: Literal["initial", "draws"] = Field(
        description="initial: the second cards of the first four; draws: the third cards"
    )


class RevealOut(_Strict):
    round_id: str
    squeeze: dict[str, Any] = Field(
        description="the round's squeeze plan with its steps now (as GET /v1/rounds/{id})"
    )
    seq: int = Field(description="the table's last event number after this change")


class UrgeRequest(_Strict):
    bettor_id: BettorId = Field(description="the seated player-banker pressing the button")


class UrgeOut(_Strict):
    table_id: str
    round_id: str | None = Field(
        description="the round the table is waiting on (its squeeze is still running), or null"
    )
    seq: int = Field(description="the table's last event number after this change")


# --- GET /v1/tables/{table_id}/state (issue 13) ------------------------------------------------

TablePhase = Literal["idle", "betting", "closed", "squeeze", "dealt", "settled"]


class TableShoeOut(_Strict):
    shoe_id: str
    shoe_number: int
    status: Literal["open", "ended"]
    rounds_dealt: int
    cards_remaining: int = Field(description="cards left in the shoe (剩餘張數)")
    history: list[dict[str, Any]] = Field(description="the last 30 rounds (歷史開牌)")
    roads: dict[str, Any] = Field(
        description="bead_plate, big_road, big_eye_boy, small_road, cockroach_pig"
    )
    last_round_id: str | None


class TableCardOut(_Strict):
    position: int
    hand: Literal["player", "banker"]
    index: int = Field(description="1–3 in the hand")
    face: Literal["up", "down"] = Field(description="how it was dealt")
    squeezer: str | None = Field(description="who squeezes it (face-down cards; null: system)")
    code: str | None = Field(description="the card, once the table shows it (null: still down)")


class TableRoundOut(_Strict):
    round_id: str
    round_number: int
    status: RoundStatus
    dealt_at: str
    settle_by: str | None
    bettors: int = Field(description="how many bettors have bets locked in the round")
    squeeze: dict[str, Any] | None = Field(
        description="the squeeze plan with its steps now (as GET /v1/rounds/{id})"
    )
    cards: list[TableCardOut] = Field(
        description="the cards on the table in dealing order: first cards from the deal, a "
        "face-down card once its hand is opened, third cards once the initial step is revealed"
    )
    result: Literal["player", "banker", "tie"] | None = Field(
        description="once every card is shown (null before)"
    )


class TableStateOut(_Strict):
    """Everything a frontend draws of one table now; then follow the feed from ``seq``."""

    table_id: str
    profile: Literal["star-city", "bid-squeeze"]
    tier: str
    banking: Literal["house", "player_banker"]
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    seq: int = Field(description="the table's last event number: follow the feed after it")
    at: str = Field(description="the moment this state describes (phases move with time)")
    phase: TablePhase = Field(
        description="idle | betting (window open) | closed (no more bets, not dealt) | squeeze "
        "(a reveal step counting down) | dealt (all shown, not settled) | settled"
    )
    deadline: str | None = Field(
        description="betting: closes_at; closed: from when the sweep may deal the book; squeeze: "
        "the step's reveal_by; dealt: settle_by, from when the sweep may settle. The sweep runs "
        "once a minute: it acts up to about a minute after its deadline"
    )
    seats: dict[int, dict[str, Any]] = Field(description="seat → {bettor_id, balance, level}")
    banker: dict[str, Any] | None = Field(description="the player-banker {bettor_id, balance}")
    spectators: dict[str, dict[str, Any]] = Field(
        description="bettor id → {balance, personal_limits}"
    )
    watchers: list[str] = Field(description="the observer list (觀局清單), in order of arrival")
    idle: dict[str, int] = Field(
        description="seated bettor → consecutive rounds without a bet (star-city: removed at 5, "
        "the profile's idle_round_limit; bid-squeeze: counted, nobody is removed)"
    )
    book: BookOut = Field(description="the betting window and each seat's / spectator's slip")
    shoe: TableShoeOut | None = Field(description="the open shoe, else the latest (null: none)")
    round: TableRoundOut | None = Field(description="the latest round of that shoe (null: none)")


# --- the operator feed and webhooks (issue 14) ------------------------------------------------


class FeedEventOut(_Strict):
    event_id: str = Field(description="<table_id>:<seq>: unique across the operator, stable")
    table_id: str
    seq: int = Field(description="the table's event number: 1, 2, 3 … gap-free")
    type: str = Field(description="what happened (docs/api.md lists every type and its data)")
    at: str = Field(description="when (ISO 8601 UTC, milliseconds)")
    data: dict[str, Any]
    settlement: SettlementOut | None = Field(
        default=None,
        description=(
            "round_settled, round_auto_settled, round_voided: the round's full money, as "
            "the settlement (or void) route answers it; null for other events"
        ),
    )


class FeedPageOut(_Strict):
    events: list[FeedEventOut] = Field(
        description="each table's events in their order; tables interleaved by feed shard"
    )
    next_after: str = Field(description="pass as `after` for the next page (opaque)")
    more: bool = Field(description="more events follow this page right now")


class WebhookRequest(_Strict):
    url: Annotated[
        str,
        Field(
            min_length=8,
            max_length=2048,
            # a host name or IPv4 address and an optional port: what every URL parser reads
            # the same way (no userinfo, no bracketed IPv6 literal)
            pattern=r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?#][^\s]*)?$",
            description="where every feed event is POSTed (https in production): a host name "
            "or IPv4 address, an optional port",
        ),
    ]


class WebhookOut(_Strict):
    url: str
    created_at: str = Field(description="when the URL and its secret were set")


class WebhookSecretOut(WebhookOut):
    secret: str = Field(
        description=(
            "the signing secret, shown only in this answer: HMAC-SHA256 key = its UTF-8 bytes"
        )
    )


class WebhookFailureOut(_Strict):
    event_id: str
    table_id: str
    seq: int
    attempts: int = Field(description="deliveries tried (each with exponential backoff)")
    first_failed_at: str
    parked_at: str = Field(description="when its 24 h of retries ended and it was parked")
    last_error: str = Field(description="the last answer: `HTTP <status>`, or why none came")


class WebhookFailuresOut(_Strict):
    failures: list[WebhookFailureOut] = Field(description="parked deliveries, by event id")


class WebhookRetryOut(_Strict):
    event_id: str
    delivered: bool = Field(description="true: a 2xx came back and the failure is gone")
    status: int | None = Field(description="the receiver's HTTP status (null: no answer)")
    error: str
