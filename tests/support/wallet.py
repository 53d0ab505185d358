"""An operator's server as a casino runs it beside the table page (docs/api.md "Wallets: who
holds the money"): it opens a running table, seats its players with their wallet balances, mints
each player's token for their browser, follows the table's feed and — as a wallet does — applies
every settlement's ``nets`` to the balances it holds and reports them back to the table
(``PUT …/seats/{n}``). The test reads what it settled (:attr:`Wallet.settled`) to know what the
pages must show. Importable from every test folder (``tests/`` is on pytest's ``pythonpath``)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Player:
    """One person at one table: where they sit, what their wallet holds, their page's token."""

    table_id: str
    bettor_id: str
    seat: int | None  # None: the player-banker seat
    balance: int
    level: int | None = None
    token: str = ""


@dataclass
class Wallet:
    """The operator's side of the tables it opened; :meth:`start` follows their feeds on a
    thread (every ``every`` seconds) until :meth:`stop`."""

    api: httpx.Client  # with the operator key
    every: float = 0.2
    players: dict[tuple[str, str], Player] = field(default_factory=dict)
    seqs: dict[str, int] = field(default_factory=dict)
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: round id → the nets applied to the wallets (reported back after each)
    settled: dict[str, dict[str, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        r = self.api.request(method, path, json=body)
        if r.status_code >= 400:
            raise AssertionError(f"{method} {path}: {r.status_code} {r.text}")
        return r.json() if r.content else None

    def open_table(self, body: dict[str, Any], seeds: int = 2) -> str:
        """A running table (``body`` is ``POST /v1/tables``'s) and client seeds in advance."""
        table_id: str = self._call("POST", "/v1/tables", body)["table_id"]
        for n in range(1, seeds + 1):
            self._call("POST", f"/v1/tables/{table_id}/client-seeds", {"client_seed": f"w:{n}"})
        self.seqs[table_id] = 0
        self.events[table_id] = []
        return table_id

    def mint(self, player: Player, ttl_seconds: int = 900) -> Player:
        """``player``'s token for their page (minting needs no presence: the page may open
        before they sit down)."""
        minted = self._call(
            "POST",
            f"/v1/tables/{player.table_id}/tokens",
            {
                "bettor_id": player.bettor_id,
                "role": "banker" if player.seat is None else "seat",
                "ttl_seconds": ttl_seconds,
            },
        )
        player.token = minted["token"]
        return player

    def seat(self, player: Player) -> Player:
        """Seats ``player`` with their wallet's balance; from then on their nets are paid."""
        with self._lock:
            self.players[(player.table_id, player.bettor_id)] = player
        self._report(player)
        return player

    def _report(self, player: Player) -> None:
        body: dict[str, Any] = {"bettor_id": player.bettor_id, "balance": player.balance}
        if player.level is not None:
            body["level"] = player.level
        place = "banker" if player.seat is None else f"seats/{player.seat}"
        self._call("PUT", f"/v1/tables/{player.table_id}/{place}", body)

    def balance(self, table_id: str, bettor_id: str) -> int:
        with self._lock:
            return self.players[(table_id, bettor_id)].balance

    def follow(self, table_id: str) -> list[dict[str, Any]]:
        """The table's new events; each settlement's nets applied and the balances reported."""
        new: list[dict[str, Any]] = []
        more = True
        while more:
            page = self._call("GET", f"/v1/tables/{table_id}/events?after={self.seqs[table_id]}")
            new += page["events"]
            if page["events"]:
                self.seqs[table_id] = page["events"][-1]["seq"]
            more = page["more"]
        for e in new:
            if e["type"] in ("round_settled", "round_auto_settled"):
                self._pay(table_id, e["data"]["round_id"], e["data"]["nets"])
            elif e["type"] in ("seat_vacated", "banker_left"):  # gone: nothing more reported
                with self._lock:
                    self.players.pop((table_id, e["data"]["bettor_id"]), None)
        with self._lock:
            self.events[table_id] += new
        return new

    def _pay(self, table_id: str, round_id: str, nets: dict[str, int]) -> None:
        for bettor_id, net in nets.items():
            player = self.players.get((table_id, bettor_id))
            if player is None or net == 0:
                continue
            with self._lock:
                player.balance += net
            self._report(player)
        with self._lock:
            self.settled[round_id] = dict(nets)

    def start(self) -> None:
        def run() -> None:
            while not self._stop.wait(self.every):
                for table_id in list(self.seqs):
                    try:
                        self.follow(table_id)
                    except Exception as err:  # shown by the test
                        self.errors.append(repr(err))

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def types(self, table_id: str) -> list[str]:
        with self._lock:
            return [e["type"] for e in self.events[table_id]]
