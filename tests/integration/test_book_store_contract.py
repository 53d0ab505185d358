"""One contract, two book stores: the in-memory twin and the DynamoDB adapter over moto answer
the same — a join twice is one item and one count; counts summed over the count shards; the
first names and their cursor; a confirm after the lock, or on a stale presence, refused with
nothing written; the locked book read exactly the confirmed slips in ``bettor_ref`` order
across pages; the lock's extra writes all-or-nothing with the flip of every shard."""

from __future__ import annotations

from typing import Any

import pytest
from support.book import ref
from support.stack import Stack

from baccarat_api.adapters.dynamodb.book import DynamoBookStore
from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_book import MemoryBookStore
from baccarat_api.ports.book import (
    COUNT_SHARDS,
    BookStore,
    Line,
    NamesPage,
    NotPresent,
    PresenceMoved,
    Slip,
    Spectator,
    Watcher,
    WindowClosed,
    WindowExists,
    count_shard,
    slip_shard,
    whole_book,
)
from baccarat_api.ports.records import IdempotencyRecord
from baccarat_api.ports.repository import ConditionFailed, StoreUnavailable
from baccarat_api.ports.writes import Put, StateWrites

OP, TABLE, ROUND = "operator-a", "tbl_aaaaaaaaaaaaaaaa", "tbl_aaaaaaaaaaaaaaaa_s1_r1"
OPENED, CLOSES = "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:15.000Z"
NOW = "2026-01-01T00:00:05.000Z"


@pytest.fixture(params=["memory", "dynamodb"])
def both(request: pytest.FixtureRequest) -> tuple[BookStore, StateWrites]:
    if request.param == "memory":
        repo = MemoryRepository()
        return MemoryBookStore(repo), repo
    stack: Stack = request.getfixturevalue("stack")
    return DynamoBookStore(stack.dynamodb, stack.repo.state, stack.repo.config), stack.repo


@pytest.fixture
def book(both: tuple[BookStore, StateWrites]) -> BookStore:
    return both[0]


def spectator(bettor_id: str, balance: int = 10_000) -> Spectator:
    return Spectator(bettor_id, ref(bettor_id), balance, OPENED, {"player": {"max": 500}})


def slip(bettor_id: str, amount: int = 100, epoch: int = 1, lines: int = 1) -> Slip:
    kinds = ["player", "banker", "tie", "player_pair", "banker_pair"]
    bets = tuple(Line(kinds[n % len(kinds)], amount + n) for n in range(lines))
    return Slip(bettor_id, ref(bettor_id), bets, NOW, epoch)


def idem(key: str) -> IdempotencyRecord:
    return IdempotencyRecord(OP, key, "fp", 201, {"a": 1}, "2026-01-01", 4_000_000_000)


def test_joining_twice_is_one_item_and_one_count(book: BookStore) -> None:
    assert book.join_spectator(OP, TABLE, spectator("s1")) is True
    assert book.join_spectator(OP, TABLE, spectator("s1", balance=5)) is False
    stored = book.get_spectator(OP, TABLE, "s1")
    assert stored is not None and (stored.balance, stored.epoch) == (10_000, 1)
    assert stored.personal_limits == {"player": {"max": 500}}
    assert book.spectators(OP, TABLE, 20).count == 1
    assert book.leave_spectator(OP, TABLE, "s1") is True
    assert book.leave_spectator(OP, TABLE, "s1") is False
    assert book.spectators(OP, TABLE, 20).count == 0
    assert book.get_spectator(OP, TABLE, "s1") is None


