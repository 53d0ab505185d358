"""An unchanged slip line keeps its time."""

from __future__ import annotations

from support.stack import Api

from integration.test_table_rules_http import put, shoe, table


def test_matching_a_stake_later_by_a_second_line_of_the_same_type_does_not_win_the_squeeze(
    api: Api,
) -> None:
    """Seed 001 咪牌 3: equal stakes — the earlier bet squeezes. Bob's Banker 6,000 is confirmed
    before Alice matches it. Re-confirming {banker: 6000} makes Alice's line new (Bob squeezes);
    a slip that held two Banker lines ([banker 5000, banker 1000]) kept the 5000 line's early
    order, and Alice — who matched Bob after him — squeezed. A slip has one line per type."""
    t = table(api, profile="bid-squeeze", tier="bid-squeeze-standard")
    s = shoe(api, t)
    put(api, f"/v1/tables/{t}/seats/1", {"bettor_id": "bob", "balance": 50_000, "level": 1})
    put(api, f"/v1/tables/{t}/seats/2", {"bettor_id": "alice", "balance": 50_000, "level": 1})
    assert api.post(f"/v1/tables/{t}/betting").status == 200
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": [{"type": "banker", "amount": 5000}]})
    put(api, f"/v1/tables/{t}/bets/bob", {"bets": [{"type": "banker", "amount": 6000}]})
    split = api.call(
        "PUT",
        f"/v1/tables/{t}/bets/alice",
        {"bets": [{"type": "banker", "amount": 5000}, {"type": "banker", "amount": 1000}]},
    )
    assert split.status == 422, split.body
    assert split.error["code"] == "duplicate_bet_type"
    assert split.error["details"]["bet_types"] == ["banker"]
    # nothing changed: her slip is still the 5,000 confirmed before Bob's, and the one way to
    # match Bob is a new amount, which dates her line after his
    put(api, f"/v1/tables/{t}/bets/alice", {"bets": [{"type": "banker", "amount": 6000}]})
    dealt = api.post(f"/v1/shoes/{s}/rounds", {"from_book": True})
    assert dealt.status == 201, dealt.body
    assert dealt.body["squeeze"]["banker"] == "bob"
