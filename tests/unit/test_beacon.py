"""The beacon's arithmetic in the core (``baccarat.beacon``): round ↔ time as drand defines it
(round 1 at genesis, round r at genesis + (r − 1) × period), the beacon round of a lock (the first
round due at least ``BEACON_MARGIN_MS`` after it), the signed message, and the parsing of drand's
JSON. The BLS check itself: ``test_beacon_bls.py``."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from baccarat import beacon
from baccarat.beacon import QUICKNET, Beacon, BeaconError, Chain

KEY = QUICKNET.public_key
chains = st.builds(
    lambda genesis, period: beacon.local_chain(KEY, genesis, period),
    st.integers(0, 2**42),
    st.integers(1, 60_000),
)
moments = st.integers(0, 2**43)


@settings(max_examples=examples(3))
@given(chains, moments)
def test_a_moment_belongs_to_the_last_round_due_at_or_before_it(chain: Chain, t: int) -> None:
    r = beacon.round_at(chain, t)
    if t < chain.genesis_ms:
        assert r == 0
        return
    assert beacon.round_time(chain, r) <= t < beacon.round_time(chain, r + 1)


@settings(max_examples=examples(3))
@given(chains, st.integers(1, 2**40))
def test_a_round_is_current_from_its_time_until_the_next(chain: Chain, r: int) -> None:
    t = beacon.round_time(chain, r)
    assert beacon.round_at(chain, t) == r
    assert beacon.round_at(chain, t + chain.period_ms - 1) == r
    assert beacon.round_at(chain, t - 1) == r - 1


@settings(max_examples=examples(3))
@given(chains, moments, st.integers(0, 120_000))
def test_the_beacon_round_of_a_lock_is_the_first_due_a_margin_after_it(
    chain: Chain, lock: int, margin: int
) -> None:
    r = beacon.lock_round(chain, lock, margin)
    assert beacon.round_time(chain, r) >= lock + margin
    assert r == 1 or beacon.round_time(chain, r - 1) < lock + margin
    assert beacon.lock_before_round(chain, lock, r) == (
        margin > 0 or lock < beacon.round_time(chain, r)
    )


@settings(max_examples=examples(2))
@given(chains, moments)
def test_the_default_margin_leaves_the_lock_a_period_at_most_of_extra_wait(
    chain: Chain, lock: int
) -> None:
    wait = beacon.round_time(chain, beacon.lock_round(chain, lock)) - lock
    if lock + beacon.BEACON_MARGIN_MS <= chain.genesis_ms:  # before the chain: its first round
        assert wait == chain.genesis_ms - lock
        return
    assert beacon.BEACON_MARGIN_MS <= wait < beacon.BEACON_MARGIN_MS + chain.period_ms


def test_quicknet_known_times() -> None:
    # drand's docs: quicknet's genesis 1692803367 (2023-08-23T15:09:27Z), one round every 3 s
    assert beacon.round_time(QUICKNET, 1) == 1_692_803_367_000
    assert beacon.round_time(QUICKNET, 1000) == (1_692_803_367 + 999 * 3) * 1000
    assert beacon.round_at(QUICKNET, 1_692_803_366_999) == 0
    assert beacon.round_at(QUICKNET, 1_692_803_370_000) == 2
    # a lock 1 ms after round 1000's time waits for the first round ≥ 3.001 s later: 1002
    assert beacon.lock_round(QUICKNET, beacon.round_time(QUICKNET, 1000) + 1) == 1002
    assert beacon.lock_round(QUICKNET, beacon.round_time(QUICKNET, 1000)) == 1001


@settings(max_examples=examples(2))
@given(st.integers(0, beacon.ROUND_MAX))
def test_the_message_is_sha256_of_the_round_big_endian(r: int) -> None:
    raw = bytes((r >> (8 * (7 - i))) & 0xFF for i in range(8))
    assert beacon.message(r) == hashlib.sha256(raw).digest()


def test_the_message_of_round_1000_and_rounds_out_of_range() -> None:
    assert (
        beacon.message(1000).hex() == hashlib.sha256(bytes.fromhex("00000000000003e8")).hexdigest()
    )
    for bad in (-1, 2**64):
        with pytest.raises(BeaconError):
            beacon.message(bad)


SIG = bytes.fromhex(
    "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39"
)


def test_a_drand_answer_parses_and_its_randomness_is_sha256_of_the_signature() -> None:
    doc = {
        "round": 1000,
        "randomness": "fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd",
        "signature": SIG.hex(),
    }
    got = beacon.beacon_from_json(QUICKNET, doc)
    assert got == Beacon(QUICKNET.chain_hash, 1000, SIG, is_test=False)
    assert got.randomness.hex() == doc["randomness"]
    assert got.to_json() == doc


@pytest.mark.parametrize(
    "doc",
    [
        {"round": 0, "signature": SIG.hex()},
        {"round": "1000", "signature": SIG.hex()},
        {"round": True, "signature": SIG.hex()},
        {"round": 2**64, "signature": SIG.hex()},
        {"round": 1000, "signature": SIG.hex()[:-2]},
        {"round": 1000, "signature": SIG.hex().upper()},
        {"round": 1000, "signature": SIG.hex() + "00"},
        {"round": 1000},
        {"round": 1000, "signature": SIG.hex(), "randomness": "00" * 32},
    ],
)
def test_a_malformed_answer_is_refused(doc: dict[str, object]) -> None:
    with pytest.raises(BeaconError):
        beacon.beacon_from_json(QUICKNET, doc)


def test_a_test_beacon_chain_has_its_own_hash_and_says_it_is_a_test() -> None:
    local = beacon.local_chain(QUICKNET.public_key, QUICKNET.genesis_ms, QUICKNET.period_ms)
    assert local.is_test and not QUICKNET.is_test
    assert local.chain_hash != QUICKNET.chain_hash
    assert local.chain_hash != beacon.local_chain(KEY, QUICKNET.genesis_ms, 1000).chain_hash
    info = beacon.chain_info_json(local)
    assert info["hash"] == local.chain_hash and info["period_ms"] == QUICKNET.period_ms
    assert "period_ms" not in beacon.chain_info_json(QUICKNET)


def test_a_chain_refuses_a_bad_key_or_period() -> None:
    with pytest.raises(BeaconError):
        beacon.local_chain(KEY[:48], 0, 3000)
    with pytest.raises(BeaconError):
        beacon.local_chain(KEY, 0, 0)


QUICKNET_INFO = {  # drand's /info for quicknet, as its relays serve it
    "public_key": QUICKNET.public_key.hex(),
    "period": 3,
    "genesis_time": 1692803367,
    "hash": QUICKNET.chain_hash,
    "groupHash": "f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e",
    "schemeID": "bls-unchained-g1-rfc9380",
    "metadata": {"beaconID": "quicknet"},
}


def test_an_info_answer_names_quicknet_only_with_quicknets_parameters() -> None:
    assert beacon.chain_from_info(QUICKNET_INFO) is QUICKNET
    local = beacon.local_chain(KEY, 1_000, 500)
    assert beacon.chain_from_info(beacon.chain_info_json(local)) == local
    for change in (
        {"period": 30},
        {"genesis_time": 1692803368},
        {"schemeID": "pedersen-bls-chained"},
        {"public_key": "00" * 96},
        {"hash": "00" * 32},  # not quicknet, and no test beacon's own hash
    ):
        with pytest.raises(BeaconError):
            beacon.chain_from_info(QUICKNET_INFO | change)
    with pytest.raises(BeaconError):  # a test beacon claiming another test beacon's hash
        beacon.chain_from_info(beacon.chain_info_json(local) | {"period_ms": 501})
