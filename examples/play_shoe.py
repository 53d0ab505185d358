#!/usr/bin/env python3
"""Play one whole shoe against the baccarat API, then verify it like a third party would.

    make run                                   # terminal 1: the API on http://127.0.0.1:8000
    export BACCARAT_URL=http://127.0.0.1:8000 KEY=bk_...     # the line `make run` printed
    .venv/bin/python examples/play_shoe.py     # terminal 2

What it does, with nothing but HTTP (httpx) and the public proof:

1. creates a table (``POST /v1/tables``) and commits a shoe with a client seed of its own
   (``POST /v1/tables/{id}/shoes``);
2. deals every round (``POST /v1/shoes/{id}/rounds``) with bets from several seats — the bets
   are required at the deal and locked with the round before any card exists, and the deal names
   its ``round_number`` — and, once the squeezers have opened the cards (``POST
   /v1/rounds/{id}/reveal``; a hand only the system opens is shown at its ``reveal_by``: the
   settlement's retryable ``409 cards_not_shown`` is waited out), settles each with no body
   (``POST /v1/rounds/{id}/settlement``: it pays the locked bets), keeping every bettor's
   balance from the settlements' nets; the deal that ends the shoe publishes its proof, and
   the last round is settled after that, as at a real table;
3. or, with ``--close-after N``, closes the shoe early (``POST /v1/shoes/{id}/close``); with
   ``--void-round N`` it voids round N instead of settling it (``POST /v1/rounds/{id}/void`` with
   a reason and a note, within the table's void window: every stake returned; the round keeps
   its cards in the proof, marked voided, with the settlement the void replaced);
4. fetches the final proof — every page (``GET /v1/shoes/{id}/proof``, then each page's
   ``page.next``), no key — and the signing keys (``GET /v1/signing-keys``), and verifies it with
   the library function of ``baccarat verify`` (the ES256 signature over every page, seed chain,
   client hash, every round re-dealt, every settlement recomputed, the interventions), and checks
   that the cards and settlements it was answered during play are the ones in the proof (the
   proof names bettors by ``bettor_ref`` only: the deal's answers say whose ref is whose);
5. prints a short summary; the exit status is 0 only when everything verified.

``--session`` runs live tables instead: a star-city table with three seats (one never
bets) and a watcher; each round a betting window (``POST …/betting``), slips (``PUT/DELETE
…/bets/{bettor}``: a cancelled one and a replaced one in round 1), the deal from the book
(``{"from_book": true}``), the squeezer's reveal (``POST /v1/rounds/{id}/reveal``) and the
settlement; shoe 1 is closed after 3 rounds, and the idle bettor is removed at the 5th round of
the table (round 2 of shoe 2). Then a bid-squeeze table where a spectator bets beside a seat and
leaves with it. Each table's event feed (``GET …/events?after=``) is printed after every step,
the star-city table's state (``GET …/state``) at the end.

``--auto`` plays running tables (``"dealing": "auto"``) instead: a star-city player-banker table
and a bid-squeeze table that open, close, deal, reveal, settle and commit their next shoe by
themselves, with bettors who only confirm slips and squeeze — the operator makes no request per
round; see ``examples/auto_table.py``. ``--rounds N`` cuts the bid-squeeze shoe after N rounds.

Every POST carries an ``Idempotency-Key`` (a fresh UUID per operation, reused on its retries),
and a retryable error (``"retryable": true``: 503 ``unavailable``, 409 ``concurrent_update``) or a
lost connection is retried with the same key — see docs/api.md, "Idempotency and retries".
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from baccarat import proofdoc
from baccarat.verify import Verdict, proof_pages, verify
from baccarat_verify import es256

#: Bettors and their starting balances (minor units).
START_BALANCES = {"alice": 150_000, "bob": 120_000, "carol": 90_000, "dan": 200_000}
#: The player-banker seat of a player_banker table (covers Banker/Player; its balance must stay
#: above the tier's player-banker minimum: 35,000.00 at bid-squeeze-standard).
PLAYER_BANKER = "banker-seat"
PLAYER_BANKER_BALANCE = 10_000_000


class ApiFailure(RuntimeError):
    """An error answer of the API (its envelope), or a request that kept failing."""

    def __init__(self, method: str, path: str, status: int, error: dict[str, Any]) -> None:
        self.status = status
        self.error = error
        super().__init__(
            f"{method} {path}: HTTP {status} {error.get('code')}: {error.get('message')}"
        )


class Client:
    """The API over httpx: JSON in and out, the operator key, idempotent retried POSTs."""

    def __init__(self, url: str, key: str, *, timeout: float = 30, attempts: int = 4) -> None:
        self.url = url.rstrip("/")
        self.http = httpx.Client(
            base_url=self.url, headers={"authorization": f"Bearer {key}"}, timeout=timeout
        )
        self.attempts = attempts

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"idempotency-key": str(uuid.uuid4())} if method == "POST" else {}
        for attempt in range(1, self.attempts + 1):
            delay = 0.05 * 2**attempt  # exponential backoff: 0.1 s, 0.2 s, 0.4 s …
            try:
                r = self.http.request(method, path, json=body, headers=headers)
            except httpx.TransportError:
                if attempt == self.attempts:
                    raise
            else:
                if r.status_code < 400:
                    return r.json()
                error = _error_of(r)
                if not error.get("retryable") or attempt == self.attempts:
                    raise ApiFailure(method, path, r.status_code, error)
                retry_after = r.headers.get("retry-after", "")
                if retry_after.isdigit():  # 429 rate_limited says how long to wait
                    delay = max(delay, float(retry_after))
            time.sleep(delay)  # then the same request, with the same key
        raise AssertionError("unreachable")

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, body)

    def public_get(self, path: str) -> Any:
        """A GET without the operator key (the proof is public); a retryable error (409
        ``proof_pending`` while the last resolution is being finalised, 503) is retried."""
        for attempt in range(1, self.attempts + 1):
            r = httpx.get(self.url + path, timeout=self.http.timeout)
            if r.status_code < 400:
                return r.json()
            error = _error_of(r)
            if not error.get("retryable") or attempt == self.attempts:
                raise ApiFailure("GET", path, r.status_code, error)
            time.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable")

    def proof(self, shoe_id: str) -> list[dict[str, Any]]:
        """Every page of the shoe's final proof, in order (each page links the next)."""
        pages = [self.public_get(f"/v1/shoes/{shoe_id}/proof")]
        while (nxt := pages[-1]["page"]["next"]) is not None:
            if len(pages) >= proofdoc.MAX_PAGES or not nxt.startswith(f"/v1/shoes/{shoe_id}/"):
                raise ApiFailure("GET", nxt, 200, {"message": "not a page of this proof"})
            pages.append(self.public_get(nxt))
        return pages


