"""bacc-pf-v1 (``baccarat.fairness``): the spec's known-answer vector value by value, our own
stored vectors (``tests/vectors/*.json``, made by ``tests/make_vectors.py``), refusal of unsafe
rules, and properties of every shoe (hypothesis)."""

from __future__ import annotations

import hashlib
import inspect
import json
import random
import struct
from itertools import islice
from pathlib import Path
from typing import Any

import make_vectors
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from baccarat.cards import code, codes, parse_code
from baccarat.fairness import (
    FairnessError,
    Shoe,
    anchor_of,
    chain_step,
    client_hash,
    derive_shoe,
    play_rounds,
    shoe_key,
    shoe_secret,
    stream_block,
    stream_words,
    uniform,
    verify_link,
    walk_chain,
)
from baccarat.rules import (
    BID_SQUEEZE_RULES,
    PROFILE_RULES,
    STAR_CITY_RULES,
    ShoeRules,
    UnsafeRulesError,
)

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    assert data["spec"] == "bacc-pf-v1"
    return data


SHOES = load("shoes.json")["shoes"]
CLIENT_SEEDS = load("client_seeds.json")
UNIFORM = load("uniform.json")
CHAIN = load("chain.json")
RULES = load("rules.json")


# --- the spec's known-answer vector ---------------------------------------------------------------

SPEC_PHRASE = b"bacc-pf-v1 example chain secret - never use in production"
SPEC_S10 = "0aee648d33179fe6a0b97141dc549e510444876e8065745709cca0bfb6edbd49"
SPEC_ANCHOR = "cdde3d9965e506c2da1abc8577df22cbd6776269c294cd943e87bb7d44781d9a"
SPEC_S1 = "bc0d405a0361266fe6e6cee0ed4d5370cb4dfecffac340c17ee0bf1aaf2aca7b"
SPEC_SEED = "operator-7:table-12:shoe-seed"
SPEC_CLIENT_HASH = "b8fbb059f1b0269d422b6b6e2a7b0b9b4f31e02ec402e85e0277549532dfcc1b"
SPEC_K = "3822612b8d050edcc8c4ed0bc6547eaad2a0e61aabbdec4de1d1f0a104ec61fe"
SPEC_BLOCK0 = "2f702b340b6c94d287901f4baaf3f3fe7b4f70f01ad48951110dd5bd31b5b910"
SPEC_FIRST_12 = ["AS", "9C", "8D", "8D", "TD", "6H", "QS", "QS", "3H", "5C", "4S", "6C"]


@pytest.fixture(scope="module")
def spec_shoe() -> Shoe:
    return derive_shoe(bytes.fromhex(SPEC_S1), SPEC_SEED, 1, BID_SQUEEZE_RULES)


def test_spec_chain() -> None:
    s10 = hashlib.sha256(SPEC_PHRASE).digest()
    assert s10.hex() == SPEC_S10
    assert anchor_of(s10, 10).hex() == SPEC_ANCHOR
    assert shoe_secret(s10, 10, 1).hex() == SPEC_S1
    assert walk_chain(s10, 9).hex() == SPEC_S1
    assert chain_step(bytes.fromhex(SPEC_S1)).hex() == SPEC_ANCHOR
    assert verify_link(bytes.fromhex(SPEC_S1), 1, bytes.fromhex(SPEC_ANCHOR))
    assert verify_link(s10, 10, bytes.fromhex(SPEC_ANCHOR))
    assert not verify_link(s10, 9, bytes.fromhex(SPEC_ANCHOR))


def test_spec_client_hash_key_and_stream() -> None:
    assert BID_SQUEEZE_RULES.to_bytes() == bytes([8, 1, 14, 26, 0, 0])
    c_hash = client_hash(SPEC_SEED)
    assert c_hash.hex() == SPEC_CLIENT_HASH
    key = shoe_key(bytes.fromhex(SPEC_S1), c_hash, 1, BID_SQUEEZE_RULES)
    assert key.hex() == SPEC_K
    assert stream_block(key, 0).hex() == SPEC_BLOCK0
    # the stream is the blocks read as big-endian u32 words, 8 per block
    block0, block1 = stream_block(key, 0), stream_block(key, 1)
    assert list(islice(stream_words(key), 16)) == list(struct.unpack(">16I", block0 + block1))


