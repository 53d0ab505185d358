"""Deal the next round of a shoe, with its bets.

Bets exist before cards: a deal carries the round's bets (``[]``: nobody bets), validated
all-or-nothing and locked with the round, and their money (:mod:`.money`) is computed and stored
with the cards — no money is attached to, or changed on, a round once its cards exist. A round
nobody bet on is settled at its deal.

One read and ONE TransactWriteItems (of two concurrent deals one wins, the other answers 409
``concurrent_update``). A deal whose write lost or timed out re-reads its round: its write id
there means it was dealt (:mod:`.writeids`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from typing import Any, cast

from baccarat.audit import settlement_hash
from baccarat.bets import PlayerBanker
from baccarat.outcome import Round
from baccarat.profiles import TableConfig
from baccarat.proofdoc import refs_for, replaced_amounts
from baccarat.squeeze import reveal_plan, squeeze_rights
from baccarat.validation import AcceptedRound
from baccarat_api import limits
from baccarat_api.clock import seconds_after
from baccarat_api.ids import RoundRef, parse_round_id, parse_shoe_id
from baccarat_api.ports.documents import RoadResult, RoundBeacon, RoundLock, SqueezePlan
from baccarat_api.ports.records import (
    ENDED,
    OPEN,
    LiveRecord,
    ProofRecord,
    RoundRecord,
    ShoeRecord,
)
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.ports.writes import Emit
from baccarat_api.service import after_round, book_lock, idempotency, locking
from baccarat_api.service.audit import record_hash
from baccarat_api.service.bets import DealBets
from baccarat_api.service.book_lock import Sealed
from baccarat_api.service.common import digest
from baccarat_api.service.deal_inputs import accepted_bets, bets_of, present
from baccarat_api.service.errors import DomainError, lost_race, not_found
from baccarat_api.service.events import (
    Change,
    LiveMoved,
    complete,
    emit,
    retrying,
    settled_event,
)
from baccarat_api.service.idempotency import IdempotencyRequest, Replayed
from baccarat_api.service.models import DealRequest, LockedRoundOut, RoundOut
from baccarat_api.service.money import round_money
from baccarat_api.service.reveals import live_squeeze, squeeze_seconds
from baccarat_api.service.tables import end_shoe, shoe_ended_change
from baccarat_api.service.v2_rounds import locked, locked_view
from baccarat_api.service.views import round_view
from baccarat_api.service.writeids import write_id


def _read(
    repo: Repository,
    operator_id: str,
    shoe_id: str,
    round_number: int | None,
    idem: IdempotencyRequest | None,
) -> tuple[ShoeRecord, RoundRecord | None, LiveRecord | None]:
    """The shoe, the table's live state and, when the request names a round number, that
    round: one round trip. A live Idempotency-Key record replays the round it names (read with
    the shoe when the request named it, else one more GetItem)."""
    ref = parse_shoe_id(shoe_id)
    if ref is None:
        raise not_found("shoe", shoe_id)
    wanted = None if round_number is None else RoundRef(ref.table_id, ref.shoe_number, round_number)
    snap = repo.load(
        operator_id,
        shoe=ref,
        round_=wanted,
        idem_key=None if idem is None else idem.key_hash,
        live=ref.table_id,
    )

    def render(round_id: str) -> dict[str, Any]:
        found = snap.round
        if found is None or found.round_id != round_id:
            named = parse_round_id(round_id)
            assert named is not None
            found = repo.get_round(operator_id, named)
        held = locked(snap.shoe)
        if found is None and held is not None and snap.shoe is not None:
            return locked_view(snap.shoe, held)  # a bacc-pf-v2 lock, not drawn yet
        assert found is not None, (
            f"the idempotency record names a round that is not there: {round_id}"
        )
        return round_view(found)

    idempotency.replay(snap.idempotency, idem, render)
    if snap.shoe is None:
        raise not_found("shoe", shoe_id)
    return snap.shoe, snap.round, snap.live


def _check_round_number(
    shoe: ShoeRecord, asked: int | None, found: RoundRecord | None, request_digest: str
) -> None:
    """A deal naming its ``round_number``: the next round, or that round dealt with exactly
    this request (answered again, as a replay); anything else is refused."""
    number = shoe.rounds_dealt + 1
    if asked is None or asked == number:
        return
    if found is not None and found.request_digest == request_digest:
        raise Replayed(201, round_view(found))
    if shoe.status == ENDED:
        return  # shoe_ended says it better
    raise DomainError(
        "round_mismatch",
        f"round {asked} is not the next round of shoe {shoe.shoe_id} (the next is {number})"
        + ("" if found is None else " and it was dealt with other bets"),
        details={"round_number": asked, "next_round_number": number},
    )


def _round_of(shoe: ShoeRecord, shoes: ShoeSource) -> tuple[Round, bool, bytes]:
    """The shoe's next round, whether it ends the shoe, and the shoe's secret."""
    derived = shoes.get(shoe)
    number = shoe.rounds_dealt + 1
    if number > len(derived.shoe.rounds):
        raise RuntimeError(f"shoe {shoe.shoe_id} is open with every round dealt")
    rnd = derived.shoe.rounds[number - 1]
    if rnd.start != shoe.cursor:
        raise RuntimeError(
            f"shoe {shoe.shoe_id}: cursor {shoe.cursor} but round starts {rnd.start}"
        )
    return rnd, number == len(derived.shoe.rounds), derived.secret


def deal_round(
    repo: Repository,
    shoes: ShoeSource,
    operator_id: str,
    shoe_id: str,
    request: DealRequest,
    idem: IdempotencyRequest | None = None,
    window: str | None = None,
) -> RoundOut | LockedRoundOut:
    """Deal the shoe's next round with the request's bets (and player-banker), validated and
    locked with it; their money is computed now and stored with the round. Reports
    ``round_dealt`` (and ``round_settled`` for a round nobody bet on, ``shoe_ended`` for the
    shoe's last round). ``window`` (the sweep's): a from-book deal of the window opened at that
    time only (409 ``no_betting_window`` once another waits). At a bacc-pf-v2 table the round
    is locked instead (:mod:`.locking`: 202, its cards drawn by its ``draw`` step)."""
    return retrying(lambda: _deal_round(repo, shoes, operator_id, shoe_id, request, idem, window))


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal as read and decided: the shoe and the table's live state it read, the round it
    deals, and the bets it locks (validated, with the core's objects for the money)."""

    operator_id: str
    shoe: ShoeRecord
    live: LiveRecord | None
    #: the live state (an empty one before the table's first event)
    table: LiveRecord
    config: TableConfig
    from_book: bool
    request_digest: str
    rnd: Round
    #: the round ends the shoe
    last: bool
    bets: DealBets
    accepted: AcceptedRound
    player_banker: PlayerBanker | None
    #: A book table's window: its locked book of spectators' slips, sealed (else ``None``).
    book: Sealed | None = None
    #: A bacc-pf-v2 round (drawn by :mod:`.drawing`): its lock and the beacon that drew it.
    lock: RoundLock | None = None
    beacon: RoundBeacon | None = None

    @property
    def ref(self) -> RoundRef:
        return RoundRef(self.shoe.table_id, self.shoe.shoe_number, self.rnd.number)

    @property
    def seq(self) -> int:
        return 0 if self.live is None else self.live.seq

    @property
    def bettors(self) -> list[str]:
        """Who bets in the round, in the order of their first bet."""
        return list(dict.fromkeys(b.bettor_id for b in self.accepted.bets))


