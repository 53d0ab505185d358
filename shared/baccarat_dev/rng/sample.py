"""One pass over a run of shoes collects what every shoe section needs: the card × position
counts, each shoe's serial correlations, its Banker/Player runs, round 1's categories and result,
and the words the shuffle discarded. Runs of shoes are merged in shoe order, so the figures do
not depend on how the work was split."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from baccarat.outcome import Result, Round

from .outcomes import round_categories
from .positions import position_counts
from .serial import lag_correlations, points_of, shoe_runs
from .stats import NO_RUNS, Runs

#: Round-1 result codes, in shoe order (for the runs test across shoes).
RESULT_CODE = {Result.BANKER: 1, Result.PLAYER: 0, Result.TIE: 2}


class ShoeLike(Protocol):
    """What the sections read of one shoe: a production ``baccarat.fairness.Shoe`` has it all."""

    @property
    def cards(self) -> Sequence[int]: ...
    @property
    def rounds(self) -> tuple[Round, ...]: ...
    @property
    def words_discarded(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Dealt:
    """A shoe from a generator other than the production one (the controls)."""

    cards: Sequence[int]
    rounds: tuple[Round, ...]
    words_discarded: int = 0


@dataclass(frozen=True, slots=True)
class ShoeSample:
    shoes: int
    counts: NDArray[np.int64]  # positions × 52
    lag_r: NDArray[np.float64]  # shoes × lags
    runs: Runs  # within shoes
    first_results: NDArray[np.int8]  # shoes, RESULT_CODE of round 1
    categories: Counter[tuple[str, str]]  # round 1
    discarded: int

    def __add__(self, other: ShoeSample) -> ShoeSample:
        return ShoeSample(
            self.shoes + other.shoes,
            self.counts + other.counts,
            np.concatenate((self.lag_r, other.lag_r)),
            self.runs + other.runs,
            np.concatenate((self.first_results, other.first_results)),
            self.categories + other.categories,
            self.discarded + other.discarded,
        )

    def across_sequence(self) -> list[int]:
        """Round-1 results of consecutive shoes as 1 (Banker) / 0 (Player), ties left out."""
        return [int(r) for r in self.first_results if r != RESULT_CODE[Result.TIE]]


def collect(shoes: Iterable[ShoeLike]) -> ShoeSample:
    cards: list[Sequence[int]] = []
    runs = NO_RUNS
    first: list[int] = []
    categories: Counter[tuple[str, str]] = Counter()
    discarded = 0
    for shoe in shoes:
        cards.append(shoe.cards)
        runs += shoe_runs(shoe.rounds)
        first_round = shoe.rounds[0]
        first.append(RESULT_CODE[first_round.result])
        categories.update(round_categories(first_round))
        discarded += shoe.words_discarded
    table = np.array(cards, dtype=np.int64)
    return ShoeSample(
        shoes=len(cards),
        counts=position_counts(table),
        lag_r=lag_correlations(points_of(table)),
        runs=runs,
        first_results=np.array(first, dtype=np.int8),
        categories=categories,
        discarded=discarded,
    )


def merge(parts: Sequence[ShoeSample]) -> ShoeSample:
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total
