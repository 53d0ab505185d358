"""The seeds' table rules, each end to end over HTTP (real API Gateway v2 events
through each route's Lambda handler, moto behind), as a frontend and a rules auditor see them:
only the routes an operator calls, ``GET …/state`` and ``GET …/events``.

Time moves by :func:`later` (every ``now`` the service reads, shifted), never by waiting."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.clock import service_clock
from support.stack import Api, new_shoe, new_table

Later = Callable[[int], None]


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> Iterator[Later]:
    """``later(s)``: from now on the service's clock reads ``s`` seconds ahead (cumulative)."""
    clock = service_clock(monkeypatch)

    def move(seconds: int) -> None:
        clock.advance(seconds)

    yield move


def table(api: Api, **fields: Any) -> str:
    return new_table(api, **fields)


def shoe(api: Api, t: str, seed: str = "rules") -> str:
    return new_shoe(api, t, seed)


def put(api: Api, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    out = api.call("PUT", path, body)
    assert out.status == 200, out.body
    return dict(out.body)


def from_book(api: Api, t: str, shoe_id: str, slips: dict[str, list[dict[str, Any]]]) -> Any:
    """Open betting, confirm ``slips``, deal the round from the book: the deal's answer."""
    opened = api.post(f"/v1/tables/{t}/betting")
    assert opened.status == 200, opened.body
    for who, bets in slips.items():
        put(api, f"/v1/tables/{t}/bets/{who}", {"bets": bets})
    dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"from_book": True})
    assert dealt.status == 201, dealt.body
    return dealt.body


def settle(api: Api, round_id: str) -> dict[str, Any]:
    out = api.post(f"/v1/rounds/{round_id}/settlement")
    assert out.status == 200, out.body
    return dict(out.body)


def events(api: Api, t: str, after: int = 0) -> list[dict[str, Any]]:
    out = api.get(f"/v1/tables/{t}/events", query=f"after={after}&limit=100")
    assert out.status == 200 and not out.body["more"], out.body
    return list(out.body["events"])


def state(api: Api, t: str) -> dict[str, Any]:
    out = api.get(f"/v1/tables/{t}/state")
    assert out.status == 200, out.body
    return dict(out.body)


BANKER = [{"type": "banker", "amount": 1000}]
PLAYER = [{"type": "player", "amount": 1000}]


def test_an_idle_bettor_is_unseated_by_the_fifth_round_of_the_table_across_shoes(
    api: Api,
) -> None:
    """Seed 000: 連續5局不押注，系統將自動踢除 — a voided round, a round dealt with explicit bets
    and a round nobody bet on all count; the shoe boundary does not reset the count."""
    t = table(api)
    s1 = shoe(api, t, "one")
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 50_000})
    r1 = from_book(api, t, s1, {"alice": BANKER})
    voided = api.post(f"/v1/rounds/{r1['round_id']}/void", {"reason": "misdeal"})
    assert voided.status == 200, voided.body
    explicit = [{"bettor_id": "alice", "role": "seated", "seat": 1, "type": "player",
                 "amount": 1000, "balance": 50_000}]  # fmt: skip
    r2 = api.post(f"/v1/shoes/{s1}/rounds", {"bets": explicit}).body
    settle(api, r2["round_id"])
    assert api.post(f"/v1/shoes/{s1}/close").status == 200
    s2 = shoe(api, t, "two")
    from_book(api, t, s2, {})  # nobody bets: settled at its deal
    settle(api, from_book(api, t, s2, {"alice": BANKER})["round_id"])
    assert state(api, t)["idle"] == {"alice": 0, "bob": 4}
    before = state(api, t)["seq"]
    fifth = from_book(api, t, s2, {"alice": PLAYER})
    vacated = [e["data"] for e in events(api, t, before) if e["type"] == "seat_vacated"]
    assert vacated == [{"seat": 2, "bettor_id": "bob", "reason": "idle"}]
    now = state(api, t)
    assert list(now["seats"]) == ["1"] and "bob" not in now["idle"]
    advice = settle(api, fifth["round_id"])["eligibility"]
    assert advice["idle_bettors"] == ["bob"] and advice["idle_round_limit"] == 5