def _deal_round(
    repo: Repository,
    shoes: ShoeSource,
    operator_id: str,
    shoe_id: str,
    request: DealRequest,
    idem: IdempotencyRequest | None,
    window: str | None = None,
) -> RoundOut | LockedRoundOut:
    request.bets_or_book()
    shoe, found, live = _read(repo, operator_id, shoe_id, request.round_number, idem)
    table = live or LiveRecord(operator_id, shoe.table_id)
    # the request's bets, validated by the contract: ONE value from here to the stored round
    asked = None if request.from_book else DealBets.of(request.bets, request.player_banker)
    request_digest = _request_digest(asked, request.round_number, shoe)
    _check_round_number(shoe, request.round_number, found, request_digest)
    if shoe.status == ENDED:
        raise DomainError("shoe_ended", f"shoe {shoe_id} has ended; commit a new shoe")
    if shoe.v2 is not None:  # bacc-pf-v2: the bets are locked now, the cards drawn later
        return locking.lock_round(repo, shoes, shoe, live, asked, request_digest, idem, window)
    rnd, last, secret = _round_of(shoe, shoes)
    at = repo.clock()
    config = TableConfig.from_dict(shoe.config)
    given = bets_of(asked, config, table, shoe.shoe_id, rnd.number, window, at)
    accepted, pb = accepted_bets(config, present(table, given), given, rnd.number)
    sealed = book_lock.sealed_book(repo, request.from_book, table, config, rnd, at)
    deal = Deal(
        operator_id, shoe, live, table, config, request.from_book, request_digest, rnd, last,
        given, accepted, pb, sealed,
    )  # fmt: skip
    idle = after_round.idle_seats(config, table, deal.bettors)
    record = round_record(deal, shoes, idle_names(table, idle), idem, at)
    if sealed is not None:  # before the deal's write: the same bytes if it is retried
        repo.chunks.put_leaves(operator_id, record.round_id, sealed.leaves)
    after, proof = shoe_after(deal, record, secret)
    ev = complete(repo, _deal_events(deal, record, after, idle))
    try:
        repo.record_round(
            shoe,
            after,
            record,
            proof,
            idempotency.record(repo.clock(), idem, operator_id, round_id=record.round_id),
            ev,
        )
    except (ConditionFailed, OutcomeUnknown) as exc:
        return _answer_after_lost_write(repo, record, exc)
    return RoundOut.model_validate(round_view(record))


