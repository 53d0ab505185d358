"""examples/table_demo.py as the README runs it (``BACCARAT_URL`` and ``KEY`` in the environment)
against the local server: it opens a running table per seed, seats two players at each (and the
player-banker at star-city) and prints one table-page link per person; each link's token, read
as the page reads it, finds its person seated at the printed place with the printed demo
balance. A bet through one link's token is settled by the table, and the example pays its net
from the feed and reports the new balance, which the page's state shows. Ctrl-C pauses the
tables it opened and exits 0."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any, TypeVar
from urllib.parse import unquote

import httpx
import pytest
from support.local_server import local_server

from baccarat_dev.template import REPO_ROOT

pytestmark = pytest.mark.live
README = REPO_ROOT / "README.md"

T = TypeVar("T")
PERSON = re.compile(r"^  (\w+)\s+(seat \d|banker)\s+balance\s+(\d+)")
LINK = re.compile(r"^    (http://\S+)/table#token=([^&\s]+)&lang=(zh|en)&lobby=(\S+)$")


def claims(token: str) -> dict[str, Any]:
    """The token's claims, as the page reads them (``web/table-actions.js`` ``claims``)."""
    part = token.split(".")[1]
    value: dict[str, Any] = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    return value


def readme_command() -> list[str]:
    """The README's second command (after ``make run``), the venv's python as this one."""
    line = next(x for x in README.read_text(encoding="utf-8").splitlines() if "table_demo" in x
                and x.startswith(".venv/bin/python "))  # fmt: skip
    python, *args = line.split("#", 1)[0].split()
    assert python == ".venv/bin/python" and args == ["examples/table_demo.py"], line
    return [sys.executable, *args]


def until(what: str, probe: Callable[[], T | None], timeout: float = 20) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(0.1)


def test_the_table_demo_seats_people_prints_their_links_and_pays_them(
    shared_dynamodb: Any,
) -> None:
    with local_server({"BACCARAT_SWEEP_SECONDS": "0"}, dynamodb=shared_dynamodb) as server:
        env = {**os.environ, "BACCARAT_URL": server.url, "KEY": server.key}
        proc = subprocess.Popen(
            [*readme_command(), "--betting-seconds", "2", "--squeeze-seconds", "1",
             "--pause-seconds", "0", "--every", "0.2"],
            cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        lines: list[str] = []
        assert proc.stdout is not None
        out = proc.stdout
        reader = threading.Thread(target=lambda: lines.extend(out), daemon=True)
        reader.start()
        try:
            until("the links", lambda: any(x.startswith("lobby: ") for x in lines))
            people = []
            for above, line in pairwise(lines):
                link = LINK.match(line.rstrip("\n"))
                if link:
                    person = PERSON.match(above)
                    assert person, above
                    people.append((*person.groups(), *link.groups()))
            # alice and bob at each table, carol the star-city player-banker
            assert sorted(p[0] for p in people) == ["alice", "alice", "bob", "bob", "carol"]
            tables: dict[str, dict[str, str]] = {}
            with httpx.Client(base_url=server.url, timeout=15) as http:
                for name, where, balance, api, token, lang, lobby in people:
                    assert api == server.url and lang in ("zh", "en")
                    assert unquote(lobby).startswith(f"{server.url}/lobby#token=")
                    mine = claims(token)
                    auth = {"authorization": f"Bearer {token}"}
                    read = http.get(f"/v1/tables/{mine['tbl']}/state", headers=auth)
                    you = read.json()["you"]
                    role = "banker" if where == "banker" else "seat"
                    assert you == {
                        "bettor_id": name,
                        "role": role,
                        "place": where,
                        "balance": int(balance),
                    }
                    tables.setdefault(mine["tbl"], {})[name] = token
                assert len(tables) == 2
                table_id = next(t for t, names in tables.items() if "carol" in names)
                auth = {"authorization": f"Bearer {tables[table_id]['alice']}"}
                start = int(next(p[2] for p in people if p[0] == "alice" and p[4] in
                                 tables[table_id].values()))  # fmt: skip
                state = f"/v1/tables/{table_id}/state"

                def settled_net() -> tuple[str, int] | None:
                    """Alice bets in each window; a settlement of hers with a net, once there."""
                    feed = http.get(f"/v1/tables/{table_id}/events?after=0", headers=auth).json()
                    for e in feed["events"]:
                        if e["type"] == "round_settled" and e["data"]["nets"].get("alice"):
                            return e["data"]["round_id"], e["data"]["nets"]["alice"]
                    if http.get(state, headers=auth).json()["phase"] == "betting":
                        http.put(f"/v1/tables/{table_id}/bets/alice", headers=auth,
                                 json={"bets": [{"type": "player", "amount": 1000}]})  # fmt: skip
                    return None

                round_id, net = until("alice's settled bet", settled_net, timeout=30)
                reported = (
                    f"{table_id} {round_id}: alice {net:+} → balance {start + net} (reported)"
                )
                until("the wallet's report", lambda: any(reported in x for x in lines))
                assert http.get(state, headers=auth).json()["you"]["balance"] == start + net
                proc.send_signal(signal.SIGINT)
                try:
                    code = proc.wait(timeout=60)  # the request in flight, then two pauses
                except subprocess.TimeoutExpired:
                    raise AssertionError("no exit 60 s after Ctrl-C:\n" + "".join(lines)) from None
                assert code == 0, "".join(lines)
                reader.join(timeout=5)
                assert lines[-1] == "stopped\n", "".join(lines)
                for t, names in tables.items():  # both tables it opened are paused
                    auth = {"authorization": f"Bearer {names['alice']}"}
                    assert http.get(f"/v1/tables/{t}/state", headers=auth).json()["clock"]["paused"]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
