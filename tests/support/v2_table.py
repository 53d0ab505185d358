"""A running ``bacc-pf-v2`` table played on the local server (``make run``'s runner with its
local test beacon) as a bettor and an operator would: the live tests of the flow and of its
proof in the browser share it."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx


def until(check: Any, timeout: float = 30.0) -> Any:
    """``check()`` polled every 0.1 s until it returns something, or an AssertionError."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (got := check()) is not None:
            return got
        time.sleep(0.1)
    raise AssertionError("timed out")


def _event(api: httpx.Client, table_id: str, kind: str, round_id: str) -> dict[str, Any] | None:
    events = api.get(f"/v1/tables/{table_id}/events?limit=100").json()["events"]
    found = [e for e in events if e["type"] == kind and e["data"]["round_id"] == round_id]
    return found[0] if found else None


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def play_v2_shoe(
    api: httpx.Client,
    rounds: int,
    seen_before: list[float] | None = None,
    fields: dict[str, Any] | None = None,
    each_window: Callable[[str, int], None] | None = None,
    seat: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], str]:
    """A running v2 table (star-city unless ``fields`` say otherwise, betting 3 s: a loaded
    machine still gets the slip in; no squeeze, no pause) with a client seed given in advance
    and alice seated (``seat``: more of her seat's body): she confirms a Banker slip each window
    (then ``each_window(table, n)``: others' slips); after ``rounds`` rounds the operator pauses
    the table and closes the shoe (409 while a round is locked). The table and its shoe's id;
    into ``seen_before``, for each round, how many ms before its beacon round's time a watcher
    of the feed read its ``round_locked``."""
    table = api.post("/v1/tables", json={
        "profile": "star-city", "tier": "star-city-fun", "banking": "house",
        "dealing": "auto", "betting_seconds": 3, "squeeze_seconds": 0, "pause_seconds": 0,
        "fairness": "bacc-pf-v2", **(fields or {}),
    }).json()  # fmt: skip
    t = table["table_id"]
    assert table["fairness"] == "bacc-pf-v2" and table["beacon"]["test"] is True
    api.post(f"/v1/tables/{t}/client-seeds", json={"client_seed": "live v2"})
    api.put(
        f"/v1/tables/{t}/seats/1", json={"bettor_id": "alice", "balance": 500_000, **(seat or {})}
    )
    shoe_id = f"{t}_s1"
    for n in range(1, rounds + 1):

        def window_open(n: int = n) -> bool | None:
            b = api.get(f"/v1/tables/{t}/state").json()["book"]["betting"]
            return True if b and b["round_number"] == n and b["status"] == "open" else None

        until(window_open)
        slip = {"bets": [{"type": "banker", "amount": 2000}], "round_number": n}
        assert api.put(f"/v1/tables/{t}/bets/alice", json=slip).status_code == 200
        if each_window is not None:
            each_window(t, n)
        if seen_before is not None:  # a watcher of the feed reads the lock before the beacon
            lock = until(lambda n=n: _event(api, t, "round_locked", f"{shoe_id}_r{n}"))
            due = _ms(lock["data"]["beacon"]["expected_at"])
            seen_before.append(due - time.time() * 1000)
    last = f"{shoe_id}_r{rounds}"
    until(lambda: True if api.get(f"/v1/rounds/{last}").json().get("settlement") else None)
    assert api.post(f"/v1/tables/{t}/pause").status_code == 200

    def closed() -> dict[str, Any] | None:
        r = api.post(f"/v1/shoes/{shoe_id}/close")
        return r.json() if r.status_code == 200 else None  # 409 while a round is locked

    until(closed)
    return table, shoe_id
