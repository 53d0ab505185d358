"""A deal's bets: one description from the validated request (or the book) to the round.

The contract's models (``BetIn``, ``PlayerBankerIn``) are validated once, into
:class:`DealBets` — the bets in API form (:class:`~baccarat_api.ports.documents.LockedBet`,
accepted order) and the player-banker. Everything else derives from that one value: the core's
objects (:class:`baccarat.bets.Bet`) that validation and settlement compute with
(:meth:`DealBets.objects`), and what the round locks, stores, hashes and answers
(:meth:`DealBets.locked_bets`: the same documents, each bettor's ref beside its id). A refused list
becomes a :class:`~baccarat_api.service.errors.DomainError` with the refusal's own code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

from baccarat.bets import Bet, PlayerBanker, bets_from_json, player_banker_from_json
from baccarat.validation import BetRefused
from baccarat_api.ports.documents import LockedBet, LockedPlayerBanker
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import BetIn, PlayerBankerIn

_Doc = TypeVar("_Doc", LockedBet, LockedPlayerBanker)

#: A bettor's ref (``baccarat.proofdoc.bettor_ref`` under the table's key), by bettor id.
Refs = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class DealBets:
    """A deal's bets (API form, accepted order; ``None``: not given) and its player-banker."""

    bets: list[LockedBet] | None = None
    player_banker: LockedPlayerBanker | None = None

    @classmethod
    def of(
        cls, bets: Sequence[BetIn] | None, player_banker: PlayerBankerIn | None = None
    ) -> DealBets:
        """The validated request's bets and player-banker."""
        return cls(
            None if bets is None else [as_doc(b) for b in bets],
            None if player_banker is None else cast(LockedPlayerBanker, player_banker.model_dump()),
        )

    @property
    def given(self) -> bool:
        return self.bets is not None or self.player_banker is not None

    def objects(self) -> tuple[list[Bet], PlayerBanker | None]:
        """The core's view: bets (an absent list is empty) and the player-banker."""
        return bets_from_json(self.bets or []), player_banker_from_json(self.player_banker)

    def locked_bets(self, refs: Refs) -> tuple[list[LockedBet], LockedPlayerBanker | None]:
        """The bets and player-banker as the round locks them: each with its ``bettor_ref``
        right after its ``bettor_id``, a spectator's personal limits reduced to the bet's own
        type (:func:`own_limit`)."""
        pb = self.player_banker
        locked_pb = None if pb is None else _with_ref(pb, refs(pb["bettor_id"]))
        return [_with_ref(own_limit(b), refs(b["bettor_id"])) for b in self.bets or []], locked_pb


def as_doc(bet: BetIn) -> LockedBet:
    """A validated bet in API form (unset fields left out)."""
    return cast(LockedBet, bet.model_dump(exclude_none=True))


def own_limit(bet: LockedBet) -> LockedBet:
    """``bet`` with a spectator's personal limits (個人限紅) reduced to the one of its own type,
    the limit that bound it — every type's on every line of every bettor would outgrow a round's
    byte budget (:data:`baccarat_api.limits.ROUND_ITEM_BUDGET_BYTES`)."""
    limits = bet.get("personal_limits")
    if limits is None:
        return bet
    own = {k: v for k, v in limits.items() if k == bet["type"]}
    if own:
        return {**bet, "personal_limits": own}
    return cast(LockedBet, {k: v for k, v in bet.items() if k != "personal_limits"})


def _with_ref(doc: _Doc, ref: str) -> _Doc:
    """``doc`` with ``bettor_ref`` right after its ``bettor_id`` (key order is stored)."""
    out: dict[str, object] = {}
    for key, value in doc.items():
        out[key] = value
        if key == "bettor_id":
            out["bettor_ref"] = ref
    return cast(_Doc, out)


def refusal(exc: BetRefused) -> DomainError:
    """The error of a refused bet list, with the refusal's stable code; details name the
    bettor, the bet (its index in the list and type), the violated limit and the attempted
    value."""
    data = exc.as_dict()
    details = {k: data[k] for k in ("bettor_id", "bet_index", "bet_type", "limit", "attempted")}
    return DomainError(exc.code.value, exc.message, details=details, retryable=False)