def test_spectators_bet_while_the_seated_sit_out_and_leave_with_the_last_seat(api: Api) -> None:
    """Seed 001 下注模式 2–3: a seated bettor who sits a round out still makes the table not
    empty; once every seated bettor left, a spectator who did not bet this round goes at once,
    one who did goes after this round's settlement."""
    t = table(api, profile="bid-squeeze", tier="bid-squeeze-standard")
    s = shoe(api, t)
    early = api.call("PUT", f"/v1/tables/{t}/spectators/sam", {"balance": 50_000})
    assert (early.status, early.error["code"]) == (422, "seated_bettor_required")
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000, "level": 1})
    put(api, f"/v1/tables/{t}/spectators/sam", {"balance": 50_000})
    put(api, f"/v1/tables/{t}/spectators/sue", {"balance": 50_000})
    booked = from_book(api, t, s, {"sam": BANKER})
    assert [(b["bettor_id"], b["role"]) for b in booked["bets"]] == [("sam", "spectator")]
    settle(api, booked["round_id"])
    alone = [{"bettor_id": "sue", "role": "spectator", "type": "player", "amount": 1000,
              "balance": 50_000}]  # fmt: skip
    explicit = api.post(f"/v1/shoes/{s}/rounds", {"bets": alone})
    assert explicit.status == 201, explicit.body
    settle(api, explicit.body["round_id"])
    third = from_book(api, t, s, {"sam": BANKER})
    before = state(api, t)["seq"]
    assert api.call("DELETE", f"/v1/tables/{t}/seats/1").status == 200
    gone = [(e["type"], e["data"]) for e in events(api, t, before)]
    assert gone == [
        ("seat_vacated", {"seat": 1, "bettor_id": "alice", "reason": "left"}),
        ("spectator_left", {"bettor_id": "sue", "reason": "no_seated_bettor"}),
    ]
    assert list(state(api, t)["spectators"]) == ["sam"]
    settle(api, third["round_id"])
    last = [(e["type"], e["data"]) for e in events(api, t, before)][-2:]
    assert last[0][0] == "round_settled"
    assert last[1] == ("spectator_left", {"bettor_id": "sam", "reason": "no_seated_bettor"})
    assert state(api, t)["spectators"] == {}


def test_a_player_banker_short_of_coins_leaves_and_betting_waits_for_the_next(api: Api) -> None:
    """Seed 000: 兩人成局(含荷官) … 選擇當荷官，遊戲中若星幣不足會自動退出，玩家重選荷官; and
    ※ 玩家及荷官星幣金額不足底限時，系統將自動踢除 — the settlement's advice is what was done."""
    t = table(api, banking="player_banker")
    s = shoe(api, t)
    nobody = api.post(f"/v1/tables/{t}/betting")
    assert (nobody.status, nobody.error["code"]) == (409, "company_required")
    assert nobody.error["details"] == {"missing": ["player_banker", "seated_bettor"]}
    put(api, f"/v1/tables/{t}/banker", {"bettor_id": "pat", "balance": 36_000})
    banker_only = api.post(f"/v1/tables/{t}/betting")
    assert banker_only.error["details"] == {"missing": ["seated_bettor"]}
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 500_000})
    advice: dict[str, Any] = {}
    for _ in range(25):  # until the player wins once: pat then holds 32,000 < 35,000
        # the operator reports the wallets before each round (a banker win would make pat richer)
        put(api, f"/v1/tables/{t}/banker", {"bettor_id": "pat", "balance": 36_000})
        put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 1_000})
        before = state(api, t)["seq"]
        slips = {"alice": [{"type": "player", "amount": 5000}],
                 "bob": [{"type": "banker", "amount": 1000}]}  # fmt: skip
        dealt = from_book(api, t, s, slips)
        advice = settle(api, dealt["round_id"])["eligibility"]
        if state(api, t)["banker"] is None:
            break
    assert advice["player_banker_below_min_balance"] == "pat"
    assert advice["balances_after"]["pat"] < 35_000
    left = [e["data"] for e in events(api, t, before) if e["type"] == "banker_left"]
    assert left == [{"bettor_id": "pat", "reason": "balance"}]
    assert advice["below_min_balance"] == ["bob"]  # his 1,000 lost: 0 < 1,000
    vacated = [e["data"] for e in events(api, t, before) if e["type"] == "seat_vacated"]
    assert vacated == [{"seat": 2, "bettor_id": "bob", "reason": "balance"}]
    waiting = api.post(f"/v1/tables/{t}/betting")
    assert (waiting.status, waiting.error["code"]) == (409, "company_required")
    assert waiting.error["details"] == {"missing": ["player_banker"]}
    put(api, f"/v1/tables/{t}/banker", {"bettor_id": "quinn", "balance": 40_000})
    assert api.post(f"/v1/tables/{t}/betting").status == 200


