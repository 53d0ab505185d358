"""examples/play_shoe.py ``--auto`` against the local server (DynamoDB Local, the table clock on
its thread as under ``make run``): a star-city player-banker table and a bid-squeeze table,
created running with the shortest timings, whose bettors only confirm slips (alice squeezes,
bob never does). The star-city shoe is played to its end and shoe 2 is committed by the table;
the operator makes no request per round; the system opens bob's cards; the proofs verify; every
time-driven step is timed against its deadline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.local_server import local_server

from baccarat_dev.template import REPO_ROOT

pytestmark = pytest.mark.live


def test_the_auto_mode_plays_running_tables_with_no_operator_request(
    shared_dynamodb: Any, tmp_path: Path
) -> None:
    summary = tmp_path / "auto.json"
    with local_server({"BACCARAT_SWEEP_SECONDS": "0"}, dynamodb=shared_dynamodb) as server:
        run = subprocess.run(
            [sys.executable, "examples/play_shoe.py", "--auto", "--rounds", "4",
             "--betting-seconds", "1", "--squeeze-seconds", "1", "--pause-seconds", "0",
             "--quiet", "--summary-json", str(summary), "--url", server.url, "--key", server.key],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=240,
        )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    out = json.loads(summary.read_text())
    assert out["operator_requests_per_round"] == 0
    assert out["requests"]["play"].get("operator", 0) == 0 and out["requests"]["play"]["bettor"]
    star, bid = out["tables"]["star-city"], out["tables"]["bid-squeeze"]
    assert star["rounds"] == 30 and star["shoes_committed"] == [1, 2]
    assert bid["rounds"] == 4 and bid["shoes_committed"] == [1]
    for t in (star, bid):
        assert t["proofs"] and all(p["verified"] and p["consistent"] for p in t["proofs"].values())
        assert all(p["committed_by"] == "clock" for p in t["proofs"].values())
        for kind in ("client_seed_given", "shoe_committed", "betting_opened", "bet_placed",
                     "betting_closed", "round_dealt", "squeeze_revealed", "round_settled",
                     "table_paused"):  # fmt: skip
            assert kind in t["types"], kind
        assert t["slips"] > 0
    assert "shoe_ended" in star["types"]
    # alice squeezed, bob never did: the system opened his cards at their reveal_by
    assert "bob" not in star["revealed_by"] and "bob" not in bid["revealed_by"]
    assert star["revealed_by"].get("alice", 0) + bid["revealed_by"].get("alice", 0) > 0
    assert star["system_revealed_for"].get("bob", 0) + bid["system_revealed_for"].get("bob", 0) > 0
    late = out["lateness_ms"]
    for step in ("close", "reveal", "settle", "open", "commit"):
        assert late[step]["n"] > 0, step
    # every round of both tables (a window shoe 2 opened before the pause may be counted too)
    assert late["close"]["n"] >= 34 and late["commit"]["n"] == 1
