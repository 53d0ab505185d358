"""Betting behind at a book table over the in-memory repository: the book's window opened and
cancelled with the live window, a spectator's slip confirmed and cancelled in the book store
(validated alone, no table event), the lock, the deal sealing the locked book (leaves, root,
totals checked against the whole book settled at once), a crash between lock and deal
finished by the sweep, the round's answers and its void."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from support.book import ref

from baccarat import booktree
from baccarat.bets import Bet, Role
from baccarat.paytables import BetType
from baccarat.profiles import TableConfig
from baccarat.settlement import settle
from baccarat_api import limits
from baccarat_api.ids import parse_round_id, parse_shoe_id
from baccarat_api.ports.book import Spectator
from baccarat_api.service import auto_settle, betting, book_lock, events, presence, reading, tables
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.models import DealRequest, SlipRequest
from baccarat_api.service.voiding import void_round

from .conftest import Game
from .test_service import OP, code_of, new_table

BOOK = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
        "bet_behind": "book"}  # fmt: skip


def slip(*bets: tuple[str, int], round_number: int | None = None) -> SlipRequest:
    body: dict[str, Any] = {"bets": [{"type": t, "amount": a} for t, a in bets]}
    if round_number is not None:
        body["round_number"] = round_number
    return SlipRequest.model_validate(body)


def spectator(game: Game, table_id: str, bettor_id: str, balance: int = 100_000,
              limits_: dict[str, Any] | None = None) -> Spectator:  # fmt: skip
    """A spectator at a book table, as presence would make it (its ref by the test's key)."""
    s = Spectator(bettor_id, ref(bettor_id), balance, game.clock(), limits_)
    assert game.repo.book.join_spectator(OP, table_id, s)
    return s


def book_table(game: Game, **fields: Any) -> tuple[str, str]:
    """A book table with alice seated (level 1) and a shoe: (table, shoe)."""
    t = new_table(game, **{**BOOK, **fields})
    shoe_id = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    presence.take_seat(game.repo, OP, t, 1, "alice", 500_000, 1)
    return t, shoe_id


def seq(game: Game, table_id: str) -> int:
    _, live = reading.table_live(game.repo, OP, table_id)
    assert live is not None
    return live.seq


def round_id_of(shoe_id: str, number: int) -> str:
    shoe = parse_shoe_id(shoe_id)
    assert shoe is not None
    return f"{shoe_id}_r{number}"


def from_book(game: Game, shoe_id: str, **body: Any) -> Any:
    request = DealRequest.model_validate({"from_book": True, **body})
    return deal_round(game.repo, game.shoes, OP, shoe_id, request)


def kinds(game: Game, table_id: str, after: int = 0) -> list[str]:
    page, _ = events.table_events(game.repo, OP, table_id, after, 100)
    return [e.type for e in page.events]


def dealt_round(game: Game, round_id: str) -> Any:
    ref_ = parse_round_id(round_id)
    assert ref_ is not None
    r = game.repo.get_round(OP, ref_)
    assert r is not None
    return r


def cards_of(game: Game, shoe_id: str, number: int) -> Any:
    shoe = game.repo.get_shoe(OP, parse_shoe_id(shoe_id))  # type: ignore[arg-type]
    assert shoe is not None
    return game.shoes.get(shoe).shoe.rounds[number - 1]


def independent_totals(
    config: TableConfig, rnd: Any, slips: dict[str, list[tuple[str, int]]]
) -> Any:
    """Every spectator's bets settled AT ONCE (one settlement of the whole book)."""
    bets = [
        Bet(bettor_id=b, role=Role.SPECTATOR, type=BetType(t), amount=a, order=i)
        for i, (b, t, a) in enumerate((b, t, a) for b, lines in slips.items() for t, a in lines)
    ]
    return settle(config, rnd, bets)


# --- the window ------------------------------------------------------------------------------


def test_betting_opens_the_books_window_at_the_live_windows_epoch(game: Game) -> None:
    t, shoe_id = book_table(game)
    window = betting.open_betting(game.repo, OP, t).betting
    assert window is not None
    book = game.repo.book.window(OP, round_id_of(shoe_id, 1))
    assert book is not None
    assert (book.status, book.epoch, book.closes_at) == ("open", window.opened_at, window.closes_at)
    _, live = reading.table_live(game.repo, OP, t)
    assert live is not None and live.betting is not None
    assert live.betting["book_shards"] == 32  # type: ignore[typeddict-item]
    # a listed table opens no book
    listed = new_table(game, profile="bid-squeeze", tier="bid-squeeze-standard", banking="house")
    other = tables.commit_shoe(game.repo, game.vault, OP, listed, "seed").shoe_id
    presence.take_seat(game.repo, OP, listed, 1, "alice", 500_000, 1)
    betting.open_betting(game.repo, OP, listed)
    assert game.repo.book.window(OP, round_id_of(other, 1)) is None
    _, plain = reading.table_live(game.repo, OP, listed)
    assert plain is not None and plain.betting is not None and "book_shards" not in plain.betting


def test_a_lost_write_of_the_book_window_is_opened_by_the_first_confirm(game: Game) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    game.repo.book.windows.clear()  # the opener died after the live write
    out = betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    assert list(out.spectators) == ["carol"]
    assert game.repo.book.window(OP, round_id_of(shoe_id, 1)) is not None


def test_a_stale_book_window_of_another_epoch_is_cancelled_and_the_live_one_opened(
    game: Game,
) -> None:
    t, shoe_id = book_table(game)
    rid = round_id_of(shoe_id, 1)
    game.repo.book.open_window(OP, rid, "2000-01-01T00:00:00.000Z", "2999-01-01T00:00:00.000Z")
    window = betting.open_betting(game.repo, OP, t).betting
    assert window is not None
    found = game.repo.book.window(OP, rid)
    assert found is not None and (found.status, found.epoch) == ("open", window.opened_at)


def test_a_cancelled_window_cancels_its_book_and_its_slips_are_not_in_the_next(
    game: Game,
) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol")
    spectator(game, t, "dave")
    opened = betting.open_betting(game.repo, OP, t).betting
    assert opened is not None
    betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    game.clock.advance(16)
    _, live = reading.table_live(game.repo, OP, t)
    assert live is not None
    assert betting.cancel_window(
        game.repo, OP, t, opened.opened_at, live.seq, "company_required", game.clock(), due=False
    )
    rid = round_id_of(shoe_id, 1)
    found = game.repo.book.window(OP, rid)
    assert found is not None and found.status == "cancelled"
    again = betting.open_betting(game.repo, OP, t).betting
    assert again is not None and again.round_number == 1
    found = game.repo.book.window(OP, rid)
    assert found is not None and (found.status, found.epoch) == ("open", again.opened_at)
    betting.place_slip(game.repo, OP, t, "dave", slip(("player", 2000)))
    out = from_book(game, shoe_id)
    assert out.book is not None and out.book.count == 1  # dave's; carol's was cancelled


# --- a spectator's slip -------------------------------------------------------------------------


def test_a_spectators_slip_goes_to_the_book_with_no_table_event(game: Game) -> None:
    t, shoe_id = book_table(game)
    carol = spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 5000)))
    before = seq(game, t)
    out = betting.place_slip(game.repo, OP, t, "carol", slip(("tie", 500), ("banker", 1000)))
    assert seq(game, t) == before  # no event, the live item untouched
    assert list(out.seats) == [1] and list(out.spectators) == ["carol"]
    assert out.spectators["carol"].total == 1500 and out.total == 6500
    stored = game.repo.book.get_slip(OP, round_id_of(shoe_id, 1), carol.bettor_ref)
    assert stored is not None
    assert [(x.type, x.amount) for x in stored.lines] == [("banker", 1000), ("tie", 500)]
    # replaced by a new slip (one per bettor)
    betting.place_slip(game.repo, OP, t, "carol", slip(("player", 2000)))
    stored = game.repo.book.get_slip(OP, round_id_of(shoe_id, 1), carol.bettor_ref)
    assert stored is not None and [(x.type, x.amount) for x in stored.lines] == [("player", 2000)]


