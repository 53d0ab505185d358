"""The squeeze countdown over the in-memory repository: ``reveal_by`` per step, the
squeezer's reveal (refused to anyone else, twice, out of order, late, or with no draws), the
system's reveal at the deadline (computed on read, reported by the next change at the table),
and the player-banker's urge button. Nothing here touches money or cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from baccarat.squeeze import reveal, step_hands, timeline
from baccarat_api import clock
from baccarat_api.clock import seconds_after
from baccarat_api.ids import parse_round_id
from baccarat_api.limits import URGE_COOLDOWN_SECONDS
from baccarat_api.service import betting, events, presence, reading, squeezing
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round

from .conftest import Game, star_city_bets
from .test_betting import BID, from_book, seeded, slip, table_with_shoe
from .test_service import OP, deal, new_shoe, new_table

PLAN = {
    "initial": [
        {"position": 0, "hand": "player", "index": 1, "face": "up", "squeezer": None},
        {"position": 1, "hand": "banker", "index": 1, "face": "up", "squeezer": None},
        {"position": 2, "hand": "player", "index": 2, "face": "down", "squeezer": "p"},
        {"position": 3, "hand": "banker", "index": 2, "face": "down", "squeezer": "b"},
    ],
    "draws": [{"position": 4, "hand": "player", "index": 3, "face": "down", "squeezer": "p"}],
}
T0 = "2026-01-01T00:00:00.000Z"

#: The squeeze these tests are about (the helpers' tables have none by default).
SQUEEZE = {"squeeze_seconds": 10}


def at(seconds: float) -> str:
    """``T0`` plus ``seconds`` (under a minute)."""
    return f"2026-01-01T00:00:{seconds:06.3f}Z"


def test_each_step_counts_down_from_the_previous_reveal_and_the_system_opens_late_hands() -> None:
    hands = step_hands(PLAN)
    assert hands == {"initial": {"player": "p", "banker": "b"}, "draws": {"player": "p"}}
    initial, draws = timeline(hands, T0, 10, [], at(5))
    assert (initial.status, initial.reveal_by, draws.status, draws.reveal_by) == (
        "squeezing", at(10), "waiting", None,
    )  # fmt: skip
    # p opens the player hand at 3 s; b never does: the system opens the banker hand at 10 s,
    # and the draws count down from then
    opened = [reveal(hands, T0, 10, [], "initial", "p", at(3))]
    initial, draws = timeline(hands, T0, 10, opened, at(12))
    assert initial.opened == {
        "player": {"by": "p", "at": at(3)},
        "banker": {"by": "system", "at": at(10)},
    }
    assert (initial.revealed_at, draws.status, draws.reveal_by) == (at(10), "squeezing", at(20))
    # both open in time: the draws start at the later of the two
    both = [*opened, reveal(hands, T0, 10, opened, "initial", "b", at(4))]
    initial, draws = timeline(hands, T0, 10, both, at(4))
    assert (initial.status, initial.revealed_at, draws.reveal_by) == ("revealed", at(4), at(14))
    # at the end of time everything is open
    assert [s.status for s in timeline(hands, T0, 10, [], None)] == ["revealed", "revealed"]


@pytest.mark.parametrize(
    ("step", "bettor", "reveals", "when", "code"),
    [
        ("initial", "nobody", [], 1, "not_squeezer"),
        ("draws", "p", [], 1, "reveal_out_of_order"),
        ("initial", "p", [{"step": "initial", "hands": ["player"], "by": "p", "at": T0}], 1,
         "already_revealed"),
        ("initial", "p", [], 10, "reveal_deadline_passed"),
    ],
)  # fmt: skip
def test_a_reveal_is_refused_with_its_code(
    step: str, bettor: str, reveals: list[dict[str, Any]], when: float, code: str
) -> None:
    with pytest.raises(Exception) as caught:
        reveal(step_hands(PLAN), T0, 10, reveals, step, bettor, at(when))
    assert getattr(caught.value, "code", None) == code


def test_a_round_without_third_cards_has_no_draws_step() -> None:
    plan = {"initial": PLAN["initial"], "draws": []}
    assert list(step_hands(plan)) == ["initial"]
    with pytest.raises(Exception) as caught:  # once the initial cards are shown (at 10 s)
        reveal(step_hands(plan), T0, 10, [], "draws", "p", at(11))
    assert getattr(caught.value, "code", None) == "no_draws"


@pytest.mark.parametrize("bettor", ["p", "b", "nobody"])
def test_before_the_initial_reveal_a_draws_reveal_says_nothing_of_the_third_cards(
    bettor: str,
) -> None:
    """Whether third cards come, and to which hand, follows from the face-down initial cards:
    before they are shown, a ``draws`` reveal is refused alike for a round with a player's third
    card, one with the banker's, and one with none (regression: ``no_draws`` or
    ``not_squeezer`` with its ``squeezers`` told a squeezer the outcome's shape early)."""
    banker_draws = [{**PLAN["draws"][0], "hand": "banker", "squeezer": "b"}]
    answers = []
    for draws in (PLAN["draws"], banker_draws, []):
        hands = step_hands({"initial": PLAN["initial"], "draws": draws})
        opened = [reveal(hands, T0, 10, [], "initial", "p", at(2))]  # one hand of two
        for reveals in ([], opened):
            with pytest.raises(Exception) as caught:
                reveal(hands, T0, 10, reveals, "draws", bettor, at(3))
            answers.append((getattr(caught.value, "code", None), caught.value.details))
    assert answers == [("reveal_out_of_order", {"step": "draws"})] * 6


