"""The lobby (``GET /v1/tables``): an operator's numbered tables, a page at a time, with what a
lobby draws of each — number and name, stakes, the phase, how full it is, the shoe's progress
and its last results. Nothing about a person: no bettor id, no balance. And the table's name as
a creation request gives it (:data:`TableName`)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from baccarat_api.limits import MAX_TABLE_NAME_CHARS
from baccarat_api.service.models.common import Banking, CurrencyCode, MinorUnitExponent, Strict

#: What a name may not hold: controls (C0, DEL, C1), the soft hyphen, the bidi marks, embeddings,
#: overrides and isolates (U+061C, U+200E–200F, U+202A–202E, U+2066–2069), zero-width and other
#: invisible format characters (U+180E, U+200B–200D, U+2060–206F, U+FEFF, U+FFF9–FFFB) and the
#: private-use area — as one character class, so the contract's schema states exactly the rule.
_REFUSED = (
    r"\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    r"\ue000-\uf8ff\ufeff\ufff9-\ufffb"
)
#: A name: only allowed characters, at least one of them not a space.
NAME_PATTERN = rf"^[^{_REFUSED}]*[^{_REFUSED}\s][^{_REFUSED}]*$"
_NAME = re.compile(NAME_PATTERN)


def check_table_name(name: str) -> str:
    """A table's name: 1–32 characters, not blank, none of the refused characters
    (:data:`NAME_PATTERN`, which the schema states too: this check is its twin, for callers
    outside pydantic). A name is shown as text, never as markup (a page renders ``<b>`` as the
    three characters it is). (The chat's text rules, service/text.py, will be the one place for
    both: until then, this check.)"""
    if len(name) > MAX_TABLE_NAME_CHARS:
        raise ValueError(f"name must be at most {MAX_TABLE_NAME_CHARS} characters")
    if not _NAME.fullmatch(name):
        raise ValueError("name must not be blank nor hold control, format or bidi characters")
    return name


TableName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TABLE_NAME_CHARS,
        pattern=NAME_PATTERN,
        description=(
            "the table's name as a lobby shows it (optional; at most 32 characters; no control, "
            "bidi or zero-width character, not blank)"
        ),
        examples=["Dragon Hall", "龍廳"],
    ),
    AfterValidator(check_table_name),
]

LobbyPhase = Literal["betting", "in_round", "idle", "paused", "waiting"]


class LobbyShoeOut(Strict):
    shoe_number: int
    status: Literal["open", "ended"]
    rounds_dealt: int
    cards_remaining: int | None = Field(
        description="cards left in the shoe (剩餘張數); null while a card of its latest round "
        "is face down (the count would tell whether third cards were drawn)"
    )
    history: list[dict[str, Any]] = Field(
        description="the last 30 rounds shown (歷史開牌), as GET …/state's shoe.history: a "
        "round with a card still face down is not in it yet"
    )


class LobbyLimitsOut(Strict):
    min_bet: int = Field(description="the smallest bet (minor units)")
    table_max: int | None = Field(description="the table's cap per round (minor units)")
    areas: dict[str, dict[str, int]] = Field(
        description="bet area → {min, max} per bettor per round (minor units)"
    )


class LobbyTableOut(Strict):
    table_id: str
    number: int = Field(description="the table's number (桌號), unique per operator")
    name: str | None
    profile: Literal["star-city", "bid-squeeze"]
    tier: str
    tier_name: str
    tier_name_zh: str | None
    ratio: str = Field(
        description="倍率: the tier's chip unit to the profile's smallest, e.g. 1:10"
    )
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    limits: LobbyLimitsOut
    chips: list[int] = Field(description="the chips' values (minor units): the tier's chips × unit")
    banking: Banking
    dealing: Literal["operator", "auto"]
    bet_behind: Literal["listed", "book"]
    fairness: Literal["bacc-pf-v1", "bacc-pf-v2"] = Field(
        default="bacc-pf-v1", description="bacc-pf-v2: each round's cards wait for its beacon"
    )
    phase: LobbyPhase = Field(
        description="betting (a window open) | in_round (closed, dealt or squeezed, not shown "
        "yet) | idle | paused (a running table paused) | waiting (a running table waiting for "
        "a client seed or for company)"
    )
    deadline: str | None = Field(
        description="betting: closes_at; in_round: the squeeze step's reveal_by or the deal's "
        "due time; a running table's idle: its next step's due time"
    )
    seats_taken: int = Field(ge=0, le=7)
    banker: bool = Field(description="the player-banker seat is taken")
    spectators: int = Field(description="how many spectators (at a book table: counted)")
    watchers: int = Field(description="how many watchers (the observer list)")
    shoe: LobbyShoeOut | None = Field(description="the open shoe, else the last (null: none yet)")


class LobbyOut(Strict):
    tables: list[LobbyTableOut] = Field(description="in number order")
    next: str | None = Field(description="pass as `after` for the next page (null: the last)")
