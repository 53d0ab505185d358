"""bacc-pf-v2's draw (``baccarat.fairness_v2``): a whole shoe is one permutation of its decks;
a round's cards depend on ``K``, its book root and its beacon, and changing one of them changes
that round's cards and nothing before it; drawing from the remaining cards is exactly uniform
(enumerated, no statistics); the end of the shoe is v1's."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.shoe_strategies import key32
from support.shoe_strategies import round_inputs as inputs_strategy

from baccarat import booktree
from baccarat.cards import burn_count
from baccarat.fairness import FairnessError, stream_words, uniform
from baccarat.fairness_v2 import (
    EMPTY_ROOT,
    NO_BETS_ROOT,
    BeaconDraw,
    RoundInput,
    ShoeV2,
    draw_card,
    locked_root,
    round_key,
    seated_root,
    shoe_from_key_v2,
)
from baccarat.rules import BID_SQUEEZE_RULES, STAR_CITY_RULES, ShoeRules

round_inputs = inputs_strategy()
rule_sets = st.sampled_from(
    [STAR_CITY_RULES, BID_SQUEEZE_RULES, ShoeRules(6, 1, 11, 11, 0), ShoeRules(4, 1, 0, 0, 32)]
)


def _whole_shoe(key: bytes, rules: ShoeRules, inputs: list[RoundInput]) -> ShoeV2:
    """Deal round after round until the rules end the shoe (inputs cycled as needed)."""
    shoe = shoe_from_key_v2(key, rules, itertools.cycle(inputs), until_end=True)
    assert shoe.ended_by_rules
    return shoe


def _positions(shoe: ShoeV2) -> list[int]:
    """The shoe's drawn cards read back from the rounds and the burn, by position."""
    out = [] if shoe.burn_exposed is None else [shoe.burn_exposed, *shoe.burned]
    for r in shoe.rounds:
        assert r.start == len(out)
        out += [r.player[0], r.banker[0], r.player[1], r.banker[1], *r.player[2:], *r.banker[2:]]
    return out


@settings(max_examples=examples(1))
@given(key=key32, rules=rule_sets, inputs=st.lists(round_inputs, min_size=1, max_size=4))
def test_a_whole_shoe_is_one_permutation_of_its_decks(
    key: bytes, rules: ShoeRules, inputs: list[RoundInput]
) -> None:
    shoe = _whole_shoe(key, rules, inputs)
    assert sorted(shoe.cards) == list(range(rules.size))  # every card exactly once
    drawn = _positions(shoe)
    assert list(shoe.cards[: shoe.cards_drawn]) == drawn
    assert list(shoe.cards[shoe.cards_drawn :]) == sorted(shoe.cards[shoe.cards_drawn :])
    if rules.burn:
        assert shoe.burn_exposed is not None and len(shoe.burned) == burn_count(shoe.burn_exposed)
        assert shoe.first_start == 1 + len(shoe.burned)
    else:
        assert shoe.burn_exposed is None and shoe.first_start == 0
    if rules.cut_max:
        assert shoe.cut_index is not None
        assert rules.size - rules.cut_max <= shoe.cut_index <= rules.size - rules.cut_min
        last, before = shoe.rounds[-1], shoe.rounds[-2]
        # v1's end: the last round began behind the cut card, or the one before it reached it.
        assert last.end > shoe.cut_index
        assert last.start >= shoe.cut_index or (
            before.end > shoe.cut_index and before.start < shoe.cut_index
        )
    else:
        assert len(shoe.rounds) == rules.round_limit


@settings(max_examples=examples(1))
@given(
    key=key32,
    inputs=st.lists(round_inputs, min_size=3, max_size=6),
    data=st.data(),
    what=st.sampled_from(["book_root", "signature", "round", "chain_hash"]),
)
def test_changing_a_rounds_book_root_or_beacon_changes_its_cards_and_nothing_before(
    key: bytes, inputs: list[RoundInput], data: st.DataObject, what: str
) -> None:
    rules = BID_SQUEEZE_RULES
    r = data.draw(st.integers(1, len(inputs)))
    item = inputs[r - 1]
    assert item.beacon is not None
    beacon = item.beacon
    if what == "book_root":
        changed = replace(item, book_root=bytes([item.book_root[0] ^ 1]) + item.book_root[1:])
    elif what == "signature":
        sig = beacon.signature
        changed = replace(item, beacon=replace(beacon, signature=sig[:-1] + bytes([sig[-1] ^ 1])))
    elif what == "round":
        changed = replace(item, beacon=replace(beacon, round=beacon.round ^ 1))
    else:
        chain = bytes([beacon.chain_hash[0] ^ 0x80]) + beacon.chain_hash[1:]
        changed = replace(item, beacon=replace(beacon, chain_hash=chain))
    before = shoe_from_key_v2(key, rules, inputs)
    after = shoe_from_key_v2(key, rules, [*inputs[: r - 1], changed, *inputs[r:]])
    assert before.rounds[: r - 1] == after.rounds[: r - 1]
    assert before.draws[r - 1] != after.draws[r - 1]
    old, new = before.rounds[r - 1], after.rounds[r - 1]
    # Four or more cards out of ~400 remaining: equal only with probability ~2^-34.
    assert (old.player, old.banker) != (new.player, new.banker)
    if r == 1:  # round 1 also draws the burn: it changed with it
        assert before.cards[:12] != after.cards[:12]


