"""A book table's presence over HTTP (real API Gateway v2 events through each route's Lambda
handler, moto behind): spectators and watchers join past the listed caps with no table event,
``GET …/state`` and the presence answers show them as counts and the first 20 names, and
``GET …/spectators`` / ``…/watchers`` page through all of them (at a listed table, the same
routes answer from the live state); each answer within its byte budget."""

from __future__ import annotations

from typing import Any

from support.stack import Api, new_table

from baccarat_api import limits

BOOK = {"profile": "bid-squeeze", "bet_behind": "book"}


def put(api: Api, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    out = api.call("PUT", path, body)
    assert out.status == 200, out.body
    return dict(out.body)


def pages(api: Api, path: str, key: str, limit: int) -> tuple[list[Any], set[int]]:
    """Every entry of ``path``'s pages of ``limit``, and the counts the pages gave."""
    seen: list[Any] = []
    counts: set[int] = set()
    after = ""
    while True:
        query = f"limit={limit}" + (f"&after={after}" if after else "")
        out = api.get(path, query=query)
        assert out.status == 200, out.body
        assert len(out.body[key]) <= limit
        assert len(out.text.encode()) <= limits.NAMES_PAGE_BUDGET_BYTES
        seen += out.body[key]
        counts.add(out.body["count"])
        if out.body["next"] is None:
            return seen, counts
        after = out.body["next"]


def test_a_book_tables_spectators_and_watchers_are_counted_named_and_paged(api: Api) -> None:
    t = new_table(api, **BOOK)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000, "level": 5})
    events_before = api.get(f"/v1/tables/{t}/events").body["events"]
    spectators = [f"s{n:02d}" for n in range(limits.MAX_SPECTATORS + 25)]
    for n, b in enumerate(spectators):
        out = put(api, f"/v1/tables/{t}/spectators/{b}", {"balance": 10_000 + n})
    assert out["spectators"] == {} and out["crowd"]["spectators"]["count"] == len(spectators)
    for w in ("w2", "w1", "w3"):
        put(api, f"/v1/tables/{t}/watchers/{w}")
    left = api.call("DELETE", f"/v1/tables/{t}/spectators/s03")
    assert left.status == 200 and left.body["crowd"]["spectators"]["count"] == len(spectators) - 1
    assert api.get(f"/v1/tables/{t}/events").body["events"] == events_before  # no event
    present = [b for b in spectators if b != "s03"]

    state = api.get(f"/v1/tables/{t}/state")
    assert state.status == 200
    crowd = state.body["crowd"]
    assert crowd["spectators"] == {
        "count": len(present),
        "first": present[: limits.FIRST_NAMES],
        "next": present[limits.FIRST_NAMES - 1],
    }
    assert crowd["watchers"] == {"count": 3, "first": ["w1", "w2", "w3"], "next": None}
    assert state.body["spectators"] == {} and state.body["watchers"] == []

    entries, counts = pages(api, f"/v1/tables/{t}/spectators", "spectators", 7)
    assert [e["bettor_id"] for e in entries] == present and counts == {len(present)}
    assert [e["balance"] for e in entries] == [10_000 + spectators.index(b) for b in present]
    names, counts = pages(api, f"/v1/tables/{t}/watchers", "watchers", 2)
    assert (names, counts) == (["w1", "w2", "w3"], {3})


def test_a_listed_tables_pages_answer_from_the_live_state(api: Api) -> None:
    t = new_table(api, profile="bid-squeeze")
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000, "level": 5})
    for b in ("sue", "sam", "sid"):
        put(api, f"/v1/tables/{t}/spectators/{b}", {"balance": 5_000})
    put(api, f"/v1/tables/{t}/watchers/walt")
    entries, counts = pages(api, f"/v1/tables/{t}/spectators", "spectators", 2)
    assert entries == [{"bettor_id": b, "balance": 5_000} for b in ("sam", "sid", "sue")]
    assert counts == {3}
    assert pages(api, f"/v1/tables/{t}/watchers", "watchers", 200) == (["walt"], {1})
    assert api.get(f"/v1/tables/{t}/state").body["crowd"] is None


def test_the_pages_refuse_a_bad_limit_and_an_unknown_table(api: Api) -> None:
    t = new_table(api, **BOOK)
    too_many = api.get(f"/v1/tables/{t}/spectators", query=f"limit={limits.MAX_NAMES_PAGE + 1}")
    assert too_many.status in (400, 422), too_many.body
    missing = api.get("/v1/tables/tbl_zzzzzzzzzzzzzzzz/watchers")
    assert (missing.status, missing.error["code"]) == (404, "not_found")
