"""A local **test beacon** for ``make run`` and the tests: drand's HTTP API (``/{hash}/info``,
``/{hash}/public/{round}``, ``/{hash}/public/latest``; also ``/info``) over loopback, signing
rounds ``bls-unchained-g1-rfc9380`` with its **own** key — drawn at start, or fixed for a test —
so the service runs its real beacon path (:class:`baccarat_api.adapters.drand_http.DrandHttp`,
the BLS check) without the internet.

It is never drand: its chain hash is :func:`baccarat.beacon.local_chain`'s (hashing its key,
genesis and period), its info says ``period_ms``/``genesis_ms``, and a beacon from it verifies
only under its own chain, which says ``is_test``: the verifiers show such a round as "test
beacon". A round is served only from its time on (a future round answers 404, as drand's relays
do); the period is 3 s unless given (the tests shorten it)."""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import py_arkworks_bls12381 as ark

from baccarat.beacon import DST, Beacon, Chain, chain_info_json, local_chain, message, round_at

#: BLS12-381's scalar field order: a secret key is in [1, R).
CURVE_ORDER = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
DEFAULT_PERIOD_MS = 3_000

_PUBLIC = re.compile(r"\A/([0-9a-f]{64})/(info|public/(latest|[0-9]{1,20}))\Z")


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class LocalBeacon:
    """The chain and its signer. ``secret`` fixes the key (tests); ``clock`` gives ms."""

    def __init__(
        self,
        secret: int | None = None,
        period_ms: int = DEFAULT_PERIOD_MS,
        genesis_ms: int | None = None,
        clock: Callable[[], int] = _now_ms,
    ) -> None:
        self.secret = secret if secret is not None else 1 + secrets.randbelow(CURVE_ORDER - 1)
        self._scalar = ark.Scalar(self.secret)
        public_key = bytes((ark.G2Point() * self._scalar).to_compressed_bytes())
        start = clock() if genesis_ms is None else genesis_ms
        self.chain: Chain = local_chain(public_key, start, period_ms)
        self.clock = clock
        self._signed: dict[int, bytes] = {}

    def sign(self, round_: int) -> Beacon:
        """Round ``round_``'s beacon (whether due or not: the server decides what it serves)."""
        if round_ not in self._signed:
            point = ark.G1Point.hash_to_curve(message(round_), DST) * self._scalar
            self._signed[round_] = bytes(point.to_compressed_bytes())
        return Beacon(self.chain.chain_hash, round_, self._signed[round_], is_test=True)

    def latest_round(self) -> int:
        return round_at(self.chain, self.clock())

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        """The status and JSON body of ``GET path`` (drand's API, v1 paths)."""
        if path == "/info":
            path = f"/{self.chain.chain_hash}/info"
        found = _PUBLIC.match(path)
        if found is None or found.group(1) != self.chain.chain_hash:
            return 404, {"error": "not found"}
        if found.group(2) == "info":
            return 200, chain_info_json(self.chain)
        latest = self.latest_round()
        wanted = latest if found.group(3) == "latest" else int(found.group(3))
        if wanted < 1 or wanted > latest:
            return 404, {"error": "round not published yet" if wanted else "no round 0"}
        return 200, self.sign(wanted).to_json()


class BeaconServer:
    """A :class:`LocalBeacon` served over HTTP on a thread; :meth:`stop` ends it."""

    def __init__(self, beacon: LocalBeacon, host: str = "127.0.0.1", port: int = 0) -> None:
        self.beacon = beacon
        handler = _handler(beacon)
        self._http = ThreadingHTTPServer((host, port), handler)
        self._http.daemon_threads = True
        self.url = f"http://{host}:{self._http.server_address[1]}"
        self._thread = threading.Thread(
            target=self._http.serve_forever, args=(0.05,), name="test-beacon", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()


def _handler(beacon: LocalBeacon) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = beacon.answer(self.path.split("?", 1)[0])
            raw = json.dumps(body, separators=(",", ":")).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.send_header("Cache-Control", "no-store" if status != 200 else "max-age=60")
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def start(period_ms: int = DEFAULT_PERIOD_MS, port: int = 0) -> BeaconServer:
    """``make run``'s test beacon: a key drawn now, genesis now, on a free loopback port."""
    return BeaconServer(LocalBeacon(period_ms=period_ms), port=port)
