"""The table page (``GET /table``) as people use it (issue 27, docs/design/browsers.md §5): two
players, each in a browser context of their own, at one running table per seed on the local
server, the operator's side played by the wallet stub (``tests/support/wallet.py``: it seats them,
mints their tokens, follows the feed and reports their balances after each settlement).

Per seed, three rounds: both pick chips and click areas and confirm; the leading squeezer clicks
open, the other's cards are opened by the system when their countdown runs out (seen in both
pages); each balance stays as it was until every card is shown and then moves by that player's
net; one chats and the other reads it, a hostile line is refused (a bidi override) or shown as
the characters typed (markup); both leave for the lobby. Screenshots of both players, both seeds,
both languages go to ``tests/artifacts/table-page/`` (git-ignored) for a person to look at."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from support.local_server import LocalServer, local_server
from support.wallet import Player, Wallet

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "tests" / "artifacts" / "table-page"
#: the seconds each page has to see the window, click its chips and confirm (3 pages, the urge's
#: waits in round 1), and the opener to see and click open: room for a loaded 2-core machine
TIMINGS = {"dealing": "auto", "betting_seconds": 8, "squeeze_seconds": 4, "pause_seconds": 1}
MARKUP = "<img src=x onerror=alert(1)>"
HOSTILE = MARKUP + "\u202e"  # a right-to-left override: refused, never cleaned


@pytest.fixture(scope="module")
def served(shared_dynamodb: Any) -> Iterator[LocalServer]:
    env = {"BACCARAT_PUSH_POLL_SECONDS": "0.1", "BACCARAT_SWEEP_SECONDS": "0"}
    with local_server(env, probe="/table", dynamodb=shared_dynamodb) as server:
        yield server


@pytest.fixture
def wallet(served: LocalServer) -> Iterator[Wallet]:
    with httpx.Client(
        base_url=served.url, headers={"authorization": f"Bearer {served.key}"}, timeout=15
    ) as api:
        w = Wallet(api)
        w.start()
        try:
            yield w
        finally:
            w.stop()
        assert w.errors == []


@dataclass
class Person:
    """One player's page: what the test reads and clicks, as the person sees it."""

    page: Any
    player: Player
    name: str

    def js(self, expression: str) -> Any:
        return self.page.eval(expression)

    def until(self, what: str, expression: str, timeout: float = 20) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.js(expression)
            except Exception as err:  # a navigation (leaving) in flight
                if "navigated" not in str(err):
                    raise
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: {what} not seen in {timeout} s: {self.view()}")
            time.sleep(0.05)

    def view(self) -> dict[str, Any]:
        """What the page shows now (the few facts the test checks)."""
        value: dict[str, Any] = self.js(
            """(() => ({
                phase: document.body.dataset.phase, window: document.body.dataset.window,
                round: document.body.dataset.round,
                systemReveals: Number(document.body.dataset.systemReveals || 0),
                balance: document.getElementById('balance').dataset.value,
                down: document.querySelectorAll('.card.down').length,
                up: document.querySelectorAll('.card.up').length,
                result: document.getElementById('result').dataset.result,
                open: !document.getElementById('open').hidden,
                slip: document.getElementById('slip-status').dataset.state,
                error: document.getElementById('error').dataset.code || '',
                status: document.getElementById('push-status').dataset.status,
            }))()"""
        )
        return value

    def click(self, selector: str) -> None:
        clicked = self.js(
            f"""(() => {{ const b = document.querySelector({json.dumps(selector)});
                 if (!b || b.disabled || b.hidden) return false; b.click(); return true; }})()"""
        )
        assert clicked, f"{self.name}: {selector} is not there to click: {self.view()}"

    def bet(self, bets: list[tuple[int, str]]) -> None:
        """Picks each chip and clicks its area, then confirms."""
        for chip, area in bets:
            self.click(f'.chip[data-amount="{chip}"]')
            self.click(f'.area[data-area="{area}"]')
        self.click("#confirm")

    def confirmed(self) -> None:
        self.until("the confirmed slip", "document.getElementById('slip-status')"
                   ".dataset.state === 'confirmed'", timeout=5)  # fmt: skip

    def balance(self) -> int:
        return int(self.view()["balance"])

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path)
        print(f"screenshot: {path}")
        return path


