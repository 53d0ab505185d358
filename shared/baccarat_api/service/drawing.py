"""The draw of a locked bacc-pf-v2 round, and its beacon void (docs/design/beacon.md §3, §5).

The ``draw`` step (a timer at the beacon round's time, the sweep as the safety net; running and
operator tables alike) re-reads the shoe and acts only while the round it names is still locked
there — a duplicate timer changes nothing. It asks the deployment's beacon for the round the lock
fixed (every answer verified by the adapter before it is returned): there → the round's key
``K_r`` (the shoe's ``K``, the round's number, its ``book_root``, the beacon) draws its cards from
the cards remaining (:func:`baccarat.fairness_v2.draw_round`), and everything after a deal
follows as today — the round's item with its money, squeeze plan and place in the audit chain,
the shoe's cursor, drawn cards and end (the cut card counted over the rounds that drew cards),
``round_dealt`` (with the beacon), ``round_settled`` for a round nobody bet on, ``shoe_ended``.
Not there yet → tried again (:data:`~baccarat_api.limits.BEACON_RETRY_SECONDS`); still not there
at the lock's ``void_at`` (``BEACON_WAIT_SECONDS``) → the round is voided ``beacon_unavailable``
by the clock alone: its item written with its lock, its bets and no card, stakes returned, the
shoe's remaining cards unchanged. Each is ONE conditional transaction (the deal's)."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any, Literal, cast

from baccarat.audit import settlement_hash
from baccarat.beacon import Beacon
from baccarat.fairness import client_hash, shoe_key
from baccarat.fairness_v2 import BeaconDraw, ShoeEnd, cut_index_of, draw_round, round_key
from baccarat.outcome import Round
from baccarat.profiles import TableConfig
from baccarat.proofdoc import refs_for
from baccarat.rules import ShoeRules
from baccarat.validation import AcceptedRound
from baccarat_api.ids import RoundRef, parse_round_id
from baccarat_api.ports.beacon import BeaconSource
from baccarat_api.ports.book import Slip
from baccarat_api.ports.documents import FactsDoc, LastRound, LockDoc, Replaced, RoundLock, Void
from baccarat_api.ports.records import OPEN, LiveRecord, ProofRecord, RoundRecord, ShoeRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.ports.writes import Emit
from baccarat_api.service import book_lock, book_presence, settle_chunks
from baccarat_api.service.after_round import after_resolution
from baccarat_api.service.audit import record_hash
from baccarat_api.service.bets import DealBets
from baccarat_api.service.book_lock import Sealed
from baccarat_api.service.dealing import Deal, recent_after, round_record, shoe_after
from baccarat_api.service.events import Change, emit, settled_event
from baccarat_api.service.reveals import live_squeeze
from baccarat_api.service.tables import shoe_ended_change
from baccarat_api.service.v2_rounds import locked, remaining, with_drawn
from baccarat_api.service.writeids import write_id

#: What a ``draw`` step did: dealt or voided; nothing (the round is no longer locked); the
#: beacon is not there yet (try again later); the write lost a race (read and decide again).
DrawOutcome = Literal["done", "stale", "wait", "again"]
BEACON_UNAVAILABLE = "beacon_unavailable"


def draw(
    repo: Repository,
    shoes: ShoeSource,
    beacon: BeaconSource | None,
    operator_id: str,
    round_id: str,
) -> DrawOutcome:
    """Draw the locked round ``round_id`` if its beacon is there, void it if its wait is over,
    else ``"wait"``."""
    ref = parse_round_id(round_id)
    if ref is None:
        return "stale"
    snap = repo.load(operator_id, shoe=ref.shoe, live=ref.table_id)
    shoe, live = snap.shoe, snap.live
    lock = locked(shoe)
    if shoe is None or lock is None or lock["round_number"] != ref.round_number:
        return "stale"
    got = verified_beacon(beacon, shoe, lock["beacon_round"])
    at = repo.clock()
    if got is None and at < lock["void_at"]:
        return "wait"
    book = _locked_book(repo, operator_id, round_id, lock)
    if got is not None:
        record, after, proof, ev, sealed = _drawn(shoes, shoe, live, lock, got, at, book)
    else:
        record, after, ev, sealed = _voided(shoe, live, lock, shoes, at, book)
        proof = None
    if sealed is not None:  # before the draw's write: the same bytes if it is retried
        repo.chunks.put_leaves(operator_id, round_id, sealed.leaves)
    try:
        repo.record_round(shoe, after, record, proof, None, ev)
    except (ConditionFailed, OutcomeUnknown):
        current = repo.get_round(operator_id, ref)
        return "done" if current is not None and current.write_id == record.write_id else "again"
    if record.void is not None and record.book is not None:  # every stake back, slip by slip
        settle_chunks.start(repo, record)
        book_presence.after_resolution(repo, record, ev)
    return "done"


#: A book table's locked book as the draw reads it again: its slips and shards.
_Book = tuple[list[Slip], int]


def _locked_book(repo: Repository, operator_id: str, round_id: str, lock: LockDoc) -> _Book | None:
    """A book table's round: the book its lock locked, read again — it cannot change (locked),
    and its root must be the one the lock put into ``book_root``."""
    kept = lock.get("book")
    if kept is None:
        return None
    slips = book_lock.window_slips(repo, operator_id, round_id, kept["opened_at"])
    if book_lock.spectators_root(round_id, slips).hex() != kept["root"]:
        raise ValueError(f"{round_id}: the locked book is not the book its lock sealed")
    return slips, kept["shards"]


def _seal(
    config: TableConfig, rnd: Round | None, round_id: str, book: _Book | None
) -> Sealed | None:
    """The locked book sealed on the drawn cards (``None``: every stake returned)."""
    return None if book is None else book_lock.seal(config, rnd, round_id, book[0], book[1])


def verified_beacon(
    source: BeaconSource | None, shoe: ShoeRecord, beacon_round: int
) -> Beacon | None:
    """Beacon round ``beacon_round``, verified (by the source's adapter, before it answers),
    from the deployment's source — only if it is the shoe's own chain (a table never changes
    beacon). The draw's and a beacon void's later price's one way to a beacon."""
    assert shoe.beacon is not None
    if source is None or source.chain.chain_hash != shoe.beacon["chain_hash"]:
        return None
    return source.get(beacon_round)


def _round_lock(lock: LockDoc) -> RoundLock:
    return {"locked_at": lock["locked_at"], "book_root": lock["book_root"],
            "beacon_round": lock["beacon_round"]}  # fmt: skip


def _drawn(
    shoes: ShoeSource, shoe: ShoeRecord, live: LiveRecord | None, lock: LockDoc, got: Beacon,
    at: str, book: _Book | None,
) -> tuple[RoundRecord, ShoeRecord, ProofRecord | None, Emit, Sealed | None]:  # fmt: skip
    """The round dealt with ``got``: its record, the shoe after it (and its proof record when
    the round ends it), its events, its book sealed on its cards."""
    assert shoe.v2 is not None and shoe.beacon is not None
    rules = ShoeRules.from_dict(shoe.rules)
    derived = shoes.get(shoe)
    key = shoe_key(derived.secret, client_hash(shoe.client_seed), shoe.shoe_number, rules)
    beacon = BeaconDraw(bytes.fromhex(shoe.beacon["chain_hash"]), got.round, got.signature)
    number = lock["round_number"]
    k_r = round_key(key, number, bytes.fromhex(lock["book_root"]), beacon)
    left = remaining(shoe.v2["drawn"], rules.size)
    before = set(left)
    d = draw_round(k_r, left, number, shoe.cursor, burn=bool(rules.burn) and shoe.cursor == 0)
    end = ShoeEnd(rules, cut_index_of(key, rules), shoe.v2["dealt"], shoe.v2["last_due"])
    last = end.after(d.round)
    config = TableConfig.from_dict(shoe.config)
    given = DealBets(lock["bets"], lock["player_banker"])
    accepted, pb = _accepted(given)
    table = live or LiveRecord(shoe.operator_id, shoe.table_id)
    round_id = RoundRef(shoe.table_id, shoe.shoe_number, number).round_id
    sealed = _seal(config, d.round, round_id, book)
    deal = Deal(
        shoe.operator_id, shoe, live, table, config, lock["from_book"], lock["request_digest"],
        d.round, last, given, accepted, pb, sealed, _round_lock(lock),
        {"round": got.round, "signature": got.signature.hex()},
    )  # fmt: skip
    record = round_record(deal, shoes, lock["idle_out"], None, at)
    after, proof = shoe_after(deal, record, derived.secret)
    v2 = {"drawn": with_drawn(shoe.v2["drawn"], before - set(left)), "dealt": end.dealt,
          "last_due": end.last_due, "locked": None}  # fmt: skip
    after = replace(after, v2=cast(Any, v2))
    return record, after, proof, _dealt_events(deal, record, after), sealed


def _accepted(given: DealBets) -> tuple[AcceptedRound, Any]:
    """The bets the lock accepted (validated then, all or nothing) as the core's objects."""
    bets, pb = given.objects()
    return AcceptedRound(tuple(bets), MappingProxyType({}), 0), pb


def _dealt_events(deal: Deal, record: RoundRecord, after: ShoeRecord) -> Emit:
    """``round_dealt`` (with the beacon), ``round_settled`` (nobody bet), ``shoe_ended``; the
    latest round no longer locked, its squeeze started at this draw."""
    nobody = record.settled_at is not None
    dealt: dict[str, Any] = {
        "round_id": record.round_id, "shoe_id": deal.shoe.shoe_id,
        "round_number": record.round_number, "bettors": len(deal.bettors),
        "bets": len(record.bets), "beacon": record.beacon,
    }  # fmt: skip
    if record.book is not None:  # the book its lock committed to, as a v1 deal reports it
        dealt["book"] = {"root": record.book["root"], "count": record.book["count"]}
    events: list[Change] = [("round_dealt", dealt)]
    if nobody:
        events.append(settled_event(record, False))
    if deal.last:
        events.append(shoe_ended_change(after))
    moved: dict[str, Any] = {"squeeze": live_squeeze(record)}
    if deal.last:
        moved["open_shoe_id"] = None
    last = deal.table.last_round
    if last is not None and last["round_id"] == record.round_id:
        moved["last_round"] = _unlocked(last, nobody)
    return emit(
        deal.live,
        record.operator_id,
        record.table_id,
        record.dealt_at,
        events,
        **moved,
        shows=(record, after),  # round_dealt carries what the table shows (SHOWN)
    )


def _unlocked(last: LastRound, resolved: bool) -> LastRound:
    out = {k: v for k, v in last.items() if k not in ("draw_at", "void_at")}
    return cast(LastRound, {**out, "resolved": resolved})


def _voided(
    shoe: ShoeRecord, live: LiveRecord | None, lock: LockDoc, shoes: ShoeSource, at: str,
    book: _Book | None,
) -> tuple[RoundRecord, ShoeRecord, Emit, Sealed | None]:  # fmt: skip
    """The round voided ``beacon_unavailable``: its item with its lock and bets and no card
    (nothing was drawn), its book's every stake returned, the shoe with its round counted and
    its cards unchanged."""
    config = TableConfig.from_dict(shoe.config)
    ref = RoundRef(shoe.table_id, shoe.shoe_number, lock["round_number"])
    sealed = _seal(config, None, ref.round_id, book)
    given = DealBets(lock["bets"], lock["player_banker"])
    bets, pb = given.locked_bets(refs_for(shoes.ref_key(shoe), shoe.table_id))
    wid = write_id(shoe.operator_id, BEACON_UNAVAILABLE, ref.round_id, None, None, shoe.version)
    record = RoundRecord(
        operator_id=shoe.operator_id, table_id=shoe.table_id, shoe_number=shoe.shoe_number,
        round_number=ref.round_number, facts=cast(FactsDoc, {}), config=shoe.config, bets=bets,
        player_banker=pb, squeeze=None, shoe_status=OPEN, previous_bettors=shoe.recent_bettors,
        created_at=lock["locked_at"], void_window_seconds=shoe.void_window_seconds,
        request_digest=lock["request_digest"], prev_hash=shoe.chain_head, lock=_round_lock(lock),
        book=None if sealed is None else sealed.doc, write_id=wid, resolve_write_id=wid,
    )  # fmt: skip
    record = replace(record, round_hash=record_hash(record))
    void: Void = {"reason": BEACON_UNAVAILABLE, "note": None, "voided_at": at,
                  "replaced": cast(Replaced, {"nets": {}, "house_take": 0})}  # fmt: skip
    record = replace(record, void=void, settlement_hash=settlement_hash(record.round_hash, void))
    bettors = list(dict.fromkeys(b["bettor_id"] for b in bets))
    assert shoe.v2 is not None
    after = replace(
        shoe,
        rounds_dealt=ref.round_number,
        version=shoe.version + 1,
        recent_bettors=recent_after(shoe.recent_bettors, config, bettors),
        chain_head=record.round_hash,
        v2={**shoe.v2, "locked": None},
    )
    data = {"round_id": ref.round_id, "reason": BEACON_UNAVAILABLE, "nets": None,
            "house_take": None, "beacon_round": lock["beacon_round"]}  # fmt: skip
    removed, moved = after_resolution(config, live, record, voided=True)
    if "last_round" in moved:
        moved["last_round"] = _unlocked(moved["last_round"], True)
    ev = emit(
        live, shoe.operator_id, shoe.table_id, at, [("round_voided", data), *removed], **moved
    )
    return record, after, ev, sealed
