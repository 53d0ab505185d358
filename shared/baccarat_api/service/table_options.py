"""How a table's creation request becomes its record's options: the running-table fields and
``bet_behind``, each stored only where it applies (so other tables' items are stored as before),
and the request as the table's write id names it (a number or name not given is not named: the
same request names the same write as before tables had them)."""

from __future__ import annotations

from typing import Any

from baccarat.beacon import Chain
from baccarat.profiles import Banking, TableConfig
from baccarat_api.limits import DEFAULT_FAIRNESS, FAIRNESS_V2
from baccarat_api.ports.documents import BeaconDoc
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import CreateTableRequest


def asked(request: CreateTableRequest) -> dict[str, Any]:
    """The request as its write id names it: an operator table's without the running table's
    options (which it does not store), so its stored bytes do not depend on them."""
    unstored = set() if request.dealing == "auto" else {"dealing", "pause_seconds"}
    if request.bet_behind != "book":
        unstored.add("bet_behind")
    if request.fairness == DEFAULT_FAIRNESS:
        unstored.add("fairness")
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


def fairness(request: CreateTableRequest, beacon: Chain | None) -> dict[str, Any]:
    """The table record's ``fairness`` and ``beacon``: set only at a bacc-pf-v2 table, which
    copies the deployment's beacon chain (``beacon``) for its life (at a book table too: its
    spectators' book is locked with the round, :mod:`.locking`). Refused (503 ``no_beacon``)
    where the deployment has no beacon."""
    if request.fairness != FAIRNESS_V2:
        return {}
    if beacon is None:
        raise DomainError(
            "no_beacon", "this deployment has no beacon: bacc-pf-v2 tables cannot open"
        )
    return {"fairness": FAIRNESS_V2, "beacon": beacon_doc(beacon)}


def beacon_doc(chain: Chain) -> BeaconDoc:
    """A beacon chain as a table stores and shows it."""
    return {
        "name": chain.name,
        "chain_hash": chain.chain_hash,
        "public_key": chain.public_key.hex(),
        "scheme": chain.scheme,
        "period_ms": chain.period_ms,
        "genesis_ms": chain.genesis_ms,
        "test": chain.is_test,
    }


def chain_of(doc: BeaconDoc) -> Chain:
    """The chain a table (or shoe) stored (:func:`beacon_doc`)."""
    return Chain(
        name=doc["name"],
        chain_hash=doc["chain_hash"],
        public_key=bytes.fromhex(doc["public_key"]),
        genesis_ms=doc["genesis_ms"],
        period_ms=doc["period_ms"],
        is_test=doc["test"],
        scheme=doc["scheme"],
    )