def watch_until(
    people: list[Person],
    done: Callable[[], bool],
    check: Callable[[Person, dict[str, Any]], None],
    timeout: float = 25,
) -> None:
    """Reads every page every ~50 ms, ``check``-ing each view, until ``done()``."""
    deadline = time.monotonic() + timeout
    while not done():
        for p in people:
            check(p, p.view())
        assert time.monotonic() < deadline, [p.view() for p in people]
        time.sleep(0.05)


SEEDS: dict[str, dict[str, Any]] = {
    "star-city": {
        "table": {"profile": "star-city", "tier": "star-city-fun", "banking": "player_banker",
                  "number": 8, "name": "星城 8"},
        # the player-banker (荷官) plays at the page too: the urge button is theirs alone
        "banker": ("carol", 10_000_000, "zh"),
        "level": None, "balance": 50_000,
        # (alice's bets, bob's bets) per round: the larger stake leads the squeeze (seed 000)
        "rounds": [
            ([(500, "banker"), (500, "banker"), (100, "tie")], [(300, "player")]),
            ([(100, "banker")], [(1000, "player"), (200, "player_pair")]),
            ([(1000, "player"), (100, "banker_pair")], [(200, "banker")]),
        ],
        # who opens (the leader, alone at star-city); whether the system opens a step nobody
        # opened (the leader never opens the draws; bob never opens his)
        "opens": ["alice", None, "alice"], "system": [False, True, False],
    },
    "bid-squeeze": {
        "table": {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
                  "number": 9, "name": "Bid 9"},
        "level": 3, "balance": 500_000,
        # alice stakes Banker (squeezes the Banker hand), bob Player (the Player hand, never opened)
        "rounds": [
            ([(1000, "banker"), (1000, "banker")], [(1000, "player"), (1000, "big")]),
            ([(2500, "banker"), (1000, "tie")], [(1000, "player")]),
            ([(1000, "banker_no_commission"), (1000, "banker")],
             [(2500, "player"), (1000, "lucky6")]),
        ],
        "opens": ["alice", "alice", "alice"], "system": [True, True, True],
    },
}  # fmt: skip


def test_two_players_play_both_seeds_through_the_page(
    served: LocalServer, wallet: Wallet, browser: Any
) -> None:
    started = time.monotonic()
    lobby_token = wallet._call("POST", "/v1/lobby-tokens", {"ttl_seconds": 900})["token"]
    lobby = f"{served.url}/lobby#token={lobby_token}"
    with ThreadPoolExecutor(len(SEEDS)) as pool:  # both tables at once: each waits on its timers
        played = [
            pool.submit(play, served, wallet, browser, seed, plan, langs, lobby)
            for (seed, plan), langs in zip(SEEDS.items(), (("zh", "en"), ("en", "zh")), strict=True)
        ]
        for future in played:
            future.result()
    print(f"both seeds played in {time.monotonic() - started:.1f} s")


