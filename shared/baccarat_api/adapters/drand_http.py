"""The :class:`~baccarat_api.ports.beacon.BeaconSource` over drand's HTTP API
(``GET {relay}/{chain_hash}/public/{round}`` and ``…/public/latest``), with several relays.

Each request has its own timeout; a relay that fails (down, slow, an HTTP error, an answer that
does not parse, is for another round, or does not verify) is passed over for the next one, and
the relay that last answered well is asked first next time. Nothing a relay says is trusted: the
chain (its hash and public key) is pinned, and every beacon is verified
(:func:`baccarat_bls.verify_beacon`) before it is answered or cached. urllib only: no HTTP
dependency in the Lambda layer."""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from baccarat.beacon import (
    QUICKNET,
    QUICKNET_RELAYS,
    Beacon,
    BeaconError,
    Chain,
    beacon_from_json,
    chain_from_info,
)
from baccarat_bls import verify_beacon

log = logging.getLogger(__name__)

#: One relay's answer may take this long (seconds) before the next relay is asked.
REQUEST_TIMEOUT_S = 2.0
#: A drand answer is ~200 bytes; anything longer than this is not one.
MAX_ANSWER_BYTES = 16_384
_CACHED = 256


class DrandHttp:
    """Verified rounds of ``chain`` from ``relays`` (base URLs, tried in turn)."""

    def __init__(
        self, chain: Chain, relays: Sequence[str], timeout_s: float = REQUEST_TIMEOUT_S
    ) -> None:
        if not relays:
            raise ValueError("at least one relay")
        self.chain = chain
        self.relays = [r.rstrip("/") for r in relays]
        self.timeout_s = timeout_s
        self._first = 0
        self._cache: OrderedDict[int, Beacon] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def of_test_beacon(cls, url: str, timeout_s: float = REQUEST_TIMEOUT_S) -> DrandHttp:
        """The local test beacon at ``url``: its chain read from its ``/info`` (a test chain,
        checked to hash to itself; ``make run`` only — in AWS the chain is pinned)."""
        info = _get_json(f"{url.rstrip('/')}/info", timeout_s)
        if not isinstance(info, dict):
            raise BeaconError("info: not an object")
        return cls(chain_from_info(info), [url], timeout_s)

    @classmethod
    def configured(cls, test_beacon_url: str | None, relays: str | None = None) -> DrandHttp:
        """What the runtime wires: drand quicknet on ``relays`` (comma-separated base URLs:
        template.yaml's ``BeaconRelays`` → ``BACCARAT_BEACON_RELAYS``; empty: its public relays),
        or — when a test beacon's URL is configured (``make run`` sets ``BACCARAT_BEACON_URL``)
        — that test beacon, whose rounds every proof and verifier then shows as "test beacon".
        Quicknet's chain (hash, key) is pinned whatever relays serve it."""
        if test_beacon_url:
            return cls.of_test_beacon(test_beacon_url)
        listed = [r.strip() for r in (relays or "").split(",") if r.strip()]
        return cls(QUICKNET, listed or QUICKNET_RELAYS)

    def get(self, round_: int) -> Beacon | None:
        with self._lock:
            if round_ in self._cache:
                return self._cache[round_]
        return self._ask(f"public/{round_}", round_)

    def latest(self) -> Beacon | None:
        return self._ask("public/latest", None)

    def _ask(self, path: str, round_: int | None) -> Beacon | None:
        order = self.relays[self._first :] + self.relays[: self._first]
        for relay in order:
            got = self._from(relay, path, round_)
            if got is not None:
                self._first = self.relays.index(relay)
                self._remember(got)
                return got
        return None

    def _from(self, relay: str, path: str, round_: int | None) -> Beacon | None:
        url = f"{relay}/{self.chain.chain_hash}/{path}"
        try:
            got = beacon_from_json(self.chain, _object(_get_json(url, self.timeout_s)))
        except urllib.error.HTTPError as e:
            if e.code != 404:  # 404: not published (yet) there
                log.warning("beacon relay answered %s: %s", e.code, url)
            return None
        except (OSError, ValueError) as e:  # down, slow, not JSON, malformed
            log.warning("beacon relay failed (%s): %s", type(e).__name__, url)
            return None
        if (round_ is not None and got.round != round_) or not verify_beacon(self.chain, got):
            log.warning("beacon relay served a beacon that does not verify: %s", url)
            return None
        return got

    def _remember(self, beacon: Beacon) -> None:
        with self._lock:
            self._cache[beacon.round] = beacon
            while len(self._cache) > _CACHED:
                self._cache.popitem(last=False)


def _get_json(url: str, timeout_s: float) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as answer:
        body = answer.read(MAX_ANSWER_BYTES + 1)
    if len(body) > MAX_ANSWER_BYTES:
        raise ValueError("answer too long")
    return json.loads(body)


def _object(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise BeaconError("not a JSON object")
    return doc