def test_spec_shoe(spec_shoe: Shoe) -> None:
    shoe = spec_shoe
    assert codes(shoe.cards[:12]) == SPEC_FIRST_12
    assert shoe.cut_index == 393
    assert shoe.burn_exposed is not None and code(shoe.burn_exposed) == "AS"
    assert shoe.burn_count == 1
    assert shoe.first_start == 2
    assert len(shoe.rounds) == 78


@pytest.mark.parametrize(
    ("number", "start", "player", "banker", "totals", "result"),
    [
        (1, 2, "8D TD", "8D 6H", (8, 4), "player"),
        (2, 6, "QS 3H 4S", "QS 5C 6C", (7, 1), "player"),
        (78, 393, "4S 4H", "7H 9S", (8, 6), "player"),
    ],
)
def test_spec_rounds(
    spec_shoe: Shoe,
    number: int,
    start: int,
    player: str,
    banker: str,
    totals: tuple[int, int],
    result: str,
) -> None:
    rnd = spec_shoe.rounds[number - 1]
    assert rnd.number == number
    assert rnd.start == start
    assert codes(rnd.player) == player.split()
    assert codes(rnd.banker) == banker.split()
    assert (rnd.player_total, rnd.banker_total) == totals
    assert rnd.result.value == result


def test_spec_round_1_is_a_natural(spec_shoe: Shoe) -> None:
    assert spec_shoe.rounds[0].player_natural
    assert not spec_shoe.rounds[1].natural


def test_spec_uniform_boundary() -> None:
    m = 416
    assert 2**32 - (2**32 % m) == 4294967040
    assert uniform(iter([4294967039]), m) == 415
    words = iter([4294967040, 5, 99])
    assert uniform(words, m) == 5
    assert next(words) == 99  # exactly two words consumed: one discarded, one used


# --- stored vectors: shoes ----------------------------------------------------------------------


def shoe_rules(v: dict[str, Any]) -> ShoeRules:
    return ShoeRules(**v["rules"])


@pytest.mark.parametrize("v", SHOES, ids=[v["name"] for v in SHOES])
def test_shoe_vector(v: dict[str, Any]) -> None:
    rules = shoe_rules(v)
    secret = bytes.fromhex(v["secret"])
    seed: str = v["client_seed"]
    # the file's text is the seed's exact bytes (no editor normalisation crept in)
    assert seed.encode("utf-8").hex() == v["client_seed_utf8"]
    assert rules.to_bytes().hex() == v["rules_bytes"]

    c_hash = client_hash(seed)
    assert c_hash.hex() == v["client_hash"]
    key = shoe_key(secret, c_hash, v["shoe_number"], rules)
    assert key.hex() == v["key"]
    assert stream_block(key, 0).hex() == v["block_0"]

    shoe = derive_shoe(secret, seed, v["shoe_number"], rules)
    assert list(shoe.cards) == v["card_ids"]
    assert codes(shoe.cards) == v["cards"]
    assert shoe.cut_index == v["cut_index"]
    assert (None if shoe.burn_exposed is None else code(shoe.burn_exposed)) == v["burn_exposed"]
    assert shoe.burn_count == v["burn"]
    assert shoe.first_start == v["first_round_start"]
    assert shoe.words_used == v["words_used"]
    assert shoe.words_discarded == v["words_discarded"]
    got_rounds = [
        {
            "start": r.start,
            "player": codes(r.player),
            "banker": codes(r.banker),
            "player_total": r.player_total,
            "banker_total": r.banker_total,
            "result": r.result.value,
        }
        for r in shoe.rounds
    ]
    assert got_rounds == v["rounds"]
    assert [r.number for r in shoe.rounds] == list(range(1, len(v["rounds"]) + 1))
    if v["anchor"] is not None:
        anchor = bytes.fromhex(v["anchor"])
        assert verify_link(secret, v["shoe_number"], anchor)
        assert not verify_link(secret, v["shoe_number"] + 1, anchor)


