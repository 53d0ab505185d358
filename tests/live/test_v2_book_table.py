"""A running bacc-pf-v2 ``bet_behind: book`` table on the local server (DynamoDB Local, the table
clock on its thread, ``make run``'s local test beacon at a 500 ms period): two rounds, alice
seated and spectators betting behind — three of them confirming around the window's
``closes_at`` (120 ms before, 40 ms before, at it), racing the lock. Whatever each race's
answer, the book locked with the round is exactly the slips that were confirmed (200 → in the
book, with a receipt; 409 ``betting_closed`` → not in it); the shoe's proof verifies with
``baccarat verify`` (its book roots, its public book pages, every slip's money) and so does a
spectator's receipt."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.local_server import local_server
from support.v2_table import play_v2_shoe, until

from baccarat_verify.cli import main as verify_main

pytestmark = pytest.mark.live

SPECTATORS = {"carol": ("banker", 1000), "dave": ("player", 3000), "erin": ("tie", 500)}
#: who confirms a slip around each window's closes_at (racing the lock), ms from it
RACERS = {"zed": -120, "yan": -40, "xia": 0}


def _ms(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000


def test_a_running_v2_book_table_locks_its_book_with_the_round(
    shared_dynamodb: Any, tmp_path: Path
) -> None:
    env = {"BACCARAT_SWEEP_SECONDS": "0", "BACCARAT_BEACON_PERIOD_MS": "500"}
    raced: dict[tuple[int, str], int] = {}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        api = httpx.Client(base_url=server.url, timeout=30,
                           headers={"Authorization": f"Bearer {server.key}"})  # fmt: skip

        def window(t: str, n: int) -> None:
            if n == 1:
                for b in [*SPECTATORS, *RACERS]:
                    got = api.put(f"/v1/tables/{t}/spectators/{b}", json={"balance": 100_000})
                    assert got.status_code == 200, got.text
            for b, (kind, amount) in SPECTATORS.items():
                body = {"bets": [{"type": kind, "amount": amount}], "round_number": n}
                got = api.put(f"/v1/tables/{t}/bets/{b}", json=body)
                assert got.status_code == 200, got.text
            closes = api.get(f"/v1/tables/{t}/state").json()["book"]["betting"]["closes_at"]
            for b, offset in RACERS.items():
                time.sleep(max(0.0, (_ms(closes) + offset - time.time() * 1000) / 1000))
                body = {"bets": [{"type": "banker", "amount": 2000}], "round_number": n}
                got = api.put(f"/v1/tables/{t}/bets/{b}", json=body)
                assert got.status_code in (200, 409), got.text
                if got.status_code == 409:
                    assert got.json()["error"]["code"] == "betting_closed"
                raced[n, b] = got.status_code

        fields = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "bet_behind": "book"}
        table, shoe_id = play_v2_shoe(api, 2, fields=fields, each_window=window, seat={"level": 1})
        proof_url = f"{server.url}/v1/shoes/{shoe_id}/proof"
        until(lambda: True if httpx.get(proof_url, timeout=30).status_code == 200 else None)
        rounds = [api.get(f"/v1/rounds/{shoe_id}_r{n}").json() for n in (1, 2)]
        receipts: dict[tuple[int, str], httpx.Response] = {}
        for n in (1, 2):
            for b in [*SPECTATORS, *RACERS]:
                url = f"/v1/rounds/{shoe_id}_r{n}/receipts/{b}"

                def written(url: str = url) -> httpx.Response | None:
                    got = api.get(url)
                    return None if got.status_code == 404 and _pending(got) else got

                receipts[n, b] = until(written)
        receipt = tmp_path / "receipt.json"
        receipt.write_text(json.dumps(receipts[1, "carol"].json()))
        verified = verify_main(
            ["verify", proof_url, "--books", "--receipt", str(receipt), "--allow-test-beacon"]
        )
    print(f"\nslips confirmed around closes_at (200: in the book, 409: not): {raced}")
    assert verified == 0
    assert table["bet_behind"] == "book" and table["fairness"] == "bacc-pf-v2"
    for n, r in enumerate(rounds, start=1):
        in_book = len(SPECTATORS) + sum(raced[n, b] == 200 for b in RACERS)
        assert r["lock"]["book_root"] and r["book"]["count"] == in_book, r
        for b in RACERS:
            got = receipts[n, b]
            if raced[n, b] == 200:
                assert got.status_code == 200 and got.json()["root"] == r["book"]["root"]
            else:
                assert got.status_code == 404 and got.json()["error"]["code"] == "not_in_book"
        for b in SPECTATORS:
            assert receipts[n, b].status_code == 200 and receipts[n, b].json()["leaf"]["lines"]


def _pending(got: httpx.Response) -> bool:
    return bool(got.json()["error"]["code"] == "settlement_pending")
