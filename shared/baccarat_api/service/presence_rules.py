"""The rules every presence change holds, at a listed table or a book table alike: one place
per person at a table, the tier's minimum balance for a place, and a balance report that
removes someone below it (seed 000)."""

from __future__ import annotations

from baccarat.profiles import TableConfig
from baccarat_api.ports.records import LiveRecord
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import PresenceOut, RemovedOut
from baccarat_api.service.seating import where


def already_present(bettor_id: str, found: str) -> DomainError:
    return DomainError(
        "already_present",
        f"{bettor_id} is already at this table ({found}); leave there first",
        details={"bettor_id": bettor_id, "where": found},
    )


def elsewhere(live: LiveRecord, bettor_id: str, here: str) -> None:
    """Refuse someone the live state holds at another place of the table."""
    found = where(live, bettor_id)
    if found is not None and found != here:
        raise already_present(bettor_id, found)


def required_balance(config: TableConfig, *, banker: bool = False) -> int:
    tier = config.tier
    return tier.player_banker_min_balance if banker else tier.bettor_min_balance


def min_balance(config: TableConfig, balance: int, *, banker: bool = False) -> None:
    need = required_balance(config, banker=banker)
    if balance < need:
        # a seat and a spectator place need the same balance: no place to send the bettor to
        if banker:
            code, where = "player_banker_below_min_balance", "for the player-banker seat"
        else:
            code = "below_min_balance"
            where = "to bet at this table" + (
                ", seated or as a spectator" if config.profile.spectators_may_bet else ""
            )
        raise DomainError(
            code,
            f"a balance of at least {need} is needed {where}",
            details={"limit": need, "attempted": balance},
        )


class Removal:
    """Who a balance report removed (seed 000: a balance below the tier's minimum for someone
    already at the table removes them, as a settlement does): set by a decision, told in the
    answer (``removed``). A decision decided again (lost to another change) starts afresh."""

    def __init__(self) -> None:
        self.out: RemovedOut | None = None

    def below(self, config: TableConfig, bettor_id: str, where: str, balance: int) -> bool:
        """Whether ``balance`` is below ``where``'s minimum (then noted as this removal)."""
        need = required_balance(config, banker=where == "banker")
        self.out = None
        if balance >= need:
            return False
        self.out = RemovedOut(
            bettor_id=bettor_id, where=where, reason="balance", limit=need, attempted=balance
        )
        return True

    def answer(self, out: PresenceOut) -> PresenceOut:
        return out if self.out is None else out.model_copy(update={"removed": self.out})