def _request_digest(asked: DealBets | None, round_number: int | None, shoe: ShoeRecord) -> str:
    """What names the deal's request: the bets and player-banker ``asked``, or — a from-book
    deal (``None``), named by its round (each round is dealt once): retried with its
    round_number, it is that round again, even once the next window is open — the round."""
    if asked is None:
        named = round_number or shoe.rounds_dealt + 1
        return digest({"from_book": True, "shoe_id": shoe.shoe_id, "round": named})
    return digest({"bets": asked.bets or [], "player_banker": asked.player_banker})


def idle_names(table: LiveRecord, idle: tuple[dict[str, int], list[str]]) -> list[str] | None:
    """The bettors of the seats a deal vacates for idleness (``None``: nobody is seated)."""
    return [table.seats[s]["bettor_id"] for s in idle[1]] if table.seats else None


def round_record(
    deal: Deal, shoes: ShoeSource, idle_out: list[str] | None,
    idem: IdempotencyRequest | None, dealt_at: str,
) -> RoundRecord:  # fmt: skip
    """The round as dealt: cards, locked bets, their money, its squeeze plan, its place in the
    audit chain — settled at once if nobody bet; refused if its item could outgrow its budget."""
    shoe, rnd = deal.shoe, deal.rnd
    refs = refs_for(shoes.ref_key(shoe), shoe.table_id)
    bets, player_banker = deal.bets.locked_bets(refs)
    pb_id = None if deal.player_banker is None else deal.player_banker.bettor_id
    rights = squeeze_rights(deal.config.profile.name, deal.accepted.bets, player_banker_id=pb_id)
    money = round_money(
        deal.ref, deal.config, rnd, deal.accepted.bets, deal.player_banker, shoe.recent_bettors,
        refs, idle_out,
    )  # fmt: skip
    book = None if deal.book is None else deal.book.doc
    # a round nobody bet on (no bet, an empty book) is settled at its deal, no lines
    nobody = not deal.accepted.bets and (book is None or book["count"] == 0)
    plan = reveal_plan(rnd, rights, squeezed=squeeze_seconds(shoe) > 0).as_dict()
    record = RoundRecord(
        operator_id=deal.operator_id,
        table_id=shoe.table_id,
        shoe_number=shoe.shoe_number,
        round_number=rnd.number,
        facts=rnd.facts(),
        config=shoe.config,
        bets=bets,
        player_banker=player_banker,
        squeeze=cast(SqueezePlan, {**plan, "squeeze_seconds": squeeze_seconds(shoe)}),
        shoe_status=ENDED if deal.last else OPEN,
        previous_bettors=shoe.recent_bettors,
        created_at=dealt_at,
        money=money,
        # locked bets are settled by the deadline, or by the auto-settlement sweep after it
        settle_by=None if nobody else seconds_after(dealt_at, shoe.settle_deadline_seconds),
        void_window_seconds=shoe.void_window_seconds,
        request_digest=deal.request_digest,
        prev_hash=shoe.chain_head,
        book=book,
        lock=deal.lock,
        beacon=deal.beacon,
        write_id=write_id(
            deal.operator_id,
            "deal",
            shoe.shoe_id,
            deal.request_digest,
            idem,
            [shoe.version, deal.seq],
        ),
    )
    record = replace(record, round_hash=record_hash(record))
    if nobody:
        record = _with_settlement_at_deal(record)
    _check_budget(record)
    return record