def play(
    served: LocalServer,
    wallet: Wallet,
    browser: Any,
    seed: str,
    plan: dict[str, Any],
    langs: tuple[str, str],
    lobby: str,
) -> None:
    table_id = wallet.open_table({**plan["table"], **TIMINGS})
    people = []
    seated: list[tuple[str, int | None, int, str]] = [
        ("alice", 1, plan["balance"], langs[0]),
        ("bob", 2, plan["balance"], langs[1]),
    ]
    if "banker" in plan:
        name, balance, lang = plan["banker"]
        seated.append((name, None, balance, lang))
    for name, seat, balance, lang in seated:
        player = wallet.mint(Player(table_id, name, seat, balance, plan["level"]))
        page = browser.new_page(browser.new_context())
        page.goto(f"{served.url}/table#token={player.token}&lang={lang}&lobby={quote(lobby)}")
        assert "token=" not in page.eval("location.href")  # the token left the address bar
        people.append(Person(page, player, f"{seed}/{name}"))
    alice, bob = people[:2]
    for p in people:  # the pages are live: they sit down (the table opens its first window)
        p.until("the live channel", "document.getElementById('push-status').dataset.status "
                "=== 'live'", timeout=10)  # fmt: skip
        wallet.seat(p.player)
    try:
        for i, (a_bets, b_bets) in enumerate(plan["rounds"]):
            shots = [
                f"{seed}-{p.player.bettor_id}-{s[3]}" for p, s in zip(people, seated, strict=True)
            ]
            play_round(wallet, table_id, people, (a_bets, b_bets), plan["opens"][i],
                       plan["system"][i], urge=i == 0, shots=shots if i == 2 else None)  # fmt: skip
            if i == 0:
                chat(alice, bob, "大家好 good luck!")
            if i == 1:
                hostile_chat(bob, alice)
        for p in people:
            assert p.page.errors() == [], p.page.errors()
            state_reads(p, table_id)
            p.click("#leave")
            p.until("the lobby", "location.pathname === '/lobby' && "
                    "document.querySelectorAll('.table').length > 0", timeout=10)  # fmt: skip
        gone = ("seat_vacated", "banker_left")
        left = [e for e in wallet.events[table_id] + wallet.follow(table_id) if e["type"] in gone]
        assert {e["data"]["bettor_id"] for e in left} == {p.player.bettor_id for p in people}
    finally:
        for p in people:
            p.page.close()


def play_round(
    wallet: Wallet,
    table_id: str,
    people: list[Person],
    bets: tuple[list[tuple[int, str]], list[tuple[int, str]]],
    opener: str | None,
    system: bool,
    urge: bool = False,
    shots: list[str] | None = None,
) -> None:
    alice, bob = people[:2]
    a_bets, b_bets = bets
    for p in people:
        p.until("a betting window", "document.body.dataset.phase === 'betting' && "
                "document.body.dataset.window !== ''")  # fmt: skip
    window = alice.view()["window"]
    # the countdown runs from closes_at on the server's clock: within the window's seconds
    left = alice.js("document.getElementById('countdown').textContent.match(/\\d+/)[0]")
    assert 0 <= int(left) <= TIMINGS["betting_seconds"], left
    assert {p.view()["window"] for p in people} == {window}
    for p in people:  # the urge button (催促鈕) is the player-banker's alone; they do not bet
        assert p.js("!document.getElementById('urge').hidden") == (p.player.seat is None)
        areas = "[...document.querySelectorAll('.area')].filter((a) => !a.disabled).length"
        if p.player.seat is None:
            assert p.js(areas) == 0, p.name
        else:  # once the page has drawn them seated
            p.until("the areas open", f"{areas} > 0", timeout=5)
    if urge and len(people) > 2:
        banker = people[2]
        banker.click("#urge")
        for p in (alice, bob):
            p.until("the urge", "document.getElementById('notice').textContent.includes("
                    f"{json.dumps(banker.player.bettor_id)})", timeout=5)  # fmt: skip
    t0 = time.monotonic()
    alice.bet(a_bets)
    bob.bet(b_bets)
    alice.confirmed()
    bob.confirmed()
    print(f"{alice.name} window {window}: both confirmed in {time.monotonic() - t0:.2f} s")
    # each sees the other's slip on the other's seat (對應押注區)
    alice.until("bob's slip on seat 2", "document.querySelectorAll('.seat[data-seat=\"2\"] .line')"
                f".length === {len({a for _, a in b_bets})}", timeout=5)  # fmt: skip
    before = {p.player.bettor_id: wallet.balance(table_id, p.player.bettor_id) for p in people}
    for p in people:
        assert p.balance() == before[p.player.bettor_id], (p.name, p.view(), before)
    reveals = {p.name: p.view()["systemReveals"] for p in people}
    for p in people:
        p.until("the squeeze", "document.body.dataset.phase === 'squeeze'", timeout=15)
    squeezer = alice if opener == "alice" else bob
    if opener:
        squeezer.until("the open button", "!document.getElementById('open').hidden", timeout=5)
        squeezer.click("#open")

    def unchanged_until_shown(p: Person, v: dict[str, Any]) -> None:
        if v["down"] or v["phase"] == "squeeze":  # a card face down: nobody's money moved yet
            assert int(v["balance"]) == before[p.player.bettor_id], (p.name, v)

    def dealt() -> str | None:
        found = [
            e["data"]["round_id"]
            for e in list(wallet.events[table_id])
            if e["type"] == "round_dealt" and str(e["data"]["round_number"]) == window
        ]
        return found[-1] if found else None

    def settled() -> bool:  # the wallet paid it, both pages show its result
        return dealt() in wallet.settled and all(
            v["result"] and v["round"] == window for v in (p.view() for p in people)
        )

    watch_until(
        people,
        lambda: (
            settled()
            and (not system or all(p.view()["systemReveals"] > reveals[p.name] for p in people))
        ),
        unchanged_until_shown,
    )
    for p, name in zip(people, shots or [], strict=False):  # the cards and the result, shown
        p.shot(name)
    nets = wallet.settled[str(dealt())]
    for p in people:
        want = before[p.player.bettor_id] + nets.get(p.player.bettor_id, 0)
        p.until(
            f"the balance moved by the net to {want}",
            f"document.getElementById('balance').dataset.value === '{want}'",
            timeout=5,
        )
    assert alice.view()["result"] == bob.view()["result"]


