"""The betting window's races, with real concurrency (the local server over DynamoDB Local, as in
:mod:`test_races_live`): slips placed while the round is dealt from the book (each slip is in
the round exactly when its PUT was accepted), one bettor's two slips at once (one wins, whole),
betting opened twice at once (one window). Every change is one event: the feed stays gap-free."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from support.local_server import table_feed

from .test_races_live import THREADS, Local, _until_decided, in_parallel, local, open_shoe

__all__ = ["local"]  # the module's server (a fixture)

BETTORS = [f"b{n}" for n in range(1, 8)]


def seat_all(http: httpx.Client, table_id: str) -> None:
    for n, bettor in enumerate(BETTORS, start=1):
        r = http.put(
            f"/v1/tables/{table_id}/seats/{n}", json={"bettor_id": bettor, "balance": 50_000}
        )
        assert r.status_code == 200, r.text


def slip(amount: int) -> dict[str, Any]:
    return {"bets": [{"type": "player", "amount": amount}]}


def dealer(local: Local, shoe_id: str, dealt: list[dict[str, Any]]) -> Callable[[], None]:
    """A thread's work: deal the round from the book (retried until decided), into ``dealt``."""

    def work() -> None:
        with local.client() as http:
            r = _until_decided(
                lambda: http.post(f"/v1/shoes/{shoe_id}/rounds", json={"from_book": True})
            )
            assert r.status_code == 201, r.text
            dealt.append(r.json())

    return work


def race_one_round(
    local: Local, table_id: str, shoe_id: str
) -> tuple[dict[str, httpx.Response], dict[str, Any]]:
    """Open betting, b1 confirms a slip, then b2…b7 confirm theirs at the very moment the round
    is dealt from the book: each PUT's answer, and the round."""
    with local.client() as http:
        opened = _until_decided(lambda: http.post(f"/v1/tables/{table_id}/betting"))
        assert opened.status_code == 200, opened.text
        first = http.put(f"/v1/tables/{table_id}/bets/b1", json=slip(1000))
        assert first.status_code == 200, first.text
    answers: dict[str, httpx.Response] = {}
    dealt: list[dict[str, Any]] = []

    def placer(bettor: str) -> Callable[[], None]:
        def work() -> None:
            with local.client() as http:
                answers[bettor] = _until_decided(
                    lambda: http.put(f"/v1/tables/{table_id}/bets/{bettor}", json=slip(500))
                )

        return work

    in_parallel([*(placer(b) for b in BETTORS[1:]), dealer(local, shoe_id, dealt)])
    return answers, dealt[0]


def test_slips_racing_the_from_book_deal_are_in_the_round_exactly_when_accepted(
    local: Local,
) -> None:
    with local.client() as http:
        table_id, shoe_id = open_shoe(http)
        seat_all(http, table_id)
    outcomes = []
    for _ in range(4):
        answers, dealt = race_one_round(local, table_id, shoe_id)
        in_round = {b["bettor_id"] for b in dealt["bets"]}
        assert "b1" in in_round
        for bettor, r in answers.items():
            if r.status_code == 200:
                assert bettor in in_round, (bettor, r.text)
            else:
                assert r.json()["error"]["code"] == "betting_closed", r.text
                assert bettor not in in_round, bettor
            outcomes.append(r.status_code)
        with local.client() as http:
            settled = http.post(f"/v1/rounds/{dealt['round_id']}/settlement")
            assert settled.status_code == 200, settled.text
    print(f"\nslips racing the deal: {outcomes.count(200)} in the round, "
          f"{outcomes.count(409)} refused betting_closed")  # fmt: skip
    with local.client() as http:
        events = table_feed(http, table_id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events].count("round_dealt") == 4