def test_shoe_vectors_cover_the_brief() -> None:
    by_name = {v["name"]: v for v in SHOES}
    assert {v["rules"]["decks"] for v in SHOES} >= {4, 6, 8}
    profiles = {name: rules.as_dict() for name, rules in PROFILE_RULES.items()}
    assert by_name["star-city-4d"]["rules"] == profiles["star-city"]
    assert by_name["bid-squeeze-8d"]["rules"] == profiles["bid-squeeze"]
    assert by_name["custom-6d-burn-cut"]["rules"]["decks"] == 6
    assert by_name["empty-client-seed"]["client_seed"] == ""
    assert not by_name["non-ascii-client-seed"]["client_seed"].isascii()
    assert len(by_name["client-seed-256-bytes"]["client_seed"].encode()) == 256
    assert by_name["discarding-shoe"]["words_discarded"] >= 1
    # one vector ends by the round limit although it has a cut card, one by the cut card
    # although it has a round limit
    limit = by_name["custom-6d-fixed-cut-round-limit"]
    assert len(limit["rounds"]) == limit["rules"]["round_limit"]
    assert limit["rounds"][-1]["start"] < limit["cut_index"]
    cut = by_name["custom-4d-cut-before-limit"]
    assert len(cut["rounds"]) < cut["rules"]["round_limit"]


def test_discarding_shoe_really_discards() -> None:
    """The pinned shoe rejects a word; an implementation that skipped rejection (plain x mod m)
    would deal a different shoe, so this vector catches it."""
    v = next(v for v in SHOES if v["name"] == "discarding-shoe")
    rules = shoe_rules(v)
    shoe = derive_shoe(bytes.fromhex(v["secret"]), v["client_seed"], v["shoe_number"], rules)
    assert shoe.words_discarded >= 1
    assert shoe.words_used == rules.size - 1 + 1 + shoe.words_discarded  # shuffle + cut card
    assert list(shoe.cards) == v["card_ids"]
    for d in v["discards"]:
        assert d["word"] >= 2**32 - 2**32 % d["m"]

    words = stream_words(bytes.fromhex(v["key"]))
    naive = list(range(rules.size))
    for t in range(rules.size - 1, 0, -1):
        j = next(words) % (t + 1)
        naive[t], naive[j] = naive[j], naive[t]
    assert naive != list(shoe.cards)


def test_shuffle_rejects_exactly_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """White box: the shuffle inlines uniform's rejection (for speed) over its own word source,
    ``fairness._stream_words``. Real streams essentially never hit a limit exactly, so feed it
    crafted words — at limit, at limit − 1, the top word — and check it does what Fisher–Yates
    over the public ``uniform`` does on the same words (same cards, cut, counts)."""
    from baccarat import fairness

    rules = BID_SQUEEZE_RULES
    n = rules.size

    def lim(m: int) -> int:
        return 2**32 - 2**32 % m

    rng = random.Random(7)
    crafted: list[int] = []
    for t in range(n - 1, 0, -1):
        m = t + 1
        if m == 416:
            crafted += [lim(m), 5]  # at the limit: discarded
        elif m == 415:
            crafted += [lim(m) - 1]  # just below: kept, value m − 1 … (x mod m)
        elif m == 300:
            crafted += [2**32 - 1, lim(m), 7]  # two discards in a row
        else:
            crafted.append(rng.getrandbits(32) % lim(m))
    cut_m = rules.cut_max - rules.cut_min + 1
    crafted += [lim(cut_m), lim(cut_m) - 1]  # the cut card's draw discards too
    crafted += [0] * 64

    def fake_stream_words(key: bytes, first_block: int, blocks: int) -> list[int]:
        return crafted[8 * first_block : 8 * (first_block + blocks)]

    monkeypatch.setattr(fairness, "_stream_words", fake_stream_words, raising=True)
    shoe = fairness.shoe_from_key(bytes(32), rules)

    words = iter(crafted)
    want = list(range(n))
    for t in range(n - 1, 0, -1):
        j = uniform(words, t + 1)
        want[t], want[j] = want[j], want[t]
    want_cut = n - (rules.cut_min + uniform(words, cut_m))
    used = len(crafted) - len(list(words))

    assert list(shoe.cards) == want
    assert shoe.cut_index == want_cut == n - (rules.cut_min + (lim(cut_m) - 1) % cut_m)
    assert shoe.words_discarded == 4
    assert shoe.words_used == used == (n - 1) + 1 + 4


