"""The operator feed: every event of every table of an operator, each once, in a stable order —
``GET /v1/events?after=<cursor>`` — and what the webhooks deliver (layout: docs/scaling.md).

Events are written at their table; the indexer (:func:`index`) appends them to one of the
operator's feed shards (a table always to the same one) in one transaction conditional on the
shard's head and the table's mark, so concurrent or retried indexers never leave a gap or
append twice. A cursor is a position per shard; positions never change, so a page neither
skips nor repeats an event whatever is written meanwhile."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from baccarat_api.ids import RoundRef, parse_round_id
from baccarat_api.limits import LAMBDA_RESPONSE_BYTES, json_bytes
from baccarat_api.ports.records import FEED_SHARDS, EventRecord, FeedEntry, FeedMark, feed_shard
from baccarat_api.ports.repository import ConditionFailed, Repository, StoreUnavailable
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import FeedEventOut, FeedPageOut
from baccarat_api.service.money import settlement_out

#: Events per page: default and most (the batched event read takes 100 keys).
DEFAULT_FEED_PAGE = 50
MAX_FEED_PAGE = 100
#: Money events (settled, auto-settled, voided) expanded per page: their rounds are one batched
#: read of at most this many round items (8.5 MB at the worst case of 341 KB a round).
MAX_MONEY_EVENTS_PAGE = 25
#: A page's JSON at most (the Lambda proxy envelope may escape every byte as ``\\uXXXX``: 6×,
#: as ``limits.worst_case_bytes`` counts): a page stops before it; one event always fits (a
#: settlement is at most 341 KB, its event summary 2 KB).
PAGE_BUDGET_BYTES = LAMBDA_RESPONSE_BYTES // 6 - 4096
#: Tables per append (a transaction holds at most 100 writes: an entry and a mark per table,
#: and the head).
TABLES_PER_APPEND = 49
#: How often an append that lost its condition (another indexer appended to the shard) is
#: tried again from a fresh read before the batch fails (and its trigger retries it).
APPEND_ATTEMPTS = 20

#: A cursor: ``f1.`` and the positions, base64url (at most 64 × 2 numbers of 12 digits).
CURSOR_PATTERN = r"^f1\.[A-Za-z0-9_-]*$"
MAX_CURSOR_LENGTH = 2400

MONEY_EVENTS = frozenset({"round_settled", "round_auto_settled", "round_voided"})
#: Events that weigh on a page (a money event's round; a book round's settlement page: up to
#: 100 bettors, ≈ 15 KB): at most :data:`MAX_MONEY_EVENTS_PAGE` of them in one page.
HEAVY_EVENTS = MONEY_EVENTS | {"round_settlement_page"}


# --- indexing ---------------------------------------------------------------------------------


def index(
    repo: Repository,
    hints: Iterable[tuple[str, str, int]],
    touched: set[tuple[str, int]] | None = None,
) -> int:
    """Append every event of each hint's table (``(operator id, table id, seq)``: the table
    has events up to ``seq``) not yet in the feed, up to the table's live ``seq`` as read with
    the feed's state (so a hint can neither skip nor invent an event). Returns how many events
    were appended (and adds each (operator, shard) appended to, to ``touched``)."""
    latest: dict[tuple[str, str], int] = {}
    for op, table, seq in hints:
        latest[(op, table)] = max(seq, latest.get((op, table), 0))
    groups: dict[tuple[str, int], dict[str, int]] = {}
    for (op, table), seq in sorted(latest.items()):
        groups.setdefault((op, feed_shard(table)), {})[table] = seq
    appended = 0
    for (op, shard), tables in groups.items():
        names = list(tables)
        for start in range(0, len(names), TABLES_PER_APPEND):
            chunk = {t: tables[t] for t in names[start : start + TABLES_PER_APPEND]}
            n = _append(repo, op, shard, chunk)
            if n and touched is not None:
                touched.add((op, shard))
            appended += n
    return appended


def _append(repo: Repository, op: str, shard: int, tables: dict[str, int]) -> int:
    for _ in range(APPEND_ATTEMPTS):
        head, marks, lives = repo.feed_state(op, shard, list(tables))
        # up to the table's live seq (its events up to it are committed), whatever the hint
        todo: list[tuple[FeedMark, int]] = [
            (marks[t], lives[t]) for t in tables if marks[t].seq < lives[t]
        ]
        if not todo:
            return 0
        try:
            repo.append_feed(head, todo)
        except (ConditionFailed, StoreUnavailable):
            continue  # another indexer appended to the shard: read again
        return sum(last - mark.seq for mark, last in todo)
    raise StoreUnavailable(f"feed shard {shard} of {op}: append kept losing its condition")


# --- the cursor -------------------------------------------------------------------------------

Position = tuple[int, int]  # (entries fully read, events taken of the next entry)


def encode_cursor(positions: list[Position]) -> str:
    text = ",".join("" if p == (0, 0) else f"{p[0]}.{p[1]}" for p in positions)
    return "f1." + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> list[Position]:
    if not cursor:
        return [(0, 0)] * FEED_SHARDS
    bad = DomainError("invalid_cursor", "the cursor is malformed or of another query")
    if len(cursor) > MAX_CURSOR_LENGTH or not re.fullmatch(CURSOR_PATTERN, cursor):
        raise bad
    body = cursor[3:]
    try:
        text = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
        parts = text.split(",")
        if len(parts) != FEED_SHARDS:
            raise bad
        out: list[Position] = []
        for part in parts:
            if not part:
                out.append((0, 0))
                continue
            pos, _, taken = part.partition(".")
            if not (pos.isdigit() and taken.isdigit()):
                raise bad
            out.append((int(pos), int(taken)))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise bad from None
    return out


# --- reading ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slot:
    """One event a page may take: where it is in its shard."""

    shard: int
    entry: FeedEntry
    offset: int  # index of the event in its entry's run

    @property
    def seq(self) -> int:
        return self.entry.first + self.offset


def pending(repo: Repository, op: str, shard: int, at: Position, limit: int) -> list[Slot]:
    """The shard's next events after ``at`` (at most ``limit``), in order."""
    pos, taken = at
    slots: list[Slot] = []
    for entry in repo.feed_entries(op, shard, pos, limit):
        start = taken if entry.pos == pos + 1 else 0
        for offset in range(start, entry.last - entry.first + 1):
            slots.append(Slot(shard, entry, offset))
            if len(slots) == limit:
                return slots
    return slots


