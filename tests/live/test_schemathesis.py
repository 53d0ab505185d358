"""Schemathesis against ``docs/openapi.json`` on the LOCAL SERVER (``python -m baccarat_dev.local``:
uvicorn + DynamoDB Local and moto's server for KMS, on free loopback ports), authenticated with a
seeded operator key: every
phase (examples, coverage, fuzzing, stateful through the document's links) and every check, above
all no 5xx and every response — errors included — as the document says (one error envelope).

Bounded: ``BACC_FUZZ_EXAMPLES`` cases per operation (default 8, for make test's time: ~90
operations; raise it to dig deeper) with a fixed seed, one worker,
a hard timeout. Real ids are mixed into the generated ones (tests/live/schemathesis_hooks.py), so
fuzzed bodies reach bet validation, dealing and settlement. The per-operator rate limit is
raised for the run (it has its own test) so the run reaches the logic behind it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.local_server import LocalServer, local_server
from support.stack import star_city_bets

from baccarat_api.apikeys import new_key
from baccarat_api.limits import MAX_BODY_BYTES
from baccarat_dev.openapi import OPENAPI_JSON

ST = Path(sys.executable).with_name("st")
EXAMPLES = int(os.environ.get("BACC_FUZZ_EXAMPLES", "8"))
SEED = 20260511


@pytest.fixture(scope="module")
def server(shared_dynamodb: Any) -> Iterator[LocalServer]:
    key = new_key()
    env = {"BACCARAT_DEMO_KEY": key, "RATE_LIMIT_PER_SECOND": "1000", "RATE_LIMIT_BURST": "1000"}
    with local_server(env, dynamodb=shared_dynamodb) as served:
        assert served.key == key, served.banner
        yield served


def seed_world(server: LocalServer) -> dict[str, list[str]]:
    """Tables of both profiles and bankings, open shoes with dealt (some settled) rounds."""
    ids: dict[str, list[str]] = {"table_id": [], "shoe_id": [], "round_id": [], "close_shoe_id": []}
    headers = {"authorization": f"Bearer {server.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as http:
        for profile, tier, banking in [
            ("star-city", "star-city-fun", "house"),
            ("star-city", "star-city-fun", "player_banker"),
            ("bid-squeeze", "bid-squeeze-standard", "house"),
        ]:
            for purpose in ("play", "close"):
                table = http.post(
                    "/v1/tables",
                    json={
                        "profile": profile,
                        "tier": tier,
                        "banking": banking,
                        "squeeze_seconds": 0,
                    },
                )
                assert table.status_code == 201, table.text
                table_id = table.json()["table_id"]
                shoe = http.post(f"/v1/tables/{table_id}/shoes", json={"client_seed": purpose})
                assert shoe.status_code == 201, shoe.text
                shoe_id = shoe.json()["shoe_id"]
                if purpose == "close":
                    ids["close_shoe_id"].append(shoe_id)
                    continue
                ids["table_id"].append(table_id)
                ids["shoe_id"].append(shoe_id)
                for seat, bettor in ((1, "alice"), (2, "bob")):  # the deals' company
                    sit = {"bettor_id": bettor, "balance": 50_000, "level": 5}
                    http.put(f"/v1/tables/{table_id}/seats/{seat}", json=sit)
                if banking == "player_banker":
                    http.put(f"/v1/tables/{table_id}/banker",
                             json={"bettor_id": "pat", "balance": 10**7})  # fmt: skip
                bets = star_city_bets() if profile == "star-city" and banking == "house" else None
                for n in range(3):
                    dealt = http.post(f"/v1/shoes/{shoe_id}/rounds", json={"bets": bets or []})
                    assert dealt.status_code == 201, dealt.text
                    ids["round_id"].append(dealt.json()["round_id"])
                    if n < 2:  # resolved before the next round is dealt
                        assert http.post(
                            f"/v1/rounds/{dealt.json()['round_id']}/settlement"
                        ).status_code in (200, 422)
    return ids


def test_schemathesis_finds_no_5xx_and_no_response_off_the_contract(
    server: LocalServer, tmp_path: Path
) -> None:
    ids = seed_world(server)
    config = tmp_path / "schemathesis.toml"
    # a schema-valid request may still be refused on its merits (an unknown tier, a bet over
    # its limit: 422) or find its resource gone or in another state (404, 409) -- or find its
    # person muted by an earlier call of the same run (403 chat_muted: the operator key may do
    # everything else, so a 403 here is always a state, never a missing right)
    config.write_text(
        "[checks.positive_data_acceptance]\n"
        'expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429"]\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "BACCARAT_"))}
    env.update(
        {
            "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
            "PYTHONPATH": str(Path(__file__).parent),
            "BACC_FUZZ_IDS": json.dumps(ids),
        }
    )
    args = [
        str(ST), "--config-file", str(config),
        "run", str(OPENAPI_JSON),
        "--url", server.url,
        "--header", f"Authorization: Bearer {server.key}",
        "--checks", "all",
        "--max-examples", str(EXAMPLES),
        "--seed", str(SEED),
        "--workers", "1",
        "--request-timeout", "10",
        "--no-color",
        "--output-truncate", "true",
    ]  # fmt: skip
    run = subprocess.run(
        args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-12000:]
    generated = re.search(r"(\d+) generated", report)
    assert generated and int(generated[1]) >= 100, report[-3000:]  # it really ran
    assert server.proc.poll() is None  # the server is still up
    assert key_free(server, report)
    unhandled = [line for line in server.output if "unhandled error" in line]
    assert not unhandled, unhandled[:3]


def key_free(server: LocalServer, report: str) -> bool:
    """Neither schemathesis's report nor the server's log (past its banner) carries the
    operator key."""
    return server.key not in report and server.key not in "".join(server.output)


def test_the_body_limit_holds_on_the_real_server_without_content_length(
    server: LocalServer,
) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(MAX_BODY_BYTES // 8192 + 2):
            yield b" " * 8192

    r = httpx.post(
        f"{server.url}/v1/tables",
        content=chunks(),
        headers={"authorization": f"Bearer {server.key}", "content-type": "application/json"},
        timeout=10,
    )
    assert "content-length" not in r.request.headers
    assert r.status_code == 413
    body: Any = r.json()
    assert body["error"]["code"] == "payload_too_large"
    assert body["error"]["request_id"] == r.headers["x-request-id"]


def test_the_admin_command_the_banner_prints_manages_this_servers_operators(
    server: LocalServer,
) -> None:
    """``make run``'s banner names the admin command for its backend; run as printed (the
    installed console script, no AWS settings), it lists the demo operator, and a key it adds
    works on the running server at once."""
    match = re.search(r"operators, keys\s+(baccarat operator list .+)", server.banner)
    assert match, server.banner
    argv = match[1].split()
    script = str(Path(sys.executable).with_name("baccarat"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "BACCARAT_"))}

    def run(*args: str) -> Any:
        done = subprocess.run(
            [script, *argv[1:3], *args, *argv[3:], "--json"],
            capture_output=True, text=True, env=env, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    listed = run()
    assert [o["operator_id"] for o in listed["operators"]] == ["demo-operator"]
    assert server.key not in json.dumps(listed)
    argv[2] = "add-key"
    added = run("demo-operator")
    r = httpx.get(
        f"{server.url}/v1/tiers", headers={"authorization": f"Bearer {added['key']}"}, timeout=10
    )
    assert r.status_code == 200