@pytest.mark.parametrize(
    ("balance", "limits_", "bets", "code"),
    [
        (1_500, None, [("banker", 2000)], "insufficient_balance"),
        (100_000, {"banker": 1500}, [("banker", 2000)], "above_personal_limit"),
        (100_000, None, [("banker", 1050)], "not_chip_multiple"),
        (100_000, None, [("tie", 100)], "below_min_bet"),
        (100_000, None, [("banker", 1000), ("player", 1000)], None),
    ],
)
def test_a_slip_is_validated_alone_as_the_deal_would_judge_that_bettor(
    game: Game, balance: int, limits_: Any, bets: list[tuple[str, int]], code: str | None
) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol", balance, limits_)
    betting.open_betting(game.repo, OP, t)
    if code is None:
        betting.place_slip(game.repo, OP, t, "carol", slip(*bets))
        return
    got = code_of(lambda: betting.place_slip(game.repo, OP, t, "carol", slip(*bets)))
    assert got == code
    assert game.repo.book.get_slip(OP, round_id_of(shoe_id, 1), ref("carol")) is None


def test_with_nobody_seated_a_spectators_slip_is_refused(game: Game) -> None:
    t, _ = book_table(game)
    spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    presence.leave_seat(game.repo, OP, t, 1)
    got = code_of(lambda: betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000))))
    # the last seat emptied: the table's spectators were removed with it (presence's rule), so
    # carol is no longer there; the slip is refused and nothing is stored
    assert got == "not_at_table"
    assert game.repo.book.get_spectator(OP, t, "carol") is None


