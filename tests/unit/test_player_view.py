"""The player view of ``GET …/state`` (docs/design/browsers.md §1): what anyone staked is public
at the table, what they hold or may stake is theirs. Properties over random tables: a person's
state never holds another person's balance or personal limits, always their own (``you``), and
the operator's view is the full one."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat_api.service import presence
from baccarat_api.service.callers import Player
from baccarat_api.service.table_state import table_state
from baccarat_api.service.views import player_presence

from .conftest import Game
from .test_service import OP, new_table

NAMES = [f"p{i}" for i in range(12)]
#: Balances no other number of a state can be: 9 digits, distinct per person.
BASE = 731_900_000


def balance(i: int) -> int:
    return BASE + 1_009 * i


@st.composite
def tables(draw: Any) -> dict[str, Any]:
    """A random table's presence: the profile, who sits where, who spectates or watches."""
    bid = draw(st.booleans())
    people = draw(st.permutations(NAMES))
    n_seats = draw(st.integers(0, 7))
    seats = {s: people[i] for i, s in enumerate(draw(st.permutations(range(1, 8)))[:n_seats])}
    rest = people[n_seats:]
    banker = None if bid or not draw(st.booleans()) else rest[0]
    rest = rest[1:] if banker else rest
    k = draw(st.integers(0, min(len(rest), 8)))  # MAX_SPECTATORS
    spectators = rest[:k] if bid and seats else []
    watchers = rest[k : k + draw(st.integers(0, 3))]
    viewer = draw(st.sampled_from([*NAMES, "nobody"]))
    role = draw(st.sampled_from(["seat", "banker", "spectator", "watcher"]))
    return dict(bid=bid, seats=seats, banker=banker, spectators=spectators, watchers=watchers,
                viewer=viewer, role=role)  # fmt: skip


def build(game: Game, world: dict[str, Any]) -> str:
    fields: dict[str, Any] = (
        {"profile": "bid-squeeze", "tier": "bid-squeeze-standard"}
        if world["bid"] else {"banking": "player_banker"} if world["banker"] else {}
    )  # fmt: skip
    t = new_table(game, **fields)
    money = {name: balance(i) for i, name in enumerate(NAMES)}
    for seat, who in world["seats"].items():
        presence.take_seat(game.repo, OP, t, seat, who, money[who], 1 if world["bid"] else None)
    if world["banker"]:
        who = world["banker"]
        presence.take_banker(game.repo, OP, t, who, 10**7 + money[who] - BASE)
    for who in world["spectators"]:
        presence.join_spectators(game.repo, OP, t, who, money[who], {"banker": 2_000})
    for who in world["watchers"]:
        presence.join_watchers(game.repo, OP, t, who)
    return t


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=tables())
def test_a_players_state_never_holds_another_persons_balance(world: dict[str, Any]) -> None:
    game = Game()
    t = build(game, world)
    viewer = world["viewer"]
    player = Player(OP, world["role"], "tk_x", 0, 1, table_id=t, bettor_id=viewer)
    state, etag = table_state(game.repo, OP, t, player)
    text = state.model_dump_json()
    full, full_etag = table_state(game.repo, OP, t)
    full_text = full.model_dump_json()
    banker_money = (
        {world["banker"]: 10**7 + balance(NAMES.index(world["banker"])) - BASE}
        if world["banker"] else {}
    )  # fmt: skip
    present = [*world["seats"].values(), *world["spectators"]]
    held = {who: balance(NAMES.index(who)) for who in present} | banker_money
    for who, money in held.items():
        assert str(money) in full_text  # the operator sees everyone's
        assert (str(money) in text) == (who == viewer), (who, viewer)
    if world["spectators"] and viewer not in world["spectators"]:
        assert '"personal_limits":null' in text and '"personal_limits":null' not in full_text
    you = state.you
    assert you is not None and you.bettor_id == viewer and you.role == world["role"]
    assert you.balance == held.get(viewer)
    where = {f"seat {s}": w for s, w in world["seats"].items()}
    where |= {"banker": world["banker"]} if world["banker"] else {}
    place = next((p for p, w in where.items() if w == viewer), None)
    if place is None and viewer in world["spectators"]:
        place = "spectator"
    if place is None and viewer in world["watchers"]:
        place = "watcher"
    assert you.place == place
    assert full.you is None
    # what is public stays: who is where
    assert {s: v["bettor_id"] for s, v in state.seats.items()} == world["seats"]
    assert state.watchers == full.watchers
    assert (etag == full_etag) == (text == full_text)


def test_redaction_keeps_every_field_but_what_a_person_holds() -> None:
    seats = {1: {"bettor_id": "a", "balance": 5, "level": 3}, 2: {"bettor_id": "b", "balance": 7}}
    spectators = {"c": {"balance": 9, "personal_limits": {"banker": 1}}}
    out = player_presence(seats, {"bettor_id": "d", "balance": 11}, spectators, "a")
    assert out == (
        {1: {"bettor_id": "a", "balance": 5, "level": 3}, 2: {"bettor_id": "b", "balance": None}},
        {"bettor_id": "d", "balance": None},
        {"c": {"balance": None, "personal_limits": None}},
    )
