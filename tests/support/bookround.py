"""A book round for the settlement fan-out's tests, built as the deal will build it: spectators'
slips in the book store, the leaves in the chunk store and the round's ``book`` (root, count,
chunks, shards, totals) on a round dealt at a ``bet_behind: book`` table — until the deal writes
them itself. ``write_slips`` stores the slips (in memory: the store's dict; on DynamoDB: their
items)."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from typing import Any

from baccarat import booktree
from baccarat.bets import Bet, Role
from baccarat.bookmoney import BookTotals, slip_settlement
from baccarat.paytables import BetType
from baccarat.profiles import TableConfig
from baccarat.settlement import settle
from baccarat_api.limits import CHUNK_SLIPS
from baccarat_api.ports.book import BOOK_SHARDS, Line, Slip
from baccarat_api.ports.chunks import Leaf
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.writes import Put
from baccarat_api.service.settle_chunks import round_of
from support.book import ref

TYPES = [t.value for t in BetType if t is not BetType.BANKER_NO_COMMISSION]
#: bettor id → the slip's lines ``{type, amount}``
Book = dict[str, list[dict[str, Any]]]


def with_book(
    repo: Repository,
    r: RoundRecord,
    spectators: int,
    write_slips: Callable[[str, list[Slip]], None],
    seed: int = 7,
) -> tuple[RoundRecord, Book]:
    """``r`` with a locked book of ``spectators`` random slips (1–4 lines), stored."""
    rng = random.Random(seed)
    book: Book = {}
    slips: list[Slip] = []
    for n in range(spectators):
        bettor = f"spectator-{n:05d}"
        kinds = sorted(rng.sample(TYPES, rng.randint(1, 4)))
        lines: list[dict[str, Any]] = [
            {"type": k, "amount": rng.randint(1, 50) * 1000} for k in kinds
        ]
        book[bettor] = lines
        slips.append(
            Slip(bettor, ref(bettor), tuple(Line(x["type"], x["amount"]) for x in lines), "", 1)
        )
    write_slips(r.round_id, slips)
    config, cards = TableConfig.from_dict(r.config), round_of(r)
    leaves, totals = [], BookTotals()
    for s in sorted(slips, key=lambda s: s.bettor_ref):
        lines = [{"type": x.type, "amount": x.amount} for x in s.lines]
        leaves.append(
            (s.bettor_ref, booktree.leaf_bytes(r.round_id, s.bettor_ref, "spectator", lines))
        )
        totals.add(slip_settlement(config, cards, lines))
    repo.chunks.put_leaves(
        r.operator_id, r.round_id, [Leaf(b, booktree.leaf_hash(d)) for b, d in leaves]
    )
    doc = {
        "root": booktree.root([d for _, d in leaves]).hex(),
        "count": len(leaves),
        "chunks": math.ceil(len(leaves) / CHUNK_SLIPS),
        "shards": BOOK_SHARDS,
        "totals": totals.as_dict(),
    }
    r = dataclasses.replace(r, book=doc)  # type: ignore[arg-type]
    repo.transact("test: the deal's book", [Put(r, if_absent=False)])
    return r, book


def independent_nets(r: RoundRecord, book: Book) -> dict[str, int]:
    """Every spectator's net, the whole book settled at once (not slip by slip)."""
    bets = [
        Bet(bettor_id=b, role=Role.SPECTATOR, type=BetType(x["type"]), amount=x["amount"], order=i)
        for i, (b, lines) in enumerate(book.items())
        for x in lines
    ]
    return settle(TableConfig.from_dict(r.config), round_of(r), bets).nets()