def test_counts_across_the_shards_and_the_first_names_with_their_cursor(book: BookStore) -> None:
    ids = [f"s{n:02d}" for n in range(40)]
    assert len({count_shard(b) for b in ids}) == COUNT_SHARDS  # every shard counts some
    for b in ids:
        assert book.join_spectator(OP, TABLE, spectator(b))
    for b in ids[::8]:
        assert book.leave_spectator(OP, TABLE, b)
    present = sorted(set(ids) - set(ids[::8]))
    first = book.spectators(OP, TABLE, 10)
    assert (first.count, first.names, first.next) == (35, tuple(present[:10]), present[9])
    seen: list[str] = []
    after: str | None = None
    while True:
        page = book.spectators(OP, TABLE, 7, after)
        assert page.count == 35
        seen += page.names
        if page.next is None:
            break
        after = page.next
    assert seen == present
    assert book.spectators(OP, "tbl_bbbbbbbbbbbbbbbb", 10).count == 0  # another table's
    for w in ("w2", "w1", "w3"):
        assert book.join_watcher(OP, TABLE, Watcher(w, OPENED))
    assert not book.join_watcher(OP, TABLE, Watcher("w1", OPENED))
    assert book.leave_watcher(OP, TABLE, "w3") and not book.leave_watcher(OP, TABLE, "w3")
    watchers = book.watchers(OP, TABLE, 1)
    assert (watchers.count, watchers.names, watchers.next) == (2, ("w1",), "w1")
    assert book.watchers(OP, TABLE, 1, "w1").names == ("w2",)
    assert book.watchers(OP, TABLE, 5).next is None
    assert book.spectators(OP, TABLE, 50).count == 35  # watchers are counted apart


def test_a_confirm_after_the_lock_is_refused_and_writes_nothing(book: BookStore) -> None:
    for b in ("s1", "s2"):
        book.join_spectator(OP, TABLE, spectator(b))
    window = book.open_window(OP, ROUND, OPENED, CLOSES)
    assert (window.status, window.shards) == ("open", 32)
    assert book.open_window(OP, ROUND, OPENED, CLOSES) == window  # again: the same
    with pytest.raises(WindowExists):
        book.open_window(OP, ROUND, "2026-01-01T00:00:01.000Z", CLOSES)
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), NOW)
    book.lock(OP, ROUND, OPENED)
    locked = book.window(OP, ROUND)
    assert locked is not None and locked.status == "locked"
    with pytest.raises(WindowClosed):
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s2"), NOW)
    with pytest.raises(WindowClosed):
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", amount=900), NOW)
    with pytest.raises(WindowClosed):
        book.cancel_slip(OP, ROUND, OPENED, ref("s1"), NOW)
    with pytest.raises(WindowClosed):
        book.lock(OP, ROUND, OPENED)
    assert book.get_slip(OP, ROUND, ref("s2")) is None
    assert whole_book(book, OP, ROUND) == [slip("s1")]
    assert book.leave_spectator(OP, TABLE, "s1", ROUND)  # left after the lock: the slip stays
    assert whole_book(book, OP, ROUND) == [slip("s1")]


def test_a_window_refuses_confirms_past_closes_at_another_epoch_or_never_opened(
    book: BookStore,
) -> None:
    book.join_spectator(OP, TABLE, spectator("s1"))
    with pytest.raises(WindowClosed):
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), NOW)
    book.open_window(OP, ROUND, OPENED, CLOSES)
    with pytest.raises(WindowClosed):
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), CLOSES)
    with pytest.raises(WindowClosed):
        book.confirm_slip(OP, TABLE, ROUND, "2026-01-01T00:00:01.000Z", slip("s1"), NOW)
    with pytest.raises(WindowClosed):
        book.lock(OP, ROUND, "2026-01-01T00:00:01.000Z")
    assert whole_book(book, OP, ROUND) == []
    assert book.window(OP, "tbl_aaaaaaaaaaaaaaaa_s1_r2") is None


