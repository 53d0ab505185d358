"""A book's money slip by slip (:mod:`baccarat.bookmoney`) against the whole book settled at once
by :func:`baccarat.settlement.settle` — an independent recomputation: at a house-banked table
each bettor's result in the whole book is the slip's result alone, and the totals are the sums."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.bets import Bet, Role
from baccarat.bookmoney import BookTotals, slip_doc, slip_settlement
from baccarat.outcome import deal_round
from baccarat.paytables import BetType
from baccarat.profiles import BID_SQUEEZE, STAR_CITY, Banking, TableConfig, repo_tiers
from baccarat.settlement import settle

TIERS = repo_tiers()
HOUSE = [
    TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-standard"]),
    TableConfig(STAR_CITY, TIERS["star-city-fun"]),
]
TYPES = sorted(BetType, key=str)

slips = st.lists(
    st.dictionaries(st.sampled_from(TYPES), st.integers(1, 10**7), min_size=1, max_size=13),
    min_size=1,
    max_size=30,
)


@given(
    config=st.sampled_from(HOUSE),
    cards=st.lists(st.integers(0, 415), min_size=6, max_size=6),
    book=slips,
)
def test_each_slip_alone_is_its_bettor_in_the_whole_book(
    config: TableConfig, cards: list[int], book: list[dict[BetType, int]]
) -> None:
    rnd = deal_round(cards, 0)
    everyone = [
        Bet(bettor_id=f"b{n}", role=Role.SPECTATOR, type=t, amount=a, order=n)
        for n, slip in enumerate(book)
        for t, a in slip.items()
    ]
    whole = settle(config, rnd, everyone)
    nets = whole.nets()
    totals = BookTotals()
    halves = (BookTotals(), BookTotals())
    for n, slip in enumerate(book):
        alone = slip_settlement(
            config, rnd, [{"type": t.value, "amount": a} for t, a in slip.items()]
        )
        doc = slip_doc(alone)
        assert doc["net"] == nets[f"b{n}"]
        assert sum(line["net"] for line in doc["lines"]) - doc["commission"] == doc["net"]
        assert [line["type"] for line in doc["lines"]] == sorted(t.value for t in slip)
        totals.add(alone)
        halves[n % 2].add(alone)
    out = totals.as_dict()
    assert out["net"] == sum(nets.values())
    assert out["house"]["take"] == whole.house_take
    assert out["stake"] == sum(b.amount for b in everyone)
    for kind, sums in out["by_type"].items():
        mine = [line for line in whole.lines if line.type.value == kind]
        assert sums["stake"] == sum(line.stake for line in mine)
        assert sums["net"] == sum(line.net for line in mine)
    halves[0].merge(halves[1])
    assert halves[0].as_dict() == out
    assert BookTotals.from_dict(out).as_dict() == out


def test_only_at_a_house_banked_table() -> None:
    config = TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-high"], Banking.PLAYER_BANKER)
    lines: list[dict[str, Any]] = [{"type": "banker", "amount": 100}]
    with pytest.raises(ValueError, match="house-banked"):
        slip_settlement(config, deal_round(list(range(6)), 0), lines)