# --- stored vectors: client seeds, uniform, chain, rules --------------------------------------


@pytest.mark.parametrize("c", CLIENT_SEEDS["accepted"], ids=lambda c: c["name"])
def test_client_seed_accepted(c: dict[str, Any]) -> None:
    seed: str = c["client_seed"]
    assert seed.encode("utf-8").hex() == c["utf8"]
    assert len(seed.encode("utf-8")) == c["utf8_bytes"] <= 256
    assert client_hash(seed).hex() == c["client_hash"]


def test_client_seed_not_normalised_or_trimmed() -> None:
    by_name = {c["name"].split()[0]: c for c in CLIENT_SEEDS["accepted"]}
    nfc, nfd = by_name["cafe-nfc"], by_name["cafe-nfd"]
    assert nfc["client_hash"] != nfd["client_hash"]
    assert client_hash(nfc["client_seed"]) != client_hash(nfd["client_seed"])
    assert client_hash(" x") != client_hash("x") != client_hash("x ")


@pytest.mark.parametrize("c", CLIENT_SEEDS["refused"], ids=lambda c: c["name"])
def test_client_seed_refused(c: dict[str, Any]) -> None:
    seed: str = c["client_seed"]
    assert len(seed.encode("utf-8")) == c["utf8_bytes"] > 256
    with pytest.raises(FairnessError):
        client_hash(seed)
    with pytest.raises(FairnessError):
        derive_shoe(bytes(32), seed, 1, STAR_CITY_RULES)


@pytest.mark.parametrize(
    "c", UNIFORM["cases"], ids=lambda c: f"m={c['m']}-words={'_'.join(map(str, c['words']))}"
)
def test_uniform_vector(c: dict[str, Any]) -> None:
    m = c["m"]
    assert c["limit"] == 2**32 - 2**32 % m
    sentinel = 123456789
    words = iter([*c["words"], sentinel])
    assert uniform(words, m) == c["result"]
    assert next(words) == sentinel, "uniform consumed the wrong number of words"
    assert len(c["words"]) == c["consumed"]


def test_uniform_vectors_hit_both_sides_of_each_limit() -> None:
    """For every m with a limit below 2^32 the file has the word limit−1 (kept) and limit
    (discarded)."""
    for m in {c["m"] for c in UNIFORM["cases"]}:
        limit = 2**32 - 2**32 % m
        firsts = {c["words"][0]: c["consumed"] for c in UNIFORM["cases"] if c["m"] == m}
        assert firsts[limit - 1] == 1
        if limit < 2**32:
            assert firsts[limit] >= 2
    assert {1, 2, 3, 52, 416, 2**31, 2**31 + 1, 2**32 - 1, 2**32} <= {
        c["m"] for c in UNIFORM["cases"]
    }


@pytest.mark.parametrize("m", UNIFORM["refused_m"])
def test_uniform_refuses_m_out_of_range(m: int) -> None:
    with pytest.raises(FairnessError):
        uniform(iter([0, 1, 2]), m)


