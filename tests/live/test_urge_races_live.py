"""The urge button with real concurrency (the local server over DynamoDB Local, as in
:mod:`test_races_live`): presses of the urge button racing at one table produce ONE ``urge``
event — the cooldown is decided on the live state the press's write is conditional on, so of
the racers one is taken and every other answers 429 ``urge_cooldown`` with ``Retry-After`` and
writes nothing. The same with one ``Idempotency-Key`` (item 9): every racer answers the one
press."""

from __future__ import annotations

from typing import Any

import httpx
from support.local_server import table_feed

from baccarat_api.limits import URGE_COOLDOWN_SECONDS

from .test_races_live import Local, _until_decided, in_parallel, local

__all__ = ["local"]  # the module's server (a fixture)

RACERS = 8


def banked_table(http: httpx.Client) -> str:
    table = http.post(
        "/v1/tables",
        json={"profile": "star-city", "tier": "star-city-fun", "banking": "player_banker"},
    )
    assert table.status_code == 201, table.text
    table_id = str(table.json()["table_id"])
    seated = http.put(f"/v1/tables/{table_id}/banker", json={"bettor_id": "pat", "balance": 35_000})
    assert seated.status_code == 200, seated.text
    return table_id


def race(local: Local, table_id: str, headers: dict[str, str]) -> list[httpx.Response]:
    answers: list[httpx.Response] = []

    def press() -> None:
        with local.client() as http:
            url = f"/v1/tables/{table_id}/urge"
            answers.append(
                _until_decided(lambda: http.post(url, json={"bettor_id": "pat"}, headers=headers))
            )

    in_parallel([press for _ in range(RACERS)])
    return answers


def urges(local: Local, table_id: str) -> list[dict[str, Any]]:
    with local.client() as http:
        events = table_feed(http, table_id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # gap-free
    return [e for e in events if e["type"] == "urge"]


def test_racing_presses_make_one_urge_event(local: Local) -> None:
    with local.client() as http:
        table_id = banked_table(http)
    answers = race(local, table_id, {})
    ok = [r for r in answers if r.status_code == 200]
    assert len(ok) == 1, [r.text for r in answers]
    refused = [r for r in answers if r.status_code != 200]
    assert {(r.status_code, r.json()["error"]["code"]) for r in refused} == {(429, "urge_cooldown")}
    for r in refused:
        wait = int(r.headers["retry-after"])
        assert 1 <= wait <= URGE_COOLDOWN_SECONDS
        assert r.json()["error"]["details"]["retry_after_seconds"] == wait
    assert len(urges(local, table_id)) == 1


def test_racing_presses_with_one_key_answer_the_one_press(local: Local) -> None:
    with local.client() as http:
        table_id = banked_table(http)
    answers = race(local, table_id, {"Idempotency-Key": "urge-once"})
    assert {r.status_code for r in answers} == {200}, [r.text for r in answers]
    assert len({r.text for r in answers}) == 1  # every racer: the one press's answer
    assert len(urges(local, table_id)) == 1
