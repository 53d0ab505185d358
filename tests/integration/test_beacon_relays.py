"""The beacon over HTTP: the local test beacon (``baccarat_dev.beacon_local``) and the drand
client (``baccarat_api.adapters.drand_http.DrandHttp``) against relays this test owns on
loopback — a good one, one that is down, one that answers garbage, one too slow, one serving a
beacon of another key or another round. A wrong or unverifiable beacon is never answered.

The local beacon's time is a test clock (milliseconds), never slept on; the slow relay costs its
client's timeout once (0.3 s)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from baccarat import beacon
from baccarat.beacon import QUICKNET
from baccarat_api.adapters.drand_http import DrandHttp
from baccarat_bls import verify_beacon
from baccarat_dev.beacon_local import BeaconServer, LocalBeacon

GENESIS = 1_700_000_000_000
PERIOD = 1_000
QUICKNET_ROUNDS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "quicknet.json").read_text(encoding="utf-8")
)["rounds"]


class Clock:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


Route = Callable[[str], tuple[int, bytes]]


class Relay:
    """A loopback HTTP server answering every GET with ``route(path)``; counts requests."""

    def __init__(self, route: Route, hold: threading.Event | None = None) -> None:
        self.requests = 0
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                relay.requests += 1
                if hold is not None:
                    hold.wait(5)  # a slow relay: answers only when the test lets it
                status, body = route(self.path)
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, args=(0.02,), daemon=True).start()

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def _json(status: int, body: Any) -> tuple[int, bytes]:
    return status, json.dumps(body).encode()


def _down_url() -> str:
    with socket.socket() as s:  # a port nobody listens on once closed
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def clock() -> Clock:
    return Clock(GENESIS + 10 * PERIOD + 500)  # round 11 is the latest


@pytest.fixture
def local(clock: Clock) -> Iterator[BeaconServer]:
    server = BeaconServer(
        LocalBeacon(secret=0x5EED, period_ms=PERIOD, genesis_ms=GENESIS, clock=clock)
    )
    yield server
    server.stop()


@pytest.fixture
def relays() -> Iterator[list[Relay]]:
    made: list[Relay] = []
    yield made
    for relay in made:
        relay.stop()


# -------------------------------------------------------------------------------------------------
# The local test beacon


def test_the_local_beacons_rounds_verify_under_its_own_key_only(local: BeaconServer) -> None:
    chain = local.beacon.chain
    assert chain.is_test and chain.chain_hash != QUICKNET.chain_hash
    source = DrandHttp.of_test_beacon(local.url)
    assert source.chain == chain
    for r in (1, 2, 11):
        got = source.get(r)
        assert got is not None and got.round == r and got.is_test
        assert verify_beacon(chain, got)
        assert not verify_beacon(QUICKNET, got)
    other = LocalBeacon(secret=0xBAD, period_ms=PERIOD, genesis_ms=GENESIS).sign(5)
    assert not verify_beacon(chain, other)


def test_a_future_round_is_404_until_its_time(local: BeaconServer, clock: Clock) -> None:
    source = DrandHttp.of_test_beacon(local.url)
    assert source.get(12) is None
    latest = source.latest()
    assert latest is not None and latest.round == 11
    clock.ms = beacon.round_time(local.beacon.chain, 12)
    got = source.get(12)
    assert got is not None and verify_beacon(local.beacon.chain, got)
    assert local.beacon.answer("/info")[1]["hash"] == local.beacon.chain.chain_hash
    assert local.beacon.answer(f"/{QUICKNET.chain_hash}/public/1")[0] == 404
    assert local.beacon.answer(f"/{local.beacon.chain.chain_hash}/public/0")[0] == 404


def test_a_drawn_key_is_new_each_start() -> None:
    a, b = LocalBeacon(genesis_ms=GENESIS), LocalBeacon(genesis_ms=GENESIS)
    assert a.chain.public_key != b.chain.public_key and a.chain.chain_hash != b.chain.chain_hash


# -------------------------------------------------------------------------------------------------
# The drand client: relays, failover, verification


def test_failover_past_a_down_a_garbage_and_a_slow_relay(
    local: BeaconServer, relays: list[Relay]
) -> None:
    chain = local.beacon.chain
    hold = threading.Event()
    garbage = Relay(lambda path: (200, b"<html>not json</html>"))
    slow = Relay(lambda path: (200, b"{}"), hold=hold)
    relays += [garbage, slow]
    source = DrandHttp(chain, [_down_url(), garbage.url, slow.url, local.url], timeout_s=0.3)
    try:
        got = source.get(7)
    finally:
        hold.set()
    assert got is not None and got.round == 7 and verify_beacon(chain, got)
    assert garbage.requests == 1 and slow.requests == 1
    # the relay that answered is asked first next time; a verified round is not asked again
    assert source.get(7) == got
    assert source.get(8) is not None
    assert garbage.requests == 1


def _impostor(chain_hash: str, sign: Callable[[int], dict[str, Any]]) -> Route:
    def route(path: str) -> tuple[int, bytes]:
        r = int(path.rsplit("/", 1)[1]) if path.rsplit("/", 1)[1].isdigit() else 11
        return _json(200, sign(r))

    return route


def test_a_beacon_of_another_key_or_round_is_never_answered(
    local: BeaconServer, relays: list[Relay]
) -> None:
    chain = local.beacon.chain
    forger = LocalBeacon(secret=0xBAD, period_ms=PERIOD, genesis_ms=GENESIS)
    wrong_key = Relay(_impostor(chain.chain_hash, lambda r: forger.sign(r).to_json()))
    wrong_round = Relay(
        _impostor(
            chain.chain_hash,
            lambda r: {"round": r, "signature": local.beacon.sign(r + 1).signature.hex()},
        )
    )
    flipped = Relay(
        _impostor(
            chain.chain_hash,
            lambda r: {"round": r, "signature": _flip(local.beacon.sign(r).signature).hex()},
        )
    )
    relays += [wrong_key, wrong_round, flipped]
    bad_only = DrandHttp(chain, [wrong_key.url, wrong_round.url, flipped.url], timeout_s=1)
    assert bad_only.get(5) is None
    assert bad_only.latest() is None
    assert (wrong_key.requests, wrong_round.requests, flipped.requests) == (2, 2, 2)
    with_good = DrandHttp(chain, [wrong_key.url, wrong_round.url, flipped.url, local.url])
    got = with_good.get(5)
    assert got == local.beacon.sign(5)


def _flip(signature: bytes) -> bytes:
    return bytes([signature[0], signature[1] ^ 1]) + signature[2:]


def test_real_quicknet_rounds_through_a_relay_and_a_tampered_one(relays: list[Relay]) -> None:
    by_round = {v["round"]: v for v in QUICKNET_ROUNDS}

    def honest(path: str) -> tuple[int, bytes]:
        r = int(path.rsplit("/", 1)[1])
        return _json(200, by_round[r]) if r in by_round else _json(404, {})

    def tampered(path: str) -> tuple[int, bytes]:
        status, body = honest(path)
        doc = json.loads(body)
        if status == 200:
            doc["signature"] = _flip(bytes.fromhex(doc["signature"])).hex()
            del doc["randomness"]
        return _json(status, doc)

    good, bad = Relay(honest), Relay(tampered)
    relays += [good, bad]
    assert DrandHttp(QUICKNET, [bad.url]).get(1000) is None
    source = DrandHttp(QUICKNET, [bad.url, good.url])
    for r, vector in by_round.items():
        got = source.get(r)
        assert got is not None and got.randomness.hex() == vector["randomness"]
        assert not got.is_test
    assert source.get(1001) is None  # not in the relay: 404


def test_a_test_beacons_info_cannot_claim_quicknet(relays: list[Relay]) -> None:
    liar = LocalBeacon(secret=7, period_ms=PERIOD, genesis_ms=GENESIS)
    info = beacon.chain_info_json(liar.chain) | {"hash": QUICKNET.chain_hash}
    relay = Relay(lambda path: _json(200, info))
    relays.append(relay)
    with pytest.raises(beacon.BeaconError):
        DrandHttp.of_test_beacon(relay.url)


def test_the_runtime_wires_quicknet_unless_a_test_beacon_is_configured(local: BeaconServer) -> None:
    drand = DrandHttp.configured(None)
    assert drand.chain is QUICKNET and drand.relays == list(beacon.QUICKNET_RELAYS)
    assert DrandHttp.configured("").chain is QUICKNET
    test = DrandHttp.configured(local.url)
    assert test.chain == local.beacon.chain and beacon.label(test.chain) == "test beacon"


def test_the_runtime_reads_quicknet_from_the_relays_the_deployment_names() -> None:
    """template.yaml's ``BeaconRelays`` (``BACCARAT_BEACON_RELAYS``): its relays in its order,
    quicknet's chain pinned whatever they are; empty: drand's public relays."""
    named = DrandHttp.configured(None, " https://relay-a.example/ , https://relay-b.example,")
    assert named.chain is QUICKNET
    assert named.relays == ["https://relay-a.example", "https://relay-b.example"]
    assert DrandHttp.configured(None, "").relays == list(beacon.QUICKNET_RELAYS)