def _error_of(r: httpx.Response) -> dict[str, Any]:
    try:
        error = r.json()["error"]
        return error if isinstance(error, dict) else {"message": str(error)}
    except (ValueError, KeyError, TypeError):
        return {"code": None, "message": r.text[:200], "retryable": r.status_code >= 500}


# --- bets -----------------------------------------------------------------------------------


def star_city_bets(rng: random.Random, balances: dict[str, int]) -> list[dict[str, Any]]:
    """Four seats; each bettor stakes Banker or Player (never both: star-city), some add a Tie or
    a pair; stakes are multiples of the 100 chip unit within the fun tier's limits."""
    bets: list[dict[str, Any]] = []
    for seat, bettor in enumerate(START_BALANCES, start=1):
        balance = balances[bettor]
        if balance < 10_000:  # keep well above the tier's minimum balance
            continue
        side = rng.choice(("banker", "player"))
        common = {"bettor_id": bettor, "role": "seated", "seat": seat, "balance": balance}
        bets.append({**common, "type": side, "amount": 100 * rng.randint(5, 40)})
        if rng.random() < 0.3:
            extra = rng.choice(("tie", "banker_pair", "player_pair"))
            bets.append({**common, "type": extra, "amount": 100 * rng.randint(1, 5)})
    return bets


def bid_squeeze_bets(
    rng: random.Random, balances: dict[str, int], round_number: int
) -> list[dict[str, Any]]:
    """Three seats and a spectator (who may bet because seats are taken), side bets included;
    Big/Small only up to round 20 (the profile's rule)."""
    bets: list[dict[str, Any]] = []
    sides = ["banker", "player", "banker_no_commission", "tie", "lucky6", "any_pair"]
    if round_number <= 20:
        sides += ["big", "small"]
    for seat, bettor in enumerate(("alice", "bob", "carol"), start=1):
        balance = balances[bettor]
        if balance < 20_000:
            continue
        common = {
            "bettor_id": bettor,
            "role": "seated",
            "seat": seat,
            "balance": balance,
            "level": 3,
        }
        bets.append(
            {**common, "type": rng.choice(("banker", "player")), "amount": 1000 * rng.randint(1, 5)}
        )
        if rng.random() < 0.4:
            side = rng.choice(sides[3:])  # within every side bet's limits: 1,000-3,000
            bets.append({**common, "type": side, "amount": 1000 * rng.randint(1, 3)})
    if bets and balances["dan"] >= 20_000:
        bets.append(
            {
                "bettor_id": "dan",
                "role": "spectator",
                "balance": balances["dan"],
                "type": rng.choice(sides[:3]),
                "amount": 1000 * rng.randint(1, 3),
            }
        )
    return bets


# --- the game -------------------------------------------------------------------------------


