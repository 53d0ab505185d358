"""Run every section of the report (on at most ``workers`` processes) and collect the results:
``python -m baccarat_dev.rng`` renders them (:mod:`.render`, :mod:`.plots`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from baccarat.rules import BID_SQUEEZE_RULES

from . import broken, subset
from .outcomes import OutcomeAnalysis, analyse_outcomes
from .positions import PositionAnalysis, analyse_positions
from .sample import ShoeSample, collect, merge
from .scaling import M_VALUES, ScalingAnalysis, analyse_draws, draw, shoe_discards_check
from .serial import SerialAnalysis, analyse_serial
from .source import DEFAULT_SEED, RULES_BY_DECKS, Table, check_anchor, shoes
from .stats import Check, holm
from .stream import (
    SHOES_PER_DEALT_SEQUENCE,
    STREAM_TABLE_RULES,
    Battery,
    dealt_p_values,
    long_stream_p_values,
)
from .v2 import V2_DECKS, v2_checks, v2_shoe_task

DECKS = (4, 6, 8)
SHOE_CHUNK = 5_000
SEQUENCE_CHUNK = 25
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Config:
    seed: str = DEFAULT_SEED
    shoes: int = 200_000  # per deck count
    draws: int = 1_000_000  # per m
    sequences: int = 1_000  # per stream view
    workers: int = 2
    v2_shoes: int = 50_000  # per deck count of V2_DECKS (a v2 shoe costs ~5× a v1 shoe)


@dataclass(frozen=True, slots=True)
class Control:
    """The fixed-seed subset of one section group, on production and on a broken generator."""

    what: str
    broken_by: str
    production: list[Check]
    broken: list[Check]


@dataclass
class Results:
    config: Config
    anchors: dict[str, tuple[Table, bytes]] = field(default_factory=dict)
    positions: list[PositionAnalysis] = field(default_factory=list)
    serial: list[SerialAnalysis] = field(default_factory=list)
    outcomes: list[OutcomeAnalysis] = field(default_factory=list)
    scaling: list[ScalingAnalysis] = field(default_factory=list)
    discards: list[Check] = field(default_factory=list)
    streams: list[Battery] = field(default_factory=list)
    controls: list[Control] = field(default_factory=list)
    v2: list[Check] = field(default_factory=list)  # bacc-pf-v2's draw
    v2_positions: list[PositionAnalysis] = field(default_factory=list)  # its card × position
    checks: list[Check] = field(default_factory=list)  # the family, Holm-adjusted
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    wall_seconds: float = 0.0


def _result_and_seconds(fn: Callable[..., T], *args: Any) -> tuple[T, float]:
    start = time.process_time()
    out = fn(*args)
    return out, time.process_time() - start


def _shoe_task(table: Table, secrets: list[bytes], first: int) -> ShoeSample:
    return collect(shoes(table, secrets, first))


def _scaling_task(key: bytes, m: int, draws: int) -> ScalingAnalysis:
    return analyse_draws(draw(key, m, draws))


def _controls_task() -> list[Control]:
    prod_shoes = subset.shoe_checks(subset.shoe_sample())
    off_by_one = subset.shoe_checks(subset.shoe_sample(broken.off_by_one_shuffle))
    riffle = subset.shoe_checks(subset.shoe_sample(broken.one_riffle))
    scaling = subset.scaling_checks()
    modulo = subset.scaling_checks(broken.modulo_uniform)
    stream = subset.stream_checks()
    stuck = subset.stream_checks(broken.stuck_bit_bits)
    h = holm
    return [
        Control(
            "card × position, serial, outcomes",
            "Fisher–Yates off by one (j = uniform(t))",
            h(prod_shoes),
            h(off_by_one),
        ),
        Control(
            "card × position, serial, outcomes",
            "one riffle of the unshuffled shoe",
            h(prod_shoes),
            h(riffle),
        ),
        Control("scaling", "x mod m, no rejection", h(scaling), h(modulo)),
        Control("stream", "lowest bit of every word stuck at 1", h(stream), h(stuck)),
    ]


class _Tasks:
    """The pool's pending tasks by section, each timed in CPU seconds where it runs."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.pending: dict[str, list[Future[tuple[Any, float]]]] = {}

    def submit(self, section: str, fn: Callable[..., Any], *args: Any) -> None:
        self.pending.setdefault(section, []).append(
            self.pool.submit(_result_and_seconds, fn, *args)
        )

    def results(self) -> dict[str, list[tuple[Any, float]]]:
        return {section: [f.result() for f in futures] for section, futures in self.pending.items()}


def run(config: Config) -> Results:
    start = time.perf_counter()
    res = Results(config)
    with ProcessPoolExecutor(max_workers=config.workers) as pool:
        tasks = _Tasks(pool)
        tasks.submit("controls", _controls_task)
        deck_tables = _submit_shoes(tasks, res)
        _submit_scaling(tasks, res)
        _submit_streams(tasks, res, deck_tables[8])
        _submit_v2_shoes(tasks, res)
        done = tasks.results()
    res.cpu_seconds = {s: sum(t for _, t in parts) for s, parts in done.items()}
    out = {s: [r for r, _ in parts] for s, parts in done.items()}
    _analyse_shoes(res, out)
    res.scaling = list(out["scaling"])
    res.streams = [
        Battery("long streams", np.concatenate(out["stream long"])),
        Battery("as dealt", np.concatenate(out["stream dealt"])),
    ]
    res.controls = out["controls"][0]
    for decks in V2_DECKS:
        positions, checks = v2_checks(decks, merge(out[f"{decks}-deck v2 shoes"]))
        res.v2_positions.append(positions)
        res.v2 += checks
    res.checks = holm(_family(res))
    res.wall_seconds = time.perf_counter() - start
    return res


