"""Betting behind at a book table, raced for real through the service: the local server on
DynamoDB Local, spectators' slips confirmed over HTTP by 8 threads while the running table's
``close`` tick (delivered by hand, the server's own clock off) locks the book and deals it.

* The lock boundary: every ``200`` slip is a leaf of the dealt book, every ``409
  betting_closed`` slip is not; a ``200`` slip sent again after the lock answers ``200`` with
  the window ``locked`` or ``dealt``, never ``409``.
* A storm at ``closes_at``: slips keep coming until the window closes by its time; the close
  tick at ``closes_at``; the same rule.
* A slip for a bettor who leaves (leave racing confirm, the close amid them): every slip is in
  the book with its bettor present at the lock, or it is not in the book.

Every dealt book is checked against an independent recomputation: its leaves rebuilt from the
slips answered ``200`` (canonical JSON by hand, SHA-256), and its totals against
:func:`baccarat.settlement.settle` of all the book's bets AT ONCE (every bettor's net). The
spectators are put in the book store directly (presence at book tables is another change);
everything else goes through the HTTP API and the table clock's use case. Bounded; loopback
only."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.book import ref
from support.local_server import local_server

from baccarat.bets import Bet, Role
from baccarat.booktree import root
from baccarat.paytables import BetType
from baccarat.profiles import TableConfig
from baccarat.settlement import settle
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.clock import now
from baccarat_api.ids import parse_round_id, parse_shoe_id
from baccarat_api.ports.book import Spectator
from baccarat_dev.local import DEMO_OPERATOR
from live.test_races_live import in_parallel
from live.test_table_clock_races import Local

OP = DEMO_OPERATOR
THREADS = 8
#: Each bettor's slip: 1–3 lines by its number (amounts in the tier's units).
LINES = [
    [("banker", 1000)],
    [("player", 2000), ("tie", 500)],
    [("banker", 3000), ("banker_pair", 500), ("big", 1000)],
]


def lines_of(i: int) -> list[tuple[str, int]]:
    return LINES[i % len(LINES)]


@pytest.fixture(scope="module")
def local(shared_dynamodb: Any) -> Iterator[Local]:
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_TABLE_CLOCK": "0", "RATE_LIMIT_PER_SECOND": "0"}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        yield Local(server)


def book_table(local: Local, http: httpx.Client, betting_seconds: int = 60) -> str:
    """A running book table, alice seated, its shoe committed, betting opened by its tick."""
    body = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
            "dealing": "auto", "bet_behind": "book", "betting_seconds": betting_seconds,
            "squeeze_seconds": 0}  # fmt: skip
    table = http.post("/v1/tables", json=body)
    assert table.status_code == 201, table.text
    table_id = str(table.json()["table_id"])
    seat = {"bettor_id": "alice", "balance": 500_000, "level": 3}
    assert http.put(f"/v1/tables/{table_id}/seats/1", json=seat).status_code == 200
    shoe = http.post(f"/v1/tables/{table_id}/shoes", json={"client_seed": str(uuid.uuid4())})
    assert shoe.status_code == 201, shoe.text
    return table_id


def join(local: Local, table_id: str, ids: list[str]) -> None:
    book = local.repo().book
    for b in ids:
        assert book.join_spectator(OP, table_id, Spectator(b, ref(b), 1_000_000, "t"))


def open_window(local: Local, table_id: str) -> None:
    """The open tick delivered now (not at its due time, passed while spectators joined)."""
    tick = local.tick(table_id, "open")
    assert local.deliver({**tick, "due": max(tick["due"], now())}) == "done"


def body(i: int) -> dict[str, Any]:
    return {"bets": [{"type": t, "amount": a} for t, a in lines_of(i)]}


def confirm(http: httpx.Client, table_id: str, bettor: str, i: int) -> httpx.Response:
    return http.put(f"/v1/tables/{table_id}/bets/{bettor}", json=body(i))


def dealt_round(local: Local, table_id: str) -> Any:
    repo = local.repo()
    live = repo.load(OP, live=table_id).live
    assert live is not None and live.betting is not None
    assert live.betting["status"] == "dealt", live.betting
    rid = parse_round_id(str(live.betting["round_id"]))
    assert rid is not None
    r = repo.get_round(OP, rid)
    assert r is not None and r.book is not None
    return r


def check_book(local: Local, r: Any, booked: dict[str, int]) -> None:
    """The dealt book is exactly ``booked`` (bettor → its slip's number): leaves rebuilt by
    hand, the root, and the totals = the whole book settled at once."""
    order = sorted(booked, key=lambda b: ref(b).encode())
    data = [
        json.dumps(
            {"bettor_ref": ref(b), "lines": sorted(
                ({"amount": a, "type": t} for t, a in lines_of(booked[b])),
                key=lambda x: x["type"]),
             "role": "spectator", "round_id": r.round_id, "spec": "bacc-book-v1"},
            separators=(",", ":"), sort_keys=True,
        ).encode()
        for b in order
    ]  # fmt: skip
    leaves = local.repo().chunks.leaves(OP, r.round_id)
    assert [x.bettor_ref for x in leaves] == [ref(b) for b in order]
    assert [x.hash for x in leaves] == [hashlib.sha256(b"\x00" + d).digest() for d in data]
    assert r.book["root"] == root(data).hex() and r.book["count"] == len(order)
    # the whole book at once, on the round's cards (the shoe re-derived from its secret)
    vault = local.vault()
    shoe = local.repo().get_shoe(OP, parse_shoe_id(r.ref.shoe.shoe_id))  # type: ignore[arg-type]
    assert shoe is not None
    rnd = ShoeCache(vault).get(shoe).shoe.rounds[r.round_number - 1]
    bets = [
        Bet(bettor_id=b, role=Role.SPECTATOR, type=BetType(t), amount=a, order=k)
        for k, (b, t, a) in enumerate((b, t, a) for b in order for t, a in lines_of(booked[b]))
    ]
    whole = settle(TableConfig.from_dict(r.config), rnd, bets)
    totals = r.book["totals"]
    assert totals["bettors"] == len(order) == len(whole.bettors)
    assert totals["net"] == sum(x.net for x in whole.bettors)
    assert totals["stake"] == sum(x.stake for x in whole.bettors)
    assert totals["house"]["take"] == whole.house_take == -totals["net"]


def race_the_close(
    local: Local, table_id: str, ids: list[str], fire_after: int
) -> tuple[dict[str, int], dict[str, str]]:
    """8 threads confirm ``ids``' slips (a share each) while the close tick is delivered
    once ``fire_after`` returned 200: (bettor → slip number answered 200, bettor → the
    refusal's code)."""
    ok: dict[str, int] = {}
    refused: dict[str, str] = {}
    lock = threading.Lock()
    fired = threading.Event()
    tick = local.tick(table_id, "close")

    def confirmer(share: list[tuple[int, str]]) -> None:
        with local.client() as http:
            for i, b in share:
                r = confirm(http, table_id, b, i)
                with lock:
                    if r.status_code == 200:
                        ok[b] = i
                    else:
                        refused[b] = r.json()["error"]["code"]
                    if len(ok) >= fire_after:
                        fired.set()

    def closer() -> None:
        fired.wait(timeout=60)
        assert local.deliver(tick) == "done"

    numbered = list(enumerate(ids))
    in_parallel([
        *(lambda s=numbered[k::THREADS]: confirmer(s) for k in range(THREADS)),
        closer,
    ])  # fmt: skip
    return ok, refused


def test_slips_racing_the_lock_every_200_is_dealt_every_409_is_not(local: Local) -> None:
    ids = [f"behind-{uuid.uuid4().hex[:8]}-{i}" for i in range(200)]
    with local.client() as http:
        table_id = book_table(local, http)
        join(local, table_id, ids)
        open_window(local, table_id)
        started = time.monotonic()
        ok, refused = race_the_close(local, table_id, ids, fire_after=50)
        took = time.monotonic() - started
        assert set(ok) | set(refused) == set(ids) and not set(ok) & set(refused)
        assert set(refused.values()) <= {"betting_closed"}, set(refused.values())
        r = dealt_round(local, table_id)
        check_book(local, r, ok)
        # a 200 slip sent again after the lock: 200 with its window's status, never 409
        for b in list(ok)[:5]:
            again = confirm(http, table_id, b, ok[b])
            assert again.status_code == 200, again.text
            assert again.json()["betting"]["status"] in ("locked", "dealt")
        # a refused slip sent again is still refused
        for b in list(refused)[:3]:
            assert confirm(http, table_id, b, 0).status_code == 409
    print(f"\nlock race: {len(ok)} confirmed, {len(refused)} refused ({took:.1f} s)")
    assert ok and refused  # the close fired while confirms were in flight


def test_a_storm_at_closes_at(local: Local) -> None:
    """Slips keep coming until the window closes by its time (a short window); then the close
    tick at ``closes_at`` locks and deals: the book is exactly the slips answered 200."""
    ids = [f"storm-{uuid.uuid4().hex[:8]}-{i}" for i in range(300)]
    with local.client() as http:
        table_id = book_table(local, http, betting_seconds=3)
        join(local, table_id, ids)
        open_window(local, table_id)
        ok: dict[str, int] = {}
        refused: dict[str, str] = {}
        lock = threading.Lock()
        tick = local.tick(table_id, "close")
        done = threading.Event()

        def confirmer(share: list[tuple[int, str]]) -> None:
            with local.client() as client:
                for i, b in share:
                    if done.is_set():
                        return
                    r = confirm(client, table_id, b, i)
                    with lock:
                        if r.status_code == 200:
                            ok[b] = i
                        else:
                            refused[b] = r.json()["error"]["code"]
                            done.set()  # closed by its time: every thread stops soon

        numbered = list(enumerate(ids))
        in_parallel([lambda s=numbered[k::THREADS]: confirmer(s) for k in range(THREADS)])
        assert local.deliver(tick) == "done"
        assert set(refused.values()) <= {"betting_closed"}, set(refused.values())
        check_book(local, dealt_round(local, table_id), ok)
    print(f"\nstorm at closes_at: {len(ok)} confirmed, {len(refused)} refused at the close")


def test_a_slip_for_a_bettor_who_leaves_is_booked_only_if_present_at_the_lock(
    local: Local,
) -> None:
    """60 bettors confirm, 10 at a time, half of them leaving at the same moment (a confirm
    and a leave of the same bettor at once), the close tick fired amid the 4th batch: a slip is
    in the book only if it was answered 200, and every slip answered 200 whose bettor is still
    present is in it (a bettor who left before the lock took the slip with them; one who left
    after it is dealt)."""
    ids = [f"leaver-{uuid.uuid4().hex[:8]}-{i}" for i in range(60)]
    with local.client() as http:
        table_id = book_table(local, http)
        join(local, table_id, ids)
        open_window(local, table_id)
        live = local.repo().load(OP, live=table_id).live
        assert live is not None and live.betting is not None
        round_id = f"{live.betting['shoe_id']}_r{live.betting['round_number']}"
        tick = local.tick(table_id, "close")
        answers: dict[str, int] = {}
        lock = threading.Lock()

        book = local.repo().book  # one client for every thread (boto3's are thread-safe)

        def confirmer(i: int, b: str) -> None:
            status = confirm(http, table_id, b, i).status_code
            with lock:
                answers[b] = status

        def leaver(b: str) -> None:
            book.leave_spectator(OP, table_id, b, round_id)

        def closer() -> None:
            assert local.deliver(tick) == "done"

        numbered = list(enumerate(ids))
        for batch in range(0, len(ids), 10):  # the even ones leave, the odd ones stay
            pairs = numbered[batch : batch + 10]
            work = [*(lambda i=i, b=b: confirmer(i, b) for i, b in pairs),
                    *(lambda b=b: leaver(b) for i, b in pairs if i % 2 == 0)]  # fmt: skip
            in_parallel([*work, closer] if batch == 30 else work)
        repo = local.repo()
        present = {b for b in ids if repo.book.get_spectator(OP, table_id, b) is not None}
        r = dealt_round(local, table_id)
        booked_refs = {x.bettor_ref for x in repo.chunks.leaves(OP, r.round_id)}
        booked = {b: i for i, b in numbered if ref(b) in booked_refs}
        assert len(booked) == len(booked_refs)
        answered_ok = {b for b, status in answers.items() if status == 200}
        assert set(booked) <= answered_ok
        assert answered_ok & present <= set(booked)
        assert set(answers.values()) <= {200, 409}, set(answers.values())
        check_book(local, r, booked)
    assert answered_ok & present  # the staying bettors' slips before the lock
    print(f"\nleave racing confirm: {len(answered_ok)} answered 200, {len(booked)} dealt")