def test_one_bettors_slips_racing_leave_exactly_one_whole_slip(local: Local) -> None:
    with local.client() as http:
        table_id, shoe_id = open_shoe(http)
        seat_all(http, table_id)
        assert http.post(f"/v1/tables/{table_id}/betting").status_code == 200
    amounts = [100 * (n + 1) for n in range(THREADS)]  # 16 different slips of one bettor

    def placer(amount: int) -> Callable[[], None]:
        def work() -> None:
            with local.client() as http:
                r = _until_decided(
                    lambda: http.put(f"/v1/tables/{table_id}/bets/b3", json=slip(amount))
                )
                assert r.status_code == 200, r.text

        return work

    in_parallel([placer(a) for a in amounts])
    with local.client() as http:
        placed = [e for e in table_feed(http, table_id) if e["type"] == "bet_placed"]
        assert len(placed) == THREADS  # each slip confirmed once, each replacing the one before
        dealt = http.post(f"/v1/shoes/{shoe_id}/rounds", json={"from_book": True}).json()
    assert [(b["bettor_id"], b["amount"]) for b in dealt["bets"]] == [
        ("b3", placed[-1]["data"]["total"])  # the last confirmed slip, whole
    ]


def test_betting_opened_twice_at_once_opens_one_window(local: Local) -> None:
    with local.client() as http:
        table_id, _ = open_shoe(http)
        seat_all(http, table_id)
    answers: list[httpx.Response] = []

    def opener() -> None:
        with local.client() as http:
            answers.append(_until_decided(lambda: http.post(f"/v1/tables/{table_id}/betting")))

    in_parallel([opener for _ in range(8)])
    ok = [r for r in answers if r.status_code == 200]
    assert len(ok) == 1, [r.text for r in answers]
    assert {r.json()["error"]["code"] for r in answers if r.status_code != 200} == {
        "betting_in_progress"
    }
    with local.client() as http:
        events = table_feed(http, table_id)
    assert [e["type"] for e in events].count("betting_opened") == 1
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_balance_reports_racing_the_from_book_deal_never_refuse_the_book(local: Local) -> None:
    """b1…b7 each confirm 5,000; then b2…b7's wallets are reported at 2,000 at the very moment
    the round is dealt from the book. Each report either lands before the deal (that slip is
    cancelled with it: ``bet_cancelled`` reason ``insufficient_balance``) or after (the slip was
    dealt at the old balance, locked): the deal is never refused for the whole book, and every
    slip is in the round or cancelled, exactly one of the two."""
    with local.client() as http:
        table_id, shoe_id = open_shoe(http)
        seat_all(http, table_id)
    dealt: list[dict[str, Any]] = []
    outcomes: list[tuple[int, int]] = []
    for _ in range(3):
        with local.client() as http:
            opened = _until_decided(lambda: http.post(f"/v1/tables/{table_id}/betting"))
            assert opened.status_code == 200, opened.text
            start = len(table_feed(http, table_id))
            for bettor in BETTORS:
                r = http.put(f"/v1/tables/{table_id}/bets/{bettor}", json=slip(5000))
                assert r.status_code == 200, r.text
        dealt.clear()

        def reporter(seat: int, bettor: str) -> Callable[[], None]:
            def work() -> None:
                with local.client() as http:
                    r = _until_decided(lambda: http.put(
                        f"/v1/tables/{table_id}/seats/{seat}",
                        json={"bettor_id": bettor, "balance": 2_000}))  # fmt: skip
                    assert r.status_code == 200, r.text

            return work

        reporters = [reporter(n, b) for n, b in enumerate(BETTORS, start=1) if b != "b1"]
        in_parallel([*reporters, dealer(local, shoe_id, dealt)])
        with local.client() as http:
            events = table_feed(http, table_id)[start:]
            cancelled = {e["data"]["bettor_id"] for e in events if e["type"] == "bet_cancelled"}
            in_round = {b["bettor_id"] for b in dealt[0]["bets"]}
            assert "b1" in in_round
            outcomes.append((len(in_round) - 1, len(cancelled)))
            assert in_round | cancelled == set(BETTORS) and not in_round & cancelled
            assert all(e["data"]["reason"] == "insufficient_balance"
                       for e in events if e["type"] == "bet_cancelled")  # fmt: skip
            settled = http.post(f"/v1/rounds/{dealt[0]['round_id']}/settlement")
            assert settled.status_code == 200, settled.text
            for n, bettor in enumerate(BETTORS, start=1):  # the wallets again, for the next round
                r = http.put(f"/v1/tables/{table_id}/seats/{n}",
                             json={"bettor_id": bettor, "balance": 50_000})  # fmt: skip
                assert r.status_code == 200, r.text  # (re-seated if unseated for balance)
    print(f"\nreports racing the deal (dealt at the old balance, cancelled): {outcomes}")
    with local.client() as http:
        events = table_feed(http, table_id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