def sit_down(client: Client, table_id: str, profile: str, banking: str) -> None:
    """The presence a round is dealt with (seed 000 兩人成局: a seated bettor — and at a
    player-banker table the player-banker too — or the deal is 409 company_required): the
    bettors take their seats (bid-squeeze: alice, bob and carol, dan beside them as a
    spectator; star-city: all four), the player-banker the banker seat."""
    t = f"/v1/tables/{table_id}"
    seated = list(START_BALANCES) if profile == "star-city" else ["alice", "bob", "carol"]
    for seat, bettor in enumerate(seated, start=1):
        sit: dict[str, Any] = {"bettor_id": bettor, "balance": START_BALANCES[bettor]}
        if profile == "bid-squeeze":
            sit["level"] = 3
        client.request("PUT", f"{t}/seats/{seat}", sit)
    if profile == "bid-squeeze":
        client.request("PUT", f"{t}/spectators/dan", {"balance": START_BALANCES["dan"]})
    if banking == "player_banker":
        body = {"bettor_id": PLAYER_BANKER, "balance": PLAYER_BANKER_BALANCE}
        client.request("PUT", f"{t}/banker", body)


@dataclass
class Played:
    table: dict[str, Any]
    shoe: dict[str, Any]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    settlements: dict[int, dict[str, Any]] = field(default_factory=dict)
    voids: dict[int, dict[str, Any]] = field(default_factory=dict)
    settled_after_end: list[int] = field(default_factory=list)
    balances: dict[str, int] = field(default_factory=dict)
    house_take: int = 0
    bets_placed: int = 0
    end_reason: str = ""


def play(
    client: Client,
    *,
    profile: str,
    tier: str,
    banking: str,
    client_seed: str,
    close_after: int | None,
    void_rounds: frozenset[int] = frozenset(),
    rng: random.Random,
    log: Any,
    fairness: str = "bacc-pf-v1",
    squeeze_seconds: int | None = None,
) -> Played:
    asked: dict[str, Any] = {"profile": profile, "tier": tier, "banking": banking}
    if squeeze_seconds is not None:
        asked["squeeze_seconds"] = squeeze_seconds
    if fairness != "bacc-pf-v1":  # each round's cards wait for a public beacon round
        asked["fairness"] = fairness
    table = client.post("/v1/tables", asked)
    shoe = client.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": client_seed})
    log(f"table {table['table_id']} ({profile}, {tier}, {banking}); anchor {table['anchor'][:16]}…")
    log(f"shoe  {shoe['shoe_id']} committed: client hash {shoe['client_hash'][:16]}…")
    played = Played(table=table, shoe=shoe, balances=dict(START_BALANCES))
    if banking == "player_banker":
        played.balances[PLAYER_BANKER] = PLAYER_BANKER_BALANCE
    sit_down(client, table["table_id"], profile, banking)
    status = "open"
    while status == "open":
        number = len(played.rounds) + 1
        if profile == "star-city":
            bets = star_city_bets(rng, played.balances)
        else:
            bets = bid_squeeze_bets(rng, played.balances, number)
        # the bets are locked with the round (before any card exists); the round number makes a
        # retry of this deal safe even without an Idempotency-Key (the client sends one too)
        body: dict[str, Any] = {"bets": bets, "round_number": number}
        if banking == "player_banker":
            body["player_banker"] = {
                "bettor_id": PLAYER_BANKER,
                "balance": played.balances[PLAYER_BANKER],
            }
        dealt = client.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", body)
        if dealt.get("status") == "locked":  # bacc-pf-v2 (202): the cards follow the beacon
            dealt = wait_drawn(client, dealt)
        played.rounds.append(dealt)
        played.bets_placed += len(bets)
        if dealt.get("status") == "voided":  # bacc-pf-v2: its beacon never came, no cards
            played.voids[dealt["round_number"]] = dealt
            status = client.get(f"/v1/shoes/{shoe['shoe_id']}")["status"]
            log(f"round {dealt['round_number']:>2}: voided beacon_unavailable, stakes returned")
            continue
        status = dealt["shoe_status"]
        if dealt["round_number"] in void_rounds:  # e.g. a misdeal: every stake goes back
            why = {"reason": "misdeal", "note": "a card was exposed"}
            void = client.post(f"/v1/rounds/{dealt['round_id']}/void", why)
            played.voids[dealt["round_number"]] = void
            replaced = sum(void["void"]["replaced"]["nets"].values())
            log(
                f"round {dealt['round_number']:>2}: voided, {len(bets)} stakes returned "
                f"(players would have netted {replaced:+})"
            )
            if status == "open" and close_after is not None and number >= close_after:
                status = client.post(f"/v1/shoes/{shoe['shoe_id']}/close")["status"]
            continue
        # settled once every card is shown (no body: the locked bets are settled); when that deal
        # ended the shoe, after the proof's publication
        settlement = settle_when_shown(client, dealt)
        played.settlements[dealt["round_number"]] = settlement
        if status == "ended":
            played.settled_after_end.append(dealt["round_number"])
        for bettor, net in settlement["nets"].items():
            if bettor in played.balances:
                played.balances[bettor] += net
        played.house_take += settlement["house"]["take"]
        log(
            f"round {dealt['round_number']:>2}: {' '.join(dealt['player']['cards']):<9} vs "
            f"{' '.join(dealt['banker']['cards']):<9} {dealt['result']:<6} "
            f"{len(bets)} bets, house {settlement['house']['take']:+}"
        )
        if status == "open" and close_after is not None and number >= close_after:
            closed = client.post(f"/v1/shoes/{shoe['shoe_id']}/close")
            status = closed["status"]
    state = client.get(f"/v1/shoes/{shoe['shoe_id']}")
    played.end_reason = state["end_reason"]
    return played