def test_a_confirm_on_a_stale_presence_is_refused_and_writes_nothing(book: BookStore) -> None:
    book.join_spectator(OP, TABLE, spectator("s1"))
    book.open_window(OP, ROUND, OPENED, CLOSES)
    after = book.update_spectator(OP, TABLE, "s1", 1, 300, None)
    assert (after.epoch, after.balance, after.personal_limits) == (2, 300, None)
    with pytest.raises(PresenceMoved):
        book.update_spectator(OP, TABLE, "s1", 1, 200, None)
    with pytest.raises(NotPresent):
        book.update_spectator(OP, TABLE, "nobody", 1, 200, None)
    with pytest.raises(PresenceMoved):
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", epoch=1), NOW)
    assert book.get_slip(OP, ROUND, ref("s1")) is None
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", epoch=2), NOW)
    assert book.get_slip(OP, ROUND, ref("s1")) == slip("s1", epoch=2)
    assert book.leave_spectator(OP, TABLE, "s1", ROUND)  # the window open: its slip goes too
    assert book.get_slip(OP, ROUND, ref("s1")) is None
    with pytest.raises(PresenceMoved):  # a slip for a bettor who left
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", epoch=2), NOW)
    assert whole_book(book, OP, ROUND) == []


def test_the_locked_book_is_exactly_the_confirmed_slips_in_ref_order_across_pages(
    book: BookStore,
) -> None:
    ids = [f"b{n:03d}" for n in range(90)]
    book.open_window(OP, ROUND, OPENED, CLOSES)
    confirmed: dict[str, Slip] = {}
    for n, b in enumerate(ids):
        book.join_spectator(OP, TABLE, spectator(b))
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip(b, lines=1 + n % 13), NOW)
        confirmed[b] = slip(b, lines=1 + n % 13)
    for b in ids[::9]:  # a new slip replaces the bettor's earlier one
        book.confirm_slip(OP, TABLE, ROUND, OPENED, slip(b, amount=700), NOW)
        confirmed[b] = slip(b, amount=700)
    for b in ids[1::10]:
        assert book.cancel_slip(OP, ROUND, OPENED, ref(b), NOW)
        assert not book.cancel_slip(OP, ROUND, OPENED, ref(b), NOW)
        del confirmed[b]
    book.lock(OP, ROUND, OPENED)
    expected = sorted(confirmed.values(), key=lambda s: s.bettor_ref)
    assert len({slip_shard(s.bettor_ref) for s in expected}) > 20  # spread over the shards
    assert whole_book(book, OP, ROUND, limit=2) == expected
    assert whole_book(book, OP, ROUND) == expected
    assert [s.total for s in expected] == [sum(x.amount for x in s.lines) for s in expected]


def test_the_lock_and_its_extra_writes_are_one_transaction(
    both: tuple[BookStore, StateWrites],
) -> None:
    book, repo = both
    book.open_window(OP, ROUND, OPENED, CLOSES)
    repo.transact("first", [Put(idem("k1"))])
    with pytest.raises(ConditionFailed):  # the extra write loses: no shard flips
        book.lock(OP, ROUND, OPENED, [Put(idem("k2")), Put(idem("k1"))])
    window = book.window(OP, ROUND)
    assert window is not None and window.status == "open"
    repo.transact("k2 was not written", [Put(idem("k2"))])
    book.lock(OP, ROUND, OPENED, [Put(idem("k3"))])
    window = book.window(OP, ROUND)
    assert window is not None and window.status == "locked"
    with pytest.raises(ConditionFailed):
        repo.transact("k3 was written", [Put(idem("k3"))])


class Conflicting:
    """A DynamoDB client whose first ``conflicts`` transactions AWS cancels for a conflict
    (Local never does), the rest passed to the real client."""

    def __init__(self, client: Any, conflicts: int) -> None:
        self.client, self.conflicts, self.sent = client, conflicts, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def transact_write_items(self, **args: Any) -> Any:
        from botocore.exceptions import ClientError

        self.sent += 1
        if self.sent <= self.conflicts:
            others = [{"Code": "None"}] * (len(args["TransactItems"]) - 1)
            reasons = [{"Code": "TransactionConflict"}, *others]
            error = {"Code": "TransactionCanceledException", "Message": "conflict"}
            response: Any = {"Error": error, "CancellationReasons": reasons}
            raise ClientError(response, "TransactWriteItems")
        return self.client.transact_write_items(**args)


