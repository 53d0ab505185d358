#!/usr/bin/env python3
"""Sit at a table in the browser: what a casino's server does beside the table page (docs/api.md
"The table page", "Wallets: who holds the money"), against a running API.

    make run                                   # terminal 1: the API on http://127.0.0.1:8000
    export BACCARAT_URL=http://127.0.0.1:8000 KEY=bk_...     # the line `make run` printed
    .venv/bin/python examples/table_demo.py    # terminal 2: prints the links; Ctrl-C stops it

Then open the printed links in two browsers (two private windows, or two profiles): one person
per link, each at their own place.

What it does, with nothing but HTTP (httpx) and the wallet of ``examples/operator_wallet.py``:

1. opens a running table (``"dealing": "auto"``) of each seed — a star-city table with a
   player-banker, a bid-squeeze table — with timings a person can play with (``--betting-seconds``,
   ``--squeeze-seconds``, ``--pause-seconds``), each given client seeds in advance; or, with
   ``--table ID`` (repeatable), uses tables you already have (a running one deals by itself; at
   an operator table — ``make run``'s demo tables — your server deals, as
   ``examples/play_shoe.py --session`` does);
2. seats two players per table (alice and bob; carol in the player-banker seat at star-city)
   with demo balances, mints each one's player token (``--token-minutes``: 240, the most) and
   a lobby token, and prints one link per person:
   ``<API>/table#token=…&lang=zh|en&lobby=<API>/lobby#token=…``;
3. follows each table's feed until Ctrl-C and, as a wallet does, applies every settlement's
   ``nets`` to the balances it holds and reports them back (``PUT …/seats/{n}``, ``PUT
   …/banker``), printing each; a person who leaves (離開) or is removed for their balance is no
   longer reported (a report would seat them again; one that crossed their leaving is undone);
   one removed as idle (star-city unseats a bettor after 5 rounds without a bet) is seated
   again — the demo holds the place of a person who has not opened their page yet. A lost
   connection or an error answer is printed and the wallet carries on (a failed report is made
   at the next read). The table page never asks for a token: it lives as long as its token, so
   a minute before a token ends this prints that person's new link. A client seed is given for
   the next shoe each time a table commits one.

Ctrl-C (or SIGTERM) pauses the tables it opened (``POST …/pause``: the round in flight finishes,
no new window opens) and exits 0: the signal is taken between two requests, never inside one (a
second Ctrl-C stops at once).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
from operator_wallet import Player, Wallet, WalletError

#: Per seed: the table opened, each player's demo balance (minor units) and level, the
#: player-banker (its balance covers the Banker and Player bets of the round).
SEEDS: dict[str, dict[str, Any]] = {
    "star-city": {
        "table": {"profile": "star-city", "tier": "star-city-fun", "banking": "player_banker",
                  "name": "Demo 星城"},
        "balance": 50_000, "level": None, "banker": ("carol", 10_000_000),
    },
    "bid-squeeze": {
        "table": {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
                  "name": "Demo 咪牌"},
        "balance": 500_000, "level": 3,
    },
}  # fmt: skip
#: The two players at each table and their page's language.
PLAYERS = (("alice", "zh"), ("bob", "en"))
#: Seconds before a token ends that its person's fresh link is printed.
RENEW_BEFORE = 60
#: Why a person who is no longer at the table is not seated again (``seat_vacated``'s reason):
#: they left, or their balance fell below the tier's minimum. Only an idle seat is held.
HELD = "idle"


@dataclass
class Person:
    """One link: the player and their page's language."""

    player: Player
    lang: str
    gone: bool = False

    @property
    def where(self) -> str:
        return "banker" if self.player.seat is None else f"seat {self.player.seat}"


