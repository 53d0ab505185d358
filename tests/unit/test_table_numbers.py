"""Table numbers (桌號) and names at creation (issue 27, docs/design/browsers.md §3): a number
given is the table's unless another table of the operator holds it (409 table_number_taken,
nothing written); none given, the operator's next free number; a name is plain text (no
control or bidi character). Tables stored before numbers read back ``number: null``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from baccarat_api.adapters.dynamodb.codec import from_item, to_item
from baccarat_api.ports.records import TableNumber, TableNumberCounter, TableRecord
from baccarat_api.service import reading, tables
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import CreateTableRequest
from baccarat_api.service.table_numbers import first_free

from .conftest import Game

OP = "operator-a"


def _create(game: Game, op: str = OP, **fields: Any) -> Any:
    request = CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house", **fields}
    )
    return tables.create_table(game.repo, game.vault, op, request)


def _items(game: Game) -> int:
    return len(game.repo.items)


def test_a_number_and_name_given_are_the_tables(game: Game) -> None:
    out = _create(game, number=8, name="Dragon Hall 龍廳")
    assert (out.number, out.name) == (8, "Dragon Hall 龍廳")
    again = reading.get_table(game.repo, OP, out.table_id)
    assert (again.number, again.name) == (8, "Dragon Hall 龍廳")
    claim = game.repo.table_number(OP, 8)
    assert claim == TableNumber(OP, 8, out.table_id)


def test_a_number_another_table_holds_is_refused_and_nothing_is_written(game: Game) -> None:
    first = _create(game, number=8)
    before = dict(game.repo.items)
    with pytest.raises(DomainError) as refused:
        _create(game, number=8)
    assert refused.value.code == "table_number_taken"
    assert refused.value.details == {"number": 8, "table_id": first.table_id}
    assert game.repo.items == before


def test_numbers_are_per_operator(game: Game) -> None:
    a = _create(game, number=8)
    b = _create(game, op="operator-b", number=8)
    assert a.number == b.number == 8


def test_without_a_number_the_next_free_one_is_assigned(game: Game) -> None:
    assert [_create(game).number for _ in range(3)] == [1, 2, 3]
    assert _create(game, number=4).number == 4
    _create(game, number=5)
    _create(game, number=7)
    # 4 and 5 were taken by tables created with them: skipped; 6 is free; 7 taken: 8
    assert [_create(game).number for _ in range(2)] == [6, 8]
    assert _create(game, op="operator-b").number == 1


def test_skipping_a_run_of_taken_numbers_costs_a_few_round_trips(game: Game) -> None:
    for n in range(1, 41):
        _create(game, number=n)
    game.repo.calls.clear()
    assert _create(game).number == 41
    # the tier, 1 drawn, the transaction lost (1 is taken), the table and the claim read, the
    # taken numbers' query, the counter lifted to 40, 41 drawn, the transaction: 9 — not one
    # per taken number
    assert dict(game.repo.calls) == {"get": 3, "write": 3, "transaction": 2, "query": 1}
    assert game.repo.items[(TableNumberCounter, (OP,))] == TableNumberCounter(OP, 41)


def test_a_number_drawn_costs_one_write_and_a_refused_creation_draws_none(game: Game) -> None:
    game.repo.calls.clear()
    _create(game, number=3)
    assert sum(game.repo.calls.values()) == 2
    game.repo.calls.clear()
    _create(game)
    assert dict(game.repo.calls) == {"get": 1, "write": 1, "transaction": 1}
    before = dict(game.repo.items)
    with pytest.raises(DomainError):  # refused after the first read: nothing written
        _create(game, tier="bid-squeeze-standard")
    assert game.repo.items == before


def _between_draw_and_write(game: Game, other: Any) -> list[Any]:
    """The repository's next draw runs ``other()`` (other creations) between our draw of a
    number and our write; what they answered is filled in the list returned."""
    real = game.repo.next_table_number
    raced: list[Any] = []

    def draw(operator_id: str) -> int:
        mine = real(operator_id)
        if not raced:
            raced.append(None)
            raced[:] = other()
            game.repo.next_table_number = real  # type: ignore[method-assign]
        return mine

    game.repo.next_table_number = draw  # type: ignore[method-assign]
    return raced


def test_creations_racing_draw_their_own_numbers_none_retries(game: Game) -> None:
    """Another creation between our draw and our write draws the next number: each keeps its
    own (no condition on the counter to lose)."""
    raced = _between_draw_and_write(game, lambda: [_create(game)])
    game.repo.calls.clear()
    mine = _create(game)
    assert (mine.number, raced[0].number) == (1, 2)
    assert game.repo.calls["transaction"] == 2  # theirs and ours: nobody tried twice
    assert game.repo.items[(TableNumberCounter, (OP,))] == TableNumberCounter(OP, 2)


def test_a_drawn_number_taken_meanwhile_by_a_table_given_it_lifts_past_it(game: Game) -> None:
    """Tables created WITH numbers 1 and 2 between our draw of 1 and our write: ours is 3, and
    the counter is not moved back."""
    _between_draw_and_write(game, lambda: [_create(game, number=1), _create(game, number=2)])
    assert _create(game).number == 3
    assert game.repo.items[(TableNumberCounter, (OP,))] == TableNumberCounter(OP, 3)
    assert _create(game).number == 4


def test_first_free_skips_a_run_from_the_start() -> None:
    assert first_free([], 4) == 4
    assert first_free([4, 5, 7], 4) == 6
    assert first_free([5, 6], 4) == 4


@pytest.mark.parametrize("number", [0, -1, 100_000, "8", 8.0, True])
def test_a_number_out_of_range_or_not_an_integer_is_refused(number: Any) -> None:
    with pytest.raises(ValidationError):
        CreateTableRequest.model_validate(
            {"profile": "star-city", "tier": "star-city-fun", "banking": "house", "number": number}
        )


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        "x" * 33,
        "bad\u202ename",  # right-to-left override
        "bad\u2066isolate\u2069",
        "bell\u0007",
        "new\nline",
        "zero\u200bwidth",
        "private\ue000",
        "soft\u00adhyphen",
        "\u3000",  # an ideographic space: blank
    ],
)
def test_a_hostile_or_overlong_name_is_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        CreateTableRequest.model_validate(
            {"profile": "star-city", "tier": "star-city-fun", "banking": "house", "name": name}
        )


def test_markup_in_a_name_is_kept_as_text(game: Game) -> None:
    out = _create(game, name="<b>VIP</b> & co")
    assert out.name == "<b>VIP</b> & co"


def test_a_table_stored_before_numbers_reads_back_without_one(game: Game) -> None:
    out = _create(game, number=9, name="Nine")
    record = game.repo.get_table(OP, out.table_id)
    assert record is not None
    item = to_item(record)
    assert item["number"] == {"N": "9"} and item["name"] == {"S": "Nine"}
    assert item["lobby_sk"] == {"S": f"00009#{out.table_id}"}
    old = {k: v for k, v in item.items() if k not in ("number", "name", "lobby_pk", "lobby_sk")}
    before: TableRecord = from_item(TableRecord, old)
    assert (before.number, before.name) == (None, None)
    assert "lobby_pk" not in to_item(before)  # in no lobby