@settings(max_examples=examples(1))
@given(key=key32, other=key32, inputs=st.lists(round_inputs, min_size=1, max_size=2))
def test_another_shoe_key_deals_other_cards(
    key: bytes, other: bytes, inputs: list[RoundInput]
) -> None:
    if key == other:
        return
    a = shoe_from_key_v2(key, STAR_CITY_RULES, inputs).rounds[0]
    b = shoe_from_key_v2(other, STAR_CITY_RULES, inputs).rounds[0]
    assert (a.player, a.banker) != (b.player, b.banker)


def test_drawing_from_the_remaining_cards_is_exactly_uniform() -> None:
    """Every word in [0, 12) is accepted by uniform(4), uniform(3), uniform(2), uniform(1) (12
    is their l.c.m.): over all 12⁴ word sequences, drawing the 4 remaining cards one by one
    gives each of the 4! orders exactly 12⁴ / 24 times — no card and no order is favoured."""
    counts: Counter[tuple[int, ...]] = Counter()
    for words in itertools.product(range(12), repeat=4):
        remaining = [10, 20, 30, 40]
        it = iter(words)
        counts[tuple(draw_card(it, remaining) for _ in range(4))] += 1
    assert sorted(counts) == sorted(itertools.permutations([10, 20, 30, 40]))
    assert set(counts.values()) == {12**4 // 24}


@pytest.mark.parametrize("m", [1, 3, 5, 52, 207, 416])
def test_a_word_at_the_limit_is_discarded_and_the_next_one_used(m: int) -> None:
    limit = 2**32 - 2**32 % m
    remaining = list(range(m))
    assert draw_card(iter([limit - 1]), remaining[:]) == (limit - 1) % m
    if limit < 2**32:
        assert draw_card(iter([limit, 2**32 - 1, 7]), remaining[:]) == 7 % m


def test_a_round_without_beacon_draws_nothing_and_the_limit_counts_dealt_rounds() -> None:
    beacon = BeaconDraw(bytes(32), 1, bytes(48))
    dealt = RoundInput(NO_BETS_ROOT, beacon)
    void = RoundInput(NO_BETS_ROOT, None)
    key = bytes(range(32))
    shoe = shoe_from_key_v2(key, STAR_CITY_RULES, [dealt, void, *[dealt] * 29])
    assert shoe.draws[1] is None and len(shoe.rounds) == 30 and shoe.ended_by_rules
    assert [r.number for r in shoe.rounds] == [1, *range(3, 32)]
    # The void took no card: round 3 starts where round 1 stopped.
    assert shoe.rounds[1].start == shoe.rounds[0].end
    with pytest.raises(FairnessError, match="ended after round 31"):
        shoe_from_key_v2(key, STAR_CITY_RULES, [dealt, void, *[dealt] * 30])


def test_the_cut_card_is_the_first_draw_of_ks_stream() -> None:
    key = bytes(range(32))
    shoe = shoe_from_key_v2(key, BID_SQUEEZE_RULES, [])
    assert shoe.cut_index == 416 - (14 + uniform(stream_words(key), 13))
    assert shoe.rounds == () and shoe.cards == tuple(range(416)) and not shoe.ended_by_rules


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((bytes(31), 1, NO_BETS_ROOT, BeaconDraw(bytes(32), 1, b"s")), "shoe key"),
        ((bytes(32), 0, NO_BETS_ROOT, BeaconDraw(bytes(32), 1, b"s")), "round number"),
        ((bytes(32), 1, bytes(31), BeaconDraw(bytes(32), 1, b"s")), "book root"),
        ((bytes(32), 1, NO_BETS_ROOT, BeaconDraw(bytes(33), 1, b"s")), "chain hash"),
        ((bytes(32), 1, NO_BETS_ROOT, BeaconDraw(bytes(32), 2**64, b"s")), "u64"),
        ((bytes(32), 1, NO_BETS_ROOT, BeaconDraw(bytes(32), 1, b"")), "signature"),
    ],
)
def test_round_key_refuses_what_does_not_encode(
    args: tuple[bytes, int, bytes, BeaconDraw], message: str
) -> None:
    with pytest.raises(FairnessError, match=message):
        round_key(*args)


def test_the_seated_root_has_one_leaf_per_seated_bettor_with_its_lines_order() -> None:
    bets = [
        {"bettor_ref": "br_b", "role": "seated", "seat": 2, "type": "player", "amount": 200},
        {"bettor_ref": "br_a", "role": "seated", "seat": 1, "type": "tie", "amount": 100},
        {"bettor_ref": "br_s", "role": "spectator", "type": "banker", "amount": 500},
        {"bettor_ref": "br_a", "role": "seated", "seat": 1, "type": "banker", "amount": 300},
    ]
    a = booktree.leaf_bytes("t_s1_r4", "br_a", "seated", [
        {"type": "tie", "amount": 100, "order": 0}, {"type": "banker", "amount": 300, "order": 1}
    ], seat=1)  # fmt: skip
    b = booktree.leaf_bytes(
        "t_s1_r4", "br_b", "seated", [{"type": "player", "amount": 200, "order": 0}], seat=2
    )
    assert seated_root("t_s1_r4", bets) == booktree.root([a, b])  # book order, no spectator
    assert seated_root("t_s1_r4", []) == EMPTY_ROOT
    assert locked_root(EMPTY_ROOT, EMPTY_ROOT) == NO_BETS_ROOT
    assert locked_root(a[:32], b[:32]) != locked_root(b[:32], a[:32])
    moved = [*bets[:3], {**bets[3], "seat": 3}]
    with pytest.raises(FairnessError, match="two seats"):
        seated_root("t_s1_r4", moved)
