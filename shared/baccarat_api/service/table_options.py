"""How a table's creation request becomes its record's options: the running-table fields and
``bet_behind``, each stored only where it applies (so other tables' items are stored as before),
and the request as the table's write id names it (a number or name not given is not named: the
same request names the same write as before tables had them)."""

from __future__ import annotations

from typing import Any

from baccarat.profiles import Banking, TableConfig
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import CreateTableRequest


def asked(request: CreateTableRequest) -> dict[str, Any]:
    """The request as its write id names it: an operator table's without the running table's
    options (which it does not store), so its stored bytes do not depend on them."""
    unstored = set() if request.dealing == "auto" else {"dealing", "pause_seconds"}
    if request.bet_behind != "book":
        unstored.add("bet_behind")
    unstored |= {f for f in ("number", "name") if getattr(request, f) is None}
    return request.model_dump(exclude=unstored)


def bet_behind(request: CreateTableRequest, config: TableConfig) -> dict[str, Any]:
    """The table record's ``bet_behind``: set only at a book table — a house-banked bid-squeeze
    table (elsewhere a slip's money depends on the whole book, or nobody bets behind: 422)."""
    if request.bet_behind != "book":
        return {}
    if config.profile.name != "bid-squeeze" or config.banking is not Banking.HOUSE:
        raise DomainError(
            "invalid_table",
            "bet_behind book is for house-banked bid-squeeze tables",
            details={
                "bet_behind": "book",
                "profile": config.profile.name,
                "banking": config.banking.value,
            },
        )
    return {"bet_behind": "book"}


def dealing(request: CreateTableRequest) -> dict[str, Any]:
    """The table record's running-table fields: set only at a running table."""
    if request.dealing != "auto":
        return {}
    return {"dealing": "auto", "pause_seconds": request.pause_seconds}