def test_a_bettor_not_at_the_table_and_a_round_mismatch_are_refused(game: Game) -> None:
    t, _ = book_table(game)
    spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "zed", slip(("banker", 1000)))) == (
        "not_at_table"
    )
    late = slip(("banker", 1000), round_number=2)
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "carol", late)) == "round_mismatch"


def test_a_spectator_who_changed_since_the_read_is_read_again(game: Game) -> None:
    t, shoe_id = book_table(game)
    carol = spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    real = game.repo.book.get_spectator
    calls = []

    def stale_then_real(op: str, table: str, bettor: str) -> Any:
        got = real(op, table, bettor)
        if not calls:  # the first read: then the operator reports another balance
            calls.append(1)
            game.repo.book.update_spectator(op, table, bettor, carol.epoch, 50_000, None)
        return got

    game.repo.book.get_spectator = stale_then_real  # type: ignore[method-assign]
    betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    stored = game.repo.book.get_slip(OP, round_id_of(shoe_id, 1), carol.bettor_ref)
    assert stored is not None and stored.spec_epoch == 2


def test_cancel_a_spectators_slip_while_open_and_not_after(game: Game) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol")
    spectator(game, t, "dave")
    betting.open_betting(game.repo, OP, t)
    assert code_of(lambda: betting.cancel_slip(game.repo, OP, t, "carol")) == "not_found"
    betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    before = seq(game, t)
    out = betting.cancel_slip(game.repo, OP, t, "carol")
    assert out.spectators == {} and seq(game, t) == before
    assert game.repo.book.get_slip(OP, round_id_of(shoe_id, 1), ref("carol")) is None
    betting.place_slip(game.repo, OP, t, "dave", slip(("banker", 1000)))
    game.clock.advance(16)
    assert code_of(lambda: betting.cancel_slip(game.repo, OP, t, "dave")) == "betting_closed"


