"""Table events carry what the table shows — and nothing it does not show yet (issue 27: the
table page renders from the push channel alone; the third review's rule, "nothing shown early").

``round_dealt`` and ``squeeze_revealed`` carry ``round`` (the state's round view right after
them) and ``shoe`` (its id, rounds dealt, cards remaining, the round's history cell once its
result shows); ``bet_placed`` carries the slip's lines. Walked over random rounds of both seeds
with squeezes — nobody squeezing, one squeezer opening, the system opening at ``reveal_by``,
reported by the squeezer's own reveal, by the table's next change, the settlement or a void — every
event of the round, in order: no card value, point, result, nets or card count appears in an
event before the state shows it, and each event's ``round`` and ``shoe`` are the state's, read
right after it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat_api.clock import seconds_after
from baccarat_api.service import betting, events, presence, squeezing, table_state, voiding
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round

from .conftest import Game
from .test_betting import from_book, seeded, slip, table_with_shoe
from .test_service import OP

pytestmark = pytest.mark.unit

TABLES = {
    "star-city": {"profile": "star-city", "tier": "star-city-fun"},
    "bid-squeeze": {"profile": "bid-squeeze", "tier": "bid-squeeze-standard"},
}

#: What an event could give an outcome away by (a key anywhere in its data).
TELLING = ("code", "result", "player_total", "banker_total", "cards_remaining", "totals")


def state(game: Game, table_id: str) -> dict[str, Any]:
    out, _ = table_state.table_state(game.repo, OP, table_id)
    return out.model_dump(mode="json")


def feed(game: Game, table_id: str, after: int) -> list[dict[str, Any]]:
    page, _ = events.table_events(game.repo, OP, table_id, after, 200)
    return [e.model_dump(mode="json") for e in page.events]


def told(data: Any, key: str) -> list[Any]:
    """Every non-null value of ``key`` anywhere in ``data``."""
    found: list[Any] = []
    if isinstance(data, dict):
        for k, v in data.items():
            if k == key and v not in (None, {}, []):
                found.append(v)
            found += told(v, key)
    elif isinstance(data, list):
        for v in data:
            found += told(v, key)
    return found


def check(event: dict[str, Any], after: dict[str, Any]) -> None:
    """``event`` tells nothing the state ``after`` it does not show."""
    data, rnd, shoe = event["data"], after["round"], after["shoe"]
    shown_codes = [c["code"] for c in (rnd or {}).get("cards", []) if c["code"] is not None]
    for code in told(data, "code"):
        assert code in shown_codes, (event, rnd)
    if rnd is None or rnd["result"] is None:
        for key in ("result", "player_total", "banker_total", "totals", "nets"):
            assert told(data, key) == [], (key, event)
    for remaining in told(data, "cards_remaining"):
        assert shoe is not None and remaining == shoe["cards_remaining"], (event, shoe)
    if event["type"] in events.SHOWN and data["round_id"] == (rnd or {}).get("round_id"):
        assert data["round"] == rnd
        last = shoe["history"][-1] if rnd["result"] is not None else None
        cells = shoe["roads"]["bead_plate"]["cells"]
        assert data["shoe"] == {
            "shoe_id": shoe["shoe_id"],
            "rounds_dealt": shoe["rounds_dealt"],
            "cards_remaining": shoe["cards_remaining"],
            "last": None if last is None else cells[-1],
        }
        if last is not None:
            assert {k: v for k, v in cells[-1].items() if k not in ("col", "row")} == last


class Walk:
    """A table with two seated bettors, walked one change at a time; after each change its new
    events are checked against the state read right after it."""

    def __init__(self, seed: str, shoe_seed: str) -> None:
        self.game = seeded(Game(), shoe_seed)
        self.profile = seed
        self.table, self.shoe = table_with_shoe(
            self.game, **TABLES[seed], banking="house", squeeze_seconds=10
        )
        self.seq = 0
        self.checked = 0
        self.change(lambda: presence.take_seat(self.game.repo, OP, self.table, 1, "alice",
                                               500_000, 3))  # fmt: skip
        self.change(lambda: presence.take_seat(self.game.repo, OP, self.table, 2, "bob",
                                               500_000, 1))  # fmt: skip

    def change(self, call: Any) -> Any:
        try:
            out = call()
        except DomainError:
            out = None  # a refusal changes nothing (and reports nothing)
        after = state(self.game, self.table)
        for event in feed(self.game, self.table, self.seq):
            check(event, after)
            self.checked += 1
            self.seq = event["seq"]
        return out

    def later(self, seconds: int, dealt_at: str) -> None:
        self.game.clock.set(seconds_after(dealt_at, seconds))


LINES = {
    "star-city": [("banker", 1000), ("player", 2000), ("tie", 100), ("banker_pair", 100)],
    "bid-squeeze": [("banker", 1000), ("player", 2000), ("tie", 100), ("banker_pair", 100)],
}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(sorted(TABLES)),
    shoe_seed=st.text("abcdef0123456789", min_size=1, max_size=8),
    rounds=st.lists(
        st.tuples(
            st.lists(st.tuples(st.sampled_from(["alice", "bob"]), st.integers(0, 3)), max_size=3),
            st.lists(
                st.tuples(
                    st.sampled_from(["reveal", "watch", "settle", "void", "wait"]),
                    st.sampled_from(["initial", "draws"]),
                    st.integers(0, 12),
                ),
                max_size=6,
            ),
        ),
        min_size=1,
        max_size=2,
    ),
)
def test_no_event_shows_anything_before_the_state_and_each_shows_what_it_shows(
    seed: str, shoe_seed: str, rounds: list[Any]
) -> None:
    walk = Walk(seed, shoe_seed)
    repo, t, clock = walk.game.repo, walk.table, walk.game.clock
    for number, (slips, moves) in enumerate(rounds):
        walk.change(lambda: betting.open_betting(repo, OP, t))
        for bettor, line in slips:
            bets = slip(LINES[seed][line])
            walk.change(lambda b=bettor, s=bets: betting.place_slip(repo, OP, t, b, s))
        dealt = walk.change(lambda: from_book(walk.game, walk.shoe))
        rid = None if dealt is None else dealt.round_id
        if dealt is None:
            continue  # nobody bet: the window was cancelled
        elapsed = 0
        for i, (move, step, seconds) in enumerate(moves):
            elapsed += seconds
            walk.later(elapsed, dealt.dealt_at)
            if move == "reveal":
                for who in ("alice", "bob"):
                    walk.change(
                        lambda w=who, s=step, r=rid: squeezing.reveal_round(repo, OP, r, w, s)
                    )
            elif move == "watch":  # a change about something else reports the system's reveals
                name = f"w{number}{i}"
                walk.change(lambda n=name: presence.join_watchers(repo, OP, t, n))
            elif move == "settle":
                walk.change(lambda r=rid: settle_round(repo, OP, r))
            elif move == "void":  # a void ends the squeeze: its due steps are reported with it
                walk.change(lambda r=rid: voiding.void_round(repo, OP, r, reason="misdeal"))
        walk.later(max(elapsed, 0) + 40, dealt.dealt_at)  # every countdown over
        walk.change(lambda r=rid: settle_round(repo, OP, r))
        clock.set(seconds_after(clock(), 1))
    assert walk.checked > 0


def test_a_slip_placed_tells_its_lines_and_nothing_of_a_balance(game: Game) -> None:
    t, _ = table_with_shoe(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000), ("tie", 100)))
    placed = [e for e in feed(game, t, 0) if e["type"] == "bet_placed"]
    assert [e["data"] for e in placed] == [
        {"round_number": 1, "bettor_id": "alice", "bets": 2, "total": 1100,
         "lines": [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}]}
    ]  # fmt: skip


def test_a_squeeze_walked_step_by_step_shows_each_card_when_the_state_does(game: Game) -> None:
    """The explicit walk: dealt face down (two cards shown, none of the outcome), the squeezer
    opens the initial cards (four shown; the third cards, if any, still in the shoe), the system
    opens the third cards at their ``reveal_by`` (reported by the next change): the result and
    the history cell appear with the last card."""
    t, shoe_id = table_with_shoe(game, squeeze_seconds=10)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000)))
    dealt = from_book(game, shoe_id)
    at_deal = state(game, t)
    (ev,) = [e for e in feed(game, t, 0) if e["type"] == "round_dealt"]
    assert ev["data"]["round"] == at_deal["round"]
    face_up = [c["code"] is not None for c in ev["data"]["round"]["cards"]]
    assert face_up == [True, True, False, False]
    assert ev["data"]["round"]["result"] is None and ev["data"]["shoe"]["last"] is None
    start = dealt.start
    assert ev["data"]["shoe"]["cards_remaining"] == at_deal["shoe"]["cards_remaining"]
    assert at_deal["shoe"]["cards_remaining"] == 4 * 52 - (start + 4)
    game.clock.set(seconds_after(dealt.dealt_at, 2))
    squeezing.reveal_round(game.repo, OP, dealt.round_id, "alice", "initial")
    (opened,) = [e for e in feed(game, t, ev["seq"]) if e["type"] == "squeeze_revealed"]
    assert opened["data"]["round"] == state(game, t)["round"]
    assert all(c["code"] is not None for c in opened["data"]["round"]["cards"] if c["index"] < 3)
    if dealt.cards_dealt == 4:
        assert opened["data"]["round"]["result"] == dealt.result
        assert opened["data"]["shoe"]["last"]["round"] == 1
        return
    assert opened["data"]["round"]["result"] is None
    # the third cards come face down once the four are shown (the four decide them), the
    # banker's only once the player's is shown (it depends on it): counted as they come
    cards = opened["data"]["round"]["cards"]
    assert 4 < len(cards) <= dealt.cards_dealt and all(c["code"] is None for c in cards[4:])
    assert opened["data"]["shoe"]["cards_remaining"] == 4 * 52 - (start + len(cards))
    game.clock.set(seconds_after(dealt.dealt_at, 30))
    presence.join_watchers(game.repo, OP, t, "wendy")
    system = [e for e in feed(game, t, opened["seq"]) if e["type"] == "squeeze_revealed"]
    assert [e["data"]["by"] for e in system] == ["system"]
    after = state(game, t)
    assert system[0]["data"]["round"] == after["round"]
    assert system[0]["data"]["round"]["result"] == dealt.result
    assert system[0]["data"]["shoe"]["cards_remaining"] == 4 * 52 - (start + dealt.cards_dealt)
    assert system[0]["data"]["shoe"]["last"] == after["shoe"]["roads"]["bead_plate"]["cells"][-1]