def test_a_slip_is_confirmed_replaced_cancelled_and_refused_from_closes_at(
    api: Api, later: Later
) -> None:
    """確認押注 / 取消押注 within the window; 409 betting_closed from closes_at; the urge button
    names the round the table waits on."""
    t = table(api, banking="player_banker", betting_seconds=5)
    shoe(api, t)
    put(api, f"/v1/tables/{t}/banker", {"bettor_id": "pat", "balance": 40_000})
    put(api, f"/v1/tables/{t}/seats/4", {"bettor_id": "alice", "balance": 50_000})
    window = api.post(f"/v1/tables/{t}/betting").body["betting"]
    slip = f"/v1/tables/{t}/bets/alice"
    put(api, slip, {"bets": BANKER})
    replaced = put(api, slip, {"bets": [{"type": "player", "amount": 2000}]})
    new_line = {"type": "player", "amount": 2000, "order": replaced["seats"]["4"]["order"]}
    assert replaced["seats"]["4"]["bets"] == [new_line]  # a changed line: this confirmation
    urged = api.post(f"/v1/tables/{t}/urge", {"bettor_id": "pat"})
    assert urged.body["round_id"] == f"{window['shoe_id']}_r1"
    assert api.call("DELETE", slip).body["seats"] == {}
    put(api, slip, {"bets": BANKER})
    assert state(api, t)["book"]["seats"]["4"]["total"] == 1000
    later(5)  # closes_at
    late = api.call("PUT", slip, {"bets": PLAYER})
    assert (late.status, late.error["code"]) == (409, "betting_closed")
    cancel = api.call("DELETE", slip)
    assert (cancel.status, cancel.error["code"]) == (409, "betting_closed")
    now = state(api, t)
    lines = [{"type": b["type"], "amount": b["amount"]} for b in now["book"]["seats"]["4"]["bets"]]
    assert now["phase"] == "closed" and lines == BANKER
    types = [e["type"] for e in events(api, t)]
    assert types[-5:] == ["bet_placed", "bet_placed", "urge", "bet_cancelled", "bet_placed"]


