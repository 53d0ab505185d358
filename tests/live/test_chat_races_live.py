"""The chat's rate caps with real concurrency (the local server over DynamoDB Local, as in
:mod:`test_races_live`): 8 posts of one person at once — exactly ``CHAT_PER_PERSON`` taken,
every other 429 ``chat_rate_limited`` with ``Retry-After``; 12 people posting at once at one
table — exactly ``CHAT_PER_TABLE`` taken. The caps are conditions of each post's transaction,
so no interleaving lets one more through; the stored messages are exactly the accepted ones."""

from __future__ import annotations

import time
from typing import Any

import httpx

from baccarat_api.limits import CHAT_PER_PERSON, CHAT_PER_TABLE, CHAT_WINDOW_SECONDS

from .test_races_live import Local, _until_decided, in_parallel, local

__all__ = ["local"]  # the module's server (a fixture)

RACERS = 8


def chat_table(http: httpx.Client, watchers: list[str]) -> str:
    table = http.post(
        "/v1/tables", json={"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    )
    assert table.status_code == 201, table.text
    table_id = str(table.json()["table_id"])
    for w in watchers:
        assert http.put(f"/v1/tables/{table_id}/watchers/{w}").status_code == 200
    return table_id


#: Seconds a race takes at most here (its posts must all fall in one rate window).
RACE_SECONDS = 3


def early_in_a_window() -> None:
    """Wait (< 3 s) until at least :data:`RACE_SECONDS` of the rate window are left."""
    into = time.time() % CHAT_WINDOW_SECONDS
    if into > CHAT_WINDOW_SECONDS - RACE_SECONDS:
        time.sleep(CHAT_WINDOW_SECONDS - into + 0.05)


def race(local: Local, table_id: str, authors: list[str]) -> list[httpx.Response] | None:
    """Every author posts at once; their answers — ``None`` when the race spanned two rate
    windows (a loaded machine): the caller races again on a fresh table."""
    answers: list[httpx.Response] = []

    def post(who: str, n: int) -> Any:
        def work() -> None:
            with local.client() as http:
                url = f"/v1/tables/{table_id}/chat"
                body = {"bettor_id": who, "text": f"{who} #{n}"}
                answers.append(_until_decided(lambda: http.post(url, json=body)))

        return work

    early_in_a_window()
    started = time.time()
    in_parallel([post(who, n) for n, who in enumerate(authors)])
    if int(started // CHAT_WINDOW_SECONDS) != int(time.time() // CHAT_WINDOW_SECONDS):
        return None
    return answers


def raced(local: Local, watchers: list[str], authors: list[str]) -> tuple[str, list[Any]]:
    """A fresh table with ``watchers`` and the answers of one race of ``authors`` in one window."""
    for _ in range(3):
        with local.client() as http:
            table_id = chat_table(http, watchers)
        answers = race(local, table_id, authors)
        if answers is not None:
            return table_id, answers
    raise AssertionError("every race spanned two rate windows")


def stored(local: Local, table_id: str) -> list[str]:
    with local.client() as http:
        page = http.get(f"/v1/tables/{table_id}/chat", params={"limit": 100})
    assert page.status_code == 200, page.text
    return sorted(m["text"] for m in page.json()["messages"])


def test_one_person_posting_at_once_gets_exactly_the_cap(local: Local) -> None:
    table_id, answers = raced(local, ["wes"], ["wes"] * RACERS)
    taken = [r for r in answers if r.status_code == 201]
    refused = [r for r in answers if r.status_code != 201]
    assert len(taken) == CHAT_PER_PERSON, [r.text for r in answers]
    assert {(r.status_code, r.json()["error"]["code"]) for r in refused} == {
        (429, "chat_rate_limited")
    }
    for r in refused:
        assert r.json()["error"]["details"]["scope"] == "person"
        assert 1 <= int(r.headers["retry-after"]) <= CHAT_WINDOW_SECONDS
    assert stored(local, table_id) == sorted(r.json()["text"] for r in taken)


def test_a_crowd_posting_at_once_gets_exactly_the_tables_cap(local: Local) -> None:
    crowd = [f"w{n:02d}" for n in range(CHAT_PER_TABLE + 2)]
    table_id, answers = raced(local, crowd, crowd)
    taken = [r for r in answers if r.status_code == 201]
    refused = [r for r in answers if r.status_code != 201]
    assert len(taken) == CHAT_PER_TABLE, [r.text for r in answers]
    assert {
        (r.json()["error"]["code"], r.json()["error"]["details"]["scope"]) for r in refused
    } == {("chat_rate_limited", "table")}
    assert stored(local, table_id) == sorted(r.json()["text"] for r in taken)
