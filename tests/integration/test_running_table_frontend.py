"""What a frontend integrating a running table (``"dealing": "auto"``) relies on from docs/api.md,
over HTTP (each route's Lambda handler, moto behind): a pause of a paused table and a resume of a
running one change nothing (no second event) and answer the clock. (That a new table whose company
sits down with no client seed waits, ``table_waiting``, is a timer's step:
tests/live/test_typescript_running_table.py.)"""

from __future__ import annotations

from support.stack import Api, new_table


def kinds(api: Api, table_id: str) -> list[str]:
    return [e["type"] for e in api.get(f"/v1/tables/{table_id}/events").body["events"]]


def test_pause_and_resume_twice_change_nothing_the_second_time(api: Api) -> None:
    t = new_table(api, dealing="auto")
    first = api.post(f"/v1/tables/{t}/pause")
    again = api.post(f"/v1/tables/{t}/pause")
    assert first.status == again.status == 200
    assert again.body == first.body and again.body["paused"] is True
    assert kinds(api, t) == ["table_paused"]
    resumed = api.post(f"/v1/tables/{t}/resume")
    resumed_again = api.post(f"/v1/tables/{t}/resume")
    assert resumed.status == resumed_again.status == 200
    assert resumed_again.body == resumed.body and resumed.body["paused"] is False
    assert kinds(api, t) == ["table_paused", "table_resumed"]