@pytest.mark.parametrize("bettor", ["b", "nobody"])
def test_before_the_players_third_card_is_open_nothing_says_whether_the_banker_draws(
    bettor: str,
) -> None:
    """The player draws; whether the banker draws then depends on the player's third card
    (banker 6 draws on a 6 or 7 only). Until that card is open, a draws reveal by anyone but
    its squeezer is refused alike whether the banker draws or not (regression:
    the banker's squeezer opened the banker's third card — or was told ``not_squeezer`` when
    there was none — before the player's, so everyone learned something of a face-down card).
    Once it is open, the banker's squeezer opens theirs."""
    p_draws = PLAN["draws"]
    both = [*p_draws, {"position": 5, "hand": "banker", "index": 3, "face": "down",
                       "squeezer": "b"}]  # fmt: skip
    initial = [{"step": "initial", "hands": ["player", "banker"], "by": "p", "at": at(1)}]
    answers = []
    for draws in (p_draws, both):
        hands = step_hands({"initial": PLAN["initial"], "draws": draws})
        with pytest.raises(Exception) as caught:
            reveal(hands, T0, 10, initial, "draws", bettor, at(3))
        answers.append(
            (getattr(caught.value, "code", None), caught.value.details, str(caught.value))
        )
    assert answers[0] == answers[1] and answers[0][0] == "reveal_out_of_order"
    hands = step_hands({"initial": PLAN["initial"], "draws": both})
    opened = [*initial, reveal(hands, T0, 10, initial, "draws", "p", at(4))]
    assert reveal(hands, T0, 10, opened, "draws", "b", at(5))["hands"] == ["banker"]


def _code(call: Any) -> str:
    with pytest.raises(DomainError) as caught:
        call()
    return caught.value.code


def _feed(game: Game, table_id: str) -> list[tuple[str, dict[str, Any]]]:
    page, _ = events.table_events(game.repo, OP, table_id, 0, 100)
    return [(e.type, e.data) for e in page.events]