def _submit_shoes(tasks: _Tasks, res: Results) -> dict[int, tuple[Table, list[bytes]]]:
    """The shoes of every deck count, in chunks; each table with its secrets."""
    config = res.config
    deck_tables: dict[int, tuple[Table, list[bytes]]] = {}
    for decks in DECKS:
        table = Table(config.seed, f"{decks}-deck table", RULES_BY_DECKS[decks], config.shoes)
        anchor, secrets = table.secrets()
        check_anchor(table, anchor, secrets)
        res.anchors[table.label] = (table, anchor)
        deck_tables[decks] = (table, secrets)
        for a in range(0, config.shoes, SHOE_CHUNK):
            tasks.submit(
                f"{decks}-deck shoes", _shoe_task, table, secrets[a : a + SHOE_CHUNK], a + 1
            )
    return deck_tables


def _submit_v2_shoes(tasks: _Tasks, res: Results) -> None:
    """bacc-pf-v2's shoes of each deck count (:mod:`.v2`), in chunks."""
    config = res.config
    for decks in V2_DECKS:
        label = f"{decks}-deck bacc-pf-v2 table"
        table = Table(config.seed, label, RULES_BY_DECKS[decks], config.v2_shoes)
        anchor, secrets = table.secrets()
        check_anchor(table, anchor, secrets)
        res.anchors[table.label] = (table, anchor)
        for a in range(0, config.v2_shoes, SHOE_CHUNK):
            chunk = secrets[a : a + SHOE_CHUNK]
            tasks.submit(f"{decks}-deck v2 shoes", v2_shoe_task, table, chunk, a + 1)


def _submit_scaling(tasks: _Tasks, res: Results) -> None:
    """``uniform(m)`` for every m, each from its own shoe key."""
    config = res.config
    scale = Table(config.seed, "scaling table", BID_SQUEEZE_RULES, len(M_VALUES))
    anchor, secrets = scale.secrets()
    res.anchors[scale.label] = (scale, anchor)
    for i, (m, secret) in enumerate(zip(M_VALUES, secrets, strict=True), start=1):
        tasks.submit("scaling", _scaling_task, scale.key(secret, i), m, config.draws)


def _submit_streams(tasks: _Tasks, res: Results, eight: tuple[Table, list[bytes]]) -> None:
    """The stream's two views: long streams of the stream table's keys, and the blocks the
    8-deck shoes consume, shoe after shoe."""
    config = res.config
    stream = Table(config.seed, "stream table", STREAM_TABLE_RULES, config.sequences)
    anchor, secrets = stream.secrets()
    res.anchors[stream.label] = (stream, anchor)
    keys = [stream.key(s, i) for i, s in enumerate(secrets, start=1)]
    for a in range(0, len(keys), SEQUENCE_CHUNK):
        tasks.submit("stream long", long_stream_p_values, keys[a : a + SEQUENCE_CHUNK])
    table, table_secrets = eight
    per = SHOES_PER_DEALT_SEQUENCE
    dealt_sequences = min(config.sequences, config.shoes // per)
    groups = [
        [table.key(table_secrets[i - 1], i) for i in range(j * per + 1, (j + 1) * per + 1)]
        for j in range(dealt_sequences)
    ]
    for a in range(0, len(groups), SEQUENCE_CHUNK):
        tasks.submit("stream dealt", dealt_p_values, groups[a : a + SEQUENCE_CHUNK])


def _analyse_shoes(res: Results, out: dict[str, list[Any]]) -> None:
    """Positions, serial structure, outcomes and discards of every deck count's shoes."""
    for decks in DECKS:
        sample: ShoeSample = merge(out[f"{decks}-deck shoes"])
        res.positions.append(analyse_positions(sample.counts, decks))
        res.serial.append(
            analyse_serial(decks, sample.lag_r, sample.runs, sample.across_sequence())
        )
        res.outcomes.append(analyse_outcomes(decks, sample.categories, sample.shoes))
        rules = RULES_BY_DECKS[decks]
        window = rules.cut_max - rules.cut_min + 1 if rules.has_cut_card else 0
        res.discards.append(
            shoe_discards_check("scaling", decks, sample.shoes, sample.discarded, window)
        )


def _family(res: Results) -> list[Check]:
    """Every check judged together (Holm-adjusted), in the report's order."""
    family: list[Check] = []
    for p in res.positions:
        family += p.checks("positions")
    for s in res.scaling:
        family += s.checks("scaling")
    family += res.discards
    for q in res.serial:
        family += q.checks("serial")
    for o in res.outcomes:
        family += o.checks("outcomes")
    for b in res.streams:
        family += b.checks()
    family += res.v2
    return family
