"""What every contract model shares: the strict base, money, ids, the bettor id rule, currency."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt

from baccarat.settlement import RESERVED_IDS
from baccarat.squeeze import SYSTEM
from baccarat_api.limits import BETTOR_ID_PATTERN, MAX_ID_LENGTH, MAX_MONEY

Money = Annotated[StrictInt, Field(ge=-MAX_MONEY, le=MAX_MONEY)]
Id = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]

#: A round's result; a shoe's status and why it ended; who banks a table (and covers a line).
Result = Literal["player", "banker", "tie"]
ShoeStatus = Literal["open", "ended"]
EndReason = Literal["rules", "closed"]
Banking = Literal["house", "player_banker"]


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


def valid_unicode(value: str) -> str:
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


class Strict(BaseModel):
    # defer_build: a model's validator is built when first used, not at import, so a function
    # builds only the models of its own routes (cold start).
    model_config = ConfigDict(extra="forbid", defer_build=True)


class RulesOut(Strict):
    decks: int
    burn: int
    cut_min: int
    cut_max: int
    round_limit: int
