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
    checks: list[Check] = field(default_factory=list)  # the family, Holm-adjusted
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    wall_seconds: float = 0.0


def _timed(fn: Callable[..., T], *args: Any) -> tuple[T, float]:
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


def run(config: Config) -> Results:
    start = time.perf_counter()
    res = Results(config)
    pending: dict[str, list[Future[tuple[Any, float]]]] = {}

    def submit(section: str, fn: Callable[..., Any], *args: Any) -> None:
        pending.setdefault(section, []).append(pool.submit(_timed, fn, *args))

    deck_tables: dict[int, tuple[Table, list[bytes]]] = {}
    with ProcessPoolExecutor(max_workers=config.workers) as pool:
        submit("controls", _controls_task)
        for decks in DECKS:
            table = Table(config.seed, f"{decks}-deck table", RULES_BY_DECKS[decks], config.shoes)
            anchor, secrets = table.secrets()
            check_anchor(table, anchor, secrets)
            res.anchors[table.label] = (table, anchor)
            deck_tables[decks] = (table, secrets)
            for a in range(0, config.shoes, SHOE_CHUNK):
                submit(f"{decks}-deck shoes", _shoe_task, table, secrets[a : a + SHOE_CHUNK], a + 1)
        scale = Table(config.seed, "scaling table", BID_SQUEEZE_RULES, len(M_VALUES))
        anchor, secrets = scale.secrets()
        res.anchors[scale.label] = (scale, anchor)
        for i, (m, secret) in enumerate(zip(M_VALUES, secrets, strict=True), start=1):
            submit("scaling", _scaling_task, scale.key(secret, i), m, config.draws)
        stream = Table(config.seed, "stream table", STREAM_TABLE_RULES, config.sequences)
        anchor, secrets = stream.secrets()
        res.anchors[stream.label] = (stream, anchor)
        keys = [stream.key(s, i) for i, s in enumerate(secrets, start=1)]
        for a in range(0, len(keys), SEQUENCE_CHUNK):
            submit("stream long", long_stream_p_values, keys[a : a + SEQUENCE_CHUNK])
        eight, eight_secrets = deck_tables[8]
        per = SHOES_PER_DEALT_SEQUENCE
        dealt_sequences = min(config.sequences, config.shoes // per)
        groups = [
            [eight.key(eight_secrets[i - 1], i) for i in range(j * per + 1, (j + 1) * per + 1)]
            for j in range(dealt_sequences)
        ]
        for a in range(0, len(groups), SEQUENCE_CHUNK):
            submit("stream dealt", dealt_p_values, groups[a : a + SEQUENCE_CHUNK])
        done = {section: [f.result() for f in futures] for section, futures in pending.items()}
    res.cpu_seconds = {s: sum(t for _, t in parts) for s, parts in done.items()}
    out = {s: [r for r, _ in parts] for s, parts in done.items()}

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
    res.scaling = list(out["scaling"])
    res.streams = [
        Battery("long streams", np.concatenate(out["stream long"])),
        Battery("as dealt", np.concatenate(out["stream dealt"])),
    ]
    res.controls = out["controls"][0]
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
    res.checks = holm(family)
    res.wall_seconds = time.perf_counter() - start
    return res
