"""The HMAC-SHA-256 stream through the SP 800-22 subset, in two views:

* **long streams**: sequence ``s`` is the first 10⁶ bits of one shoe key's stream
  (``block_0 ‖ block_1 ‖ …``), the key of shoe ``s`` of a table of its own: HMAC in counter mode
  under one key, far beyond the 52 blocks a shoe uses;
* **as dealt**: the 416 words (52 blocks) that each 8-deck shoe of the card × position section
  actually consumes, shoe after shoe: sequence ``j`` is the first 10⁶ bits of shoes
  ``76j + 1 … 76j + 76`` — what crosses from key to key, as the shuffles read it.

Bits are the stream's bytes in order, most significant bit first: the spec's big-endian u32
words, word after word (checked against :func:`~baccarat.fairness.stream_words`)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice

import numpy as np
from numpy.typing import NDArray

from baccarat.fairness import stream_block, stream_words
from baccarat.rules import BID_SQUEEZE_RULES

from . import nist
from .stats import Check, binomial_two_sided

STREAM_TABLE_RULES = BID_SQUEEZE_RULES
SEQUENCE_BITS = 1_000_000
#: An 8-deck shuffle and its cut card read 416 words: 52 blocks.
DEALT_BLOCKS = 52
SHOES_PER_DEALT_SEQUENCE = -(-SEQUENCE_BITS // (DEALT_BLOCKS * 256))
SECTION = "stream"


def _blocks(key: bytes, blocks: int) -> bytes:
    return b"".join(stream_block(key, j) for j in range(blocks))


def check_words(key: bytes, data: bytes) -> None:
    """The bytes are the spec's word stream (``stream_words``), word for word."""
    words = len(data) // 4
    expected = np.array(list(islice(stream_words(key), words)), dtype=">u4").tobytes()
    if expected != data[: 4 * words]:
        raise AssertionError("stream_block bytes differ from stream_words")


def long_stream_bits(key: bytes, n_bits: int) -> nist.Bits:
    data = _blocks(key, -(-n_bits // 256))
    check_words(key, data[:1664])
    return nist.bits_of(data)[:n_bits]


def dealt_bits(keys: list[bytes], n_bits: int = SEQUENCE_BITS) -> nist.Bits:
    """The first ``n_bits`` of the 52-block prefixes of ``keys``' streams, concatenated."""
    check_words(keys[0], _blocks(keys[0], DEALT_BLOCKS))
    return nist.bits_of(b"".join(_blocks(k, DEALT_BLOCKS) for k in keys))[:n_bits]


def long_stream_p_values(keys: list[bytes]) -> NDArray[np.float64]:
    """One row of :data:`nist.TESTS` p-values per key."""
    return np.array([nist.battery(long_stream_bits(k, SEQUENCE_BITS)) for k in keys])


def dealt_p_values(key_groups: list[list[bytes]]) -> NDArray[np.float64]:
    return np.array([nist.battery(dealt_bits(keys)) for keys in key_groups])


@dataclass(frozen=True, slots=True)
class Battery:
    """One view's p-values (sequences × tests) and section 4.2's assessment of each test."""

    name: str
    p_values: NDArray[np.float64]

    @property
    def sequences(self) -> int:
        return int(self.p_values.shape[0])

    @property
    def bits(self) -> int:
        return self.sequences * SEQUENCE_BITS

    @property
    def levels(self) -> tuple[nist.SecondLevel, ...]:
        return tuple(
            nist.second_level(test, self.p_values[:, i]) for i, test in enumerate(nist.TESTS)
        )

    def checks(self) -> list[Check]:
        """Per test: the uniformity of its p-values (P-value_T) and the number of sequences that
        fail at α = 0.01 against Binomial(sequences, 0.01) (exact, two-sided) — the two
        second-level assessments of section 4.2, as p-values for the report's family."""
        out = []
        sample = f"{self.sequences:,} × 10⁶ bits"
        for level in self.levels:
            failed = level.sequences - level.passed
            out.append(
                Check(
                    SECTION,
                    self.name,
                    f"{level.test}: uniformity of p-values (4.2.2)",
                    sample,
                    f"χ² = {level.uniformity_chi2:.2f}, df = 9",
                    level.uniformity_p,
                )
            )
            out.append(
                Check(
                    SECTION,
                    self.name,
                    f"{level.test}: proportion passing (4.2.1)",
                    sample,
                    f"{level.passed}/{level.sequences} = {level.proportion:.4f}",
                    binomial_two_sided(failed, level.sequences, nist.ALPHA),
                )
            )
        return out


def battery_checks(p_values: NDArray[np.float64], name: str = "sequences") -> list[Check]:
    """Every p-value of a few sequences as its own check (the fixed-seed subset)."""
    return [
        Check(
            SECTION,
            name,
            f"sequence {s + 1}: {test}",
            f"{SEQUENCE_BITS:,} bits",
            "SP 800-22",
            float(p_values[s, i]),
        )
        for s in range(p_values.shape[0])
        for i, test in enumerate(nist.TESTS)
    ]