@pytest.mark.parametrize(("conflicts", "confirmed"), [(4, True), (5, False)])
def test_a_confirm_cancelled_for_a_conflict_is_sent_again_up_to_five_times(
    stack: Stack, conflicts: int, confirmed: bool
) -> None:
    book = DynamoBookStore(stack.dynamodb, stack.repo.state, stack.repo.config)
    book.join_spectator(OP, TABLE, spectator("s1"))
    book.open_window(OP, ROUND, OPENED, CLOSES)
    flaky = Conflicting(stack.dynamodb, conflicts)
    racing = DynamoBookStore(flaky, stack.repo.state, stack.repo.config)  # type: ignore[arg-type]
    if confirmed:
        racing.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), NOW)
    else:
        with pytest.raises(StoreUnavailable):
            racing.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), NOW)
    assert flaky.sent == 5
    assert book.get_slip(OP, ROUND, ref("s1")) == (slip("s1") if confirmed else None)


def test_a_change_that_refuses_the_slip_drops_it_while_the_window_is_open(book: BookStore) -> None:
    book.join_spectator(OP, TABLE, spectator("s1"))
    book.open_window(OP, ROUND, OPENED, CLOSES)
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), NOW)
    after = book.update_spectator(OP, TABLE, "s1", 1, 50, None, drop_slip=ROUND)
    assert (after.epoch, after.balance, after.bettor_ref) == (2, 50, ref("s1"))
    assert book.get_spectator(OP, TABLE, "s1") == after
    assert book.get_slip(OP, ROUND, ref("s1")) is None
    with pytest.raises(PresenceMoved):
        book.update_spectator(OP, TABLE, "s1", 1, 50, None, drop_slip=ROUND)
    with pytest.raises(NotPresent):
        book.update_spectator(OP, TABLE, "nobody", 1, 50, None, drop_slip=ROUND)
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", epoch=2), NOW)
    book.lock(OP, ROUND, OPENED)
    locked = book.update_spectator(OP, TABLE, "s1", 2, 10, {"tie": {"max": 5}}, drop_slip=ROUND)
    assert (locked.epoch, locked.personal_limits) == (3, {"tie": {"max": 5}})
    assert whole_book(book, OP, ROUND) == [slip("s1", epoch=2)]  # locked: it stays, is dealt


def test_a_leave_marks_and_a_rejoin_moves_the_epoch_on_never_back(book: BookStore) -> None:
    book.join_spectator(OP, TABLE, spectator("s1"))
    book.open_window(OP, ROUND, OPENED, CLOSES)
    book.update_spectator(OP, TABLE, "s1", 1, 500, None)  # epoch 2
    assert book.leave_spectator(OP, TABLE, "s1")  # epoch 3, absent
    assert book.get_spectator(OP, TABLE, "s1") is None
    with pytest.raises(NotPresent):
        book.update_spectator(OP, TABLE, "s1", 3, 10, None)
    assert book.join_spectator(OP, TABLE, spectator("s1", balance=70))
    back = book.get_spectator(OP, TABLE, "s1")
    assert back is not None and (back.epoch, back.balance) == (4, 70)
    assert back.personal_limits == {"player": {"max": 500}}
    assert book.spectators(OP, TABLE, 20).count == 1
    for stale in (1, 2, 3):  # a slip on a read from before the leave: refused after the rejoin
        with pytest.raises(PresenceMoved):
            book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", epoch=stale), NOW)
    assert whole_book(book, OP, ROUND) == []
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", epoch=4), NOW)
    assert whole_book(book, OP, ROUND) == [slip("s1", epoch=4)]
    assert book.leave_watcher(OP, TABLE, "w1") is False
    assert book.join_watcher(OP, TABLE, Watcher("w1", OPENED))
    assert book.leave_watcher(OP, TABLE, "w1")
    assert book.get_watcher(OP, TABLE, "w1") is None
    assert book.join_watcher(OP, TABLE, Watcher("w1", OPENED))  # back again
    assert book.get_watcher(OP, TABLE, "w1") == Watcher("w1", OPENED)
    assert book.watchers(OP, TABLE, 5) == NamesPage(1, ("w1",), None)


