"""The bets of a request, parsed in ONE place for every route (deal, settle, the sweep).

A request's bets and player-banker arrive as the contract's models (``BetIn``,
``PlayerBankerIn``); the use cases keep them in API form — what is locked with a round, stored,
hashed into the settlement digest and published — and hand core objects
(:class:`baccarat.bets.Bet`, :class:`~baccarat.bets.PlayerBanker`) to validation and settlement.
A refused list becomes a :class:`~baccarat_api.service.errors.DomainError` with the refusal's
own code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from baccarat.bets import Bet, PlayerBanker, bets_from_json, player_banker_from_json
from baccarat.validation import BetRefused
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import BetIn, PlayerBankerIn


@dataclass(frozen=True, slots=True)
class BetsIn:
    """Bets (API form, accepted order; ``None`` = not given) and the player-banker."""

    bets: list[dict[str, Any]] | None = None
    player_banker: dict[str, Any] | None = None

    @classmethod
    def of(
        cls, bets: Sequence[BetIn] | None, player_banker: PlayerBankerIn | None = None
    ) -> BetsIn:
        return cls(
            None if bets is None else [b.model_dump(exclude_none=True) for b in bets],
            None if player_banker is None else player_banker.model_dump(),
        )

    @property
    def given(self) -> bool:
        return self.bets is not None or self.player_banker is not None

    def objects(self) -> tuple[list[Bet], PlayerBanker | None]:
        """The core's view: bets (an absent list is empty) and the player-banker."""
        return bets_from_json(self.bets or []), player_banker_from_json(self.player_banker)


def as_locked(bets: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Bets (API form, validated) as a round locks them: a spectator's personal limits
    (個人限紅) reduced to the one of the bet's own type, the limit that bound that bet — every
    type's on every line of every bettor would outgrow a round's byte budget
    (:data:`baccarat_api.limits.ROUND_ITEM_BUDGET_BYTES`) now that each is a range."""
    out = []
    for bet in bets:
        limits = bet.get("personal_limits")
        if limits is not None:
            own = {k: v for k, v in limits.items() if k == bet["type"]}
            bet = {**bet, "personal_limits": own} if own else {
                k: v for k, v in bet.items() if k != "personal_limits"
            }  # fmt: skip
        out.append(bet)
    return out


def refused(exc: BetRefused) -> DomainError:
    """A refused bet list, with the refusal's stable code; details name the bettor, the bet (its
    index in the list and type), the violated limit and the attempted value."""
    data = exc.as_dict()
    details = {k: data[k] for k in ("bettor_id", "bet_index", "bet_type", "limit", "attempted")}
    return DomainError(exc.code.value, exc.message, details=details, retryable=False)