def test_the_squeeze_shows_nothing_of_the_outcome_until_its_cards_are_open(
    api: Api, later: Later
) -> None:
    """While a squeeze counts down the table shows the first cards only: its history, roads and
    cards remaining must not give the result away; at reveal_by the system opens the cards (the
    state shows ``by: system`` at once, the next change writes the event)."""
    t = table(api, squeeze_seconds=3)
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    dealt = from_book(api, t, s, {"alice": BANKER})
    during = state(api, t)
    assert during["phase"] == "squeeze" and during["round"]["result"] is None
    assert during["shoe"]["rounds_dealt"] == 1
    assert during["shoe"]["history"] == [] and during["shoe"]["roads"]["bead_plate"]["cells"] == []
    assert during["shoe"]["cards_remaining"] == 208 - 4  # the four cards on the table
    later(3)  # the initial step's reveal_by
    after = state(api, t)
    initial = after["round"]["squeeze"]["steps"]["initial"]
    assert initial["status"] == "revealed"
    assert {h["opened"]["by"] for h in initial["hands"].values()} == {"system"}
    later(3)  # and the draws', if any
    shown = state(api, t)
    assert shown["round"]["result"] == dealt["result"] and shown["phase"] == "dealt"
    assert [h["round"] for h in shown["shoe"]["history"]] == [1]
    assert shown["shoe"]["cards_remaining"] == 208 - dealt["cards_dealt"]
    before = shown["seq"]
    settle(api, dealt["round_id"])
    reported = [e["data"] for e in events(api, t, before) if e["type"] == "squeeze_revealed"]
    assert reported and {r["by"] for r in reported} == {"system"}


def test_a_bettor_who_leaves_before_the_deal_has_their_slip_cancelled_in_the_feed(
    api: Api,
) -> None:
    """A frontend that draws the book from the feed takes a slip off the table when its bettor
    leaves (the seat, the spectators, or every spectator with the last seat)."""
    t = table(api, profile="bid-squeeze", tier="bid-squeeze-standard")
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000, "level": 1})
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 50_000, "level": 1})
    for who in ("sam", "sue"):
        put(api, f"/v1/tables/{t}/spectators/{who}", {"balance": 50_000})
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    for who in ("alice", "bob", "sam", "sue"):
        put(api, f"/v1/tables/{t}/bets/{who}", {"bets": BANKER})
    before = state(api, t)["seq"]
    assert api.call("DELETE", f"/v1/tables/{t}/spectators/sue").status == 200
    assert api.call("DELETE", f"/v1/tables/{t}/seats/2").status == 200
    assert api.call("DELETE", f"/v1/tables/{t}/seats/1").status == 200
    feed = [(e["type"], e["data"]["bettor_id"]) for e in events(api, t, before)]
    assert feed == [
        ("spectator_left", "sue"), ("bet_cancelled", "sue"),
        ("seat_vacated", "bob"), ("bet_cancelled", "bob"),
        ("seat_vacated", "alice"), ("spectator_left", "sam"),
        ("bet_cancelled", "alice"), ("bet_cancelled", "sam"),
    ]  # fmt: skip
    assert state(api, t)["book"]["seats"] == {} and state(api, t)["book"]["spectators"] == {}
    alone = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})  # nobody left to deal for
    assert (alone.status, alone.error["code"]) == (409, "company_required")


def test_a_book_is_dealt_only_with_the_company_present(api: Api) -> None:
    """兩人成局(含荷官): the company is checked again when the book is dealt — the seated bettor
    who left after betting opened leaves the player-banker alone, and no round is dealt."""
    t = table(api, banking="player_banker")
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/banker", {"bettor_id": "pat", "balance": 40_000})
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": BANKER})
    assert api.call("DELETE", f"/v1/tables/{t}/seats/1").status == 200
    alone = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})
    assert (alone.status, alone.error["code"]) == (409, "company_required")
    assert alone.error["details"] == {"missing": ["seated_bettor"]}
    assert api.get(f"/v1/shoes/{s}").body["rounds_dealt"] == 0
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 50_000})
    dealt = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})
    assert dealt.status == 201 and dealt.body["bets"] == []  # bob sat down without a slip