def test_chain_vector() -> None:
    secrets = [bytes.fromhex(s) for s in CHAIN["secrets"]]
    n = CHAIN["length"]
    top = bytes.fromhex(CHAIN["top_secret"])
    assert hashlib.sha256(CHAIN["phrase"].encode()).digest() == top == secrets[n]
    assert anchor_of(top, n).hex() == CHAIN["anchor"] == CHAIN["secrets"][0]
    for k in range(1, n + 1):
        assert chain_step(secrets[k]) == secrets[k - 1]
        assert shoe_secret(top, n, k) == secrets[k]
    for bad in (0, n + 1):
        with pytest.raises(FairnessError):
            shoe_secret(top, n, bad)


@pytest.mark.parametrize("link", CHAIN["links"])
def test_chain_link_vector(link: dict[str, Any]) -> None:
    got = verify_link(
        bytes.fromhex(link["secret"]), link["shoe_number"], bytes.fromhex(link["anchor"])
    )
    assert got is link["ok"]


@pytest.mark.parametrize("r", RULES["safe"], ids=lambda r: r["why"])
def test_safe_rules_accepted(r: dict[str, Any]) -> None:
    rules = ShoeRules(**r["rules"])
    assert rules.problems() == []
    assert rules.check() is rules
    shoe = derive_shoe(bytes(32), "safe", 1, rules)
    assert shoe.cards_used <= rules.size


@pytest.mark.parametrize("r", RULES["unsafe"], ids=lambda r: r["why"])
def test_unsafe_rules_refused(r: dict[str, Any]) -> None:
    rules = ShoeRules(**r["rules"])
    assert rules.problems()
    with pytest.raises(UnsafeRulesError):
        rules.check()
    with pytest.raises(UnsafeRulesError):
        derive_shoe(bytes(32), "unsafe", 1, rules)


def test_unsafe_rule_vectors_cover_every_refusal() -> None:
    whys = " | ".join(r["why"] for r in RULES["unsafe"])
    for reason in (
        "cut_min < 11 with a cut card",
        "no cut card and no round limit",
        "11 + 6·33 = 209 > 208",
        "3 decks",
        "9 decks",
        "burn 2",
        "cut_min > cut_max",
    ):
        assert reason in whys


def test_vector_files_match_their_generator() -> None:
    """``make_vectors.py`` (an independent implementation) still produces the stored files:
    nobody edited a vector by hand, and the generator has not drifted."""
    for name, text in make_vectors.render(make_vectors.build_all()).items():
        assert (VECTORS / name).read_text(encoding="utf-8") == text, name


# --- other refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 16, 31, 33, 64])
def test_secret_of_wrong_length_refused(length: int) -> None:
    with pytest.raises(FairnessError):
        derive_shoe(bytes(length), "x", 1, STAR_CITY_RULES)
    with pytest.raises(FairnessError):
        walk_chain(bytes(length), 1)
    assert not verify_link(bytes(length), 1, chain_step(bytes(length)))


@pytest.mark.parametrize("number", [0, -1, 2**32])
def test_shoe_number_outside_u32_refused(number: int) -> None:
    with pytest.raises(FairnessError):
        derive_shoe(bytes(32), "x", number, STAR_CITY_RULES)


# --- never running out of cards, even on the worst card order -------------------------------------


def all_tens(size: int) -> list[int]:
    """The worst order: every card worth 0, so every round takes 6 cards and a burn takes 11."""
    ten = parse_code("TS")
    return [ten] * size


@pytest.mark.parametrize("decks", [4, 5, 6, 7, 8])
def test_worst_case_with_cut_card_fits(decks: int) -> None:
    """cut_min = 11 is enough whatever the cursor: a round may start just before the cut card,
    use 6 cards, and one more round of 6 follows. Every start and cut position is tried."""
    rules = ShoeRules(decks, 1, 11, 11, 0).check()
    size = rules.size
    cards = all_tens(size)
    cut = size - 11
    ends = set()
    for start in range(0, 12):
        rounds = play_rounds(cards, start, rules, cut)
        assert rounds[-1].end <= size
        ends.add(rounds[-1].end)
    assert size in ends  # the bound is tight: some start uses the very last card


