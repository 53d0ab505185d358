"""The BLS check of a beacon (``baccarat_bls``), against real drand ``quicknet`` rounds.

The rounds are ``tests/vectors/quicknet.json`` (where each came from is written there: public
records of drand's HTTP answers); they are genuine because they verify under quicknet's published
public key, which is ``baccarat.beacon.QUICKNET``'s. The JavaScript verifier checks the same file
(``web/test/drand.test.js``): both implementations agree on every vector and every tamper."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import make_beacon_vectors
import py_arkworks_bls12381 as ark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from baccarat import beacon
from baccarat.beacon import QUICKNET, Beacon
from baccarat_bls import verify_beacon, verify_signature

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "quicknet.json").read_text(encoding="utf-8")
)
ROUNDS: list[dict[str, Any]] = VECTORS["rounds"]
R1000 = next(v for v in ROUNDS if v["round"] == 1000)


def _beacon(vector: dict[str, Any]) -> Beacon:
    return beacon.beacon_from_json(QUICKNET, vector)


def test_the_vectors_are_quicknets() -> None:
    assert VECTORS["chain_hash"] == QUICKNET.chain_hash
    assert bytes.fromhex(VECTORS["public_key"]) == QUICKNET.public_key
    assert len(ROUNDS) >= 3


@pytest.mark.parametrize("vector", ROUNDS, ids=lambda v: f"round-{v['round']}")
def test_a_real_quicknet_round_verifies(vector: dict[str, Any]) -> None:
    got = _beacon(vector)
    assert verify_beacon(QUICKNET, got)
    assert got.randomness.hex() == vector["randomness"]


@pytest.mark.parametrize("vector", ROUNDS, ids=lambda v: f"round-{v['round']}")
def test_a_round_with_one_bit_of_its_signature_flipped_fails(vector: dict[str, Any]) -> None:
    sig = bytearray.fromhex(vector["signature"])
    for index in (0, 1, 24, 47):
        tampered = bytearray(sig)
        tampered[index] ^= 0x01
        assert not verify_signature(QUICKNET.public_key, vector["round"], bytes(tampered))


def test_a_signature_is_for_its_round_only() -> None:
    got = _beacon(R1000)
    for other in (0, 999, 1001, 2**64 - 1):
        assert not verify_beacon(QUICKNET, dataclasses.replace(got, round=other))
    others = [v for v in ROUNDS if v is not R1000]
    for vector in others:
        assert not verify_signature(QUICKNET.public_key, 1000, bytes.fromhex(vector["signature"]))


def test_a_beacon_of_another_chain_or_flagged_otherwise_fails() -> None:
    got = _beacon(R1000)
    local = beacon.local_chain(QUICKNET.public_key, QUICKNET.genesis_ms, QUICKNET.period_ms)
    # the same key under another chain hash: not quicknet's beacon, whatever its signature
    assert not verify_beacon(local, got)
    assert not verify_beacon(QUICKNET, dataclasses.replace(got, is_test=True))
    assert not verify_beacon(QUICKNET, dataclasses.replace(got, chain_hash=local.chain_hash))


def test_another_key_fails() -> None:
    other_key = bytes(ark.G2Point().to_compressed_bytes())  # a valid key: G2's generator
    assert not verify_signature(other_key, 1000, bytes.fromhex(R1000["signature"]))
    assert not verify_signature(
        QUICKNET.public_key[:95] + b"\x00", 1000, bytes.fromhex(R1000["signature"])
    )


@pytest.mark.parametrize("name", [k for k in VECTORS["malformed_signatures"] if k != "about"])
def test_a_malformed_signature_fails_without_raising(name: str) -> None:
    raw = bytes.fromhex(VECTORS["malformed_signatures"][name])
    assert not verify_signature(QUICKNET.public_key, 1000, raw)


@pytest.mark.parametrize("raw", [b"", b"\xb4", bytes(47), bytes(49), bytes(96)])
def test_a_signature_of_the_wrong_length_fails(raw: bytes) -> None:
    assert not verify_signature(QUICKNET.public_key, 1000, raw)


def test_the_test_beacon_vectors_are_the_local_beacons_and_never_quicknets() -> None:
    made = make_beacon_vectors.vectors()
    kept = json.loads(make_beacon_vectors.OUT.read_text(encoding="utf-8"))
    assert kept == made  # tests/make_beacon_vectors.py made them
    chain = beacon.chain_from_info(kept["info"])
    assert chain.is_test and chain.chain_hash != QUICKNET.chain_hash
    for doc in kept["rounds"]:
        got = beacon.beacon_from_json(chain, doc)
        assert verify_beacon(chain, got)
        assert not verify_beacon(QUICKNET, got)
        assert not verify_signature(QUICKNET.public_key, got.round, got.signature)


@settings(max_examples=examples(1))
@given(st.binary(min_size=48, max_size=48), st.integers(-1, 2**64))
def test_random_bytes_never_verify_and_never_raise(raw: bytes, round_: int) -> None:
    assert not verify_signature(QUICKNET.public_key, round_, raw)
    assert not verify_signature(QUICKNET.public_key, round_, raw.hex())  # type: ignore[arg-type]


def test_only_quicknet_is_named_drand() -> None:
    local = beacon.local_chain(QUICKNET.public_key, QUICKNET.genesis_ms, QUICKNET.period_ms)
    assert beacon.label(QUICKNET) == "drand quicknet"
    assert beacon.label(local) == "test beacon"
    assert beacon.label(dataclasses.replace(QUICKNET, is_test=True)) == "test beacon"


def test_the_malleated_vector_passes_the_pairing_so_only_the_subgroup_check_refuses_it() -> None:
    raw = bytes.fromhex(VECTORS["malformed_signatures"]["malleated_outside_subgroup"])
    unchecked = ark.G1Point.from_compressed_bytes_unchecked(raw)
    hashed = ark.G1Point.hash_to_curve(beacon.message(1000), beacon.DST)
    key = ark.G2Point.from_compressed_bytes(QUICKNET.public_key)
    assert ark.GT.multi_pairing([unchecked, hashed], [-ark.G2Point(), key]) == ark.GT.one()
    assert beacon.randomness(raw).hex() != R1000["randomness"]
    assert not verify_signature(QUICKNET.public_key, 1000, raw)


def test_the_service_tests_fake_beacon_is_a_verified_source_on_the_manual_clock() -> None:
    from support.beacon import FakeBeacon
    from support.clock import ManualClock

    from baccarat_api.clock import ms_of
    from baccarat_api.ports.beacon import BeaconSource

    clock = ManualClock("2026-12-05T15:00:00.500Z")
    source = FakeBeacon(clock, genesis_ms=ms_of("2026-12-05T15:00:00.000Z"))
    fake: BeaconSource = source  # the port's type
    lock = beacon.lock_round(fake.chain, ms_of(clock()))
    assert lock == 3 and fake.get(lock) is None  # due at +6 s
    clock.advance(5.5)
    got = fake.get(lock)
    assert got is not None and verify_beacon(fake.chain, got) and got.is_test
    latest = fake.latest()
    assert latest is not None and latest.round == lock
    source.down = True
    assert fake.get(lock) is None and fake.latest() is None