def test_the_squeezer_reveals_in_time_and_the_round_read_shows_it(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    shoe_id = new_shoe(game, **SQUEEZE)
    table_id = shoe_id.rsplit("_s", 1)[0]
    dealt = deal(game, shoe_id, star_city_bets())
    plan = dealt.squeeze
    # star-city: alice (largest total stake) leads the whole round
    assert (plan["player"], plan["banker"], plan["squeeze_seconds"]) == ("alice", "alice", 10)
    steps = plan["steps"]
    assert steps["initial"]["status"] == "squeezing"
    assert steps["initial"]["reveal_by"] == seconds_after(dealt.dealt_at, 10)
    has_draws = dealt.cards_dealt > 4
    assert ("draws" in steps) is has_draws

    rid = dealt.round_id
    soon = seconds_after(dealt.dealt_at, 3)
    game.clock.set(soon)
    assert _code(lambda: squeezing.reveal_round(game.repo, OP, rid, "bob", "initial")) == (
        "not_squeezer"
    )
    out = squeezing.reveal_round(game.repo, OP, rid, "alice", "initial")
    assert out.squeeze["steps"]["initial"]["status"] == "revealed"
    assert out.squeeze["steps"]["initial"]["revealed_at"] == soon
    assert _code(lambda: squeezing.reveal_round(game.repo, OP, rid, "alice", "initial")) == (
        "already_revealed"
    )
    kind, data = _feed(game, table_id)[-1]
    # what the table shows right after: tests/unit/test_events_show_the_table.py
    assert data.pop("round")["round_id"] == rid and data.pop("shoe")["rounds_dealt"] == 1
    assert (kind, data) == (
        "squeeze_revealed",
        {"round_id": rid, "step": "initial", "by": "alice", "hands": ["player", "banker"],
         "revealed_at": soon},
    )  # fmt: skip
    got = reading.get_round(game.repo, OP, rid).squeeze["steps"]
    assert got["initial"]["hands"]["player"]["opened"] == {"by": "alice", "at": soon}
    if has_draws:
        assert got["draws"]["reveal_by"] == seconds_after(soon, 10)  # from the initial reveal
    else:
        assert _code(lambda: squeezing.reveal_round(game.repo, OP, rid, "alice", "draws")) == (
            "no_draws"
        )
    # the deal's own answer is the round as dealt: no reveal, the same bytes on a replay
    assert "revealed_at" in dealt.squeeze["steps"]["initial"]
    assert dealt.squeeze["steps"]["initial"]["revealed_at"] is None


def test_a_step_past_its_deadline_is_reported_by_the_next_change(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    shoe_id = new_shoe(game, **SQUEEZE)
    table_id = shoe_id.rsplit("_s", 1)[0]
    dealt = deal(game, shoe_id, star_city_bets())
    late = seconds_after(dealt.dealt_at, 11)
    game.clock.set(late)
    # computed on read: the system opened the initial cards at the deadline
    steps = reading.get_round(game.repo, OP, dealt.round_id).squeeze["steps"]
    assert steps["initial"]["status"] == "revealed"
    assert steps["initial"]["hands"]["banker"]["opened"] == {
        "by": "system",
        "at": seconds_after(dealt.dealt_at, 10),
    }
    assert (
        _code(lambda: squeezing.reveal_round(game.repo, OP, dealt.round_id, "alice", "initial"))
        == "reveal_deadline_passed"
    )
    before = len(_feed(game, table_id))
    presence.join_watchers(game.repo, OP, table_id, "wendy")  # the next change at the table
    reported = _feed(game, table_id)[before:]
    # what the table shows right after: tests/unit/test_events_show_the_table.py
    assert reported[0][1].pop("round")["round_id"] == dealt.round_id
    assert reported[0][1].pop("shoe")["rounds_dealt"] == 1
    assert reported == [
        ("squeeze_revealed", {"round_id": dealt.round_id, "step": "initial", "by": "system",
                              "hands": ["player", "banker"],
                              "revealed_at": seconds_after(dealt.dealt_at, 10)}),
        ("watcher_joined", {"bettor_id": "wendy"}),
    ]  # fmt: skip
    presence.leave_watchers(game.repo, OP, table_id, "wendy")  # reported once, not again
    assert [t for t, _ in _feed(game, table_id)[before + 2 :]] == ["watcher_left"]


def test_only_the_seated_player_banker_urges(game: Game) -> None:
    house = new_table(game)
    assert _code(lambda: squeezing.urge(game.repo, OP, house, "pat")) == (
        "player_banker_not_allowed"
    )
    table_id = new_table(game, banking="player_banker")
    assert _code(lambda: squeezing.urge(game.repo, OP, table_id, "pat")) == "not_player_banker"
    presence.take_banker(game.repo, OP, table_id, "pat", 35_000)
    presence.take_seat(game.repo, OP, table_id, 1, "alice", 50_000, None)
    assert _code(lambda: squeezing.urge(game.repo, OP, table_id, "alice")) == "not_player_banker"
    out = squeezing.urge(game.repo, OP, table_id, "pat")
    assert (out.round_id, out.seq) == (None, 3)
    assert _feed(game, table_id)[-1] == ("urge", {"bettor_id": "pat", "round_id": None})


def test_an_urge_inside_the_tables_cooldown_is_refused_and_writes_nothing(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """344 presses in 20 s each wrote a permanent event (and moved the table's
    seq under every deal, slip and settlement: 409s). A press within URGE_COOLDOWN_SECONDS of
    the table's last urge is 429 ``urge_cooldown`` with ``retry_after`` (whole seconds until
    the next press is taken) and writes nothing; the press after it is taken."""
    table_id = new_table(game, banking="player_banker")
    presence.take_banker(game.repo, OP, table_id, "pat", 35_000)
    first = clock.now()
    game.clock.set(first)
    squeezing.urge(game.repo, OP, table_id, "pat")
    before = _feed(game, table_id)
    for elapsed_ms, wait in ((0, URGE_COOLDOWN_SECONDS), (1_400, 4), (4_999, 1)):
        at = clock.at_ms(clock_ms(first) + elapsed_ms)
        game.clock.set(at)
        with pytest.raises(DomainError) as refused:
            squeezing.urge(game.repo, OP, table_id, "pat")
        err = refused.value
        assert (err.code, err.retryable, err.retry_after) == ("urge_cooldown", False, wait)
        assert err.details == {"retry_after_seconds": wait, "urged_at": first}
        assert _feed(game, table_id) == before  # nothing written
    later = clock.at_ms(clock_ms(first) + URGE_COOLDOWN_SECONDS * 1000)
    game.clock.set(later)
    assert squeezing.urge(game.repo, OP, table_id, "pat").seq == len(before) + 1
    assert [t for t, _ in _feed(game, table_id)].count("urge") == 2
    other = new_table(game, banking="player_banker")  # the cooldown is the table's own
    presence.take_banker(game.repo, OP, other, "pat", 35_000)
    squeezing.urge(game.repo, OP, other, "pat")
    api_md = (Path(__file__).parents[2] / "docs" / "api.md").read_text()
    assert f"one press per **{URGE_COOLDOWN_SECONDS} s**" in api_md  # as documented


def clock_ms(iso: str) -> int:  # (clock.ms_of, checked against datetime)
    from datetime import datetime

    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def test_a_reveal_computed_from_a_round_read_before_the_winners_is_refused(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``BatchGetItem`` is not isolated from a transaction: a reveal can read the live state
    after another reveal's transaction and the round from before it. Its write must then fail
    on the round as read, so the squeezer's step is recorded once (found by the live race)."""
    shoe_id = new_shoe(game, **SQUEEZE)
    table_id = shoe_id.rsplit("_s", 1)[0]
    rid = deal(game, shoe_id, star_city_bets()).round_id
    before = game.repo.load(OP, round_=parse_round_id(rid))
    squeezing.reveal_round(game.repo, OP, rid, "alice", "initial")  # the winner
    real = game.repo.load

    def torn(operator_id: str, **wanted: Any) -> Any:
        snap = real(operator_id, **wanted)
        if wanted.get("round_") is not None:
            snap.round = before.round  # the round as it was, the live state as it is
        return snap

    monkeypatch.setattr(game.repo, "load", torn)
    # every retry reads the stale round again: the table "keeps changing", 409 concurrent_update
    stale = _code(lambda: squeezing.reveal_round(game.repo, OP, rid, "alice", "initial"))
    assert stale == "concurrent_update"
    monkeypatch.setattr(game.repo, "load", real)
    revealed = [d for t, d in _feed(game, table_id) if t == "squeeze_revealed"]
    assert len(revealed) == 1
    stored = game.repo.load(OP, round_=parse_round_id(rid)).round
    assert stored is not None and len(stored.reveals) == 1


def test_a_reveal_answers_the_draws_only_once_the_initial_step_is_revealed(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bid-squeeze: bob squeezes the player hand, alice the banker hand. bob's reveal answers
    the plan without its draws while alice's hand is still face down (the reveal's answer goes
    to bob's frontend: the draws would tell him the initial totals' shape); alice's completes
    the initial step, and her answer shows the draws (the banker's third card only once the
    player's is open)."""
    seeded(game, "reveal-answers")
    t, shoe_id = table_with_shoe(game, **BID, **SQUEEZE)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    presence.take_seat(game.repo, OP, t, 2, "bob", 50_000, 5)
    kinds = set()
    for _ in range(8):
        betting.open_betting(game.repo, OP, t)
        betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000)))
        betting.place_slip(game.repo, OP, t, "bob", slip(("player", 1000)))
        dealt = from_book(game, shoe_id)
        assert (dealt.squeeze["player"], dealt.squeeze["banker"]) == ("bob", "alice")
        game.clock.set(seconds_after(dealt.dealt_at, 2))
        half = squeezing.reveal_round(game.repo, OP, dealt.round_id, "bob", "initial")
        assert half.squeeze["draws"] == [] and list(half.squeeze["steps"]) == ["initial"]
        whole = squeezing.reveal_round(game.repo, OP, dealt.round_id, "alice", "initial")
        draws = dealt.squeeze["draws"]
        if any(c["hand"] == "player" for c in draws):  # the banker's third card after his
            draws = [c for c in draws if c["hand"] != "banker"]
        assert whole.squeeze["draws"] == draws
        assert list(whole.squeeze["steps"]) == list(dealt.squeeze["steps"])
        kinds.add(bool(dealt.squeeze["draws"]))
        late = seconds_after(dealt.dealt_at, 60)  # once every card is shown
        game.clock.set(late)
        settle_round(game.repo, OP, dealt.round_id)
    assert kinds == {True, False}
