"""The lock of a bacc-pf-v2 round (docs/design/beacon.md §3): an explicit deal, or a running
table's ``close``, at a v2 table locks the round's bets — validated all or nothing exactly as a
deal's (:mod:`.deal_inputs`) — and fixes, before any card exists, the root of every slip
(``book_root``) and the beacon round its cards wait for (the first at least
``BEACON_MARGIN_MS`` after the lock). No card is drawn and the shoe's cursor does not move; the
round's item is written by its draw (or its beacon void, :mod:`.drawing`).

One read (the deal's) and ONE transaction: the shoe's ``v2.locked`` (conditional on its version)
and the table's events — ``betting_closed`` (a window dealt from its book), ``round_locked``
(public before the beacon round exists: the feed and push carry it) and the idle seats vacated,
as the deal reports them; the live state's latest round carries its ``draw_at`` (the ``draw``
step's time, :func:`~.ticks.draw_step`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baccarat.beacon import lock_round as beacon_lock_round
from baccarat.beacon import round_time
from baccarat.fairness_v2 import EMPTY_ROOT, locked_root, seated_root
from baccarat.profiles import TableConfig
from baccarat.proofdoc import refs_for
from baccarat_api.clock import at_ms, ms_of, seconds_after
from baccarat_api.ids import RoundRef
from baccarat_api.limits import BEACON_WAIT_SECONDS
from baccarat_api.ports.documents import LastRound, LockBookDoc, LockDoc
from baccarat_api.ports.records import LiveRecord, ShoeRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.service import after_round, book_lock, idempotency
from baccarat_api.service.bets import DealBets
from baccarat_api.service.deal_inputs import accepted_bets, bets_of, present
from baccarat_api.service.errors import lost_race
from baccarat_api.service.events import LiveMoved, emit
from baccarat_api.service.idempotency import IdempotencyRequest, Replayed
from baccarat_api.service.models import LockedRoundOut
from baccarat_api.service.table_options import chain_of
from baccarat_api.service.v2_rounds import locked, locked_view, round_locked
from baccarat_api.service.writeids import write_id

#: The status a lock answers (and its ``Idempotency-Key`` replays): accepted, cards to follow.
LOCKED_STATUS = 202


def lock_round(
    repo: Repository,
    shoes: ShoeSource,
    shoe: ShoeRecord,
    live: LiveRecord | None,
    asked: DealBets | None,
    request_digest: str,
    idem: IdempotencyRequest | None,
    window: str | None,
) -> LockedRoundOut:
    """Lock the shoe's next round with the bets ``asked`` (``None``: the window's book). The
    same request again while it is locked answers it again (202); another deal meanwhile is
    409 ``round_locked``."""
    held = locked(shoe)
    at = repo.clock()
    if held is not None:
        if held["request_digest"] == request_digest:
            raise Replayed(LOCKED_STATUS, locked_view(shoe, held))
        raise round_locked(shoe, held, at, "the next round is dealt")
    assert shoe.v2 is not None and shoe.beacon is not None
    table = live or LiveRecord(shoe.operator_id, shoe.table_id)
    number = shoe.rounds_dealt + 1
    config = TableConfig.from_dict(shoe.config)
    given = bets_of(asked, config, table, shoe.shoe_id, number, window, at)
    seated = present(table, given)
    accepted, _ = accepted_bets(config, seated, given, number)
    bettors = list(dict.fromkeys(b.bettor_id for b in accepted.bets))
    idle = after_round.idle_seats(config, table, bettors)
    ref = RoundRef(shoe.table_id, shoe.shoe_number, number)
    bets, _ = given.locked_bets(refs_for(shoes.ref_key(shoe), shoe.table_id))
    book = _book(repo, asked is None, table, ref.round_id, at)
    spectators = EMPTY_ROOT if book is None else bytes.fromhex(book["root"])
    chain = chain_of(shoe.beacon)
    beacon_round = beacon_lock_round(chain, ms_of(at))
    lock: LockDoc = {
        "round_number": number,
        "locked_at": at,
        "book_root": locked_root(seated_root(ref.round_id, bets), spectators).hex(),
        "beacon_round": beacon_round,
        "expected_at": at_ms(round_time(chain, beacon_round)),
        "void_at": seconds_after(at, BEACON_WAIT_SECONDS),
        "bets": given.bets or [],
        "player_banker": given.player_banker,
        "from_book": asked is None,
        "request_digest": request_digest,
        "idle_out": [table.seats[s]["bettor_id"] for s in idle[1]] if table.seats else None,
        "present": seated,
        "seq": table.seq,
        "write_id": write_id(
            shoe.operator_id, "lock", shoe.shoe_id, request_digest, idem, [shoe.version, table.seq]
        ),
    }
    if book is not None:
        lock["book"] = book
    after = replace(shoe, version=shoe.version + 1, v2={**shoe.v2, "locked": lock})
    before, removed, moved = after_round.after_deal(
        config, table, round_id=ref.round_id, shoe_id=shoe.shoe_id, round_number=number,
        bets=bets, resolved=False, from_book=asked is None, idle=idle,
    )  # fmt: skip
    last: LastRound = moved["last_round"]
    moved["last_round"] = {**last, "draw_at": lock["expected_at"], "void_at": lock["void_at"]}
    view = locked_view(shoe, lock)
    data = {k: view[k] for k in _EVENT_FIELDS}
    if book is not None:  # the spectators' subtree of book_root, public with it
        data["book"] = {"root": book["root"], "count": book["count"]}
    event = ("round_locked", data)
    ev = emit(live, shoe.operator_id, shoe.table_id, at, [*before, event, *removed], **moved)
    record = idempotency.record(at, idem, shoe.operator_id, round_id=ref.round_id)
    try:
        repo.lock_round(
            shoe, after, None if record is None else replace(record, status=LOCKED_STATUS), ev,
            lock["write_id"],
        )  # fmt: skip
    except (ConditionFailed, OutcomeUnknown) as exc:
        _after_lost_write(repo, shoe, lock, exc)
    return LockedRoundOut.model_validate(view)


def _book(
    repo: Repository, from_book: bool, table: LiveRecord, round_id: str, at: str
) -> LockBookDoc | None:
    """A from-book lock at a book table: its spectators' book locked now
    (:func:`~.book_lock.locked_book`: first its own transaction, then the table read again)
    and kept with the round's lock — its root goes into ``book_root``; the draw seals it."""
    got = book_lock.locked_book(repo, from_book, table, at)
    if got is None:
        return None
    betting, slips = got
    root = book_lock.spectators_root(round_id, slips)
    return {"opened_at": betting["opened_at"], "shards": int(betting["book_shards"]),
            "root": root.hex(), "count": len(slips)}  # fmt: skip


_EVENT_FIELDS = ("round_id", "shoe_id", "round_number", "locked_at", "book_root", "beacon")


def _after_lost_write(repo: Repository, shoe: ShoeRecord, lock: LockDoc, exc: Exception) -> Any:
    """A lock whose write lost its condition or whose outcome is unknown: locked by this very
    write (its write id on the shoe) → answered as locked; else the error."""
    now = repo.load(shoe.operator_id, shoe=shoe.ref).shoe
    held = locked(now)
    if held is not None and held["write_id"] == lock["write_id"]:
        return
    if isinstance(exc, OutcomeUnknown):
        raise exc
    assert isinstance(exc, ConditionFailed)
    idempotency.check_duplicate(exc)
    if now is not None and now.version == shoe.version:
        raise LiveMoved from None  # the shoe did not move: another change at the table
    raise lost_race() from None