def test_after_the_lock_another_slip_is_refused_and_the_same_slip_answers_its_status(
    game: Game,
) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol")
    spectator(game, t, "dave")
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    _, live = reading.table_live(game.repo, OP, t)
    assert live is not None
    book_lock.lock_book(game.repo, live, game.clock())
    assert kinds(game, t, live.seq) == ["betting_closed"]
    again = betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    assert again.betting is not None and again.betting.status == "locked"
    assert list(again.spectators) == ["carol"]
    other = slip(("banker", 2000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "carol", other)) == (
        "betting_closed"
    )
    late = slip(("player", 1000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "dave", late)) == "betting_closed"
    assert code_of(lambda: betting.cancel_slip(game.repo, OP, t, "carol")) == "betting_closed"
    out = from_book(game, shoe_id)
    assert out.book is not None and out.book.count == 1
    dealt = betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    assert dealt.betting is not None and dealt.betting.status == "dealt"


def test_a_confirm_answer_stays_in_its_byte_budget_at_its_largest(game: Game) -> None:
    """Seven seats with every bet type, the caller's slip with every type, the longest ids."""
    t = new_table(game, **BOOK)
    tables.commit_shoe(game.repo, game.vault, OP, t, "seed")
    long_ids = [f"{i}" + "s" * 63 for i in range(1, 8)]
    for seat, bettor in enumerate(long_ids, start=1):
        presence.take_seat(game.repo, OP, t, seat, bettor, 10**12, 10_000)
    caller = "c" * 64
    spectator(game, t, caller, 10**12)
    betting.open_betting(game.repo, OP, t)
    every = [(k.value, 20_000) for k in BetType if k.value != "banker_no_commission"]
    every = [(k, a) for k, a in every if not (k == "player" or k.endswith("dragon"))]
    for bettor in long_ids:
        betting.place_slip(game.repo, OP, t, bettor, slip(*every))
    out = betting.place_slip(game.repo, OP, t, caller, slip(*every))
    size = len(out.model_dump_json().encode())
    assert size <= limits.BOOK_SLIP_ANSWER_BUDGET_BYTES, size


# --- the lock and the deal ---------------------------------------------------------------------


SLIPS = {
    "carol": [("banker", 1000), ("tie", 500)],
    "dave": [("player", 3000), ("player_pair", 500)],
    "erin": [("banker", 50_000)],
    "fay": [("big", 2000), ("small", 1000), ("lucky6", 500)],
    "gus": [("banker_no_commission", 1000), ("any_pair", 500), ("perfect_pair", 500)],
}


def _book_round(game: Game) -> tuple[str, str, Any]:
    t, shoe_id = book_table(game)
    for b in SLIPS:
        spectator(game, t, b)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 20_000)))
    for b, lines in SLIPS.items():
        betting.place_slip(game.repo, OP, t, b, slip(*lines))
    return t, shoe_id, from_book(game, shoe_id)