def test_a_voided_round_counts_nothing_down(api: Api, later: Later) -> None:
    """A void ends the round's squeeze (its reveals are refused): the table shows no countdown
    for it, no system reveal is reported for it later, and betting opens for the next round."""
    t = table(api, squeeze_seconds=30)
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    dealt = from_book(api, t, s, {"alice": BANKER})
    assert state(api, t)["phase"] == "squeeze"
    assert api.post(f"/v1/rounds/{dealt['round_id']}/void", {"reason": "misdeal"}).status == 200
    reveal = api.post(f"/v1/rounds/{dealt['round_id']}/reveal",
                      {"bettor_id": "alice", "step": "initial"})  # fmt: skip
    assert (reveal.status, reveal.error["code"]) == (409, "round_voided")
    now = state(api, t)
    assert (now["phase"], now["deadline"], now["round"]["status"]) == ("settled", None, "voided")
    later(30)  # past the initial reveal_by: the next change at the table reports nothing of it
    before = state(api, t)["seq"]
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    assert state(api, t)["phase"] == "betting"
    assert [e["type"] for e in events(api, t, before)] == ["betting_opened"]


def test_a_slip_the_bettors_new_balance_cannot_cover_is_cancelled_not_the_whole_round(
    api: Api,
) -> None:
    """The operator reports a seated bettor's or a spectator's lower balance while their slip
    waits: that slip is cancelled (``bet_cancelled``) — kept, it would refuse the whole book's
    deal — and the others' slips are dealt."""
    t = table(api, profile="bid-squeeze", tier="bid-squeeze-standard")
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000, "level": 1})
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 50_000, "level": 1})
    put(api, f"/v1/tables/{t}/spectators/sam", {"balance": 50_000})
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": [{"type": "banker", "amount": 5000}]})
    put(api, f"/v1/tables/{t}/bets/bob", {"bets": PLAYER})
    put(api, f"/v1/tables/{t}/bets/sam", {"bets": [{"type": "tie", "amount": 5000}]})
    before = state(api, t)["seq"]
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 2000, "level": 1})
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 20_000, "level": 1})
    put(api, f"/v1/tables/{t}/spectators/sam", {"balance": 3000})
    feed = [(e["type"], e["data"]["bettor_id"]) for e in events(api, t, before)]
    assert feed == [
        ("seat_updated", "alice"), ("bet_cancelled", "alice"), ("seat_updated", "bob"),
        ("spectator_updated", "sam"), ("bet_cancelled", "sam"),
    ]  # fmt: skip
    assert list(state(api, t)["book"]["seats"]) == ["2"]
    dealt = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})
    assert dealt.status == 201, dealt.body
    assert [(b["bettor_id"], b["balance"]) for b in dealt.body["bets"]] == [("bob", 20_000)]


def test_after_an_explicit_deal_no_seat_shows_an_earlier_windows_bets(api: Api) -> None:
    """對應押注區: a round dealt with explicit bets after one dealt from the book — the book no
    longer shows the earlier round's slips as if they were this round's."""
    t = table(api)
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    first = from_book(api, t, s, {"alice": [{"type": "banker", "amount": 5000}]})
    assert state(api, t)["book"]["seats"]["1"]["total"] == 5000
    settle(api, first["round_id"])
    own = [{"bettor_id": "alice", "role": "seated", "seat": 1, "type": "player", "amount": 1000,
            "balance": 50_000}]  # fmt: skip
    second = api.post(f"/v1/shoes/{s}/rounds", {"bets": own})
    assert second.status == 201, second.body
    now = state(api, t)
    assert now["round"]["round_id"] == second.body["round_id"]
    empty = {"table_id": t, "betting": None, "seats": {}, "spectators": {}, "total": 0}
    assert now["book"] == empty
    settle(api, second.body["round_id"])
    assert api.post(f"/v1/tables/{t}/betting").status == 200  # the table's own window again


