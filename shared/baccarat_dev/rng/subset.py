"""The fixed-seed subset: the report's checks at small, fixed sample sizes (seconds), run by
``make test`` on the production derivation and, at the same sizes, on the broken generators of
:mod:`.broken` (which they must reject). The report runs it too, as its Controls section."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from baccarat.fairness import uniform
from baccarat.rules import STAR_CITY_RULES

from . import nist
from .broken import dealt
from .outcomes import analyse_outcomes
from .positions import analyse_positions
from .sample import ShoeSample, collect
from .scaling import analyse_draws, draw
from .serial import analyse_serial
from .source import Table, check_anchor, shoes
from .stats import Check
from .stream import STREAM_TABLE_RULES, battery_checks, long_stream_bits

SEED = "bacc-pf-v1 rng fixed-seed subset"
DECKS = 4
SHOES = 5_000
DRAWS = 20_000
M_VALUES = (416, (1 << 31) + 1, 3 << 30)
SEQUENCES = 8
SEQUENCE_BITS = 1_000_000

Shuffle = Callable[[bytes, int], list[int]]
Draw = Callable[[Iterator[int], int], int]
StreamBits = Callable[[bytes, int], nist.Bits]


def _table(label: str, length: int) -> tuple[Table, list[bytes]]:
    table = Table(SEED, label, STAR_CITY_RULES, length)
    anchor, secrets = table.secrets()
    check_anchor(table, anchor, secrets)
    return table, secrets


def shoe_sample(shuffle: Shuffle | None = None, n_shoes: int = SHOES) -> ShoeSample:
    """``n_shoes`` 4-deck star-city shoes: the production ``derive_shoe``, or ``shuffle`` on each
    shoe's real key with the production rounds dealt from its cards."""
    table, secrets = _table(f"subset {DECKS}-deck table", n_shoes)
    if shuffle is None:
        return collect(shoes(table, secrets, 1))
    n = table.rules.size
    return collect(
        dealt(shuffle(table.key(secret, i), n), table.rules)
        for i, secret in enumerate(secrets, start=1)
    )


def shoe_checks(sample: ShoeSample) -> list[Check]:
    return [
        *analyse_positions(sample.counts, DECKS).checks("positions"),
        *analyse_serial(DECKS, sample.lag_r, sample.runs, sample.across_sequence()).checks(
            "serial"
        ),
        *analyse_outcomes(DECKS, sample.categories, sample.shoes).checks("outcomes"),
    ]


def scaling_checks(draw_fn: Draw = uniform, draws: int = DRAWS) -> list[Check]:
    table, secrets = _table("subset scaling table", len(M_VALUES))
    return [
        check
        for i, (m, secret) in enumerate(zip(M_VALUES, secrets, strict=True), start=1)
        for check in analyse_draws(draw(table.key(secret, i), m, draws, draw_fn)).checks("scaling")
    ]


def stream_checks(bits_fn: StreamBits = long_stream_bits) -> list[Check]:
    """Each of :data:`SEQUENCES` sequences through the battery; one check per p-value (too few
    sequences for the second-level assessment, which the report does on a thousand)."""
    table = Table(SEED, "subset stream table", STREAM_TABLE_RULES, SEQUENCES)
    _, secrets = table.secrets()
    keys = [table.key(s, i) for i, s in enumerate(secrets, start=1)]
    p = np.array([nist.battery(bits_fn(k, SEQUENCE_BITS)) for k in keys])
    return battery_checks(p)
