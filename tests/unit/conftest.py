"""Unit tier: the pure core, and every use case over the in-memory repository and vault
(:mod:`baccarat_api.adapters.memory`): no AWS, no HTTP, seconds."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from support.clock import ManualClock

from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.jobs.seed import tier_docs

TIERS = Path(__file__).resolve().parents[2] / "infra" / "tiers.json"

#: The RNG evidence (marked slow) needs NumPy and SciPy, which the dev extra has and the test
#: extra of ``make unit`` has not.
collect_ignore = [] if importlib.util.find_spec("numpy") else ["test_rng_evidence.py"]


class Game:
    """A repository, a vault and a shoe cache, as one container of the service would have."""

    def __init__(self) -> None:
        self.clock = ManualClock()
        self.repo = MemoryRepository(self.clock)
        self.repo.put_tiers(tier_docs(TIERS))
        self.vault = MemoryVault()
        self.shoes = ShoeCache(self.vault)
        #: The shoe's table ref key, unsealed (as the service's finalisation gets it).
        self.ref_keys = self.shoes.ref_key


@pytest.fixture
def game() -> Game:
    return Game()


def star_city_bets() -> list[dict[str, Any]]:
    """A valid star-city (fun tier) round: two seated bettors."""
    return [
        {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker", "amount": 2000,
         "balance": 50_000, "level": 3},
        {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "tie", "amount": 100,
         "balance": 50_000, "level": 3},
        {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player", "amount": 1000,
         "balance": 20_000},
    ]  # fmt: skip