def shoe_after(
    deal: Deal, record: RoundRecord, secret: bytes
) -> tuple[ShoeRecord, ProofRecord | None]:
    """The shoe after the deal, idle from it on (the sweep closes the shoe once nothing is dealt
    for its idle time), and — the shoe's last round — ended, with its proof."""
    shoe = deal.shoe
    after = _shoe_after_round(shoe, deal.rnd, deal.config, deal.bettors, record.round_hash)
    after = replace(after, close_by=seconds_after(record.dealt_at, shoe.idle_shoe_close_seconds))
    if not deal.last:
        return after, None
    return end_shoe(
        replace(after, version=shoe.version), secret, "rules", record.write_id, record.dealt_at
    )


def _deal_events(
    deal: Deal, record: RoundRecord, after: ShoeRecord, idle: tuple[dict[str, int], list[str]]
) -> Emit:
    """The deal's events (``betting_closed``, ``round_dealt``, ``round_settled`` for a round
    nobody bet on, ``shoe_ended``, idle seats vacated) and the live state they leave."""
    ref, shoe = deal.ref, deal.shoe
    nobody = record.settled_at is not None
    before, removed, moved = after_round.after_deal(
        deal.config,
        deal.table,
        round_id=ref.round_id,
        shoe_id=shoe.shoe_id,
        round_number=ref.round_number,
        bets=record.bets,
        resolved=nobody,
        from_book=deal.from_book,
        idle=idle,
    )
    dealt: dict[str, Any] = {
        "round_id": ref.round_id, "shoe_id": shoe.shoe_id, "round_number": ref.round_number,
        "bettors": len(deal.bettors), "bets": len(record.bets),
    }  # fmt: skip
    if record.book is not None:  # the book's commitment, before any card is shown
        dealt["book"] = {"root": record.book["root"], "count": record.book["count"]}
    reported: list[Change] = [*before, ("round_dealt", dealt)]
    if nobody:
        reported.append(settled_event(record, False))
    if deal.last:
        reported.append(shoe_ended_change(after))
    return emit(
        deal.live,
        deal.operator_id,
        shoe.table_id,
        record.dealt_at,
        [*reported, *removed],
        **moved,
        shows=(record, after),
        squeeze=live_squeeze(record),
        **({"open_shoe_id": None} if deal.last else {}),
    )


