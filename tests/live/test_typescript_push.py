"""The push client (clients/typescript/src/push.ts, the source of web/push.js) against the local
server's push channel with a real WebSocket (``ws``), as its README's example runs it
(examples/watch-table.ts; its outcome line is the README's): the operator mints alice a player
token (its answer names the channel), her page subscribes with only that token, the table gets
busy (watchers joining in concurrent bursts, a chat line) and every event from the snapshot on
arrives exactly once, in seq order; revoking her token ends her channel with ``rotate`` and her
resubscription is refused (the page is told ``closed``), while bob's page (another token) follows
the rotation onto the new channel without losing an event."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.local_server import LocalServer, local_server
from support.typescript_client import CLIENT, output, require_client, run


@pytest.fixture(scope="module")
def api(shared_dynamodb: Any) -> Iterator[LocalServer]:
    require_client()  # before starting a server for nothing
    env = {"RATE_LIMIT_PER_SECOND": "0", "BACCARAT_PUSH_POLL_SECONDS": "0.05"}  # make run's poll
    with local_server(env, dynamodb=shared_dynamodb) as server:
        yield server


def readme_lines() -> list[str]:
    """The outcome lines clients/typescript/README.md shows for ``watch-table.ts --revoke``."""
    text = (CLIENT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"--revoke`\)[^`]*?```\n(received [^`]*?)\n```", text, re.S)
    assert shown, "the README shows no outcome of watch-table.ts"
    return shown[1].splitlines()


def test_every_event_arrives_once_in_order_and_a_revoked_token_is_closed(
    api: LocalServer, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.json"
    proc = run(
        ["tsx", "examples/watch-table.ts", "--quiet", "--revoke", "--summary-json", str(summary)],
        env={"BACCARAT_URL": api.url, "KEY": api.key},
        timeout=120,
    )
    assert proc.returncode == 0, output(proc)
    assert proc.stdout.strip().splitlines()[-2:] == readme_lines(), output(proc)
    got = json.loads(summary.read_text())
    table = got["table_id"]
    assert got["push_url"] == api.url.replace("http://", "ws://") + "/event/realtime"
    assert got["push_channel"] == f"/tables/{table}/e1"  # the mint's answer
    # the snapshot, then every event after it: 24 joins, then the revocation's push_rotated
    assert got["final_seq"] == got["snapshot_seq"] + 24
    assert got["last_seq"] == got["final_seq"] + 1 == got["rotated"][-1]
    assert got["received"] == got["last_seq"] - got["snapshot_seq"]
    assert (got["duplicates"], got["lost"], got["in_order"]) == (0, 0, True)
    assert got["chat"] == ["alice: good luck 祝好運"]
    assert got["statuses"][-1] == "closed subscribe_refused"
    assert got["closed"] == "subscribe_refused"
    assert "live" in got["statuses"]
    # bob's page (a watcher's token) follows the rotation: 3 joins after it, on the new channel
    bob = got["bob"]
    assert bob["last_seq"] == got["last_seq"] + 3
    assert bob["received"] == bob["last_seq"] - bob["snapshot_seq"]
    assert (bob["duplicates"], bob["lost"], bob["in_order"]) == (0, 0, True)
    assert got["last_seq"] in bob["rotated"] and bob["closed"] == "closed"
