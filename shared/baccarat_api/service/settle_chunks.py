"""The settlement of a round's book of spectators' slips, fanned out in chunks.

A book round's money was computed at its deal (``RoundRecord.book.totals``); what is left after
its settlement (or void) is to give every slip its receipt and to publish every bettor's money.
The transaction that resolves the round creates its progress (``ports/writes.py``
``book_progress``); then its chunks are sent to a :class:`~baccarat_api.ports.chunks.ChunkQueue`.
A chunk (:data:`~baccarat_api.limits.CHUNK_SLIPS` consecutive leaves) reads the book's leaves
(their tree cached per round in the process), its slips (a page of the locked book), settles
each slip alone (:func:`baccarat.bookmoney.slip_settlement` on the round's cards; a voided
round's slips get their stake back), writes the receipts, the operator's page and the public
page (the same bytes however often), marks itself done, then writes its one
``round_settlement_page`` event — with its marker put only if absent, so exactly once.

Nothing is lost between two steps: a chunk whose message is lost, or that failed halfway, is
sent again by the sweep once its round's progress is overdue (:func:`resend_due`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baccarat import booktree
from baccarat.audit import canonical
from baccarat.bookmoney import slip_doc, slip_settlement
from baccarat.cards import parse_code
from baccarat.outcome import Round
from baccarat.profiles import TableConfig
from baccarat.receipts import book_entry, book_page_doc, receipt_doc, voided_settlement
from baccarat_api.clock import seconds_after
from baccarat_api.ids import RoundRef, parse_round_id
from baccarat_api.limits import CHUNK_RESEND_SECONDS, CHUNK_SLIPS
from baccarat_api.lru import Lru
from baccarat_api.ports.book import SHARD_CHARS, BookCursor, Slip, slip_shard
from baccarat_api.ports.chunks import (
    ChunkEmitted,
    ChunkMessage,
    ChunkOut,
    ChunkQueue,
    Leaf,
    PageEntry,
    Progress,
    ReceiptItem,
)
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.ports.writes import Put
from baccarat_api.service.events import ATTEMPTS, complete, emit

#: Rounds whose book tree a process keeps (a worker runs the chunks of few rounds at once).
TREES_CACHED = 8
#: Most overdue rounds one sweep sends again.
RESEND_LIMIT = 100

_Tree = tuple[tuple[Leaf, ...], list[list[bytes]]]
_trees: Lru[tuple[str, str], _Tree] = Lru(TREES_CACHED)


class InlineQueue:
    """A :class:`ChunkQueue` that runs each chunk at once, in the caller (the service's tests,
    and whatever has no queue wired)."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        #: the chunks that failed here (as a queue would redeliver them: the sweep sends them
        #: again), with the error
        self.failed: list[tuple[ChunkMessage, str]] = []

    def send(self, messages: Sequence[ChunkMessage]) -> None:
        for m in messages:
            try:
                run_message(self.repo, m)
            except Exception as exc:  # one chunk must not stop the others (nor the caller)
                self.failed.append((m, repr(exc)))


def queue_of(repo: Repository) -> ChunkQueue:
    """The queue wired to the repository (``repo.chunk_queue``), or :class:`InlineQueue`."""
    return InlineQueue(repo) if repo.chunk_queue is None else repo.chunk_queue


def start(repo: Repository, r: RoundRecord) -> None:
    """Send every chunk of a book round just resolved (nothing for any other round)."""
    if r.book is None or not r.book["chunks"]:
        return
    queue_of(repo).send(
        [ChunkMessage(r.operator_id, r.round_id, k) for k in range(r.book["chunks"])]
    )


