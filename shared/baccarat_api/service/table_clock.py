"""The running table's steps, each when its tick is delivered: re-read the table, act only if
the tick is still its next step and due (then through the use case the operator would call,
conditional on the live state's ``seq``), else do nothing."""

from __future__ import annotations

from typing import Literal

from baccarat_api.ports.repository import Repository
from baccarat_api.ports.scheduler import Tick
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.ports.vault import SecretVault

#: What delivering a tick did: the step was taken; the tick was no longer the table's next step
#: (or the table changed: nothing written); it is not due yet (deliver again later).
Outcome = Literal["done", "stale", "early"]


def run_tick(repo: Repository, shoes: ShoeSource, vault: SecretVault, tick: Tick) -> Outcome:
    """Take the step ``tick`` names if it is still the table's next step and due. To be
    written."""
    return "stale"