def test_the_deal_seals_the_locked_book_root_leaves_and_totals(game: Game) -> None:
    t, shoe_id, out = _book_round(game)
    r = dealt_round(game, out.round_id)
    config = TableConfig.from_dict(r.config)
    # leaves: independently built in ref order
    order = sorted(SLIPS, key=lambda b: ref(b).encode())
    data = [
        json.dumps(
            {"bettor_ref": ref(b), "lines": sorted(
                ({"amount": a, "type": k} for k, a in SLIPS[b]), key=lambda x: x["type"]),
             "role": "spectator", "round_id": out.round_id, "spec": "bacc-book-v1"},
            separators=(",", ":"), sort_keys=True,
        ).encode()
        for b in order
    ]  # fmt: skip
    hashes = [hashlib.sha256(b"\x00" + d).digest() for d in data]
    assert [(x.bettor_ref, x.hash) for x in game.repo.chunks.leaves(OP, out.round_id)] == list(
        zip([ref(b) for b in order], hashes, strict=True)
    )
    assert r.book is not None and r.book["root"] == booktree.root(data).hex()
    assert (r.book["count"], r.book["chunks"], r.book["shards"]) == (5, 1, 32)
    # totals: the whole book settled at once
    whole = independent_totals(config, cards_of(game, shoe_id, 1), SLIPS)
    totals = r.book["totals"]
    assert totals["net"] == sum(b.net for b in whole.bettors)
    assert totals["house"]["take"] == whole.house_take == -totals["net"]
    assert totals["stake"] == sum(a for lines in SLIPS.values() for _, a in lines)
    assert totals["bettors"] == 5
    for kind, sums in totals["by_type"].items():
        lines = [x for x in whole.lines if x.type.value == kind]
        assert sums["net"] == sum(x.net for x in lines)
        assert sums["stake"] == sum(x.stake for x in lines)
    # the seated bets stay on the round as today, spectators are not in them
    assert [b["bettor_id"] for b in r.bets] == ["alice"]
    # round_dealt carries the commitment; betting_closed once (the lock's)
    page, _ = events.table_events(game.repo, OP, t, 0, 100)
    dealt = [e for e in page.events if e.type == "round_dealt"]
    assert dealt[0].data["book"] == {"root": r.book["root"], "count": 5}
    assert [e.type for e in page.events].count("betting_closed") == 1
    # the deal's answer: root, count, chunks — no money
    assert out.book is not None and out.book.totals is None
    assert (out.book.root, out.book.count, out.book.chunks) == (r.book["root"], 5, 1)


def test_seats_squeeze_rights_stay_with_the_seated(game: Game) -> None:
    _, _, out = _book_round(game)  # erin's 50,000 Banker behind is the largest Banker stake
    r = dealt_round(game, out.round_id)
    assert r.squeeze is not None
    holders = json.dumps(r.squeeze)
    assert "alice" in holders and "erin" not in holders


def test_totals_are_shown_once_the_round_is_settled(game: Game) -> None:
    from baccarat_api.service.settling import settle_round

    _, _, out = _book_round(game)
    shown = reading.get_round(game.repo, OP, out.round_id)
    assert shown.book is not None and shown.book.totals is None
    settle_round(game.repo, OP, out.round_id)
    shown = reading.get_round(game.repo, OP, out.round_id)
    r = dealt_round(game, out.round_id)
    assert shown.book is not None and r.book is not None
    assert shown.book.totals == r.book["totals"]


def test_an_empty_book_is_a_valid_book(game: Game) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 20_000)))
    out = from_book(game, shoe_id)
    r = dealt_round(game, out.round_id)
    assert r.book is not None
    assert r.book["root"] == hashlib.sha256(b"").hexdigest()
    assert (r.book["count"], r.book["chunks"], r.book["totals"]["net"]) == (0, 0, 0)
    assert r.settle_by is not None  # alice's bet waits for its settlement


def test_a_book_round_of_spectators_only_is_not_settled_at_its_deal(game: Game) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    out = from_book(game, shoe_id)
    r = dealt_round(game, out.round_id)
    assert r.bets == [] and r.book is not None and r.book["count"] == 1
    assert r.settled_at is None and r.settle_by is not None


