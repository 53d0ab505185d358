"""A book round's settlement fan-out over the in-memory repository: every receipt's path leads to
the book's root, every slip's money equals the whole book settled at once by
:func:`baccarat.settlement.settle` (an independent recomputation), the pages add up to the
totals; a chunk that fails halfway, or whose message is lost, is run again by the sweep and
writes the same items, marks itself done once and reports its page once."""

from __future__ import annotations

from typing import Any, cast

import pytest
from support.book import ref
from support.bookround import Book, independent_nets, with_book

from baccarat import booktree
from baccarat.audit import canonical
from baccarat_api.adapters.memory_book import MemoryBookStore
from baccarat_api.adapters.memory_chunks import MemoryChunkStore
from baccarat_api.ids import RoundRef, parse_round_id
from baccarat_api.ports.book import Slip
from baccarat_api.ports.chunks import ChunkMessage
from baccarat_api.ports.records import RoundRecord
from baccarat_api.service import auto_settle, events, feed, settle_chunks
from baccarat_api.service.settling import settle_round

from .conftest import Game
from .test_service import OP, deal, new_shoe

BID = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "bet_behind": "book"}
SEATED = [
    {"bettor_id": "sam", "role": "seated", "seat": 1, "balance": 50_000, "level": 5,
     "type": "banker", "amount": 1000},
]  # fmt: skip


def book_round(game: Game, spectators: int, seed: int = 7) -> tuple[RoundRecord, Book]:
    """A round dealt at a book table with ``spectators`` slips in its locked book."""
    dealt = deal(game, new_shoe(game, **BID), SEATED)
    rref = parse_round_id(dealt.round_id)
    assert rref is not None
    r = game.repo.get_round(OP, rref)
    assert r is not None

    def write(round_id: str, slips: list[Slip]) -> None:
        book_store(game).slips[(OP, round_id)] = {s.bettor_ref: s for s in slips}

    return with_book(game.repo, r, spectators, write, seed)


def chunk_store(game: Game) -> MemoryChunkStore:
    return cast(MemoryChunkStore, game.repo.chunks)


def book_store(game: Game) -> MemoryBookStore:
    return cast(MemoryBookStore, game.repo.book)


def page_events(game: Game, r: RoundRecord) -> list[dict[str, Any]]:
    page, _ = events.table_events(game.repo, OP, r.table_id, 0, 100)
    return [dict(e.data) for e in page.events if e.type == "round_settlement_page"]


def stored(game: Game, r: RoundRecord) -> dict[Any, Any]:
    return {k: v for k, v in chunk_store(game).items.items() if k[1] == r.round_id}


def test_a_thousand_slips_settle_into_receipts_that_verify(game: Game) -> None:
    r, book = book_round(game, 1000)
    assert r.book is not None
    settle_round(game.repo, OP, r.round_id)
    nets = independent_nets(r, book)
    root = bytes.fromhex(r.book["root"])
    for bettor, lines in book.items():
        got = game.repo.chunks.receipt(OP, r.ref, bettor)
        assert got is not None
        receipt = got.doc
        assert receipt["tree_size"] == 1000 and receipt["root"] == r.book["root"]
        leaf = booktree.leaf_hash(canonical(receipt["leaf"]))
        path = [bytes.fromhex(h) for h in receipt["path"]]
        assert booktree.verify_inclusion(leaf, receipt["leaf_index"], 1000, path, root)
        assert receipt["leaf"]["lines"] == sorted(lines, key=lambda x: x["type"])
        assert receipt["settlement"]["net"] == nets[bettor]
        assert bettor not in str(receipt)
    pages = [game.repo.chunks.page(OP, r.ref, k) for k in range(10)]
    assert all(p is not None and len(p) == 100 for p in pages)
    entries = [e for p in pages if p is not None for e in p]
    assert sorted(e.bettor_id for e in entries) == sorted(book)
    assert sum(e.net for e in entries) == r.book["totals"]["net"] == sum(nets.values())
    assert sum(e.stake for e in entries) == r.book["totals"]["stake"]
    public = [game.repo.chunks.book_page(OP, r.ref, k) for k in range(10)]
    refs = [e["leaf"]["bettor_ref"] for p in public if p is not None for e in p["entries"]]
    assert refs == sorted(ref(b) for b in book)
    reported = page_events(game, r)
    assert sorted(e["page"] for e in reported) == list(range(10))
    assert all(e["pages"] == 10 and len(e["bettors"]) == 100 for e in reported)
    progress = game.repo.chunks.progress(OP, r.ref)
    assert progress is not None and progress.complete
    assert game.repo.chunks.due_progress("9999", 10) == []


