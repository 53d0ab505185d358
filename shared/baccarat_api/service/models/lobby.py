"""The lobby (``GET /v1/tables``): an operator's numbered tables, a page at a time, with what a
lobby draws of each — number and name, stakes, the phase, how full it is, the shoe's progress
and its last results. Nothing about a person: no bettor id, no balance. And the table's name as
a creation request gives it (:data:`TableName`)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from baccarat_api.limits import MAX_TABLE_NAME_CHARS
from baccarat_api.service.models.common import Banking, CurrencyCode, MinorUnitExponent, Strict

#: Unicode categories a name may not hold: controls, format characters (the bidi embeddings,
#: overrides and isolates U+202A–202E, U+2066–2069 and the marks among them, zero-width
#: characters), surrogates, private use, unassigned.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def check_table_name(name: str) -> str:
    """A table's name: 1–32 characters (NFC), not blank, no control, format (bidi override),
    private-use or unassigned character. A name is shown as text, never as markup (a page
    renders ``<b>`` as the four characters it is). (The chat's text rules, service/text.py,
    will be the one place for both: until then, this check.)"""
    if unicodedata.normalize("NFC", name) != name:
        raise ValueError("name must be in Unicode NFC")
    if not name.strip():
        raise ValueError("name must not be blank")
    if len(name) > MAX_TABLE_NAME_CHARS:
        raise ValueError(f"name must be at most {MAX_TABLE_NAME_CHARS} characters")
    bad = [c for c in name if unicodedata.category(c) in _REFUSED_CATEGORIES]
    if bad:
        raise ValueError(
            f"name must not contain control, format or bidi characters (U+{ord(bad[0]):04X})"
        )
    return name


TableName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TABLE_NAME_CHARS,
        description=(
            "the table's name as a lobby shows it (optional; at most 32 characters, no control "
            "or bidi characters)"
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
