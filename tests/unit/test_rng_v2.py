"""The RNG report's bacc-pf-v2 shoes (``baccarat_dev/rng/v2.py``): dealt by the production draw
to their end, completed to a whole permutation by the same draw, and judged by v1's checks."""

from __future__ import annotations

import itertools

from baccarat.fairness_v2 import shoe_from_key_v2
from baccarat.rules import BID_SQUEEZE_RULES, STAR_CITY_RULES
from baccarat_dev.rng.positions import analyse_positions
from baccarat_dev.rng.serial import analyse_serial
from baccarat_dev.rng.source import Table
from baccarat_dev.rng.v2 import SECTION, round_input, v2_shoe, v2_shoe_task


def test_a_report_shoe_is_the_v2_shoe_then_the_undrawn_cards_drawn_after_its_end() -> None:
    table = Table("test seed", "v2 test table", BID_SQUEEZE_RULES, 3)
    _, secrets = table.secrets()
    for number, secret in enumerate(secrets, start=1):
        dealt = v2_shoe(table, secret, number)
        inputs = (round_input(table, number, n) for n in itertools.count(1))
        real = shoe_from_key_v2(table.key(secret, number), table.rules, inputs, until_end=True)
        assert sorted(dealt.cards) == list(range(416))
        assert dealt.cards[: real.cards_drawn] == real.cards[: real.cards_drawn]
        assert dealt.rounds == real.rounds
        # The tail is drawn, not left in increasing order.
        assert list(dealt.cards[real.cards_drawn :]) != sorted(real.cards[real.cards_drawn :])


def test_v2_shoes_make_whole_card_by_position_tables_for_v1s_checks() -> None:
    """(Round-1 outcomes need thousands of shoes: the report runs them, not this test.)"""
    table = Table("test seed", "v2 test table", STAR_CITY_RULES, 40)
    _, secrets = table.secrets()
    sample = v2_shoe_task(table, secrets, 1)
    assert sample.shoes == 40 and sample.counts.shape == (208, 52)
    assert (sample.counts.sum(axis=1) == 40).all()
    positions = analyse_positions(sample.counts, 4).checks(SECTION)
    serial = analyse_serial(4, sample.lag_r, sample.runs, sample.across_sequence())
    assert all(0 <= c.p_value <= 1 for c in [*positions, *serial.checks(SECTION)])