def test_a_crash_between_lock_and_deal_is_finished_by_the_sweep(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    t, shoe_id = book_table(game)
    for b in ("carol", "dave"):
        spectator(game, t, b)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))

    def crash(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the deal's process died after the lock")

    real_seal = book_lock.seal
    monkeypatch.setattr(book_lock, "seal", crash)
    with pytest.raises(RuntimeError):
        from_book(game, shoe_id)
    monkeypatch.setattr(book_lock, "seal", real_seal)
    # locked: a late slip is refused, the locked one stays
    late = slip(("player", 1000))
    assert code_of(lambda: betting.place_slip(game.repo, OP, t, "dave", late)) == "betting_closed"
    assert game.repo.get_round(OP, parse_round_id(round_id_of(shoe_id, 1))) is None  # type: ignore[arg-type]
    game.clock.advance(31)  # past deal_by
    report = auto_settle.sweep(game.repo, shoes=game.shoes)
    assert report.dealt == [round_id_of(shoe_id, 1)]
    r = dealt_round(game, round_id_of(shoe_id, 1))
    assert r.book is not None and r.book["count"] == 1
    assert [x.bettor_ref for x in game.repo.chunks.leaves(OP, r.round_id)] == [ref("carol")]
    assert kinds(game, t).count("betting_closed") == 1
    assert kinds(game, t).count("round_dealt") == 1


def test_a_void_of_a_book_round_carries_the_book_totals_it_replaces(game: Game) -> None:
    t, _, out = _book_round(game)
    r = dealt_round(game, out.round_id)
    assert r.book is not None
    void_round(game.repo, OP, out.round_id, reason="technical_fault")
    voided = dealt_round(game, out.round_id)
    assert voided.void["replaced"]["book_totals"] == r.book["totals"]
    page, _ = events.table_events(game.repo, OP, t, 0, 100)
    event = next(e for e in page.events if e.type == "round_voided")
    assert event.data["book_totals"] == r.book["totals"]


# --- the book, paged ---------------------------------------------------------------------------


def test_the_book_is_paged_in_ref_order_within_its_byte_budget(game: Game) -> None:
    """250 spectators, each with every bet type a slip may hold, the longest ids: 100 a page
    in ref order, every slip once, each page within its budget."""
    t, _ = book_table(game)
    every = [("banker", 20_000), ("tie", 20_000), ("banker_pair", 20_000),
             ("player_pair", 20_000), ("big", 20_000), ("lucky6", 20_000),
             ("any_pair", 20_000), ("perfect_pair", 20_000), ("banker_dragon", 20_000)]  # fmt: skip
    ids = [f"{i:03d}" + "x" * 61 for i in range(250)]
    for b in ids:
        spectator(game, t, b, 10**12)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 20_000)))
    for b in ids:
        betting.place_slip(game.repo, OP, t, b, slip(*every))
    seen: list[str] = []
    after = None
    pages = 0
    while True:
        page = betting.book_page(game.repo, OP, t, after)
        pages += 1
        size = len(page.model_dump_json().encode())
        assert size <= limits.BOOK_PAGE_BUDGET_BYTES, size
        assert len(page.spectators) <= limits.BOOK_PAGE_SLIPS and list(page.seats) == [1]
        seen += [ref(b) for b in page.spectators]
        if page.next is None:
            break
        after = page.next
    assert seen == sorted(ref(b) for b in ids) and pages == 3
    assert code_of(lambda: betting.book_page(game.repo, OP, t, "nonsense")) == "invalid_cursor"


# --- a running book table ----------------------------------------------------------------------


def _running_book_table(game: Game) -> Any:
    from .test_table_clock import Table, running

    table: Table = running(game, **BOOK, squeeze_seconds=0)
    presence.take_seat(game.repo, OP, table.table_id, 1, "alice", 500_000, 1)
    table.shoe_id = tables.commit_shoe(game.repo, game.vault, OP, table.table_id, "s").shoe_id
    return table


def _step(table: Any, step: str) -> str:
    tick = table.next()
    while tick is not None and tick["step"] != step:
        tick = table.next()
    assert tick is not None, step
    return str(table.deliver(tick))


def test_a_running_book_table_opens_locks_and_deals_its_book_by_its_clock(game: Game) -> None:
    table = _running_book_table(game)
    spectator(game, table.table_id, "carol")
    assert _step(table, "open") == "done"
    rid = round_id_of(table.shoe_id, 1)
    assert game.repo.book.window(OP, rid) is not None
    betting.place_slip(game.repo, OP, table.table_id, "carol", slip(("banker", 1000)))
    assert _step(table, "close") == "done"
    r = dealt_round(game, rid)
    assert r.book is not None and r.book["count"] == 1
    found = game.repo.book.window(OP, rid)
    assert found is not None and found.status == "locked"


