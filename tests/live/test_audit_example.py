"""docs/api.md's audit example, executed as written (its ``sh`` block, by bash, with curl) against
the local server: a table whose shoe 1 has 3 rounds (one settled, one voided, one nobody bet on:
settled at its deal) and has ended, and
whose shoe 2 is open. The first answer matches the documented one (every value but those elided
with "…"); the second, from the checkpoint the first answered, verifies shoe 2."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.local_server import LocalServer, local_server
from support.stack import star_city_bets

from baccarat_dev.template import REPO_ROOT

HEADING = "### `GET /v1/tables/{table_id}/audit`"


def example() -> tuple[str, Any]:
    """The audit section's ``sh`` block, and its documented first answer."""
    doc = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", doc[doc.index(HEADING) :], re.DOTALL)
    assert block, "no sh block in the audit section"
    answer = re.search(r"^# (\{.*?\})$", block[1], re.DOTALL | re.MULTILINE)
    assert answer, block[1]
    return block[1], json.loads(re.sub(r"^#  ?", "", answer[1], flags=re.MULTILINE))


def matches(documented: Any, got: Any) -> bool:
    """``got`` has exactly the documented keys and values; "…" in a string stands for any text."""
    if isinstance(documented, str) and "…" in documented:
        pattern = ".+".join(re.escape(part) for part in documented.split("…"))
        return isinstance(got, str) and re.fullmatch(pattern, got) is not None
    if isinstance(documented, dict):
        return (
            isinstance(got, dict)
            and set(documented) == set(got)
            and all(matches(documented[k], got[k]) for k in documented)
        )
    return bool(documented == got)


@pytest.fixture(scope="module")
def server(shared_dynamodb: Any) -> Iterator[LocalServer]:
    with local_server({"BACCARAT_SWEEP_SECONDS": "0"}, dynamodb=shared_dynamodb) as served:
        yield served


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl on PATH")
def test_the_documented_audit_example_runs_as_written(server: LocalServer) -> None:
    headers = {"authorization": f"Bearer {server.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
        table = http.post(
            "/v1/tables", json={"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
        ).json()["table_id"]
        shoe = http.post(f"/v1/tables/{table}/shoes", json={"client_seed": "doc"}).json()
        rounds = [
            http.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", json={"bets": bets}).json()
            for bets in (star_city_bets(), star_city_bets(), [])
        ]
        assert http.post(f"/v1/rounds/{rounds[0]['round_id']}/settlement").status_code == 200
        void = http.post(f"/v1/rounds/{rounds[1]['round_id']}/void", json={"reason": "misdeal"})
        assert void.status_code == 200, void.text
        assert http.post(f"/v1/shoes/{shoe['shoe_id']}/close").status_code == 200
        second = http.post(f"/v1/tables/{table}/shoes", json={"client_seed": "two"})
        assert second.status_code == 201, second.text

    script, documented = example()
    env = {
        "PATH": os.environ["PATH"],
        "H": f"Authorization: Bearer {server.key}",
        "BACCARAT_URL": server.url,
        "TABLE": table,
    }
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    first, then = (json.loads(line) for line in done.stdout.splitlines())
    assert matches(documented, first), (documented, first)
    assert first["head"] == rounds[2]["round_hash"] and first["start"] == first["genesis"]
    assert then["verified"] and then["shoe_id"] == f"{table}_s2"
    assert then["start"] == first["head"]
