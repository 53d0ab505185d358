"""The operator's side of the table page (docs/api.md "Wallets: who holds the money", "The table
page"): what a casino's server does beside its players' browsers. It opens running tables, seats
its players with their wallet balances, mints each player's token for their page, follows each
table's feed and — as a wallet does — applies every settlement's ``nets`` to the balances it
holds and reports them back (``PUT …/seats/{n}``, ``PUT …/banker``). A person who leaves (or is
removed) is no longer reported: reporting them would seat them again.

Used by ``examples/table_demo.py`` (a person plays on ``make run``) and by the browser test of
the table page (``tests/support/wallet.py``), so both run this one wallet."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

#: The events after which a person is no longer at the table: their wallet stops reporting.
GONE = ("seat_vacated", "banker_left")
#: The events that carry a settlement's ``nets``.
SETTLED = ("round_settled", "round_auto_settled")
#: The events of a person taking a place (a report seats a person who is not there).
TAKEN = ("seat_taken", "banker_taken")


class WalletError(RuntimeError):
    """An error answer of the API to one of the wallet's requests (``status``, its ``code``)."""

    def __init__(self, method: str, path: str, r: httpx.Response) -> None:
        self.status = r.status_code
        self.code = str((r.json().get("error") or {}).get("code", "")) if r.content else ""
        super().__init__(f"{method} {path}: {r.status_code} {r.text}")


@dataclass
class Player:
    """One person at one table: where they sit, what their wallet holds, their page's token."""

    table_id: str
    bettor_id: str
    seat: int | None  # None: the player-banker seat
    balance: int
    level: int | None = None
    token: str = ""
    expires_at: float = 0.0  # the token's expiry (epoch seconds)


@dataclass
class Wallet:
    """The operator's side of the tables it opened; :meth:`follow` reads one table's new events
    (a server's loop calls it, or :meth:`start` does on a thread every ``every`` seconds until
    :meth:`stop`)."""

    api: httpx.Client  # with the operator key
    every: float = 0.2
    players: dict[tuple[str, str], Player] = field(default_factory=dict)
    seqs: dict[str, int] = field(default_factory=dict)
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: round id → the nets applied to the wallets (reported back after each)
    settled: dict[str, dict[str, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    #: (table id, bettor id) → the player who left: no longer reported
    left: dict[tuple[str, str], Player] = field(default_factory=dict)
    #: the players whose balance moved and is not reported yet (a failed report is retried)
    unreported: set[tuple[str, str]] = field(default_factory=set)
    #: the players who left and whom a late report of ours seated again: to unseat
    ghosts: set[tuple[str, str]] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        r = self.api.request(method, path, json=body)
        if r.status_code >= 400:
            raise WalletError(method, path, r)
        return r.json() if r.content else None

    def open_table(self, body: dict[str, Any], seeds: int = 2) -> str:
        """A running table (``body`` is ``POST /v1/tables``'s) and ``seeds`` client seeds given
        in advance (the first makes it commit shoe 1 once its company sits down)."""
        table_id: str = self._call("POST", "/v1/tables", body)["table_id"]
        self.watch(table_id)
        for _ in range(seeds):
            self.give_seed(table_id)
        return table_id

    def watch(self, table_id: str, after: int = 0) -> None:
        """Follow ``table_id``'s feed from ``after`` on (a table opened elsewhere: its last seq)."""
        with self._lock:
            self.seqs.setdefault(table_id, after)
            self.events.setdefault(table_id, [])

    def give_seed(self, table_id: str) -> None:
        """A fresh client seed for the next shoe the table commits itself (``POST
        …/client-seeds``): the operator's part of the seed chain's fairness."""
        self._call(
            "POST", f"/v1/tables/{table_id}/client-seeds", {"client_seed": secrets.token_hex(16)}
        )

    def mint(self, player: Player, ttl_seconds: int = 900) -> Player:
        """``player``'s token for their page (minting needs no presence: the page may open
        before they sit down); minting again gives a fresh one."""
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
        player.expires_at = datetime.fromisoformat(minted["expires_at"]).timestamp()
        return player

    def seat(self, player: Player) -> Player:
        """Seats ``player`` with their wallet's balance; from then on their nets are paid."""
        with self._lock:
            self.players[(player.table_id, player.bettor_id)] = player
            self.left.pop((player.table_id, player.bettor_id), None)
            self.ghosts.discard((player.table_id, player.bettor_id))
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
        """The table's new events: each settlement's nets applied to the wallets, then the
        balances that moved reported — only for the people still at the table after the whole
        batch (a report after a ``seat_vacated`` would seat its person again). A person who left
        between a read of the feed and its report was seated again by that report: seen here
        (their place taken after they left, by nobody's :meth:`seat`), they are unseated."""
        with self._lock:  # one reader of a table's feed at a time: each event applied once
            new: list[dict[str, Any]] = []
            after, more = self.seqs[table_id], True
            while more:
                page = self._call("GET", f"/v1/tables/{table_id}/events?after={after}")
                new += page["events"]
                after = page["events"][-1]["seq"] if page["events"] else after
                more = page["more"]
            for e in new:  # in memory: the requests they call for are made below
                bettor = (table_id, e["data"].get("bettor_id", ""))
                if e["type"] in SETTLED:
                    self._pay(table_id, e["data"]["round_id"], e["data"]["nets"])
                elif e["type"] in GONE and bettor in self.players:  # nothing more reported
                    self.left[bettor] = self.players.pop(bettor)
                    self.unreported.discard(bettor)
                elif e["type"] in TAKEN and bettor in self.left:
                    self.ghosts.add(bettor)
            self.seqs[table_id] = after
            self.events[table_id] += new
            for key in sorted(k for k in self.ghosts if k[0] == table_id):
                self._unseat(self.left[key])  # an error: retried at the next read
                self.ghosts.discard(key)
            for key in sorted(k for k in self.unreported if k[0] == table_id):
                self._report(self.players[key])
                self.unreported.discard(key)
            return new

    def _unseat(self, player: Player) -> None:
        """Leaves the place a late report of ours gave back to ``player`` (who had left)."""
        place = "banker" if player.seat is None else f"seats/{player.seat}"
        try:
            self._call("DELETE", f"/v1/tables/{player.table_id}/{place}")
        except WalletError as err:  # 404 not_found: they are not there (any more)
            if err.status != 404:
                raise

    def _pay(self, table_id: str, round_id: str, nets: dict[str, int]) -> None:
        """Applies a settlement's nets to the wallets of the people at the table; the players
        whose balance moved are to be reported."""
        for bettor_id, net in nets.items():
            player = self.players.get((table_id, bettor_id))
            if player is not None and net != 0:
                player.balance += net
                self.unreported.add((table_id, bettor_id))
        self.settled[round_id] = dict(nets)

    def start(self) -> None:
        def run() -> None:
            while not self._stop.wait(self.every):
                for table_id in list(self.seqs):
                    try:
                        self.follow(table_id)
                    except Exception as err:  # shown by the caller
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