#: The page's reads of ``GET …/state`` over its rounds beyond one per report of the person's own
#: balance (private: never in an event): the snapshot when it connects, and a reconnect or resync
#: at most — never one per event (the events carry what the page draws: web/table-state.js).
MAX_SNAPSHOTS = 2


def state_reads(p: Person, table_id: str) -> int:
    """How often ``p``'s page read the table's state (the browser's own request log, CDP's
    Network domain), asserted to be its snapshots only."""
    path = f"/v1/tables/{table_id}/state"
    urls = p.page.requested_urls()
    reads = [u for u in urls if u.split("?")[0].endswith(path)]
    applied = int(p.js("Number(document.body.dataset.seq || 0)"))
    own = int(p.js("Number(document.body.dataset.ownReports || 0)"))
    print(f"{p.name}: {len(reads)} state reads ({own} own balance reports) up to seq {applied}")
    assert 1 <= len(reads) <= MAX_SNAPSHOTS + own, (p.name, len(reads), own, applied)
    return len(reads)


def chat(author: Person, reader: Person, text: str) -> None:
    author.js(f"document.getElementById('chat-input').value = {json.dumps(text)}")
    author.click("#chat-send")
    reader.until("the chat line", f"[...document.querySelectorAll('#chat-list .text')]"
                 f".some((n) => n.textContent === {json.dumps(text)})", timeout=10)  # fmt: skip


def hostile_chat(author: Person, reader: Person) -> None:
    """A bidi override is refused (the author's page shows the code); markup is text."""
    author.js(f"document.getElementById('chat-input').value = {json.dumps(HOSTILE)}")
    author.click("#chat-send")
    author.until("the refusal", "document.getElementById('error').dataset.code === "
                 "'chat_text_invalid'", timeout=5)  # fmt: skip
    chat(author, reader, MARKUP)
    for p in (author, reader):
        assert p.js("document.querySelectorAll('img, [onerror]').length") == 0
        assert p.js("[...document.querySelectorAll('#chat-list .text')].filter((n) => "
                    f"n.textContent === {json.dumps(MARKUP)} && n.childElementCount === 0)"
                    ".length") == 1  # fmt: skip
