"""examples/play_shoe.py ``--session`` against the local server (DynamoDB Local): a star-city
table — seats, a watcher, betting windows with a cancelled and a replaced slip, deals from the
book, the squeezer's reveals, an idle bettor removed across a shoe boundary — and a bid-squeeze
table whose spectator leaves with the last seat, each feed printed as it goes; it exits 0 only
when bob was removed as idle, sam with the seat, and the state ends at the feed's last seq."""

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


def test_the_session_mode_plays_a_live_table(shared_dynamodb: Any, tmp_path: Path) -> None:
    summary = tmp_path / "session.json"
    with local_server({"BACCARAT_SWEEP_SECONDS": "0"}, dynamodb=shared_dynamodb) as server:
        run = subprocess.run(
            [sys.executable, "examples/play_shoe.py", "--session", "--summary-json", str(summary),
             "--url", server.url, "--key", server.key],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    out = json.loads(summary.read_text())
    assert out["removed"] == [{"seat": 2, "bettor_id": "bob", "reason": "idle"}]
    assert out["rounds"] == 5 and out["seats"] == {"1": "alice", "3": "carol"}
    assert out["spectators_left"] == [{"bettor_id": "sam", "reason": "no_seated_bettor"}]
    for kind in ("seat_taken", "spectator_joined", "watcher_joined", "shoe_committed",
                 "betting_opened", "bet_placed", "bet_cancelled", "betting_closed", "round_dealt",
                 "squeeze_revealed", "round_settled", "shoe_ended", "seat_vacated"):  # fmt: skip
        assert kind in out["types"], kind
    assert out["state_seq"] == out["last_seq"] == out["events"]
    lines = run.stdout.splitlines()
    assert any(" bet_cancelled " in line and '"bettor_id":"carol"' in line for line in lines)
    assert any(" seat_vacated " in line and '"reason":"idle"' in line for line in lines)
    assert lines[-1].endswith("removed as idle: bob")