def test_a_worker_killed_halfway_is_run_again_to_the_same_items(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    r, _ = book_round(game, 250)
    real = chunk_store(game)._put
    calls = {"n": 0}

    def dies_after_two(key: Any, value: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("worker killed")
        real(key, value)

    monkeypatch.setattr(chunk_store(game), "_put", dies_after_two)
    settle_round(game.repo, OP, r.round_id)  # the first chunk dies; the others run
    progress = game.repo.chunks.progress(OP, r.ref)
    assert progress is not None and progress.done == {1, 2} and progress.emitted == {1, 2}
    assert sorted(e["page"] for e in page_events(game, r)) == [1, 2]
    partial = stored(game, r)
    assert settle_chunks.resend_due(game.repo, game.clock.advance(30)) == []  # not yet due
    assert settle_chunks.resend_due(game.repo, game.clock.advance(31)) == [r.round_id]
    progress = game.repo.chunks.progress(OP, r.ref)
    assert progress is not None and progress.complete
    assert sorted(e["page"] for e in page_events(game, r)) == [0, 1, 2]
    full = stored(game, r)
    assert all(full[k] == v for k, v in partial.items())  # what the killed worker wrote stays
    # every chunk run again from nothing (its items lost): the same items, no event again
    for kept in (chunk_store(game).items, chunk_store(game).done, chunk_store(game).emitted):
        kept.clear()
    for k in range(3):
        assert settle_chunks.run_message(game.repo, ChunkMessage(OP, r.round_id, k)) == "done"
    assert stored(game, r) == full and len(page_events(game, r)) == 3
    # redelivered once more: nothing moves, nothing is reported twice
    before = dict(chunk_store(game).items)
    assert settle_chunks.run_message(game.repo, ChunkMessage(OP, r.round_id, 0)) == "already"
    assert chunk_store(game).items == before and len(page_events(game, r)) == 3


def test_a_chunk_whose_event_was_written_reports_nothing_again(game: Game) -> None:
    r, _ = book_round(game, 30)
    settle_round(game.repo, OP, r.round_id)
    # as if the worker died after the event's transaction, before recording it
    chunk_store(game).emitted.clear()
    chunk_store(game).complete.clear()
    assert settle_chunks.run_chunk(game.repo, OP, r.ref, 0) == "done"
    assert len(page_events(game, r)) == 1


def test_the_sweep_resends_a_round_whose_messages_were_lost(game: Game) -> None:
    class Lost:
        def send(self, messages: Any) -> None:
            pass

    r, _ = book_round(game, 120)
    game.repo.chunk_queue = Lost()
    settle_round(game.repo, OP, r.round_id)
    assert game.repo.chunks.page(OP, r.ref, 0) is None
    # sent again (and lost again): not again until the grace has passed once more
    assert settle_chunks.resend_due(game.repo, game.clock.advance(61)) == [r.round_id]
    assert settle_chunks.resend_due(game.repo, game.clock.advance(30)) == []
    game.repo.chunk_queue = None
    game.clock.advance(61)
    report = auto_settle.sweep(game.repo)
    assert report.resent == [r.round_id]
    progress = game.repo.chunks.progress(OP, r.ref)
    assert progress is not None and progress.complete
    assert auto_settle.sweep(game.repo).resent == []


def test_rounds_without_a_book_have_no_fan_out(game: Game) -> None:
    dealt = deal(game, new_shoe(game, **BID), SEATED)
    settle_round(game.repo, OP, dealt.round_id)
    rref = parse_round_id(dealt.round_id)
    assert isinstance(rref, RoundRef)
    assert game.repo.chunks.progress(OP, rref) is None
    assert chunk_store(game).items == {}


def test_the_feed_carries_the_pages_a_few_heavy_events_a_page(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    r, book = book_round(game, 500)
    settle_round(game.repo, OP, r.round_id)
    live = game.repo.load(OP, live=r.table_id).live
    assert live is not None
    feed.index(game.repo, [(OP, r.table_id, live.seq)])
    monkeypatch.setattr(feed, "MAX_MONEY_EVENTS_PAGE", 2)
    cursor, pages, bettors = None, [], []
    while True:
        page = feed.operator_events(game.repo, OP, cursor, 100)
        pages.append([e.type for e in page.events])
        bettors += [
            b for e in page.events if e.type == "round_settlement_page" for b in e.data["bettors"]
        ]
        cursor = page.next_after
        if not page.more:
            break
    assert all(sum(t in feed.HEAVY_EVENTS for t in p) <= 2 for p in pages)
    assert sorted(b["bettor_id"] for b in bettors) == sorted(book)


def test_a_dealt_book_settles_into_receipts_the_proof_verifies(game: Game) -> None:
    """End to end through the service: spectators confirm slips at a book table, the deal seals
    the locked book, the settlement fans it out; every receipt verifies against the shoe's final
    proof (the verifier's own check), the pages' public book verifies too."""
    from baccarat.proofpages import assemble
    from baccarat.receiptcheck import verify_receipt
    from baccarat_api.ports.book import Spectator
    from baccarat_api.service import betting, presence, tables
    from baccarat_api.service.dealing import deal_round
    from baccarat_api.service.models import DealRequest, SlipRequest

    from .test_proofs import served_pages

    shoe_id = new_shoe(game, **BID)
    t = shoe_id.rsplit("_s", 1)[0]
    presence.take_seat(game.repo, OP, t, 1, "alice", 500_000, 1)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(
        game.repo, OP, t, "alice",
        SlipRequest.model_validate({"bets": [{"type": "banker", "amount": 5000}]}),
    )  # fmt: skip
    spectators = [f"s{n:03d}" for n in range(130)]
    for n, b in enumerate(spectators):
        assert game.repo.book.join_spectator(OP, t, Spectator(b, ref(b), 100_000, game.clock()))
        kind = ("banker", "player", "tie")[n % 3]
        body = {"bets": [{"type": kind, "amount": 1000 + 100 * n}]}
        betting.place_slip(game.repo, OP, t, b, SlipRequest.model_validate(body))
    dealt = deal_round(
        game.repo, game.shoes, OP, shoe_id, DealRequest.model_validate({"from_book": True})
    )
    settle_round(game.repo, OP, dealt.round_id)
    rref = parse_round_id(dealt.round_id)
    assert rref is not None
    progress = game.repo.chunks.progress(OP, rref)
    assert progress is not None and progress.complete and progress.chunks == 2
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    _, proof, bad = assemble(served_pages(game, shoe_id))
    assert not bad and proof["spec"] == "bacc-pf-v1.1"
    for b in spectators:
        got = game.repo.chunks.receipt(OP, rref, b)
        assert got is not None
        verdict = verify_receipt(proof, got.doc)
        assert verdict.ok, verdict
    alice = game.repo.chunks.receipt(OP, rref, "alice")
    assert alice is None  # seated: her bet is in the proof, not in the book


def test_a_voided_book_round_gives_every_slip_its_stake_back(game: Game) -> None:
    from baccarat_api.service.voiding import void_round

    r, book = book_round(game, 140)
    void_round(game.repo, OP, r.round_id, reason="misdeal")  # sends its chunks itself
    progress = game.repo.chunks.progress(OP, r.ref)
    assert progress is not None and progress.voided and progress.complete
    for bettor, lines in book.items():
        got = game.repo.chunks.receipt(OP, r.ref, bettor)
        assert got is not None
        stake = sum(x["amount"] for x in lines)
        assert got.doc["settlement"] == {"voided": True, "stake": stake, "net": 0}
    assert len(page_events(game, r)) == 2


def test_make_runs_threads_run_every_chunk(game: Game) -> None:
    from baccarat_api.jobs.settle_chunks import ThreadQueue, parse_chunk

    r, _ = book_round(game, 450)
    workers = ThreadQueue(game.repo, workers=3)
    game.repo.chunk_queue = workers
    try:
        settle_round(game.repo, OP, r.round_id)
        workers.join()
    finally:
        workers.stop()
    progress = game.repo.chunks.progress(OP, r.ref)
    assert progress is not None and progress.complete and progress.chunks == 5
    assert sorted(e["page"] for e in page_events(game, r)) == list(range(5))
    assert parse_chunk('{"operator_id":"o","round_id":"x","chunk":2}') == ChunkMessage("o", "x", 2)
