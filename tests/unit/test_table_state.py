"""``GET /v1/tables/{table_id}/state`` over the in-memory repository: the phase and its deadline
through a round's life, the cards the table shows as the squeeze goes, and the seeds' table
(seats, the player-banker, the observer list, cards remaining, history, the squeeze) rendered
by a frontend from one state read plus the event feed after its ``seq`` — the same table the
state shows at the end."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat_api.clock import seconds_after
from baccarat_api.service import events, presence, squeezing, table_state, tables
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round

from .conftest import Game, star_city_bets
from .test_betting import seeded
from .test_service import OP, deal, new_table

#: The squeeze these tests are about (the helpers' tables have none by default).
SQUEEZE = {"squeeze_seconds": 10}


def settle_after_squeeze(game: Game, monkeypatch: pytest.MonkeyPatch, dealt: Any) -> None:
    """Settle the round once every card is shown: its countdowns over (60 s after the deal)."""
    late = seconds_after(dealt.dealt_at, 60)
    game.clock.set(late)
    settle_round(game.repo, OP, dealt.round_id)


def state(game: Game, table_id: str) -> dict[str, Any]:
    out, _ = table_state.table_state(game.repo, OP, table_id)
    return out.model_dump(mode="json")


def render(start: dict[str, Any], feed: list[dict[str, Any]]) -> dict[str, Any]:
    """What a frontend draws, from a state read and the events after its seq (only the feed's
    data: ids, seats, rounds, who opened)."""
    seats = {int(k): v["bettor_id"] for k, v in start["seats"].items()}
    banker = None if start["banker"] is None else start["banker"]["bettor_id"]
    watchers = list(start["watchers"])
    rnd = None if start["round"] is None else start["round"]["round_id"]
    opened: dict[str, str] = {}
    if start["round"] is not None:
        for step, s in start["round"]["squeeze"]["steps"].items():
            if s["status"] == "revealed":
                opened[step] = next(iter(s["hands"].values()))["opened"]["by"]
    settled = start["phase"] == "settled"
    seq = start["seq"]
    for e in feed:
        assert e["seq"] == seq + 1, "the feed has no gap after the state's seq"
        seq = e["seq"]
        kind, data = e["type"], e["data"]
        if kind == "seat_taken":
            seats[data["seat"]] = data["bettor_id"]
        elif kind == "seat_vacated":
            seats.pop(data["seat"])
        elif kind == "banker_taken":
            banker = data["bettor_id"]
        elif kind == "banker_left":
            banker = None
        elif kind == "watcher_joined":
            watchers.append(data["bettor_id"])
        elif kind == "watcher_left":
            watchers.remove(data["bettor_id"])
        elif kind == "round_dealt":
            rnd, opened, settled = data["round_id"], {}, False
        elif kind == "squeeze_revealed" and data["round_id"] == rnd:
            opened.setdefault(data["step"], data["by"])
        elif kind in ("round_settled", "round_auto_settled", "round_voided"):
            settled = settled or data["round_id"] == rnd
    return {"seats": seats, "banker": banker, "watchers": watchers, "round": rnd,
            "opened": opened, "settled": settled, "seq": seq}  # fmt: skip


def drawn(s: dict[str, Any]) -> dict[str, Any]:
    """The same picture, from a state read alone."""
    return render(s, [])


def test_the_seeds_table_renders_from_state_and_feed_alone(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = new_table(game, banking="player_banker", **SQUEEZE)
    first = state(game, t)  # a frontend arrives before anyone sits
    assert (first["phase"], first["seq"], first["shoe"], first["round"]) == ("idle", 0, None, None)
    presence.take_banker(game.repo, OP, t, "pat", 40_000)  # 荷官
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(game.repo, OP, t, 2, "bob", 20_000, None)
    presence.join_watchers(game.repo, OP, t, "wendy")  # 觀局清單
    shoe = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    pb = {"bettor_id": "pat", "balance": 40_000}
    dealt = deal(game, shoe, star_city_bets(), player_banker=pb)
    middle = state(game, t)  # a second frontend arrives mid-squeeze
    assert middle["phase"] == "squeeze"
    assert middle["deadline"] == dealt.squeeze["steps"]["initial"]["reveal_by"]
    # 剩餘張數: star-city deals 4 decks; the round started after the burn; mid-squeeze the table
    # shows four cards, its third cards (if any) are still in the shoe, its result in no history
    assert middle["shoe"]["cards_remaining"] == 4 * 52 - (dealt.start + 4)
    assert middle["shoe"]["history"] == [] and middle["shoe"]["rounds_dealt"] == 1
    assert [c["code"] is not None for c in middle["round"]["cards"]] == [True, True, False, False]
    squeezing.urge(game.repo, OP, t, "pat")  # 催促鈕
    squeezing.reveal_round(game.repo, OP, dealt.round_id, "alice", "initial")
    presence.leave_watchers(game.repo, OP, t, "wendy")
    presence.leave_seat(game.repo, OP, t, 2)
    late = seconds_after(dealt.dealt_at, 60)  # every countdown over: the system opened the rest
    game.clock.set(late)
    settle_round(game.repo, OP, dealt.round_id)  # settled once every card is shown
    presence.join_watchers(game.repo, OP, t, "walt")  # reports what the system opened meanwhile
    end = state(game, t)
    for start in (first, middle):
        page, _ = events.table_events(game.repo, OP, t, start["seq"], 100)
        feed = [e.model_dump(mode="json") for e in page.events]
        assert render(start, feed) == drawn(end) | {"seq": end["seq"]}
    assert end["phase"] == "settled" and list(end["seats"]) == ["1"]
    assert end["seats"]["1"]["bettor_id"] == "alice" and end["watchers"] == ["walt"]
    assert end["round"]["result"] == dealt.result  # every card shown
    assert all(c["code"] is not None for c in end["round"]["cards"])
    assert end["shoe"]["history"][-1]["result"] == dealt.result  # 歷史開牌
    assert end["shoe"]["rounds_dealt"] == 1 and end["banker"]["bettor_id"] == "pat"


def test_the_phase_follows_the_round_and_the_etag_moves_with_it(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = new_table(game, **SQUEEZE)
    shoe = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    assert state(game, t)["phase"] == "idle"
    dealt = deal(game, shoe, star_city_bets())
    _, tag = table_state.table_state(game.repo, OP, t)
    _, same = table_state.table_state(game.repo, OP, t)
    assert tag == same  # nothing drawn changed
    after = seconds_after(dealt.dealt_at, 10)
    game.clock.set(after)
    s = state(game, t)
    has_draws = "draws" in dealt.squeeze["steps"]
    # past the initial deadline: the draws count down (if any), else every card is shown
    assert s["phase"] == ("squeeze" if has_draws else "dealt")
    assert s["deadline"] == (seconds_after(after, 10) if has_draws else dealt.settle_by)
    _, moved = table_state.table_state(game.repo, OP, t)
    assert moved != tag  # the countdown ended: the same seq, another picture
    game.clock.set(after)
    if has_draws:  # a third card still face down: not settled yet
        with pytest.raises(DomainError) as refused:
            settle_round(game.repo, OP, dealt.round_id)
        assert refused.value.code == "cards_not_shown"
    else:
        settle_round(game.repo, OP, dealt.round_id)
    assert state(game, t)["phase"] == ("squeeze" if has_draws else "settled")


def test_the_state_at_its_largest_is_small(game: Game) -> None:
    """Measured, not assumed: a bid-squeeze table with every place taken by the longest ids
    (7 seats, the most spectators with personal limits, 200 watchers), a slip of several bets
    for each, and a whole shoe's history and roads — the answer's bytes (printed)."""
    from baccarat.profiles import repo_tiers
    from baccarat_api.limits import MAX_ID_LENGTH, MAX_SPECTATORS, MAX_WATCHERS
    from baccarat_api.service import betting
    from baccarat_api.service.models import SlipRequest

    t = new_table(game, profile="bid-squeeze", tier="bid-squeeze-standard", **SQUEEZE)
    shoe = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    name = lambda kind, n: f"{kind}{n}".ljust(MAX_ID_LENGTH, "x")  # noqa: E731
    for seat in range(1, 8):
        presence.take_seat(game.repo, OP, t, seat, name("s", seat), 10**9, 10)
    tier = repo_tiers()["bid-squeeze-standard"]  # personal limits: a range on every bet type
    limits = {str(k): {"min": a.min, "max": a.max} for k, a in tier.limits.items()}
    for n in range(MAX_SPECTATORS):
        presence.join_spectators(game.repo, OP, t, name("p", n), 10**9, limits)
    for n in range(MAX_WATCHERS):
        presence.join_watchers(game.repo, OP, t, name("w", n))
    dealt = 0
    while True:  # the shoe's rounds (nobody bets) until one is left: its history and roads
        shoe_now = state(game, t)["shoe"]
        if shoe_now["cards_remaining"] < 30:
            break
        deal(game, shoe, [])
        dealt += 1
    betting.open_betting(game.repo, OP, t)
    bets = [("banker", 1000), ("tie", 1000), ("banker_pair", 1000), ("player_pair", 1000)]
    request = SlipRequest.model_validate({"bets": [{"type": k, "amount": a} for k, a in bets]})
    for bettor in [name("s", s) for s in range(1, 8)] + [name("p", n) for n in range(8)]:
        betting.place_slip(game.repo, OP, t, bettor, request)
    out, _ = table_state.table_state(game.repo, OP, t)
    size = len(out.model_dump_json().encode())
    print(f"\nGET …/state at its largest: {size} bytes ({dealt} rounds in the shoe)")
    assert out.phase == "betting" and len(out.watchers) == MAX_WATCHERS
    assert len(out.book.seats) == 7 and len(out.book.spectators) == MAX_SPECTATORS
    assert size < 100_000, size


def test_mid_squeeze_the_state_gives_no_hidden_card_away(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the initial step is revealed, nothing in the state depends on a face-down card
    (regression: the shoe's history and roads already held the round's result and
    totals, the squeeze plan said whether and to which hand third cards come, and
    ``cards_remaining`` whether third cards were dealt). Once every card is shown, all of it is
    there. Rounds with and without third cards look the same until then."""
    seeded(game, "squeeze-hides")
    t = new_table(game, **SQUEEZE)
    shoe = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    with_draws = set()
    for number in range(1, 9):
        dealt = deal(game, shoe, star_city_bets())
        s = state(game, t)
        r, sh = s["round"], s["shoe"]
        assert (s["phase"], r["round_number"], r["result"]) == ("squeeze", number, None)
        assert r["squeeze"]["draws"] == [] and list(r["squeeze"]["steps"]) == ["initial"]
        assert [c["position"] for c in r["cards"]] == [dealt.start + i for i in range(4)]
        assert [h["round"] for h in sh["history"]] == list(range(1, number))
        assert [c["round"] for c in sh["roads"]["bead_plate"]["cells"]] == list(range(1, number))
        # the four initial cards are on the table (two face down); third cards still in the shoe
        assert sh["cards_remaining"] == 4 * 52 - (dealt.start + 4)
        assert sh["rounds_dealt"] == number
        end = seconds_after(dealt.dealt_at, 60)  # every countdown over: every card shown
        game.clock.set(end)
        s = state(game, t)
        r, sh = s["round"], s["shoe"]
        assert r["result"] == dealt.result and len(r["cards"]) == dealt.cards_dealt
        assert [h["round"] for h in sh["history"]] == list(range(1, number + 1))
        assert sh["history"][-1]["result"] == dealt.result
        assert sh["cards_remaining"] == 4 * 52 - (dealt.start + dealt.cards_dealt)
        with_draws.add("draws" in dealt.squeeze["steps"])
        settle_after_squeeze(game, monkeypatch, dealt)
    assert with_draws == {True, False}  # both kinds of round were looked at


