"""A :class:`~baccarat_api.ports.beacon.BeaconSource` for the service's unit tests: the local test
beacon's signer (``baccarat_dev.beacon_local.LocalBeacon``, a fixed key) on the test's
``ManualClock`` — a round exists once the clock reaches its time, never before — and an outage
switch (``down``) under which nothing is answered, as when every drand relay fails."""

from __future__ import annotations

from baccarat.beacon import Beacon, Chain
from baccarat_api.clock import ms_of
from baccarat_dev.beacon_local import LocalBeacon
from support.clock import ManualClock


class FakeBeacon:
    def __init__(
        self, clock: ManualClock, secret: int = 0x7E57, period_ms: int = 3_000, genesis_ms: int = 0
    ) -> None:
        self._signer = LocalBeacon(
            secret=secret, period_ms=period_ms, genesis_ms=genesis_ms, clock=lambda: ms_of(clock())
        )
        self.chain: Chain = self._signer.chain
        self.down = False
        self.asked: list[int | None] = []

    def get(self, round_: int) -> Beacon | None:
        self.asked.append(round_)
        if self.down or not 1 <= round_ <= self._signer.latest_round():
            return None
        return self._signer.sign(round_)

    def latest(self) -> Beacon | None:
        self.asked.append(None)
        latest = self._signer.latest_round()
        return None if self.down or latest < 1 else self._signer.sign(latest)