def test_a_balance_reported_below_the_minimum_removes_the_bettor_as_a_settlement_does(
    api: Api,
) -> None:
    """Seed 000: ※ 玩家及荷官星幣金額不足底限時，系統將自動踢除 — a balance the operator reports
    below the tier's minimum for someone already seated (900 < 1,000; the player-banker's 30,000
    < 35,000) or spectating removes them (reason ``balance``, their waiting slip cancelled), the
    answer saying so: they can no longer stake on the old balance."""
    t = table(api, banking="player_banker")
    shoe(api, t)
    put(api, f"/v1/tables/{t}/banker", {"bettor_id": "pat", "balance": 40_000})
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000})
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 50_000})
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": BANKER})
    before = state(api, t)["seq"]
    poor = put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 900})
    assert poor["removed"] == {"bettor_id": "alice", "where": "seat 1", "reason": "balance",
                               "limit": 1000, "attempted": 900}  # fmt: skip
    assert "1" not in poor["seats"]
    feed = [(e["type"], e["data"]) for e in events(api, t, before)]
    assert feed == [
        ("seat_vacated", {"seat": 1, "bettor_id": "alice", "reason": "balance"}),
        ("bet_cancelled", {"round_number": 1, "bettor_id": "alice"}),
    ]
    stake = api.call("PUT", f"/v1/tables/{t}/bets/alice", {"bets": BANKER})
    assert (stake.status, stake.error["code"]) == (409, "not_at_table")
    broke = put(api, f"/v1/tables/{t}/banker", {"bettor_id": "pat", "balance": 30_000})
    assert broke["banker"] is None and broke["removed"] == {
        "bettor_id": "pat", "where": "banker", "reason": "balance", "limit": 35_000,
        "attempted": 30_000,
    }  # fmt: skip
    assert events(api, t)[-1]["type"] == "banker_left"
    assert events(api, t)[-1]["data"] == {"bettor_id": "pat", "reason": "balance"}
    # the same report again: they are not there, so it is a new place asked for — refused
    again = api.call("PUT", f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 900})
    assert (again.status, again.error["code"]) == (422, "below_min_balance")
    assert (
        put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "bob", "balance": 60_000})["removed"]
        is None
    )


def test_a_spectator_reported_below_the_minimum_is_removed(api: Api) -> None:
    t = table(api, profile="bid-squeeze", tier="bid-squeeze-standard")
    shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000, "level": 1})
    put(api, f"/v1/tables/{t}/spectators/sam", {"balance": 50_000})
    before = state(api, t)["seq"]
    out = put(api, f"/v1/tables/{t}/spectators/sam", {"balance": 1})
    assert out["spectators"] == {} and out["removed"]["where"] == "spectator"
    assert out["removed"]["reason"] == "balance" and out["removed"]["attempted"] == 1
    assert [(e["type"], e["data"]) for e in events(api, t, before)] == [
        ("spectator_left", {"bettor_id": "sam", "reason": "balance"})
    ]


def test_re_confirming_a_slip_keeps_an_unchanged_lines_time_for_the_squeeze(api: Api) -> None:
    """Seed 001 咪牌（競咪）3: equal stakes — the earlier bet squeezes. Alice confirms Banker 5,000
    before Bob's equal Banker; she then re-confirms adding a Tie: her Banker line is unchanged,
    so it keeps its time and she still squeezes the Banker hand. A changed line is a new
    confirmation: in the next round she changes her Banker stake and back, and Bob squeezes."""
    t = table(api, profile="bid-squeeze", tier="bid-squeeze-standard")
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "bob", "balance": 50_000, "level": 1})
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "alice", "balance": 50_000, "level": 1})
    banker = {"type": "banker", "amount": 5000}
    tie = {"type": "tie", "amount": 1000}
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": [banker]})
    put(api, f"/v1/tables/{t}/bets/bob", {"bets": [banker]})
    book = put(api, f"/v1/tables/{t}/bets/alice", {"bets": [banker, tie]})
    dealt = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})
    assert dealt.status == 201, dealt.body
    assert dealt.body["squeeze"]["banker"] == "alice"
    assert [(b["bettor_id"], b["type"]) for b in dealt.body["bets"]] == [
        ("alice", "banker"), ("bob", "banker"), ("alice", "tie"),
    ]  # fmt: skip
    alice, bob = book["seats"]["2"]["bets"], book["seats"]["1"]["bets"]
    assert alice[0]["order"] < bob[0]["order"] < alice[1]["order"]
    assert book["seats"]["2"]["order"] == alice[1]["order"]  # the slip: its latest confirmation
    settle(api, dealt.body["round_id"])
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": [banker, tie]})
    put(api, f"/v1/tables/{t}/bets/bob", {"bets": [banker]})
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": [{"type": "banker", "amount": 6000}, tie]})
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": [tie, banker]})  # lines in another order
    again = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})
    assert again.status == 201, again.body
    assert again.body["squeeze"]["banker"] == "bob"
    assert [(b["bettor_id"], b["type"]) for b in again.body["bets"]] == [
        ("alice", "tie"), ("bob", "banker"), ("alice", "banker"),
    ]  # fmt: skip


