"""Reconciliation over the in-memory repository: the daily report is the sum of the day's
settlements and voids, and the rounds listing pages through every round exactly once."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from baccarat_api.clock import now
from baccarat_api.service import auto_settle, reconciliation
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round

from .conftest import Game, star_city_bets
from .test_service import OP, deal, new_shoe

pytestmark = pytest.mark.unit


def play_a_day(game: Game) -> dict[str, Any]:
    """Two tables: settled, voided, auto-settled, nobody-bet and still-dealt rounds. Returns
    what the operator was answered: every settlement and void, and the round ids."""
    answers: dict[str, Any] = {"settled": [], "voided": [], "dealt": [], "all": []}
    for deadline in (60, 1):
        shoe_id = new_shoe(game, settle_deadline_seconds=deadline)
        for n in range(1, 8):
            bets = star_city_bets() if n != 4 else []
            dealt = deal(game, shoe_id, bets)
            answers["all"].append(dealt.round_id)
            if n == 4:
                answers["settled"].append(settle_round(game.repo, OP, dealt.round_id))
            elif n in (2, 5):
                voided = void_round(game.repo, OP, dealt.round_id, reason="misdeal")
                answers["voided"].append(voided)
            elif n == 7:
                answers["dealt"].append(dealt.round_id)  # left to the sweep (or undecided)
            elif deadline == 1:  # left to the sweep, which settles it before the next deal
                swept = auto_settle.sweep(game.repo, at="2999-01-01T00:00:00Z")
                assert dealt.round_id in swept.settled
                for rid in swept.settled:  # (the other table's last round too)
                    answers["settled"].append(settle_round(game.repo, OP, rid))
                    if rid in answers["dealt"]:
                        answers["dealt"].remove(rid)
            else:
                answers["settled"].append(settle_round(game.repo, OP, dealt.round_id))
    swept = auto_settle.sweep(game.repo, at="2999-01-01T00:00:00Z")
    for rid in swept.settled:
        answers["settled"].append(settle_round(game.repo, OP, rid))  # the stored settlement
        answers["dealt"].remove(rid)
    return answers


def test_the_daily_report_is_the_sum_of_the_days_settlements_and_voids(game: Game) -> None:
    answers = play_a_day(game)
    report = reconciliation.daily_report(game.repo, OP, now()[:10])
    settled = answers["settled"]
    nets: dict[str, int] = {}
    for s in settled:
        for who, net in s.nets.items():
            nets[who] = nets.get(who, 0) + net
    (total,) = report.totals  # one currency: the fun tier's coins
    assert (total.currency, total.minor_unit_exponent) == ("XCN", 0)
    assert {(t.currency, t.minor_unit_exponent) for t in report.tables} == {("XCN", 0)}
    assert total.rounds == len(answers["all"]) == 14
    assert total.voided == len(answers["voided"]) == 4
    assert total.auto_settled == sum(s.auto_settled for s in settled) > 0
    assert total.settled + total.auto_settled == len(settled)
    assert total.dealt == len(answers["dealt"]) == 0
    assert total.staked == sum(line.stake for s in settled for line in s.lines)
    assert total.commission == sum(s.house.commission for s in settled)
    assert total.house_take == sum(s.house.take for s in settled)
    assert total.nets == dict(sorted(nets.items()))
    assert total.paid == sum(n for s in settled for n in s.nets.values() if n > 0)
    assert total.house_take == total.collected - total.paid == -sum(total.nets.values())
    assert {t.table_id for t in report.tables} == {rid.rsplit("_s", 1)[0] for rid in answers["all"]}
    for field in ("rounds", "voided", "staked", "commission", "house_take", "paid"):
        assert sum(getattr(t, field) for t in report.tables) == getattr(total, field), field
    for t in report.tables:
        assert sum(t.nets.values()) + t.house_take == 0
    assert not report.final  # today is not over
    assert reconciliation.daily_report(game.repo, OP, "2001-01-01").totals == []
    assert reconciliation.daily_report(game.repo, "another", now()[:10]).totals == []


@pytest.mark.parametrize("limit", [1, 3, 100])
def test_paging_lists_every_round_once_in_play_order_per_table(game: Game, limit: int) -> None:
    answers = play_a_day(game)
    seen: list[str] = []
    cursor = None
    for _ in range(100):
        page = reconciliation.list_rounds(game.repo, OP, cursor=cursor, limit=limit)
        assert len(page.rounds) <= limit
        seen += [r.round_id for r in page.rounds]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == sorted(answers["all"]) and len(seen) == len(set(seen))
    voided = reconciliation.list_rounds(game.repo, OP, status="voided")
    assert {r.round_id for r in voided.rounds} == {v.round_id for v in answers["voided"]}
    assert all(sum(r.nets.values()) == 0 and r.house_take == 0 for r in voided.rounds)
    table = answers["all"][0].rsplit("_s", 1)[0]
    one = reconciliation.list_rounds(game.repo, OP, table_id=table)
    assert [r.round_number for r in one.rounds] == list(range(1, 8))


def test_bad_ranges_and_cursors_are_typed_errors(game: Game) -> None:
    def code(**kw: Any) -> str:
        with pytest.raises(DomainError) as err:
            reconciliation.list_rounds(game.repo, OP, **kw)
        return err.value.code

    assert code(start="2026-01-02", end="2026-01-01") == "invalid_range"
    assert code(start="2026-01-01", end="2026-03-01") == "invalid_range"
    assert code(start="yesterday") == "invalid_range"
    assert code(cursor="nonsense") == "invalid_cursor"
    assert code(start="9999-12-31") == "invalid_range"  # its day ends in year 10000
    play_a_day(game)
    real = reconciliation.list_rounds(game.repo, OP, limit=1).next_cursor
    assert real is not None
    doc = json.loads(base64.urlsafe_b64decode(real))
    for forged in ([0, "garbage"], [7, doc["p"][1]], [0, doc["p"][1] + "#"], [0, "x" * 300]):
        cursor = base64.urlsafe_b64encode(json.dumps({**doc, "p": forged}).encode()).decode()
        assert code(cursor=cursor, limit=1) == "invalid_cursor", forged
    page = reconciliation.list_rounds(game.repo, OP, start="2026-01-01", end="2026-01-03")
    assert page.rounds == [] and page.next_cursor is None
    with pytest.raises(DomainError) as err:
        reconciliation.daily_report(game.repo, OP, "2026-02-30")
    assert err.value.code == "invalid_range"