def refs_of(played: Played) -> dict[str, str]:
    """bettor id → bettor_ref, as the deals answered them (the proof names refs only)."""
    refs: dict[str, str] = {}
    for dealt in played.rounds:
        for bet in dealt.get("bets") or []:
            refs[bet["bettor_id"]] = bet["bettor_ref"]
        if dealt.get("player_banker"):
            refs[dealt["player_banker"]["bettor_id"]] = dealt["player_banker"]["bettor_ref"]
    return refs


def public(settlement: dict[str, Any], refs: dict[str, str]) -> dict[str, Any]:
    """What the proof publishes of a settlement we were answered: its money and bookkeeping,
    bettors by ref (no bettor id, no balance after the round)."""
    return proofdoc.public_settlement(settlement, lambda bettor: refs.get(bettor, "?"))


def cross_check(played: Played, pages: list[dict[str, Any]]) -> list[str]:
    """What we were answered during play must be what the proof says."""
    problems = []
    refs = refs_of(played)
    rounds = {r["round_number"]: r for page in pages for r in page.get("rounds", [])}
    if len(rounds) != len(played.rounds):
        problems.append(f"the proof has {len(rounds)} rounds, we were dealt {len(played.rounds)}")
    for dealt in played.rounds:
        n = dealt["round_number"]
        r = rounds.get(n, {})
        if (r.get("player"), r.get("banker")) != (
            dealt["player"]["cards"],
            dealt["banker"]["cards"],
        ):
            problems.append(f"round {n}: the proof's cards are not the ones we were dealt")
        answered = played.settlements.get(n)
        if r.get("settlement") != (None if answered is None else public(answered, refs)):
            problems.append(f"round {n}: the proof's settlement is not the one we were answered")
        void = (played.voids.get(n) or {}).get("void")
        shown = r.get("void") or {}
        if r.get("voided") != (void is not None) or (
            void is not None
            and (shown.get("reason"), shown.get("note")) != (void["reason"], void.get("note"))
        ):
            problems.append(f"round {n}: the proof's void is not the one we were answered")
    return problems


# --- the session mode (--session): live tables, their betting windows and their event feed ----

#: Star-city (seed 000; star-city-fun: seats need a balance of 1,000): alice and carol bet every
#: round, bob sits and never bets — removed after 5 rounds of the TABLE without a bet, across
#: the shoe boundary (連續5局不押注，系統將自動踢除); wendy watches (觀局).
SESSION_SEATS = {1: ("alice", 150_000), 2: ("bob", 120_000), 3: ("carol", 90_000)}
SESSION_ROUNDS = (3, 2)  # rounds of shoe 1 (then closed early), of shoe 2


class Feed:
    """A table's event feed, printed as it goes: ``GET …/events?after=<last seq>``."""

    def __init__(self, client: Client, table_id: str, log: Any) -> None:
        self.client, self.table_id, self.log = client, table_id, log
        self.seq = 0
        self.events: list[dict[str, Any]] = []

    def follow(self) -> list[dict[str, Any]]:
        new: list[dict[str, Any]] = []
        more = True
        while more:
            page = self.client.get(f"/v1/tables/{self.table_id}/events?after={self.seq}&limit=100")
            for e in page["events"]:
                if e["seq"] != self.seq + 1:
                    raise ApiFailure("GET", "events", 200, {"message": f"gap before {e['seq']}"})
                self.seq = e["seq"]
                data = json.dumps(e["data"], separators=(",", ":"), ensure_ascii=False)
                self.log(f"  #{e['seq']:<3} {e['type']:<17} {data}")
            new += page["events"]
            more = page["more"]
        self.events += new
        return new