def test_personal_limits_are_a_range_checked_where_they_are_entered(api: Api) -> None:
    """Seed 001 下注限紅 2 (旁觀下注: the intersection of the bettor's personal limits, 個人限紅,
    and the table's): a personal limit is a min–max range per bet type, or a maximum alone (the
    earlier form). One that no bet could meet — 0, negative, min above max, outside the tier's
    own range — is refused where it is entered, not by every later slip of that spectator."""
    t = table(api, profile="bid-squeeze", tier="bid-squeeze-standard")
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "alice", "balance": 50_000, "level": 1})
    path = f"/v1/tables/{t}/spectators/sam"
    before = state(api, t)["seq"]
    for bad in (
        {"banker": 0},
        {"banker": -5},
        {"banker": {"min": 5000, "max": 1000}},
        {"banker": {"min": 0}},
        {"banker": {"max": 600_000}},  # above the tier's 500,000
        {"tie": {"min": 100}},  # below the tier's 500
    ):
        out = api.call("PUT", path, {"balance": 50_000, "personal_limits": bad})
        assert (out.status, out.error["code"]) == (422, "invalid_personal_limit"), (bad, out.body)
        assert out.error["details"]["bet_type"] == next(iter(bad))
    for neither in ({"banker": {}}, {"banker": {"min": None, "max": None}}):
        # schema-valid (the schema cannot say "at least one bound"): a typed 422, not a 400
        out = api.call("PUT", path, {"balance": 50_000, "personal_limits": neither})
        assert (out.status, out.error["code"]) == (422, "invalid_personal_limit"), out.body
    for bad_shape in ({"baccarat": 1000}, {"banker": {"min": 1000, "x": 1}}):
        out = api.call("PUT", path, {"balance": 50_000, "personal_limits": bad_shape})
        assert (out.status, out.error["code"]) == (400, "invalid_request"), bad_shape
    assert state(api, t)["seq"] == before and state(api, t)["spectators"] == {}
    limits = {"banker": {"min": 2000, "max": 5000}, "tie": 1000}
    joined = put(api, path, {"balance": 50_000, "personal_limits": limits})
    assert joined["spectators"]["sam"]["personal_limits"] == limits
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    slip = f"/v1/tables/{t}/bets/sam"
    low = api.call("PUT", slip, {"bets": [{"type": "banker", "amount": 1000}]})
    assert (low.status, low.error["code"]) == (422, "below_personal_limit")
    assert (low.error["details"]["limit"], low.error["details"]["attempted"]) == (2000, 1000)
    high = api.call("PUT", slip, {"bets": [{"type": "banker", "amount": 6000}]})
    assert (high.status, high.error["code"]) == (422, "above_personal_limit")
    over_tie = api.call("PUT", slip, {"bets": [{"type": "tie", "amount": 1500}]})
    assert (over_tie.status, over_tie.error["code"]) == (422, "above_personal_limit")
    put(api, slip, {"bets": [{"type": "banker", "amount": 3000}, {"type": "tie", "amount": 1000}]})
    dealt = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})
    assert dealt.status == 201, dealt.body
    # a locked bet keeps the personal limit that bound it: its own type's
    locked = {b["type"]: b["personal_limits"] for b in dealt.body["bets"]}
    assert locked == {"banker": {"banker": limits["banker"]}, "tie": {"tie": 1000}}
