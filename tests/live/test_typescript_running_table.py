"""The TypeScript client's running-table example (clients/typescript/examples/running-table.ts)
against the local server as a user runs it (its URL and key handed over as BACCARAT_URL and KEY):
a bid-squeeze table that runs itself, followed from the feed by the bettors' frontend. What the
run did is read back from the API itself (the table's feed and state), not only from the
example's own summary: five rounds dealt from the book and settled, the pause honoured (no
window opened between ``table_paused`` and ``table_resumed``), the squeezer's own reveals and the
system's for the bettor who never squeezed, and no operator request per round but the pause and
the resume."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.local_server import LocalServer, local_server
from support.typescript_client import output, require_client, run

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def api(shared_dynamodb: Any) -> Iterator[LocalServer]:
    require_client()  # before starting a server for nothing
    with local_server(dynamodb=shared_dynamodb) as server:
        yield server


def feed(api: LocalServer, table_id: str) -> list[dict[str, Any]]:
    """Every event of the table, page after page."""
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        page = httpx.get(
            f"{api.url}/v1/tables/{table_id}/events",
            params={"after": after, "limit": 100},
            headers={"authorization": f"Bearer {api.key}"},
            timeout=10,
        ).json()
        events += page["events"]
        after = page["next_after"]
        if not page["more"]:
            return events


def round_of(event: dict[str, Any]) -> int | None:
    data = event["data"]
    if "round_number" in data:
        return int(data["round_number"])
    if "round_id" in data:
        return int(str(data["round_id"]).rsplit("_r", 1)[1])
    return None


def test_a_running_bid_squeeze_table_followed_from_the_feed_plays_five_rounds_with_a_pause(
    api: LocalServer, tmp_path: Path
) -> None:
    summary_file = tmp_path / "summary.json"
    proc = run(
        ["tsx", "examples/running-table.ts", "--quiet", "--summary-json", str(summary_file)],
        env={"BACCARAT_URL": api.url, "KEY": api.key},
        timeout=240,
    )
    assert proc.returncode == 0, output(proc)
    summary = json.loads(summary_file.read_text())
    events = feed(api, summary["table_id"])
    kinds = [e["type"] for e in events]

    # five rounds dealt from the book (two slips each) and settled, by the table itself
    dealt = {round_of(e): e for e in events if e["type"] == "round_dealt"}
    settled = {round_of(e): e for e in events if e["type"] == "round_settled"}
    assert set(range(1, 6)) <= set(settled), kinds
    for n in range(1, 6):
        assert (dealt[n]["data"]["bettors"], dealt[n]["data"]["bets"]) == (2, 2)
        assert set(settled[n]["data"]["nets"]) == {"alice", "bob"}
    assert "betting_cancelled" not in kinds and "round_auto_settled" not in kinds

    # the pause: after round 3's settlement, no window opened until the resume
    paused, resumed = kinds.index("table_paused"), kinds.index("table_resumed")
    assert round_of(events[paused - 1]) == 3 and events[paused - 1]["type"] == "round_settled"
    assert "betting_opened" not in kinds[paused:resumed]
    assert kinds[resumed + 1] == "betting_opened" and round_of(events[resumed + 1]) == 4
    assert summary["opened_while_paused"] == []
    # and the stop after round 5: paused again, the table no longer moves by itself
    assert kinds.count("table_paused") == 2
    state = httpx.get(
        f"{api.url}/v1/tables/{summary['table_id']}/state",
        headers={"authorization": f"Bearer {api.key}"},
        timeout=10,
    ).json()
    assert state["clock"]["paused"] is True and state["clock"]["dealing"] == "auto"

    # the squeeze: alice opens her Banker hand herself, bob never does: the system opens his
    for n in range(1, 6):
        reveals = [
            (e["data"]["step"], e["data"]["by"], tuple(e["data"]["hands"]))
            for e in events
            if e["type"] == "squeeze_revealed" and round_of(e) == n
        ]
        assert ("initial", "alice", ("banker",)) in reveals, (n, reveals)
        assert ("initial", "system", ("player",)) in reveals, (n, reveals)
        assert all(by != "bob" for _, by, _ in reveals), (n, reveals)
        # written at reveal_by itself, before the settlement
        system = next(
            e for e in events
            if e["type"] == "squeeze_revealed" and round_of(e) == n and e["data"]["by"] == "system"
        )  # fmt: skip
        assert system["seq"] < settled[n]["seq"]

    # the operator made no request per round but the pause and the resume (and the final stop)
    operator = {k: v for k, v in summary["routes"].items() if k.startswith("operator ")}
    per_round = {k: v for k, v in operator.items() if "/pause" in k or "/resume" in k}
    assert per_round == {
        "operator POST /v1/tables/{id}/pause": 2,
        "operator POST /v1/tables/{id}/resume": 1,
    }
    # the deal came at closes_at (its timer), not at a sweep a minute later
    lags = [r["dealt_lag_ms"] for r in summary["rounds"]]
    assert len(lags) == 5 and all(lag is not None and 0 <= lag < 5000 for lag in lags), lags


def test_a_new_running_table_whose_company_sits_down_without_a_seed_waits_for_one(
    api: LocalServer,
) -> None:
    auth = {"authorization": f"Bearer {api.key}"}
    body = {"profile": "star-city", "tier": "star-city-fun", "banking": "house", "dealing": "auto"}
    t = httpx.post(f"{api.url}/v1/tables", json=body, headers=auth, timeout=10).json()["table_id"]
    seat = {"bettor_id": "alice", "balance": 50_000}
    assert httpx.put(f"{api.url}/v1/tables/{t}/seats/1", json=seat, headers=auth).status_code == 200
    deadline = time.monotonic() + 10
    while "table_waiting" not in (kinds := [e["type"] for e in feed(api, t)]):
        assert time.monotonic() < deadline, kinds
        time.sleep(0.1)
    assert kinds == ["seat_taken", "table_waiting"]
    waiting = next(e for e in feed(api, t) if e["type"] == "table_waiting")
    assert waiting["data"] == {"reason": "no_client_seed"}
    clock = httpx.get(f"{api.url}/v1/tables/{t}/state", headers=auth).json()["clock"]
    assert (clock["waiting"], clock["next"]) == ("no_client_seed", None)
    given = httpx.post(
        f"{api.url}/v1/tables/{t}/client-seeds", json={"client_seed": "late"}, headers=auth
    )
    assert given.status_code == 201 and given.json()["for_shoe_number"] == 1
    deadline = time.monotonic() + 10
    while "shoe_committed" not in (kinds := [e["type"] for e in feed(api, t)]):
        assert time.monotonic() < deadline, kinds
        time.sleep(0.1)
    assert kinds[2:4] == ["client_seed_given", "shoe_committed"]