class Table:
    """One live table of the session: its slips, its rounds from the book, its feed."""

    def __init__(self, client: Client, body: dict[str, Any], log: Any) -> None:
        self.client, self.log = client, log
        self.id = client.post("/v1/tables", body)["table_id"]
        self.feed = Feed(client, self.id, log)
        self.round = 0
        log(f"table {self.id} ({body['profile']}, {body['tier']}, {body['banking']})")

    def put(self, path: str, body: Any = None) -> Any:
        return self.client.request("PUT", f"/v1/tables/{self.id}{path}", body)

    def slip(self, bettor: str, *bets: tuple[str, int]) -> None:
        # the window's round named: a retry that arrives after the deal is refused, not staked
        # again in the next window
        body = {"bets": [{"type": k, "amount": a} for k, a in bets], "round_number": self.round}
        self.put(f"/bets/{bettor}", body)

    def open_betting(self, label: str) -> None:
        window = self.client.post(f"/v1/tables/{self.id}/betting")
        self.round = int(window["betting"]["round_number"])
        self.log(f"{label}: betting open until {window['betting']['closes_at']}")

    def deal_from_book(self, shoe_id: str, label: str) -> dict[str, Any]:
        """No more bets: the round dealt with exactly the book's slips; the squeezers open the
        initial cards; the round settled; the feed followed."""
        self.feed.follow()
        dealt = self.client.post(f"/v1/shoes/{shoe_id}/rounds", {"from_book": True})
        self.log(
            f"{label}: {' '.join(dealt['player']['cards'])} vs "
            f"{' '.join(dealt['banker']['cards'])} → {dealt['result']}"
        )
        settle_when_shown(self.client, dealt)
        self.feed.follow()
        return dealt


def session(client: Client, *, client_seed: str, log: Any) -> dict[str, Any]:
    """Two live tables as the seeds run them, the feed printed after every step.

    Star-city: three seats and a watcher; per round a betting window (round 1: carol's slip
    cancelled 取消押注, alice's replaced), the deal from the book, the squeezer opening the
    initial cards, the settlement; shoe 1 closed after 3 rounds, and bob, who never bets,
    removed (``idle``) at the 5th round of the table — round 2 of shoe 2. Bid-squeeze: a seat and
    a spectator (旁觀下注) betting in one window; when the seat is left, the spectator goes too
    (seed 001). The star-city table's state is read at the end."""
    star = Table(client, {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}, log)
    for seat, (bettor, balance) in SESSION_SEATS.items():
        star.put(f"/seats/{seat}", {"bettor_id": bettor, "balance": balance, "level": 3})
    star.put("/watchers/wendy")
    star.feed.follow()
    number = 0
    for shoe_number, rounds in enumerate(SESSION_ROUNDS, 1):
        shoe = client.post(
            f"/v1/tables/{star.id}/shoes", {"client_seed": f"{client_seed}:{shoe_number}"}
        )
        log(f"shoe {shoe['shoe_id']} committed")
        star.feed.follow()
        for _ in range(rounds):
            number += 1
            star.open_betting(f"round {number}")
            star.slip("alice", ("banker", 2_000))
            star.slip("carol", ("player", 1_000))
            if number == 1:  # a cancelled slip, and a replaced one (確認押注 again)
                client.request("DELETE", f"/v1/tables/{star.id}/bets/carol")
                star.slip("alice", ("banker", 3_000), ("tie", 100))
            star.deal_from_book(shoe["shoe_id"], f"round {number}")
        if shoe_number < len(SESSION_ROUNDS):
            client.post(f"/v1/shoes/{shoe['shoe_id']}/close")
            star.feed.follow()

    bid = Table(client, {"profile": "bid-squeeze", "tier": "bid-squeeze-standard",
                         "banking": "house"}, log)  # fmt: skip
    bid.put("/seats/1", {"bettor_id": "dan", "balance": 200_000, "level": 5})
    bid.put("/spectators/sam", {"balance": 60_000})
    bid_shoe = client.post(f"/v1/tables/{bid.id}/shoes", {"client_seed": f"{client_seed}:bid"})
    bid.open_betting("bid-squeeze round 1")
    bid.slip("dan", ("banker", 5_000))
    bid.slip("sam", ("player", 2_000))
    bid.deal_from_book(bid_shoe["shoe_id"], "bid-squeeze round 1")
    client.request("DELETE", f"/v1/tables/{bid.id}/seats/1")  # the last seat left: sam goes
    bid.feed.follow()

    state = client.get(f"/v1/tables/{star.id}/state")
    seats = {k: v["bettor_id"] for k, v in state["seats"].items()}
    log(
        f"state of {star.id} at seq {state['seq']}: phase {state['phase']}, seats {seats}, "
        f"watchers {state['watchers']}, {len(state['shoe']['history'])} rounds in the history"
    )
    events = star.feed.events + bid.feed.events
    return {
        "table_id": star.id,
        "bid_table_id": bid.id,
        "rounds": number,
        "events": len(star.feed.events),
        "types": sorted({e["type"] for e in events}),
        "removed": [e["data"] for e in star.feed.events if e["type"] == "seat_vacated"],
        "spectators_left": [e["data"] for e in bid.feed.events if e["type"] == "spectator_left"],
        "state_seq": state["seq"],
        "last_seq": star.feed.seq,
        "seats": seats,
    }


#: A reveal refused because the step cannot be opened by its squeezer now: it was opened
#: already, the initial step is not shown yet (a hand only the system opens), or its reveal_by
#: passed (the system opened it) — the settlement then waits for the system's reveal.
NOT_NOW = ("already_revealed", "reveal_out_of_order", "reveal_deadline_passed")


