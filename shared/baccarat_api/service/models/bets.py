"""A bet as a deal takes it (``BetIn``) and as a round answers it (``BetOut``), with the
spectator's personal limits."""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictInt, model_validator

from baccarat.bets import BetType, Role
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models.common import BettorId, Money, Strict


class PersonalLimitIn(Strict):
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


class BetIn(Strict):
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


class PlayerBankerIn(Strict):
    bettor_id: BettorId
    balance: Money


class BetOut(BetIn):
    bettor_id: str
    bettor_ref: str = Field(description="the bettor's pseudonym in the public proof")


class PlayerBankerOut(PlayerBankerIn):
    bettor_id: str
    bettor_ref: str = Field(description="the player-banker's pseudonym in the public proof")
