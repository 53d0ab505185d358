"""examples/operator_wallet.py's reports against a scripted API (httpx's mock transport): a
settlement's nets are paid and reported for the people still at the table after the whole feed
batch — never for one who left in it (the report would seat them again); a person who left
between a read of the feed and its report, seated again by that report, is unseated; a person
the operator seats again is not; a failed report is made at the next read, its settlement
applied once. examples/table_demo.py prints a fresh link for a token about to end."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from operator_wallet import Player, Wallet, WalletError

T = "tbl_demo"


class Api:
    """The table's feed, one scripted batch per read, and every other request recorded."""

    def __init__(self, *batches: list[tuple[str, dict[str, Any]]]) -> None:
        self.batches = list(batches)
        self.seq = 0
        self.calls: list[tuple[str, str, Any]] = []
        self.unavailable = 0  # the next n other requests answer 503

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            events = []
            for kind, data in self.batches.pop(0) if self.batches else []:
                self.seq += 1
                events.append({"seq": self.seq, "type": kind, "data": data})
            return httpx.Response(200, json={"events": events, "more": False})
        body = json.loads(request.content) if request.content else None
        self.calls.append((request.method, request.url.path, body))
        if self.unavailable:
            self.unavailable -= 1
            return httpx.Response(503, json={"error": {"code": "unavailable", "retryable": True}})
        return httpx.Response(200, json={})


def wallet(api: Api) -> Wallet:
    w = Wallet(httpx.Client(base_url="http://api", transport=httpx.MockTransport(api)))
    w.watch(T)
    for name, seat in (("alice", 1), ("bob", 2)):
        w.seat(Player(T, name, seat, 1_000))
    api.calls.clear()
    return w


def settled(nets: dict[str, int]) -> tuple[str, dict[str, Any]]:
    return "round_settled", {"round_id": "r1", "nets": nets}


def test_nets_are_reported_only_for_the_people_still_there_after_the_batch() -> None:
    api = Api([settled({"alice": 100, "bob": -50}), ("seat_vacated", {"bettor_id": "alice",
               "seat": 1, "reason": "left"})])  # fmt: skip
    w = wallet(api)
    w.follow(T)
    assert api.calls == [("PUT", f"/v1/tables/{T}/seats/2", {"bettor_id": "bob", "balance": 950})]
    assert w.settled == {"r1": {"alice": 100, "bob": -50}}
    assert w.left[(T, "alice")].balance == 1_100  # her win is hers; she is just not reported


def test_a_person_a_late_report_seated_again_is_unseated() -> None:
    left = ("seat_vacated", {"bettor_id": "alice", "seat": 1, "reason": "left"})
    api = Api([settled({"alice": 100})], [left, ("seat_taken", {"bettor_id": "alice", "seat": 1})],
              [left])  # fmt: skip
    w = wallet(api)
    w.follow(T)  # the report, made after alice left (her leaving is in the next batch)
    w.follow(T)
    w.follow(T)
    assert api.calls == [
        ("PUT", f"/v1/tables/{T}/seats/1", {"bettor_id": "alice", "balance": 1_100}),
        ("DELETE", f"/v1/tables/{T}/seats/1", None),
    ]


def test_a_person_seated_again_by_the_operator_stays_and_is_reported() -> None:
    idle = ("seat_vacated", {"bettor_id": "bob", "seat": 2, "reason": "idle"})
    api = Api([idle], [("seat_taken", {"bettor_id": "bob", "seat": 2}), settled({"bob": 30})])
    w = wallet(api)
    w.follow(T)
    w.seat(w.left[(T, "bob")])
    w.follow(T)
    put = ("PUT", f"/v1/tables/{T}/seats/2", {"bettor_id": "bob", "balance": 1_000})
    assert api.calls == [put, (*put[:2], {"bettor_id": "bob", "balance": 1_030})]


def test_a_failed_report_is_made_at_the_next_read_and_the_nets_applied_once() -> None:
    api = Api([settled({"alice": 100})])
    w = wallet(api)
    api.unavailable = 1
    with pytest.raises(WalletError) as failed:
        w.follow(T)
    assert failed.value.status == 503 and failed.value.code == "unavailable"
    assert w.follow(T) == []  # the settlement was read once: nothing new
    report = ("PUT", f"/v1/tables/{T}/seats/1", {"bettor_id": "alice", "balance": 1_100})
    assert api.calls == [report, report] and w.balance(T, "alice") == 1_100


def test_the_demo_prints_a_fresh_link_for_a_token_about_to_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from table_demo import Demo, Person

    minted: list[dict[str, Any]] = []

    def api(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        minted.append(body)
        ends = datetime.now(UTC) + timedelta(seconds=body["ttl_seconds"])
        return httpx.Response(
            201, json={"token": f"t{len(minted)}", "expires_at": ends.isoformat()}
        )

    args = argparse.Namespace(token_minutes=240)
    client = httpx.Client(base_url="http://api", transport=httpx.MockTransport(api))
    demo = Demo(client, "http://api", args)
    demo.mint_lobby()
    soon, later = Player(T, "alice", 1, 500), Player(T, "bob", 2, 500)
    demo.people = [Person(soon, "zh"), Person(later, "en"), Person(Player(T, "dan", 3, 9), "en")]
    demo.wallet.mint(soon, 30)  # ends in 30 s: within the minute
    demo.wallet.mint(later, 3_600)
    demo.wallet.mint(demo.people[2].player, 30)
    demo.people[2].gone = True  # left: no new link
    capsys.readouterr()
    demo.renew()
    assert [m.get("bettor_id") for m in minted[-1:]] == ["alice"] and len(minted) == 5
    assert minted[-1]["ttl_seconds"] == 14_400 and soon.token == "t5" and later.token == "t3"
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].split()[:2] == ["alice", "seat"] and "renewed" in shown[0]
    assert shown[1].strip().startswith("http://api/table#token=t5&lang=zh&lobby=")
    demo.renew()  # nothing ends soon now
    assert len(minted) == 5