def resend_due(repo: Repository, now: str, limit: int = RESEND_LIMIT) -> list[str]:
    """Send again the chunks not complete of every round whose progress is overdue at ``now``
    (the sparse index lists them; no scan), postponing it by the same grace (the chunks just
    sent are not sent again by the next sweep while they run): the ids of those rounds."""
    out = []
    for operator_id, ref in repo.chunks.due_progress(now, limit):
        progress = repo.chunks.progress(operator_id, ref)
        if progress is None or progress.complete:
            continue
        todo = [k for k in range(progress.chunks) if k not in progress.emitted]
        repo.chunks.postpone(operator_id, ref, seconds_after(now, CHUNK_RESEND_SECONDS))
        queue_of(repo).send([ChunkMessage(operator_id, ref.round_id, k) for k in todo])
        out.append(ref.round_id)
    return out


def run_message(repo: Repository, message: ChunkMessage) -> str:
    """Run one chunk: ``done`` (written and reported now), ``already`` (both done before),
    ``unknown`` (no such resolved book round)."""
    ref = parse_round_id(message.round_id)
    if ref is None:
        return "unknown"
    return run_chunk(repo, message.operator_id, ref, message.chunk)


def run_chunk(repo: Repository, operator_id: str, ref: RoundRef, chunk: int) -> str:
    """Write chunk ``chunk``'s receipts and pages if not done, then its event if not written."""
    progress = repo.chunks.progress(operator_id, ref)
    r = None if progress is None else repo.get_round(operator_id, ref)
    if progress is None or r is None or r.book is None or not 0 <= chunk < progress.chunks:
        return "unknown"
    if chunk in progress.done and chunk in progress.emitted:
        return "already"
    out = chunk_out(repo, r, chunk)
    if chunk not in progress.done:
        repo.chunks.put_chunk(operator_id, ref, out)
    _report(repo, r, out, progress)
    return "done"


# --- one chunk ------------------------------------------------------------------------------


def round_of(r: RoundRecord) -> Round:
    """The round's cards, rebuilt from its stored facts (codes: the first deck's ids, which
    grade alike — a card's rank and suit are its id modulo the deck)."""
    facts = r.facts
    return Round(
        number=facts["round_number"],
        start=facts["start"],
        player=tuple(parse_code(c) for c in facts["player"]["cards"]),
        banker=tuple(parse_code(c) for c in facts["banker"]["cards"]),
    )


