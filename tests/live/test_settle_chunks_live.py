"""The settlement fan-out on DynamoDB Local: two workers running one chunk at once write the same
items and report its page once; 1,000 slips settle into receipts that verify, with the money of
the whole book settled at once; slips per second per worker printed (not asserted)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from support.bookround import independent_nets, with_book
from support.stack import Api, Stack, new_shoe, new_table

from baccarat import booktree
from baccarat.audit import canonical
from baccarat_api.adapters.dynamodb.book import slip_item
from baccarat_api.ids import parse_round_id
from baccarat_api.ports.book import Slip
from baccarat_api.ports.chunks import ChunkMessage
from baccarat_api.service import events, settle_chunks
from baccarat_api.service.settling import settle_round

OP = "operator-a"


class Held:
    """A queue that keeps the chunks (the test runs them)."""

    def __init__(self) -> None:
        self.messages: list[ChunkMessage] = []

    def send(self, messages: Any) -> None:
        self.messages += messages


def test_two_workers_on_one_chunk_and_a_thousand_slips(
    dynamodb_local_api: Api, dynamodb_local_stack: Stack
) -> None:
    api, stack = dynamodb_local_api, dynamodb_local_stack
    t = new_table(api, profile="bid-squeeze", bet_behind="book")
    seated = [
        {"bettor_id": "sam", "role": "seated", "seat": 1, "balance": 50_000, "level": 5,
         "type": "banker", "amount": 1000},
    ]  # fmt: skip
    rid = api.post(f"/v1/shoes/{new_shoe(api, t)}/rounds", {"bets": seated}).body["round_id"]
    ref = parse_round_id(rid)
    assert ref is not None
    r = stack.repo.get_round(OP, ref)
    assert r is not None

    def write(round_id: str, slips: list[Slip]) -> None:
        def put(s: Slip) -> None:
            stack.dynamodb.put_item(TableName=stack.repo.state, Item=slip_item(OP, round_id, s))

        with ThreadPoolExecutor(16) as pool:
            list(pool.map(put, slips))

    r, book = with_book(stack.repo, r, 1000, write)
    assert r.book is not None
    held = Held()
    stack.repo.chunk_queue = held
    settle_round(stack.repo, OP, rid)
    assert [m.chunk for m in held.messages] == list(range(10))

    # two workers on chunk 0 at once
    gate = threading.Barrier(2)
    outcomes: list[str] = []

    def worker() -> None:
        gate.wait()
        outcomes.append(settle_chunks.run_message(stack.repo, held.messages[0]))

    pair = [threading.Thread(target=worker) for _ in range(2)]
    for w in pair:
        w.start()
    for w in pair:
        w.join()
    assert sorted(outcomes) in (["done", "done"], ["already", "done"])
    chunk0 = stack.repo.chunks.page(OP, ref, 0)
    assert chunk0 is not None and len(chunk0) == 100
    first = stack.repo.chunks.receipt(OP, ref, chunk0[0].bettor_id)
    assert first is not None
    progress = stack.repo.chunks.progress(OP, ref)
    assert progress is not None and progress.done == {0} and progress.emitted == {0}

    # the other nine chunks, one worker: slips per second
    started = time.perf_counter()
    for m in held.messages[1:]:
        assert settle_chunks.run_message(stack.repo, m) == "done"
    seconds = time.perf_counter() - started
    print(f"\nsettlement: 900 slips in {seconds:.2f} s on one worker = {900 / seconds:.0f} slips/s")
    progress = stack.repo.chunks.progress(OP, ref)
    assert progress is not None and progress.complete

    nets = independent_nets(r, book)
    root = bytes.fromhex(r.book["root"])
    total = 0
    for k in range(10):
        page = stack.repo.chunks.page(OP, ref, k)
        assert page is not None and len(page) == 100
        total += sum(e.net for e in page)
        assert all(e.net == nets[e.bettor_id] for e in page)
    assert total == r.book["totals"]["net"]
    for bettor in list(book)[::37]:
        got = stack.repo.chunks.receipt(OP, ref, bettor)
        assert got is not None
        receipt = got.doc
        leaf = booktree.leaf_hash(canonical(receipt["leaf"]))
        path = [bytes.fromhex(h) for h in receipt["path"]]
        assert booktree.verify_inclusion(leaf, receipt["leaf_index"], 1000, path, root)
        assert receipt["settlement"]["net"] == nets[bettor]
    # the racing pair wrote what one worker writes; each page reported once
    assert stack.repo.chunks.receipt(OP, ref, chunk0[0].bettor_id) == first
    page, _ = events.table_events(stack.repo, OP, t, 0, 100)
    pages = sorted(e.data["page"] for e in page.events if e.type == "round_settlement_page")
    assert pages == list(range(10))