def test_while_the_players_third_card_is_face_down_the_state_hides_whether_the_banker_draws(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mid-draws (the system opened the initial cards at 10 s, the draws count down to 20 s):
    a round where the player draws shows the player's third card face down and nothing of the
    banker's, drawn or not — else banker 6 with a third card told everyone the player's
    face-down card was a 6 or a 7. Once every card is shown, both
    are there."""
    seeded(game, "squeeze-hides")
    t = new_table(game, **SQUEEZE)
    shoe = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    seen = set()
    for _ in range(30):
        dealt = deal(game, shoe, star_city_bets())
        player_draws = len(dealt.player.cards) == 3
        mid = seconds_after(dealt.dealt_at, 15)
        game.clock.set(mid)
        s = state(game, t)
        r, sh = s["round"], s["shoe"]
        if player_draws:
            seen.add(len(dealt.banker.cards))
            thirds = [(c["hand"], c["code"]) for c in r["cards"] if c["index"] == 3]
            assert thirds == [("player", None)], thirds
            assert [c["hand"] for c in r["squeeze"]["draws"]] == ["player"]
            assert list(r["squeeze"]["steps"]["draws"]["hands"]) == ["player"]
            assert sh["cards_remaining"] == 4 * 52 - (dealt.start + 5)  # no banker third out
            assert (s["phase"], r["result"]) == ("squeeze", None)
        end = seconds_after(dealt.dealt_at, 60)
        game.clock.set(end)
        done = state(game, t)["round"]
        assert len(done["cards"]) == dealt.cards_dealt and done["result"] == dealt.result
        settle_after_squeeze(game, monkeypatch, dealt)
        if seen == {2, 3}:
            break
    assert seen == {2, 3}  # rounds where the banker drew and where it stood were looked at
