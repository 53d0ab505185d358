"""The book window's cancel and reopen, one contract for both book stores (memory, DynamoDB
on moto): a window of an epoch is cancelled from open or locked, once; a cancelled window's
round opens again at another epoch (an open or locked one of another epoch is
``WindowExists``); no confirm lands in a cancelled window."""

from __future__ import annotations

import pytest
from support.book import ref
from support.stack import Stack

from baccarat_api.adapters.dynamodb.book import DynamoBookStore
from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_book import MemoryBookStore
from baccarat_api.ports.book import BookStore, Line, Slip, Spectator, WindowClosed, WindowExists

OP, TABLE, ROUND = "operator-a", "tbl_aaaaaaaaaaaaaaaa", "tbl_aaaaaaaaaaaaaaaa_s1_r1"
E1, E2 = "2026-01-01T00:00:00.000Z", "2026-01-01T00:01:00.000Z"
CLOSES, NOW = "2099-01-01T00:00:00.000Z", "2026-01-01T00:01:05.000Z"


@pytest.fixture(params=["memory", "dynamodb"])
def book(request: pytest.FixtureRequest) -> BookStore:
    if request.param == "memory":
        return MemoryBookStore(MemoryRepository())
    stack: Stack = request.getfixturevalue("stack")
    return DynamoBookStore(stack.dynamodb, stack.repo.state, stack.repo.config)


def test_an_open_window_is_cancelled_once_and_takes_no_slip(book: BookStore) -> None:
    book.open_window(OP, ROUND, E1, CLOSES)
    assert not book.cancel_window(OP, ROUND, E2)  # another epoch: nothing
    assert book.cancel_window(OP, ROUND, E1)
    assert not book.cancel_window(OP, ROUND, E1)  # cancelled already
    found = book.window(OP, ROUND)
    assert found is not None and (found.status, found.epoch) == ("cancelled", E1)
    assert book.join_spectator(OP, TABLE, Spectator("carol", ref("carol"), 10_000, E1))
    slip = Slip("carol", ref("carol"), (Line("banker", 100),), NOW, 1)
    with pytest.raises(WindowClosed):
        book.confirm_slip(OP, TABLE, ROUND, E1, slip, NOW)
    with pytest.raises(WindowClosed):
        book.lock(OP, ROUND, E1)


def test_a_locked_window_is_cancelled_and_its_round_opens_again(book: BookStore) -> None:
    book.open_window(OP, ROUND, E1, CLOSES)
    book.lock(OP, ROUND, E1)
    with pytest.raises(WindowExists):
        book.open_window(OP, ROUND, E2, CLOSES)  # locked at another epoch
    assert book.cancel_window(OP, ROUND, E1)
    again = book.open_window(OP, ROUND, E2, CLOSES)
    assert (again.status, again.epoch) == ("open", E2)
    found = book.window(OP, ROUND)
    assert found is not None and (found.status, found.epoch) == ("open", E2)
    assert book.open_window(OP, ROUND, E2, CLOSES).epoch == E2  # the same epoch: a no-op
    with pytest.raises(WindowExists):
        book.open_window(OP, ROUND, E1, CLOSES)  # the cancelled epoch is not reopened over it
