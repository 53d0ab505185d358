"""The beacon source port: the rounds of one pinned beacon chain (drand ``quicknet`` in AWS, the
local test beacon on ``make run``), each **verified** before it is answered — an adapter never
returns a beacon whose BLS signature does not check under the chain's public key."""

from __future__ import annotations

from typing import Protocol

from baccarat.beacon import Beacon, Chain


class BeaconSource(Protocol):
    #: The chain every answer belongs to (pinned, never taken from a relay).
    chain: Chain

    def get(self, round_: int) -> Beacon | None:
        """Round ``round_``, verified; ``None`` while no relay serves it verified (not published
        yet, or every relay down, slow or wrong). The caller's clock decides when to give up."""
        ...

    def latest(self) -> Beacon | None:
        """The newest round a relay serves, verified; ``None`` as for :meth:`get`."""
        ...
