"""bacc-pf-v2's draw in the RNG report: shoes dealt round by round by the production draw
(``baccarat.fairness_v2``) with seeded, random beacons and book roots, under the same card ×
position, serial and round-1 outcome statistics as v1's shoes.

Each round ``r`` of shoe ``i`` of a report table gets the book root and the beacon signature
that ``SHA-512("bacc-rng-report/" ‖ seed ‖ "/" ‖ label ‖ "/" ‖ i ‖ "/" ‖ r)`` gives (anyone can
reproduce them; a real beacon's signature is as unpredictable). A v2 shoe draws only the cards its
rounds use; so that every position is tested, the cards no round drew are drawn after the shoe's
end by the next round's key, one by one from the remaining cards (the same ``draw_card``)."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import replace

from baccarat.fairness import stream_words
from baccarat.fairness_v2 import BeaconDraw, RoundInput, draw_card, round_key, shoe_from_key_v2

from .outcomes import analyse_outcomes
from .positions import PositionAnalysis, analyse_positions
from .sample import Dealt, ShoeSample, collect
from .serial import analyse_serial
from .source import Table
from .stats import Check

#: The deck counts v2 is reported for: the two profiles' rules (``source.RULES_BY_DECKS``).
V2_DECKS = (4, 8)
SECTION = "v2"
#: A made-up chain hash for the report's beacons (the draw mixes it in like any other).
REPORT_CHAIN = hashlib.sha256(b"bacc-rng-report beacon chain").digest()


def round_input(table: Table, shoe_number: int, number: int) -> RoundInput:
    """Round ``number``'s seeded book root and beacon."""
    text = f"bacc-rng-report/{table.seed}/{table.label}/{shoe_number}/{number}"
    digest = hashlib.sha512(text.encode()).digest()
    beacon = BeaconDraw(REPORT_CHAIN, shoe_number * 10_000 + number, digest[:48])
    return RoundInput(book_root=hashlib.sha256(digest).digest(), beacon=beacon)


def v2_shoe(table: Table, secret: bytes, shoe_number: int) -> Dealt:
    """Shoe ``shoe_number`` dealt by v2 to its end, completed to a whole permutation."""
    key = table.key(secret, shoe_number)
    inputs = (round_input(table, shoe_number, n) for n in itertools.count(1))
    shoe = shoe_from_key_v2(key, table.rules, inputs, until_end=True)
    cards = list(shoe.cards[: shoe.cards_drawn])
    rest = list(shoe.cards[shoe.cards_drawn :])
    after = len(shoe.draws) + 1
    extra = round_input(table, shoe_number, after)
    assert extra.beacon is not None
    words = stream_words(round_key(key, after, extra.book_root, extra.beacon))
    while rest:
        cards.append(draw_card(words, rest))
    return Dealt(tuple(cards), shoe.rounds)


def v2_shoes(table: Table, secrets: list[bytes], first_number: int) -> Iterator[Dealt]:
    for offset, secret in enumerate(secrets):
        yield v2_shoe(table, secret, first_number + offset)


def v2_shoe_task(table: Table, secrets: list[bytes], first: int) -> ShoeSample:
    return collect(v2_shoes(table, secrets, first))


def v2_checks(decks: int, sample: ShoeSample) -> tuple[PositionAnalysis, list[Check]]:
    """The positions, serial and outcome checks of v1's sections, on v2's shoes (and the card ×
    position table, for the report's heatmap)."""
    positions = analyse_positions(sample.counts, decks)
    checks = [
        *positions.checks(SECTION),
        *analyse_serial(decks, sample.lag_r, sample.runs, sample.across_sequence()).checks(SECTION),
        *analyse_outcomes(decks, sample.categories, sample.shoes).checks(SECTION),
    ]
    return positions, [replace(c, group=f"{decks} decks, bacc-pf-v2") for c in checks]