class Demo:
    """The tables, the people at them, their tokens and the wallet that pays them."""

    def __init__(self, api: httpx.Client, url: str, args: argparse.Namespace) -> None:
        self.url = url
        self.args = args
        self.wallet = Wallet(api)
        self.people: list[Person] = []
        self.opened: list[str] = []
        self.lobby = ""
        self.lobby_expires = 0.0
        self.auto: set[str] = set()

    @property
    def ttl(self) -> int:
        return int(self.args.token_minutes * 60)

    def open(self, seed: str) -> str:
        """A running table of ``seed`` with two client seeds given in advance."""
        timings = {
            "dealing": "auto",
            "betting_seconds": self.args.betting_seconds,
            "squeeze_seconds": self.args.squeeze_seconds,
            "pause_seconds": self.args.pause_seconds,
        }
        table_id = self.wallet.open_table({**SEEDS[seed]["table"], **timings})
        self.opened.append(table_id)
        self.auto.add(table_id)
        return table_id

    def use(self, table_id: str) -> tuple[str, dict[str, Any]]:
        """An existing table: its seed, and its state (who sits where already)."""
        table = self.wallet._call("GET", f"/v1/tables/{table_id}")
        state = self.wallet._call("GET", f"/v1/tables/{table_id}/state")
        self.wallet.watch(table_id, after=state["seq"])
        if table.get("dealing") == "auto":
            self.auto.add(table_id)
            if (state.get("clock") or {}).get("waiting") == "no_client_seed":
                self.wallet.give_seed(table_id)
        return table["profile"], state

    def seat_all(self, table_id: str, seed: str, state: dict[str, Any] | None) -> None:
        """Seats alice and bob (and the player-banker) with their demo balances (someone already
        there keeps their place and balance) and mints each one's token."""
        plan = SEEDS[seed]
        seats = {int(n): s for n, s in ((state or {}).get("seats") or {}).items() if s}
        held = {s["bettor_id"]: (n, s["balance"]) for n, s in seats.items()}
        free = (n for n in range(1, 8) if n not in seats)
        wanted: list[tuple[str, int | None, int, str]] = []
        for name, lang in PLAYERS:
            seat, balance = held.get(name) or (next(free, 0), plan["balance"])
            if seat:
                wanted.append((name, seat, balance, lang))
        banker = (state or {}).get("banker")
        if "banker" in plan or (state and state.get("banking") == "player_banker"):
            name, balance = plan.get("banker", ("carol", 10_000_000))
            if banker is None or banker["bettor_id"] == name:
                wanted.append((name, None, banker["balance"] if banker else balance, "zh"))
        for bettor, place, money, language in wanted:
            player = self.wallet.mint(
                Player(table_id, bettor, place, money, plan["level"]), self.ttl
            )
            self.people.append(Person(self.wallet.seat(player), language))

    def link(self, person: Person) -> str:
        return (
            f"{self.url}/table#token={person.player.token}&lang={person.lang}"
            f"&lobby={quote(self.lobby, safe='')}"
        )

    def mint_lobby(self) -> None:
        minted = self.wallet._call("POST", "/v1/lobby-tokens", {"ttl_seconds": self.ttl})
        self.lobby = f"{self.url}/lobby#token={minted['token']}"
        self.lobby_expires = time.time() + self.ttl

    def show(self, person: Person, note: str = "") -> None:
        p = person.player
        print(f"  {p.bettor_id:<6} {person.where:<7} balance {p.balance:>10}  {note}".rstrip())
        print(f"    {self.link(person)}", flush=True)

    def renew(self) -> None:
        """Fresh tokens (and links) for the people whose token ends within a minute (half its
        lifetime, for a shorter one)."""
        now, ahead = time.time(), min(RENEW_BEFORE, self.ttl / 2)
        if self.lobby_expires - now < ahead:
            self.mint_lobby()
        for person in self.people:
            if not person.gone and person.player.expires_at - now < ahead:
                self.wallet.mint(person.player, self.ttl)
                self.show(person, "renewed: open this link (the old page closes)")

    def on_events(self, table_id: str, events: list[dict[str, Any]]) -> None:
        """What the operator sees in the feed: settlements paid, people leaving, shoes."""
        mine = {p.player.bettor_id: p for p in self.people if p.player.table_id == table_id}
        for e in events:
            data = e["data"]
            if e["type"] in ("round_settled", "round_auto_settled"):
                held = self.wallet.players  # the people the wallet pays and reported
                paid = {b: n for b, n in data["nets"].items() if (table_id, b) in held and n}
                for bettor, net in paid.items():
                    print(f"{table_id} {data['round_id']}: {bettor} {net:+} → balance "
                          f"{mine[bettor].player.balance} (reported)", flush=True)  # fmt: skip
            elif e["type"] in ("seat_vacated", "banker_left") and data["bettor_id"] in mine:
                if mine[data["bettor_id"]].gone:  # a late report's place, given up again
                    continue
                person = mine[data["bettor_id"]]
                reason = data.get("reason", "left")
                if reason == HELD and e["type"] == "seat_vacated" and not person.gone:
                    self.wallet.seat(person.player)
                    print(f"{table_id}: {person.player.bettor_id} idle, seated again", flush=True)
                else:
                    person.gone = True
                    print(f"{table_id}: {person.player.bettor_id} left ({reason}): "
                          f"no longer reported", flush=True)  # fmt: skip
            elif e["type"] == "shoe_committed" and table_id in self.auto:
                self.give_seed(table_id)

    def give_seed(self, table_id: str) -> None:
        try:
            self.wallet.give_seed(table_id)
        except WalletError as err:  # 409 client_seeds_queued: enough are queued
            if err.code != "client_seeds_queued":
                raise

    def run(self, stopping: threading.Event) -> None:
        while not stopping.is_set():
            for table_id in list(self.wallet.seqs):
                try:  # a lost connection or an error answer: the wallet tries again next time
                    self.on_events(table_id, self.wallet.follow(table_id))
                except (httpx.TransportError, WalletError) as err:
                    print(f"{table_id}: {err!r} (tried again)", file=sys.stderr, flush=True)
            self.renew()
            stopping.wait(self.args.every)

    def stop(self) -> None:
        for table_id in self.opened:
            try:
                self.wallet._call("POST", f"/v1/tables/{table_id}/pause")
                print(f"{table_id}: paused", flush=True)
            except (httpx.TransportError, WalletError) as err:
                print(f"{table_id}: not paused: {err!r}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Open running tables, seat two players at each and print their table-page "
        "links; pay their settlements as a wallet does until Ctrl-C.",
        epilog="URL and key default to $BACCARAT_URL and $KEY (or $BACCARAT_KEY), as printed "
        "by `make run`.",
    )
    parser.add_argument("--url", default=os.environ.get("BACCARAT_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--key", default=os.environ.get("KEY") or os.environ.get("BACCARAT_KEY"))
    parser.add_argument(
        "--table", action="append", default=[], metavar="ID", help="use this table (repeatable)"
    )
    parser.add_argument("--betting-seconds", type=int, default=15, help="the betting window")
    parser.add_argument("--squeeze-seconds", type=int, default=10, help="each squeeze countdown")
    parser.add_argument("--pause-seconds", type=int, default=4, help="between rounds")
    parser.add_argument(
        "--token-minutes",
        type=float,
        default=240,
        help="each token's lifetime (the API allows 4 h at most)",
    )
    parser.add_argument("--every", type=float, default=0.5, help="seconds between feed reads")
    args = parser.parse_args(argv)
    if not args.key:
        parser.error("no operator key: pass --key or set KEY (the key `make run` printed)")
    url = args.url.rstrip("/")
    headers = {"authorization": f"Bearer {args.key}"}
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()  # the loop ends after the request in flight
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C: at once

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    with httpx.Client(base_url=url, headers=headers, timeout=30) as api:
        demo = Demo(api, url, args)
        try:
            demo.mint_lobby()
            tables: list[tuple[str, str, dict[str, Any] | None]] = []
            for table_id in args.table:
                tables.append((table_id, *demo.use(table_id)))
            if not args.table:
                tables = [(demo.open(seed), seed, None) for seed in SEEDS]
            for table_id, seed, state in tables:
                demo.seat_all(table_id, seed, state)
                dealing = "running" if table_id in demo.auto else "operator dealing: yours to deal"
                print(f"{seed} table {table_id} ({dealing}):")
                for person in demo.people:
                    if person.player.table_id == table_id:
                        demo.show(person)
            print("Open each link in its own browser (or private window). Ctrl-C stops.")
            print(f"lobby: {demo.lobby}", flush=True)
            demo.run(stopping)
            demo.stop()
            print("stopped", flush=True)
        except KeyboardInterrupt:  # the second Ctrl-C
            print("stopped (tables not paused)", flush=True)
            return 130
        except WalletError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