def _levels(hashes: Sequence[bytes]) -> list[list[bytes]]:
    """The book tree level by level from its leaf hashes (:mod:`baccarat.booktree`'s tree)."""
    level = list(hashes)
    levels = [level]
    while len(level) > 1:
        paired = [booktree.node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
        levels.append(level)
    return levels


def _path(levels: list[list[bytes]], index: int) -> list[bytes]:
    path = []
    for level in levels[:-1]:
        if index ^ 1 < len(level):
            path.append(level[index ^ 1])
        index >>= 1
    return path


def _tree(repo: Repository, r: RoundRecord) -> _Tree:
    def make() -> _Tree:
        leaves = tuple(repo.chunks.leaves(r.operator_id, r.round_id))
        return leaves, _levels([leaf.hash for leaf in leaves])

    return _trees.get((r.operator_id, r.round_id), make)


def _slips(repo: Repository, r: RoundRecord, refs: Sequence[str], before: str) -> list[Slip]:
    """The slips of ``refs`` (a run of the book's order; ``before``: the ref before it, or
    ``""``): from the locked book, a page per shard the run spans."""
    wanted = set(refs)
    shard = SHARD_CHARS.index(slip_shard(refs[0]))
    after = before if before and slip_shard(before) == SHARD_CHARS[shard] else ""
    cursor: BookCursor | None = BookCursor(shard, after)
    found: dict[str, Slip] = {}
    while cursor is not None and len(found) < len(wanted):
        page = repo.book.book_page(r.operator_id, r.round_id, cursor, CHUNK_SLIPS)
        found |= {s.bettor_ref: s for s in page.slips if s.bettor_ref in wanted}
        if page.slips and page.slips[-1].bettor_ref > refs[-1]:
            break
        cursor = page.next
    missing = wanted - set(found)
    if missing:
        raise LookupError(f"{r.round_id}: {len(missing)} slips of the locked book not found")
    return [found[ref] for ref in refs]


def chunk_out(repo: Repository, r: RoundRecord, chunk: int) -> ChunkOut:
    """What chunk ``chunk`` of the book round ``r`` writes (a pure function of the round)."""
    assert r.book is not None
    leaves, levels = _tree(repo, r)
    first = chunk * CHUNK_SLIPS
    run = leaves[first : first + CHUNK_SLIPS]
    root = r.book["root"]
    if len(leaves) != r.book["count"] or levels[-1][0].hex() != root:
        raise ValueError(f"{r.round_id}: the stored leaves are not the locked book")
    refs = [leaf.bettor_ref for leaf in run]
    slips = _slips(repo, r, refs, leaves[first - 1].bettor_ref if first else "")
    config = TableConfig.from_dict(r.config)
    cards = None if r.void is not None else round_of(r)  # a beacon void has no card
    shoe_id = r.ref.shoe.shoe_id
    proof_url = f"/v1/shoes/{shoe_id}/proof"
    receipts, page, entries = [], [], []
    for i, (leaf, slip) in enumerate(zip(run, slips, strict=True), start=first):
        lines = [{"type": line.type, "amount": line.amount} for line in slip.lines]
        doc = booktree.leaf_doc(r.round_id, slip.bettor_ref, booktree.SPECTATOR, lines)
        if booktree.leaf_hash(canonical(doc)) != leaf.hash:
            raise ValueError(f"{r.round_id}: slip {slip.bettor_ref} is not its locked leaf")
        settlement: dict[str, Any] = (
            voided_settlement(slip.total)
            if cards is None
            else slip_doc(slip_settlement(config, cards, lines))
        )
        path = [h.hex() for h in _path(levels, i)]
        receipt = receipt_doc(
            shoe_id, r.round_number, r.round_id, doc, i, len(leaves), root, path, settlement,
            proof_url,
        )  # fmt: skip
        receipts.append(ReceiptItem(slip.bettor_id, slip.bettor_ref, receipt))
        page.append(PageEntry(slip.bettor_id, slip.bettor_ref, slip.total, settlement["net"]))
        entries.append(book_entry(doc, settlement))
    pages = r.book["chunks"]
    public = book_page_doc(shoe_id, r.round_number, root, len(leaves), chunk, pages, entries)
    return ChunkOut(chunk, tuple(receipts), tuple(page), public)


def page_event(r: RoundRecord, out: ChunkOut) -> tuple[str, dict[str, Any]]:
    """The chunk's ``round_settlement_page`` event."""
    assert r.book is not None
    return (
        "round_settlement_page",
        {
            "round_id": r.round_id,
            "page": out.chunk,
            "pages": r.book["chunks"],
            "bettors": [e.as_dict() for e in out.page],
        },
    )


def _report(repo: Repository, r: RoundRecord, out: ChunkOut, progress: Progress) -> None:
    """Write the chunk's event once: with its marker (put only if absent) and the table's live
    move, ONE transaction; a lost condition is the marker already there (done) or the live
    state moved (again, from a fresh read)."""
    ref, op = r.ref, r.operator_id
    if out.chunk not in progress.emitted:
        for _ in range(ATTEMPTS * 4):
            live = repo.load(op, live=r.table_id).live
            at = repo.clock()
            ev = complete(repo, emit(live, op, r.table_id, at, [page_event(r, out)]))
            marker = ChunkEmitted(op, r.table_id, r.shoe_number, r.round_number, out.chunk, at)
            try:
                repo.emitting("settlement page", [Put(marker)], ev)
                break
            except ConditionFailed:
                if repo.chunks.emitted_marker(op, ref, out.chunk):
                    break
        else:
            raise ConditionFailed("settlement page: the table kept changing")
    repo.chunks.mark_emitted(op, ref, out.chunk)