def test_a_book_deal_refused_after_the_lock_cancels_the_window_and_its_book(game: Game) -> None:
    """The company left once the window opened: the close tick's deal is refused for good
    (company_required, judged before the lock), the window is cancelled — the book with it,
    nothing dealt."""
    table = _running_book_table(game)
    spectator(game, table.table_id, "carol")
    assert _step(table, "open") == "done"
    betting.place_slip(game.repo, OP, table.table_id, "carol", slip(("banker", 1000)))
    presence.leave_seat(game.repo, OP, table.table_id, 1)
    assert _step(table, "close") == "done"
    rid = round_id_of(table.shoe_id, 1)
    assert game.repo.get_round(OP, parse_round_id(rid)) is None  # type: ignore[arg-type]
    found = game.repo.book.window(OP, rid)
    assert found is not None and found.status == "cancelled"
    assert kinds(game, table.table_id).count("betting_cancelled") == 1


def test_a_locked_book_whose_deal_is_refused_for_good_is_cancelled_by_the_sweep(
    game: Game,
) -> None:
    t, shoe_id = book_table(game)
    spectator(game, t, "carol")
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "carol", slip(("banker", 1000)))
    _, live = reading.table_live(game.repo, OP, t)
    assert live is not None
    book_lock.lock_book(game.repo, live, game.clock())  # then the deal's process died
    presence.leave_seat(game.repo, OP, t, 1)  # the company left
    game.clock.advance(31)
    report = auto_settle.sweep(game.repo, shoes=game.shoes)
    assert report.dealt == [] and list(report.cancelled.values()) == ["company_required"]
    found = game.repo.book.window(OP, round_id_of(shoe_id, 1))
    assert found is not None and found.status == "cancelled"
    assert game.repo.get_round(OP, parse_round_id(round_id_of(shoe_id, 1))) is None  # type: ignore[arg-type]


def test_a_settlement_that_unseats_the_last_bettor_removes_the_books_spectators(
    game: Game,
) -> None:
    """alice, the only seated bettor, loses her stake and falls below the tier's minimum: the
    settlement unseats her (reason ``balance``) and — no seated bettor left at a book table —
    the book's spectators go in the same request (one ``spectators_removed``), not at the next
    join."""
    from baccarat_api.service.settling import settle_round

    t = new_table(game, **BOOK)
    for n in range(20):  # a shoe whose round 1 is decided (a tie pushes: alice would keep it)
        shoe_id = tables.commit_shoe(game.repo, game.vault, OP, t, f"seed {n}").shoe_id
        winner = cards_of(game, shoe_id, 1).result.value
        if winner != "tie":
            break
        tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    table = game.repo.load(OP, table_id=t).table
    assert table is not None
    floor = TableConfig.from_dict(table.config).tier.bettor_min_balance
    stake = 20_000
    presence.take_seat(game.repo, OP, t, 1, "alice", floor + stake - 1, 1)
    for b in ("carol", "dave"):
        spectator(game, t, b)
    assert winner != "tie"
    losing = "player" if winner == "banker" else "banker"
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip((losing, stake)))
    betting.place_slip(game.repo, OP, t, "carol", slip(("tie", 1_000)))
    out = from_book(game, shoe_id)
    before = seq(game, t)
    settle_round(game.repo, OP, out.round_id)
    after = kinds(game, t, before)
    assert after[:2] == ["round_settled", "seat_vacated"]
    assert after.count("spectators_removed") == 1
    assert game.repo.book.spectators(OP, t, 5).count == 0
    assert game.repo.book.get_spectator(OP, t, "carol") is None
