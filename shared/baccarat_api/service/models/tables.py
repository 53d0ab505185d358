"""Tables: the create request, the table, the tiers, the audit of its hash chain."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictInt

from baccarat_api.limits import (
    DEFAULT_BET_BEHIND,
    DEFAULT_BETTING_SECONDS,
    DEFAULT_DEALING,
    DEFAULT_IDLE_SHOE_CLOSE_SECONDS,
    DEFAULT_PAUSE_SECONDS,
    DEFAULT_SETTLE_DEADLINE_SECONDS,
    DEFAULT_SQUEEZE_SECONDS,
    DEFAULT_VOID_WINDOW_SECONDS,
    MAX_BETTING_SECONDS,
    MAX_IDLE_SHOE_CLOSE_SECONDS,
    MAX_PAUSE_SECONDS,
    MAX_SETTLE_DEADLINE_SECONDS,
    MAX_SQUEEZE_SECONDS,
    MAX_TABLE_NUMBER,
    MAX_VOID_WINDOW_SECONDS,
    MIN_IDLE_SHOE_CLOSE_SECONDS,
    MIN_TABLE_NUMBER,
)
from baccarat_api.service.models.common import (
    Banking,
    CurrencyCode,
    Id,
    MinorUnitExponent,
    RulesOut,
    Strict,
)
from baccarat_api.service.models.lobby import TableName

#: How a table is dealt (``limits.DEALING_MODES``).
Dealing = Literal["operator", "auto"]
BetBehind = Literal["listed", "book"]
#: How a table's cards are fixed (``limits.DEFAULT_FAIRNESS``, ``limits.FAIRNESS_V2``).
Fairness = Literal["bacc-pf-v1", "bacc-pf-v2"]


class BeaconOut(Strict):
    """The public randomness beacon a bacc-pf-v2 table's rounds wait for."""

    name: str = Field(description="quicknet, or test (make run's local test beacon)")
    chain_hash: str
    public_key: str = Field(description="the chain's BLS public key (hex, G2 compressed)")
    scheme: str
    period_ms: int
    genesis_ms: int
    test: bool = Field(description="a local test beacon, never drand")


class CreateTableRequest(Strict):
    profile: Literal["star-city", "bid-squeeze"]
    tier: Id = Field(
        description="a tier id of GET /v1/tiers, of the same profile",
        examples=["star-city-fun", "bid-squeeze-standard"],
    )
    banking: Banking
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
    dealing: Dealing = Field(
        default=DEFAULT_DEALING,
        description=(
            "operator: the operator's requests open betting, deal and settle (the default); "
            "auto: the table runs itself — it opens the window, deals it at closes_at, reveals "
            "for a squeezer who does not, settles, pauses pause_seconds and opens the next, and "
            "commits the next shoe with a client seed given in advance"
        ),
    )
    pause_seconds: StrictInt = Field(
        default=DEFAULT_PAUSE_SECONDS,
        ge=0,
        le=MAX_PAUSE_SECONDS,
        description="at a running table (dealing auto): seconds from a round's resolution to "
        "the next betting window",
    )
    bet_behind: BetBehind = Field(
        default=DEFAULT_BET_BEHIND,
        description=(
            "at a house-banked bid-squeeze table, how spectators bet behind: listed (every bet "
            "listed in the round and the proof; at most 8 spectators; the default) or book (no "
            "cap: the locked book is committed by its Merkle root before the cards, each "
            "bettor's money is in a receipt, the proof stays small). Elsewhere only listed."
        ),
    )
    number: StrictInt | None = Field(
        default=None,
        ge=MIN_TABLE_NUMBER,
        le=MAX_TABLE_NUMBER,
        description=(
            "the table's number (桌號), unique among the operator's tables (409 "
            "table_number_taken). Default: the operator's next free number"
        ),
        examples=[8],
    )
    name: TableName | None = None
    fairness: Fairness = Field(
        default="bacc-pf-v1",
        description=(
            "bacc-pf-v1 (the default): every card of a shoe fixed at its commit. bacc-pf-v2: "
            "each round's cards drawn only once its bets are locked and the public beacon round "
            "its lock fixes exists (drand quicknet; make run: its local test beacon) — nobody, "
            "the operator included, can know them before (docs/bacc-pf-v2.md). Fixed for the "
            "table's life (at a bet_behind book table too: its book is locked with the round)"
        ),
    )


class TableOut(Strict):
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
    dealing: Dealing = Field(description="operator, or auto: the table runs itself")
    bet_behind: BetBehind = Field(
        description="listed, or book: spectators without a cap, committed by the book's root"
    )
    pause_seconds: int = Field(
        description="at a running table: seconds from a round's resolution (its last card "
        "shown) to the next window"
    )
    number: int | None = Field(
        description="the table's number (桌號), unique per operator (null: a table created "
        "before tables had numbers)"
    )
    name: str | None = Field(description="the table's name (null: none)")
    fairness: Fairness = Field(description="bacc-pf-v1, or bacc-pf-v2: cards drawn after the lock")
    beacon: BeaconOut | None = Field(
        description="at a bacc-pf-v2 table: the beacon chain its rounds wait for (null: v1)"
    )


class TiersOut(Strict):
    tiers: list[dict[str, Any]]


class AuditBreakOut(Strict):
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


class AuditOut(Strict):
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
