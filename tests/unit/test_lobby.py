"""The lobby (``GET /v1/tables``, issue 27, docs/design/browsers.md §3): the operator's numbered
tables in number order, paged with an opaque cursor, each with its tier, phase, presence counts
and shoe progress — and nothing about a person (no bettor id, no balance), nor a result the
table has not shown yet."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat_api.service import betting, presence, tables
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.errors import DomainError
from baccarat_api.service.lobby import decode_cursor, list_tables
from baccarat_api.service.models import CreateTableRequest, DealRequest
from baccarat_api.service.table_state import table_state

from .conftest import Game, star_city_bets

OP = "operator-a"


def _table(game: Game, **fields: Any) -> str:
    request = CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
         "squeeze_seconds": 0, **fields}
    )  # fmt: skip
    return tables.create_table(game.repo, game.vault, OP, request).table_id


def _page(game: Game, limit: int = 25, after: str | None = None) -> dict[str, Any]:
    out, _ = list_tables(game.repo, OP, limit, after)
    doc: dict[str, Any] = json.loads(out.model_dump_json())
    return doc


def _strings_and_keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in _strings_and_keys(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings_and_keys(v)]
    return [value] if isinstance(value, str) else []


def test_tables_are_listed_in_number_order_a_page_at_a_time(game: Game) -> None:
    numbers = [12, 3, 7, 40, 1, 25, 9]
    for n in numbers:
        _table(game, number=n, name=f"Table {n}")
    _table(game, number=5, name="Table 5")
    seen: list[int] = []
    after = None
    pages = 0
    while True:
        page = _page(game, limit=3, after=after)
        pages += 1
        assert len(page["tables"]) <= 3
        seen += [t["number"] for t in page["tables"]]
        after = page["next"]
        if after is None:
            break
    assert seen == sorted([*numbers, 5]) and pages == 3
    assert [t["name"] for t in _page(game)["tables"]][:2] == ["Table 1", "Table 3"]


def test_another_operators_tables_are_not_listed(game: Game) -> None:
    _table(game, number=1)
    other = CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house", "number": 2}
    )
    tables.create_table(game.repo, game.vault, "operator-b", other)
    assert [t["number"] for t in _page(game)["tables"]] == [1]


def test_an_entry_has_the_tier_the_stakes_and_the_presence_counts(game: Game) -> None:
    t = _table(game, number=8, name="VIP 8", tier="star-city-vip")
    tables.commit_shoe(game.repo, game.vault, OP, t, "seed")
    presence.take_seat(game.repo, OP, t, 1, "alice", 500_000, 3)
    presence.take_seat(game.repo, OP, t, 4, "bob", 500_000, None)
    presence.join_watchers(game.repo, OP, t, "carol")
    (entry,) = _page(game)["tables"]
    assert entry["tier_name"] == "VIP" and entry["tier_name_zh"] == "貴賓區"
    assert entry["ratio"] == "1:10"  # VIP's unit 1000 to the fun tier's 100
    assert entry["chips"] == [1000, 2000, 3000, 5000, 10000]
    assert entry["limits"]["min_bet"] > 0 and "banker" in entry["limits"]["areas"]
    assert (entry["seats_taken"], entry["banker"], entry["watchers"]) == (2, False, 1)
    assert entry["phase"] == "idle"
    shoe = entry["shoe"]
    assert (shoe["shoe_number"], shoe["status"], shoe["rounds_dealt"]) == (1, "open", 0)
    state, _ = table_state(game.repo, OP, t)
    assert state.shoe is not None and shoe["cards_remaining"] == state.shoe.cards_remaining
    assert shoe["history"] == []
    betting.open_betting(game.repo, OP, t)
    (entry,) = _page(game)["tables"]
    assert entry["phase"] == "betting" and entry["deadline"] is not None


def test_no_bettor_id_and_no_balance_is_anywhere_in_the_lobby(game: Game) -> None:
    t = _table(game, number=1, banking="player_banker")
    tables.commit_shoe(game.repo, game.vault, OP, t, "seed")
    presence.take_banker(game.repo, OP, t, "zq-bank", 35_000)
    presence.take_seat(game.repo, OP, t, 1, "zq-alice", 61_234, None)
    bs = _table(game, number=2, profile="bid-squeeze", tier="bid-squeeze-standard")
    presence.take_seat(game.repo, OP, bs, 1, "zq-dave", 50_000, 5)
    presence.join_spectators(game.repo, OP, bs, "zq-erin", 40_000, {"player": 3_000})
    book = _table(game, number=3, profile="bid-squeeze", tier="bid-squeeze-standard",
                  bet_behind="book")  # fmt: skip
    presence.take_seat(game.repo, OP, book, 1, "zq-carol", 50_000, 5)
    presence.join_spectators(game.repo, OP, book, "zq-bob", 40_000, None, game.vault)
    presence.join_watchers(game.repo, OP, book, "zq-erin")
    page = _page(game)
    words = _strings_and_keys(page)
    assert not [w for w in words if "zq-" in w]
    assert "balance" not in words and "personal_limits" not in words
    assert all("61234" not in json.dumps(e) for e in page["tables"])
    counts = {e["number"]: (e["seats_taken"], e["banker"], e["spectators"], e["watchers"])
              for e in page["tables"]}  # fmt: skip
    assert counts == {1: (1, True, 0, 0), 2: (1, False, 1, 0), 3: (1, False, 1, 1)}


def test_a_result_not_shown_yet_is_not_in_the_lobby(game: Game) -> None:
    t = _table(game, number=1, squeeze_seconds=10)
    shoe = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(game.repo, OP, t, 2, "bob", 20_000, None)
    game.clock.set("2026-03-01T12:00:00.000Z")
    deal_round(
        game.repo, game.shoes, OP, shoe, DealRequest.model_validate({"bets": star_city_bets()})
    )
    (entry,) = _page(game)["tables"]
    assert entry["phase"] == "in_round" and entry["deadline"] is not None
    assert entry["shoe"]["rounds_dealt"] == 1
    assert entry["shoe"]["history"] == [] and entry["shoe"]["cards_remaining"] is None
    game.clock.advance(120)  # every step revealed by the system by now
    (entry,) = _page(game)["tables"]
    state, _ = table_state(game.repo, OP, t)
    assert state.shoe is not None
    assert entry["shoe"]["history"] == state.shoe.history and len(state.shoe.history) == 1
    assert entry["shoe"]["cards_remaining"] == state.shoe.cards_remaining


def test_a_page_is_two_round_trips_and_its_etag_moves_with_it(game: Game) -> None:
    for n in range(1, 4):
        tables.commit_shoe(game.repo, game.vault, OP, _table(game, number=n), "seed")
    list_tables(game.repo, OP, 25, None)  # the tiers' units: once per container
    game.repo.calls.clear()
    _, etag = list_tables(game.repo, OP, 25, None)
    assert sum(game.repo.calls.values()) == 2
    assert list_tables(game.repo, OP, 25, None)[1] == etag
    _table(game, number=4)
    assert list_tables(game.repo, OP, 25, None)[1] != etag


@pytest.mark.parametrize(
    "cursor",
    ["", "x", "l1.", "l1.!!", "l1.MSN0YmxfYQ", "f1.MQ", "l1." + "A" * 65,
     "l1.MDAwMDAjdGJsX2FhYWFhYWFhYWFhYWFhYWE"],  # number 0
)  # fmt: skip
def test_a_cursor_this_route_did_not_give_is_invalid(game: Game, cursor: str) -> None:
    with pytest.raises(DomainError) as bad:
        list_tables(game.repo, OP, 25, cursor)
    assert bad.value.code == "invalid_cursor"


def test_a_cursor_names_the_last_table_of_its_page(game: Game) -> None:
    first = _table(game, number=2)
    _table(game, number=3)
    page = _page(game, limit=1)
    assert decode_cursor(page["next"]) == (2, first)
    assert [t["number"] for t in _page(game, after=page["next"])["tables"]] == [3]