def _answer_after_lost_write(repo: Repository, record: RoundRecord, exc: Exception) -> RoundOut:
    """A deal whose write lost its conditions or whose outcome is unknown: if the round holds
    its write id, it was dealt (the answer was lost); else the error."""
    current = repo.get_round(record.operator_id, record.ref)
    if current is not None and current.write_id == record.write_id:
        return RoundOut.model_validate(round_view(current))
    if isinstance(exc, OutcomeUnknown):
        raise exc
    assert isinstance(exc, ConditionFailed)
    idempotency.check_duplicate(exc)
    if current is None:
        raise LiveMoved from None  # the round is not dealt: another change at the table
    raise lost_race() from None


def stored_bytes(record: RoundRecord) -> int:
    """At most the bytes of ``record``'s item at its largest — voided, with the longest note:
    every field's name and JSON (what the codec stores, a little more), the void added
    (its ``replaced`` nets and house take, reason, time, note of
    :data:`~baccarat_api.limits.MAX_VOID_NOTE_LENGTH` characters of up to 4 bytes), and 512
    bytes for the key and index attributes."""
    fields = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    size = sum(len(name) + limits.json_bytes(value) for name, value in fields.items())
    void = {
        "reason": "technical_fault",
        "note": "x" * 4 * limits.MAX_VOID_NOTE_LENGTH,
        "voided_at": record.created_at,
        "replaced": replaced_amounts(record.money) if record.money else {},
    }
    return size + limits.json_bytes(void) + 512


def _check_budget(record: RoundRecord) -> None:
    """Refuse (422 ``round_too_large``, nothing stored) a round whose item could outgrow
    :data:`~baccarat_api.limits.ROUND_ITEM_BUDGET_BYTES`. The worst case of the limits
    (:func:`~baccarat_api.limits.worst_case_bytes`) is under it, so this never refuses a
    request within them; it exists for what the limits do not foresee."""
    size = stored_bytes(record)
    budget = limits.ROUND_ITEM_BUDGET_BYTES
    if size > budget:
        raise DomainError(
            "round_too_large",
            f"this round would store {size} bytes, over its budget of {budget}",
            details={"bytes": size, "budget": budget},
        )


def _with_settlement_at_deal(record: RoundRecord) -> RoundRecord:
    """A round nobody bet on: settled (no lines) the moment it is dealt."""
    settled = replace(record, settled_at=record.created_at)
    assert settled.settlement is not None
    return replace(settled, settlement_hash=settlement_hash(record.round_hash, settled.settlement))


def _shoe_after_round(
    shoe: ShoeRecord, rnd: Round, config: TableConfig, bettors: list[str], head: str
) -> ShoeRecord:
    """The shoe after dealing ``rnd``: cursor, version, roads' results, recent bettors, head."""
    recent = recent_after(shoe.recent_bettors, config, bettors)
    result: RoadResult = {
        "result": rnd.result.value,
        "player_total": rnd.player_total,
        "banker_total": rnd.banker_total,
        "player_pair": rnd.player_pair,
        "banker_pair": rnd.banker_pair,
    }
    if rnd.number != len(shoe.results) + 1:  # a beacon void before it: no card, no result
        result["round"] = rnd.number
    return replace(
        shoe,
        rounds_dealt=rnd.number,
        cursor=rnd.end,
        version=shoe.version + 1,
        results=[*shoe.results, result],
        recent_bettors=recent,
        chain_head=head,
    )


def recent_after(
    recent: list[list[str]], config: TableConfig, bettors: list[str]
) -> list[list[str]]:
    """The shoe's recent bettors after a round whose bettors are ``bettors`` (kept for the
    profile's idle rule only)."""
    limit = config.profile.idle_round_limit
    return recent if limit is None else [*recent, bettors][-2 * limit :]