def test_a_cancelled_slip_is_skipped_and_a_confirm_again_replaces_the_mark(
    book: BookStore,
) -> None:
    for b in ("s1", "s2"):
        book.join_spectator(OP, TABLE, spectator(b))
    book.open_window(OP, ROUND, OPENED, CLOSES)
    assert not book.cancel_slip(OP, ROUND, OPENED, ref("s1"), NOW)  # none yet
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), NOW)
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s2"), NOW)
    assert book.cancel_slip(OP, ROUND, OPENED, ref("s1"), NOW)
    assert book.get_slip(OP, ROUND, ref("s1")) is None
    assert whole_book(book, OP, ROUND) == [slip("s2")]
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1", amount=300), NOW)
    assert book.get_slip(OP, ROUND, ref("s1")) == slip("s1", amount=300)
    assert book.leave_spectator(OP, TABLE, "s2", ROUND)  # its slip marked with the leave
    book.lock(OP, ROUND, OPENED)
    assert whole_book(book, OP, ROUND, limit=1) == [slip("s1", amount=300)]


def test_the_names_pages_skip_the_absent_however_many_left(book: BookStore) -> None:
    ids = [f"n{n:03d}" for n in range(60)]
    for b in ids:
        book.join_spectator(OP, TABLE, spectator(b))
    stay = {ids[0], ids[31], ids[59]}
    for b in ids:
        if b not in stay:
            assert book.leave_spectator(OP, TABLE, b)
    assert book.spectators(OP, TABLE, 2) == NamesPage(3, (ids[0], ids[31]), ids[31])
    assert book.spectators(OP, TABLE, 2, ids[31]) == NamesPage(3, (ids[59],), None)
    assert book.spectators(OP, TABLE, 2, ids[0]) == NamesPage(3, (ids[31], ids[59]), None)


def test_on_dynamodb_a_leave_and_a_cancel_keep_their_items(stack: Stack) -> None:
    book = DynamoBookStore(stack.dynamodb, stack.repo.state, stack.repo.config)
    book.join_spectator(OP, TABLE, spectator("s1"))
    book.open_window(OP, ROUND, OPENED, CLOSES)
    book.confirm_slip(OP, TABLE, ROUND, OPENED, slip("s1"), NOW)
    before = len(stack.dynamodb.scan(TableName=stack.repo.state)["Items"])
    assert book.cancel_slip(OP, ROUND, OPENED, ref("s1"), NOW)
    assert book.leave_spectator(OP, TABLE, "s1", ROUND)
    items = stack.dynamodb.scan(TableName=stack.repo.state)["Items"]
    assert len(items) == before
    kept = {i["kind"]["S"]: i for i in items if i.get("kind", {}).get("S") in ("spectator", "slip")}
    assert kept["spectator"]["present"] == {"BOOL": False}
    assert kept["spectator"]["epoch"] == {"N": "2"}
    assert kept["slip"]["cancelled"] == {"BOOL": True}


def test_a_spectators_page_is_the_names_page_with_each_as_stored(book: BookStore) -> None:
    for n, b in enumerate(["p3", "p1", "p2", "p4"]):
        book.join_spectator(OP, TABLE, spectator(b, balance=100 + n))
    book.leave_spectator(OP, TABLE, "p2")
    page = book.spectator_page(OP, TABLE, 2)
    assert (page.count, [s.bettor_id for s in page.spectators], page.next) == (
        3,
        ["p1", "p3"],
        "p3",
    )
    assert [s.balance for s in page.spectators] == [101, 100]
    assert page.spectators[0] == book.get_spectator(OP, TABLE, "p1")
    last = book.spectator_page(OP, TABLE, 2, "p3")
    assert ([s.bettor_id for s in last.spectators], last.next) == (["p4"], None)