V2_VERIFIED = (
    "verified: every lock before its beacon round, every beacon signature, every card re-drawn "
    "from the revealed seed, the book roots and beacons"
)


def wait_drawn(client: Client, locked: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
    """A bacc-pf-v2 round answered ``202`` ``locked``: its bets are locked and its cards are
    drawn once the beacon round its lock fixed exists (seconds). ``GET /v1/rounds/{id}`` answers
    ``status: locked`` (with ``Retry-After``) until then, then the dealt round — or, when the
    beacon never came, ``status: voided`` (``beacon_unavailable``)."""
    path = f"/v1/rounds/{locked['round_id']}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        shown: dict[str, Any] = client.get(path)
        if shown.get("status") != "locked":
            return shown
        time.sleep(0.2)
    raise ApiFailure("GET", path, 0, {"code": "still_locked", "message": "no draw in time"})


def check_v2(client: Client, played: Played) -> list[str]:
    """A bacc-pf-v2 shoe checked from what we were answered and the seed revealed at its end,
    with the core alone: each lock's beacon round is the first at least the margin after the
    lock, each beacon's BLS signature verifies under the table's beacon chain, and every card
    is the one ``K``, the lock's book root and the beacon draw (``baccarat.fairness_v2``)."""
    from datetime import datetime

    from baccarat import beacon as bc
    from baccarat.fairness_v2 import BeaconDraw, RoundInput, derive_shoe_v2
    from baccarat.rules import ShoeRules
    from baccarat_bls import verify_beacon

    shoe = client.get(f"/v1/shoes/{played.shoe['shoe_id']}")
    if not shoe.get("server_seed"):
        return ["the shoe's seed is not revealed"]
    b = played.table["beacon"]
    chain = bc.Chain(b["name"], b["chain_hash"], bytes.fromhex(b["public_key"]), b["genesis_ms"],
                     b["period_ms"], b["test"], b["scheme"])  # fmt: skip
    problems: list[str] = []
    inputs: list[RoundInput] = []
    for r in played.rounds:
        n = r["round_number"]
        if r.get("status") == "voided":
            lock = {"locked_at": r["locked_at"], "book_root": r["book_root"],
                    "beacon_round": r["beacon"]["round"]}  # fmt: skip
            drawn = None
        else:
            lock, drawn = r["lock"], r["beacon"]
        at = datetime.fromisoformat(lock["locked_at"].replace("Z", "+00:00"))
        if lock["beacon_round"] != bc.lock_round(chain, int(at.timestamp() * 1000)):
            problems.append(f"round {n}: its beacon round is not its lock's")
        beacon = None
        if drawn is not None:
            sig = bytes.fromhex(drawn["signature"])
            if not verify_beacon(
                chain, bc.Beacon(chain.chain_hash, drawn["round"], sig, chain.is_test)
            ):
                problems.append(f"round {n}: its beacon does not verify")
            beacon = BeaconDraw(bytes.fromhex(chain.chain_hash), drawn["round"], sig)
        inputs.append(RoundInput(bytes.fromhex(lock["book_root"]), beacon))
    rules = ShoeRules.from_dict(shoe["rules"])
    v2 = derive_shoe_v2(bytes.fromhex(shoe["server_seed"]), played.shoe["client_seed"],
                        shoe["shoe_number"], rules, inputs)  # fmt: skip
    for r, d in zip(played.rounds, v2.draws, strict=True):
        if d is None:
            continue
        facts = d.round.facts()
        if any(facts[k] != r[k] for k in ("player", "banker", "result")):
            problems.append(f"round {r['round_number']}: not the cards the beacon draws")
    return problems


def settle_when_shown(client: Client, dealt: dict[str, Any]) -> dict[str, Any]:
    """Nothing of a round's outcome reaches the table before its cards are shown: the squeezers
    open their cards (the initial step, then the draws, the player's hand first), then the round
    is settled. A hand only the system opens (``squeezer: null``) is opened at its step's
    ``reveal_by``: until then the settlement answers ``409 cards_not_shown`` (retryable, with
    ``Retry-After``), which the client waits out and retries."""
    path = f"/v1/rounds/{dealt['round_id']}"
    steps = dealt["squeeze"]["steps"]
    for step in ("initial", "draws"):
        for hand in ("player", "banker"):
            squeezer = steps.get(step, {}).get("hands", {}).get(hand, {}).get("squeezer")
            if squeezer is None:
                continue
            try:
                client.post(f"{path}/reveal", {"bettor_id": squeezer, "step": step})
            except ApiFailure as exc:
                if exc.error.get("code") not in NOT_NOW:
                    raise
    settlement: dict[str, Any] = client.post(f"{path}/settlement")
    return settlement


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Play a whole shoe against the baccarat API and verify its proof.",
        epilog="URL and key default to $BACCARAT_URL and $KEY (or $BACCARAT_KEY), as printed "
        "by `make run`.",
    )
    parser.add_argument("--url", default=os.environ.get("BACCARAT_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--key", default=os.environ.get("KEY") or os.environ.get("BACCARAT_KEY"))
    parser.add_argument("--profile", choices=("star-city", "bid-squeeze"), default="star-city")
    parser.add_argument("--tier", help="default: the profile's first tier")
    parser.add_argument("--banking", choices=("house", "player_banker"), default="house")
    parser.add_argument("--client-seed", default=None, help="default: a fresh random one")
    parser.add_argument(
        "--close-after", type=int, metavar="N", help="close the shoe after N rounds"
    )
    parser.add_argument(
        "--void-round",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="void round N instead of settling it (repeatable)",
    )
    parser.add_argument(
        "--fairness",
        choices=("bacc-pf-v1", "bacc-pf-v2"),
        default="bacc-pf-v1",
        help="bacc-pf-v2: each round's cards drawn after its lock with a public beacon",
    )
    parser.add_argument("--rng-seed", type=int, default=None, help="seed of the bet choices")
    parser.add_argument("--save-proof", type=Path, metavar="FILE", help="write the proof here")
    parser.add_argument("--summary-json", type=Path, metavar="FILE", help="write a JSON summary")
    parser.add_argument("--quiet", action="store_true", help="no line per round")
    parser.add_argument(
        "--session",
        action="store_true",
        help="live tables instead: seats, a watcher, a spectator, betting windows, deals from "
        "the book, the squeeze, an idle player removed across a shoe boundary, the event feed "
        "printed as it goes",
    )
    parser.add_argument(
        "--auto",
        action="store_true",
        help="running tables instead (dealing auto): a star-city player-banker shoe and its "
        "next shoe committed by the table, a bid-squeeze table beside it; bettors only confirm "
        "slips and squeeze, no operator request per round; event lateness printed",
    )
    parser.add_argument("--rounds", type=int, metavar="N", help="--auto: bid-squeeze rounds")
    parser.add_argument("--betting-seconds", type=int, default=2, help="--auto: window")
    parser.add_argument(
        "--squeeze-seconds",
        type=int,
        help="each squeeze countdown: a hand only the system opens shows after it (--auto: 1; "
        "else the table's default)",
    )
    parser.add_argument("--pause-seconds", type=int, default=0, help="--auto: between rounds")
    args = parser.parse_args(argv)
    if not args.key:
        parser.error("no operator key: pass --key or set KEY (the key `make run` printed)")
    if args.session:
        return run_session(args)
    if args.auto:
        return run_auto(args)
    tier = args.tier or ("star-city-fun" if args.profile == "star-city" else "bid-squeeze-standard")
    client_seed = args.client_seed if args.client_seed is not None else f"example:{uuid.uuid4()}"
    rng = random.Random(args.rng_seed)

    def log(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    client = Client(args.url, args.key)
    try:
        played = play(
            client,
            profile=args.profile,
            tier=tier,
            banking=args.banking,
            client_seed=client_seed,
            close_after=args.close_after,
            void_rounds=frozenset(args.void_round),
            rng=rng,
            log=log,
            fairness=args.fairness,
            squeeze_seconds=args.squeeze_seconds,
        )
        if args.fairness == "bacc-pf-v2":
            problems = check_v2(client, played)
            print(f"\nshoe {played.shoe['shoe_id']} (bacc-pf-v2, beacon "
                  f"{'test beacon' if played.table['beacon']['test'] else 'drand quicknet'}): "
                  f"{len(played.rounds)} rounds (ended: {played.end_reason}), "
                  f"{len(played.voids)} voided")  # fmt: skip
            for problem in problems:
                print(f"NOT consistent: {problem}")
            if not problems:
                print(V2_VERIFIED)
            return 1 if problems else 0
        proof_path = f"/v1/shoes/{played.shoe['shoe_id']}/proof"
        pages = client.proof(played.shoe["shoe_id"])
        keys = client.public_get("/v1/signing-keys")
    except (ApiFailure, httpx.HTTPError) as exc:
        print(f"play_shoe: {exc}", file=sys.stderr)
        return 2
    finally:
        client.close()
    if args.save_proof:
        args.save_proof.write_text(  # a bundle of the pages: `baccarat verify FILE` reads it
            json.dumps({"pages": pages}, indent=1, ensure_ascii=False), encoding="utf-8"
        )

    assert proof_pages(pages) is not None
    verdict: Verdict = verify(
        pages,
        keys=keys,
        keys_source=f"{args.url.rstrip('/')}/v1/signing-keys",
        signature_check=es256.check,
    )
    problems = cross_check(played, pages)
    ok = verdict.ok and not problems
    nets = {b: played.balances[b] - START_BALANCES[b] for b in START_BALANCES}
    print(
        f"\nshoe {played.shoe['shoe_id']}: {len(played.rounds)} rounds "
        f"(ended: {played.end_reason}), {played.bets_placed} bets, "
        f"{len(played.settlements)} settlements, {len(played.voids)} voided"
        + (
            f" (round {', '.join(map(str, played.settled_after_end))} settled after the shoe ended)"
            if played.settled_after_end
            else ""
        )
    )
    print(
        "nets  "
        + "  ".join(f"{b} {n:+}" for b, n in nets.items())
        + f"  house {played.house_take:+}"
    )
    print(f"proof {args.url.rstrip('/')}{proof_path}")
    print(verdict.line())
    if (line := verdict.interventions_line()) is not None:
        print(line)
    for problem in problems:
        print(f"NOT consistent: {problem}")
    if not problems:
        print(
            "consistent: the cards we were dealt and the settlements we were answered "
            "are the proof's"
        )
    if args.summary_json:
        summary = {
            "table_id": played.table["table_id"],
            "shoe_id": played.shoe["shoe_id"],
            "proof_url": args.url.rstrip("/") + proof_path,
            "rounds": len(played.rounds),
            "bets": played.bets_placed,
            "settlements": len(played.settlements),
            "voided": sorted(played.voids),
            "settled_after_end": played.settled_after_end,
            "end_reason": played.end_reason,
            "nets": nets,
            "house_take": played.house_take,
            "verified": verdict.ok,
            "verdict": verdict.line(),
            "interventions": verdict.interventions_line(),
            "pages": len(pages),
            "settlements_checked": verdict.settlements_checked,
            "consistent": not problems,
            "problems": problems,
        }
        args.summary_json.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0 if ok else 1


def run_session(args: argparse.Namespace) -> int:
    """``--session``: the session, its summary line; 0 when bob was removed as idle and the
    state's ``seq`` is the feed's last."""
    client = Client(args.url, args.key)
    seed = args.client_seed if args.client_seed is not None else f"session:{uuid.uuid4()}"
    try:
        out = session(client, client_seed=seed, log=lambda line: print(line, flush=True))
    except (ApiFailure, httpx.HTTPError) as exc:
        print(f"play_shoe --session: {exc}", file=sys.stderr)
        return 2
    finally:
        client.close()
    idle = [r for r in out["removed"] if r["reason"] == "idle"]
    print(
        f"\nsession {out['table_id']}: {out['rounds']} rounds, {out['events']} events "
        f"(seq 1–{out['last_seq']}, no gap), removed as idle: "
        + (", ".join(r["bettor_id"] for r in idle) or "nobody")
    )
    if args.summary_json:
        args.summary_json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    ok = (
        [r["bettor_id"] for r in idle] == ["bob"]
        and out["state_seq"] == out["last_seq"]
        and [r["bettor_id"] for r in out["spectators_left"]] == ["sam"]
    )
    return 0 if ok else 1


def run_auto(args: argparse.Namespace) -> int:
    """``--auto``: both running tables, the figures; 0 when the operator made no request per
    round, star-city's shoe 2 was committed by the table and every ended shoe's proof verified."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from auto_table import play_auto

    client = Client(args.url, args.key)
    seed = args.client_seed if args.client_seed is not None else f"auto:{uuid.uuid4()}"
    try:
        out = play_auto(
            client,
            client_seed=seed,
            betting_seconds=args.betting_seconds,
            squeeze_seconds=args.squeeze_seconds or 1,
            pause_seconds=args.pause_seconds,
            rounds=args.rounds,
            log=(lambda line: None) if args.quiet else (lambda line: print(line, flush=True)),
        )
    except (ApiFailure, httpx.HTTPError, TimeoutError) as exc:
        print(f"play_shoe --auto: {exc}", file=sys.stderr)
        return 2
    finally:
        client.close()
    print()
    for name, t in out["tables"].items():
        print(
            f"{name} {t['table_id']}: {t['rounds']} rounds, shoes committed by the table "
            f"{t['shoes_committed']}, slips {t['slips']} (missed {t['slips_missed']}), "
            f"revealed by bettors {t['revealed_by']}, by the system for {t['system_revealed_for']}"
        )
        for shoe_id, p in t["proofs"].items():
            print(f"  proof {shoe_id}: {p['verdict']}")
    print(
        f"operator requests per round: {out['operator_requests_per_round']:g} "
        f"(requests by phase: {out['requests']})"
    )
    for step, late in out["lateness_ms"].items():
        print(
            f"lateness {step:<6} n={late['n']:<4} p50 {late['p50']:>5} ms  "
            f"p99 {late['p99']:>5} ms  max {late['max']:>5} ms"
        )
    if args.summary_json:
        args.summary_json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    star = out["tables"]["star-city"]
    proofs = [p for t in out["tables"].values() for p in t["proofs"].values()]
    ok = (
        out["operator_requests_per_round"] == 0
        and 2 in star["shoes_committed"]
        and bool(proofs)
        and all(p["verified"] and p["consistent"] for p in proofs)
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