@pytest.mark.parametrize("decks", [4, 8])
def test_worst_case_cut_10_would_run_out(decks: int) -> None:
    """Why cut_min ≥ 11: with the cut card 10 from the end the worst order runs out."""
    size = 52 * decks
    rules = ShoeRules(decks, 1, 11, 11, 0)  # play_rounds only reads round_limit
    with pytest.raises(IndexError):
        for start in range(0, 12):
            play_rounds(all_tens(size), start, rules, size - 10)


@pytest.mark.parametrize("decks", [4, 5, 6, 7, 8])
def test_worst_case_round_limit_fits(decks: int) -> None:
    size = 52 * decks
    limit = (size - 11) // 6
    rules = ShoeRules(decks, 1, 0, 0, limit).check()
    rounds = play_rounds(all_tens(size), 11, rules, None)
    assert len(rounds) == limit
    assert rounds[-1].end == 11 + 6 * limit <= size
    with pytest.raises(UnsafeRulesError):
        ShoeRules(decks, 1, 0, 0, limit + 1).check()


# --- properties -------------------------------------------------------------------------------


@st.composite
def safe_rules(draw: st.DrawFn) -> ShoeRules:
    decks = draw(st.integers(4, 8))
    size = 52 * decks
    burn = draw(st.sampled_from([0, 1]))
    if draw(st.booleans()):
        top = min(255, size - 1)
        cut_min = draw(st.integers(11, top))
        cut_max = draw(st.integers(cut_min, top))
        round_limit = draw(st.sampled_from([0, 0, 1, 2]) | st.integers(0, 120))
    else:
        cut_min = cut_max = 0
        round_limit = draw(st.integers(1, (size - 11) // 6))
    return ShoeRules(decks, burn, cut_min, cut_max, round_limit).check()


client_seeds = st.text(max_size=100).filter(lambda s: len(s.encode("utf-8")) <= 256)


def expected_last_round(shoe: Shoe) -> int:
    """The number of rounds the spec's end-of-shoe rule allows, given the dealt rounds."""
    rules, rounds = shoe.rules, shoe.rounds
    candidates = []
    if rules.round_limit:
        candidates.append(rules.round_limit)
    if shoe.cut_index is not None:
        hit = next((r for r in rounds if r.end > shoe.cut_index), None)
        if hit is not None:
            candidates.append(hit.number if hit.start >= shoe.cut_index else hit.number + 1)
    assert candidates, "the shoe never ended"
    return min(candidates)


PROPERTY_SETTINGS = settings(max_examples=examples(1.2))


@PROPERTY_SETTINGS
@given(
    secret=st.binary(min_size=32, max_size=32),
    seed=client_seeds,
    number=st.integers(1, 2**32 - 1),
    rules=safe_rules(),
)
def test_every_shoe_is_a_tiled_permutation_that_ends_by_its_rules(
    secret: bytes, seed: str, number: int, rules: ShoeRules
) -> None:
    shoe = derive_shoe(secret, seed, number, rules)
    size = rules.size

    # a permutation of 0 … 52·D − 1
    assert sorted(shoe.cards) == list(range(size))

    # cut card within its window
    if rules.has_cut_card:
        assert shoe.cut_index is not None
        assert size - rules.cut_max <= shoe.cut_index <= size - rules.cut_min
    else:
        assert shoe.cut_index is None

    # burn: expose position 0, burn its value (10 for T/J/Q/K), start after
    if rules.burn:
        assert shoe.burn_exposed == shoe.cards[0]
        value = shoe.cards[0] % 13 + 1
        assert shoe.burn_count == (value if value <= 9 else 10)
        assert shoe.first_start == 1 + shoe.burn_count
    else:
        assert (shoe.burn_exposed, shoe.burn_count, shoe.first_start) == (None, 0, 0)

    # rounds tile the positions: no gap, no overlap, each card where the round says it is
    cursor = shoe.first_start
    for k, rnd in enumerate(shoe.rounds, 1):
        assert rnd.number == k
        assert rnd.start == cursor
        positions = sorted(rnd.player_positions + rnd.banker_positions)
        assert positions == list(range(rnd.start, rnd.end))
        assert rnd.player == tuple(shoe.cards[p] for p in rnd.player_positions)
        assert rnd.banker == tuple(shoe.cards[p] for p in rnd.banker_positions)
        cursor = rnd.end
    # never out of cards, and the shoe ends exactly where the rules say
    assert shoe.cards_used == cursor <= size
    assert len(shoe.rounds) == expected_last_round(shoe)


@PROPERTY_SETTINGS
@given(
    secret=st.binary(min_size=32, max_size=32),
    seed=client_seeds,
    number=st.integers(1, 2**32 - 1),
    rules=safe_rules(),
    other=st.binary(min_size=32, max_size=32),
)
def test_cards_depend_only_on_secret_seed_number_and_rules(
    secret: bytes, seed: str, number: int, rules: ShoeRules, other: bytes
) -> None:
    """Same inputs → same shoe (no hidden state: another shoe derived in between changes
    nothing), and the independent reference implementation of make_vectors.py agrees."""
    first = derive_shoe(secret, seed, number, rules)
    derive_shoe(other, seed + "x", number, rules)
    assert derive_shoe(secret, seed, number, rules) == first

    ref = make_vectors.ref_shoe(secret, seed, number, make_vectors.RefRules(**rules.as_dict()))
    assert ref["card_ids"] == list(first.cards)
    assert ref["cut_index"] == first.cut_index
    assert ref["burn"] == first.burn_count
    assert ref["words_discarded"] == first.words_discarded
    assert ref["rounds"] == [
        {
            "start": r.start,
            "player": codes(r.player),
            "banker": codes(r.banker),
            "player_total": r.player_total,
            "banker_total": r.banker_total,
            "result": r.result.value,
        }
        for r in first.rounds
    ]


def test_derive_shoe_takes_exactly_the_committed_inputs() -> None:
    assert list(inspect.signature(derive_shoe).parameters) == [
        "secret",
        "client_seed",
        "shoe_number",
        "rules",
    ]


@pytest.mark.parametrize(
    "change",
    ["secret", "seed", "number", "decks", "burn", "cut_min", "cut_max", "round_limit"],
)
def test_every_committed_input_changes_the_key(change: str) -> None:
    base = {"secret": bytes(range(32)), "seed": "s", "number": 5}
    rules = {"decks": 8, "burn": 1, "cut_min": 14, "cut_max": 26, "round_limit": 0}
    changed = {
        "secret": bytes(range(1, 33)),
        "seed": "S",
        "number": 6,
        "decks": 6,
        "burn": 0,
        "cut_min": 15,
        "cut_max": 25,
        "round_limit": 60,
    }
    b2, r2 = dict(base), dict(rules)
    (b2 if change in base else r2)[change] = changed[change]

    def key(b: dict[str, Any], r: dict[str, int]) -> bytes:
        return shoe_key(b["secret"], client_hash(b["seed"]), b["number"], ShoeRules(**r))

    assert key(base, rules) != key(b2, r2)
    one = derive_shoe(base["secret"], base["seed"], base["number"], ShoeRules(**rules))
    two = derive_shoe(b2["secret"], b2["seed"], b2["number"], ShoeRules(**r2))
    n = min(len(one.cards), len(two.cards))
    assert one.cards[:n] != two.cards[:n]


def test_verify_link_refuses_chains_longer_than_the_service_allows() -> None:
    from baccarat.fairness import MAX_CHAIN_LENGTH, verify_link

    secret = bytes(32)
    # A huge shoe number would otherwise mean billions of hash steps (a denial of service).
    assert verify_link(secret, MAX_CHAIN_LENGTH + 1, bytes(32)) is False
    assert verify_link(secret, 0, secret) is False
