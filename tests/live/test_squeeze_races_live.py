"""The squeeze under real concurrency (DynamoDB Local, the local server): the squeezer's reveal
sent 8 times at once while 8 watchers join the same table — exactly one reveal is recorded
(the others: 409 already_revealed), every change is one event, the feed stays gap-free."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from support.stack import star_city_bets

from .test_races_live import Local, _until_decided, in_parallel, local, sit_down

pytestmark = pytest.mark.live
__all__ = ["local"]  # the module-scoped server fixture, shared with the other races

REVEALS = 8


def test_one_reveal_wins_while_the_table_changes(local: Local) -> None:
    with local.client() as http:
        body = {
            "profile": "star-city",
            "tier": "star-city-fun",
            "banking": "house",
            "squeeze_seconds": 300,
        }  # fmt: skip  (a slow machine stays within the countdown)
        table_id = http.post("/v1/tables", json=body).json()["table_id"]
        shoe_id = http.post(f"/v1/tables/{table_id}/shoes", json={"client_seed": "race"}).json()[
            "shoe_id"
        ]
        sit_down(http, table_id)
        dealt = http.post(f"/v1/shoes/{shoe_id}/rounds", json={"bets": star_city_bets()}).json()
    path = f"/v1/rounds/{dealt['round_id']}/reveal"
    answers: list[httpx.Response] = []

    def revealer() -> None:
        with local.client() as http:
            body = {"bettor_id": "alice", "step": "initial"}
            answers.append(_until_decided(lambda: http.post(path, json=body)))

    def watcher(n: int) -> Callable[[], None]:
        def work() -> None:
            with local.client() as http:
                r = _until_decided(lambda: http.put(f"/v1/tables/{table_id}/watchers/w{n}"))
                assert r.status_code == 200, r.text

        return work

    in_parallel([revealer for _ in range(REVEALS)] + [watcher(n) for n in range(REVEALS)])
    won = [r for r in answers if r.status_code == 200]
    assert len(won) == 1, [r.text for r in answers]
    assert {r.json()["error"]["code"] for r in answers if r.status_code != 200} == {
        "already_revealed"
    }
    with local.client() as http:
        got = http.get(f"/v1/tables/{table_id}/events", params={"limit": 100}).json()["events"]
        detail = http.get(f"/v1/rounds/{dealt['round_id']}").json()
    assert [e["seq"] for e in got] == list(range(1, len(got) + 1))
    revealed = [e for e in got if e["type"] == "squeeze_revealed"]
    assert len(revealed) == 1 and revealed[0]["data"]["by"] == "alice"
    assert len([e for e in got if e["type"] == "watcher_joined"]) == REVEALS
    opened = detail["squeeze"]["steps"]["initial"]["hands"]["player"]["opened"]
    assert opened == {"by": "alice", "at": revealed[0]["data"]["revealed_at"]}