def _round_robin(queues: list[list[Slot]], limit: int) -> list[Slot]:
    out: list[Slot] = []
    cursors = [0] * len(queues)
    while len(out) < limit:
        moved = False
        for i, queue in enumerate(queues):
            if cursors[i] < len(queue) and len(out) < limit:
                out.append(queue[cursors[i]])
                cursors[i] += 1
                moved = True
        if not moved:
            break
    return out


def past(slot: Slot) -> Position:
    """The shard's position just after ``slot``'s event."""
    done = slot.offset + 1
    if done == slot.entry.last - slot.entry.first + 1:
        return (slot.entry.pos, 0)
    return (slot.entry.pos - 1, done)


def _next_positions(positions: list[Position], taken: list[Slot]) -> list[Position]:
    out = list(positions)
    for slot in taken:  # in each shard's order: the last one taken decides
        out[slot.shard] = past(slot)
    return out


def round_ref(e: EventRecord) -> RoundRef | None:
    if e.type not in MONEY_EVENTS:
        return None
    return parse_round_id(str(e.data.get("round_id", "")))


def operator_events(
    repo: Repository, operator_id: str, after: str | None, limit: int = DEFAULT_FEED_PAGE
) -> FeedPageOut:
    """The operator's events after the cursor ``after`` (``None``: from the first), at most
    ``limit`` and :data:`PAGE_BUDGET_BYTES`: one batched read of the shards' heads, one
    ``Query`` per shard with events after the cursor, one batched read of the events and one of
    the rounds of its money events."""
    positions = decode_cursor(after)
    limit = max(1, min(limit, MAX_FEED_PAGE))
    heads = repo.feed_heads(operator_id)  # which shards have anything after the cursor
    queues = [
        pending(repo, operator_id, k, positions[k], limit) if heads[k] > positions[k][0] else []
        for k in range(FEED_SHARDS)
    ]
    chosen = _round_robin(queues, limit)
    found = {
        (e.table_id, e.seq): e
        for e in repo.events_at(operator_id, [(s.entry.table_id, s.seq) for s in chosen])
    }
    if len(found) != len(chosen):
        raise StoreUnavailable("feed: an appended event is not readable yet")
    ordered = [found[(s.entry.table_id, s.seq)] for s in chosen]
    # the heavy events: the first MAX_MONEY_EVENTS_PAGE of them (the money events' rounds read);
    # the page ends before the next one
    refs: list[RoundRef] = []
    cut, heavy = len(ordered), 0
    for i, e in enumerate(ordered):
        if e.type not in HEAVY_EVENTS:
            continue
        if heavy == MAX_MONEY_EVENTS_PAGE:
            cut = i
            break
        heavy += 1
        ref = round_ref(e)
        if ref is not None:
            refs.append(ref)
    rounds = {r.round_id: r for r in repo.rounds_at(operator_id, refs)}
    out: list[FeedEventOut] = []
    size = 0
    for e in ordered[:cut]:
        item = render(e, rounds)
        size += json_bytes(item.model_dump(mode="json")) + 1
        if out and size > PAGE_BUDGET_BYTES:
            break
        out.append(item)
    taken = chosen[: len(out)]
    counts = [sum(1 for s in taken if s.shard == k) for k in range(FEED_SHARDS)]
    # events left in what was read, or a shard read to its limit (more may follow it)
    more = any(len(q) > n or len(q) == limit for q, n in zip(queues, counts, strict=True))
    return FeedPageOut(
        events=out, next_after=encode_cursor(_next_positions(positions, taken)), more=more
    )


def render(e: EventRecord, rounds: dict[str, Any]) -> FeedEventOut:
    """An event as the feed and the webhooks carry it: money events with their round's money."""
    ref = round_ref(e)
    money = None
    if ref is not None:
        r = rounds.get(ref.round_id)
        if r is None:
            raise StoreUnavailable(f"feed: round {ref.round_id} of {e.event_id} not readable")
        money = settlement_out(r)
    return FeedEventOut(
        event_id=e.event_id,
        table_id=e.table_id,
        seq=e.seq,
        type=e.type,
        at=e.at,
        data=e.data,
        settlement=money,
    )
