"""deal-and-resolve: deal the next round of a shoe, with its bets.

Bets exist before cards: a deal carries the round's bets (``[]``: nobody bets), validated
all-or-nothing and locked with the round, and the money they come to is computed right there
(:mod:`.money`) and stored with the cards — so no money can be attached to, or changed on, a
round once its cards exist. A round nobody bet on is settled at its deal (no lines).

Round trips (DynamoDB): GetItem shoe + ONE TransactWriteItems (put the round if new; move the
shoe's cursor and version if unchanged since the read; when the round ends the shoe, also free the
table and publish the proof) = 2. Two concurrent deals read the same version: one transaction
wins, the other fails its condition and answers 409 ``concurrent_update`` (retryable) — no card
is dealt twice and none is skipped. KMS: one Decrypt of the shoe's secret and one of the table's
ref key when this container has not opened them yet, else none.

The same transaction extends the table's bacc-audit-v1 chain (the round's ``prev_hash`` is the
shoe's head, which moves to the round's hash; :mod:`.audit`) and, when bets are locked, puts the
round in the DueRounds index with its ``settle_by`` time (:mod:`.auto_settle`). With an
``Idempotency-Key`` — or a ``round_number`` — the read is one BatchGetItem (shoe + the key's
record / that round) and the transaction also puts the record (naming the round, not copying
it): still 2; a replay is 2 — the record with the shoe, then the round it names (1 when the
request names its round_number: read in the same BatchGetItem) — :mod:`.idempotency`.

A deal whose transaction lost its conditions, or whose outcome is unknown (a timeout after
botocore's retries), re-reads the round it wrote (one GetItem): if its write id is there
(:mod:`.writeids`), it was dealt, and the answer is that round — with or without a key."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from typing import Any

from baccarat.audit import settlement_hash
from baccarat.bets import Bet
from baccarat.outcome import Round
from baccarat.profiles import TableConfig
from baccarat.proofdoc import refs_for, replaced
from baccarat.squeeze import reveal_plan, squeeze_rights
from baccarat.validation import BetRefused, validate_bets
from baccarat_api import limits
from baccarat_api.clock import seconds_after
from baccarat_api.ids import RoundRef, parse_round_id, parse_shoe_id
from baccarat_api.ports.records import ENDED, OPEN, LiveRecord, RoundRecord, ShoeRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.service import betting, idempotency
from baccarat_api.service.audit import record_hash
from baccarat_api.service.bets import BetsIn, as_locked, refused
from baccarat_api.service.common import digest
from baccarat_api.service.errors import DomainError, lost_race, not_found
from baccarat_api.service.events import Change, LiveMoved, emit, retrying, settled_event
from baccarat_api.service.idempotency import IdempotencyRequest, Replayed
from baccarat_api.service.models import DealRequest, RoundOut
from baccarat_api.service.money import round_money, with_refs
from baccarat_api.service.reveals import live_squeeze, squeeze_seconds
from baccarat_api.service.tables import end_shoe, shoe_ended
from baccarat_api.service.views import round_view
from baccarat_api.service.writeids import write_id


def _bettors(bets: list[Bet]) -> list[str]:
    return list(dict.fromkeys(b.bettor_id for b in bets))


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
        assert found is not None, (
            f"the idempotency record names a round that is not there: {round_id}"
        )
        return round_view(found)

    idempotency.replay(snap.idempotency, idem, render)
    if snap.shoe is None:
        raise not_found("shoe", shoe_id)
    return snap.shoe, snap.round, snap.live


def _expected(
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
) -> RoundOut:
    """Deal the shoe's next round with the request's bets (and player-banker), validated and
    locked with it; their money is computed now and stored with the round. Reports
    ``round_dealt`` (and ``round_settled`` for a round nobody bet on, ``shoe_ended`` for the
    shoe's last round). ``window`` (the sweep's): a from-book deal of the window opened at that
    time only (409 ``no_betting_window`` once another waits)."""
    return retrying(lambda: _deal_round(repo, shoes, operator_id, shoe_id, request, idem, window))


def _deal_round(
    repo: Repository,
    shoes: ShoeSource,
    operator_id: str,
    shoe_id: str,
    request: DealRequest,
    idem: IdempotencyRequest | None,
    window: str | None = None,
) -> RoundOut:
    request.bets_or_book()
    shoe, found, live = _read(repo, operator_id, shoe_id, request.round_number, idem)
    seq = 0 if live is None else live.seq
    table = live or LiveRecord(operator_id, shoe.table_id)
    if request.from_book:
        # a from-book deal is named by its round (each round is dealt once): retried with its
        # round_number, it is that round again, even once the next window is open
        named = request.round_number or shoe.rounds_dealt + 1
        request_digest = digest({"from_book": True, "shoe_id": shoe.shoe_id, "round": named})
    else:
        given = BetsIn.of(request.bets, request.player_banker)
        request_digest = digest({"bets": given.bets or [], "player_banker": given.player_banker})
    _expected(shoe, request.round_number, found, request_digest)
    if shoe.status == ENDED:
        raise DomainError("shoe_ended", f"shoe {shoe_id} has ended; commit a new shoe")
    rnd, last, secret = _round_of(shoe, shoes)
    number = rnd.number
    ref = RoundRef(shoe.table_id, shoe.shoe_number, number)

    config = TableConfig.from_dict(shoe.config)
    if request.from_book:
        waiting = betting.book_window(table, shoe.shoe_id, number)
        if window is not None and waiting["opened_at"] != window:
            raise DomainError(
                "no_betting_window",
                f"the window of round {number} opened at {window} no longer waits",
                details={"round_number": number},
            )
        betting.check_company(config, table, "a round is dealt from the book")
        book = betting.book_bets(table)
        given = BetsIn(book, betting.book_banker(config, table, book))
    else:  # the seeds' rules hold for an explicit deal as for the book's (issue 23 item 11)
        betting.explicit_deal_allowed(table, shoe.shoe_id, repo.clock())
        betting.previous_resolved(table)
        betting.check_company(config, table, "a round is dealt")
    bet_objects, pb = given.objects()
    betting_now = {b.bettor_id for b in bet_objects}
    # "an empty table" is judged by presence: a seated bettor sitting this round out still sits
    seated = [w["bettor_id"] for w in table.seats.values() if w["bettor_id"] not in betting_now]
    try:
        accepted = validate_bets(config, bet_objects, number, pb, seated_present=seated)
    except BetRefused as exc:
        raise refused(exc) from None
    refs = refs_for(shoes.ref_key(shoe), shoe.table_id)
    bets, player_banker = with_refs(as_locked(given.bets or []), given.player_banker, refs)
    pb_id = None if pb is None else pb.bettor_id
    rights = squeeze_rights(config.profile.name, accepted.bets, player_banker_id=pb_id)
    bettors = _bettors(list(accepted.bets))
    idle = betting.idle_seats(config, table, bettors)
    idle_out = [table.seats[s]["bettor_id"] for s in idle[1]] if table.seats else None
    money = round_money(ref, config, rnd, accepted.bets, pb, shoe.recent_bettors, refs, idle_out)

    dealt_at = repo.clock()
    nobody = not accepted.bets  # a round nobody bet on is settled at its deal, with no lines
    record = RoundRecord(
        operator_id=operator_id,
        table_id=shoe.table_id,
        shoe_number=shoe.shoe_number,
        round_number=number,
        facts=rnd.facts(),
        config=shoe.config,
        bets=bets,
        player_banker=player_banker,
        squeeze={
            **reveal_plan(rnd, rights, squeezed=squeeze_seconds(shoe) > 0).as_dict(),
            "squeeze_seconds": squeeze_seconds(shoe),
        },
        shoe_status=ENDED if last else OPEN,
        previous_bettors=shoe.recent_bettors,
        created_at=dealt_at,
        money=money,
        # locked bets are settled by the deadline, or by the auto-settlement sweep after it
        settle_by=None if nobody else seconds_after(dealt_at, shoe.settle_deadline_seconds),
        void_window_seconds=shoe.void_window_seconds,
        request_digest=request_digest,
        prev_hash=shoe.chain_head,
        write_id=write_id(operator_id, "deal", shoe_id, request_digest, idem, [shoe.version, seq]),
    )
    record = replace(record, round_hash=record_hash(record))
    if nobody:
        record = _settled_at_deal(record)
    _check_budget(record)
    after = _moved(shoe, rnd, config, bettors, record.round_hash)
    # idle from this deal on: the sweep closes the shoe once nothing is dealt for this long
    after = replace(after, close_by=seconds_after(dealt_at, shoe.idle_shoe_close_seconds))
    proof = None
    if last:
        after, proof = end_shoe(
            replace(after, version=shoe.version), secret, "rules", record.write_id, repo.clock()
        )
    before, removed, moved = betting.after_deal(
        config,
        table,
        round_id=ref.round_id,
        shoe_id=shoe.shoe_id,
        round_number=number,
        bets=bets,
        resolved=nobody,
        from_book=request.from_book,
        idle=idle,
    )
    reported: list[Change] = [
        *before,
        (
            "round_dealt",
            {
                "round_id": ref.round_id,
                "shoe_id": shoe.shoe_id,
                "round_number": number,
                "bettors": len(bettors),
                "bets": len(bets),
            },
        ),
    ]
    if nobody:
        reported.append(settled_event(record, False))
    if last:
        reported.append(shoe_ended(after))
    ev = emit(
        live,
        operator_id,
        shoe.table_id,
        dealt_at,
        [*reported, *removed],
        **moved,
        squeeze=live_squeeze(record),
        **({"open_shoe_id": None} if last else {}),
    )
    try:
        repo.record_round(
            shoe,
            after,
            record,
            proof,
            idempotency.record(repo.clock(), idem, operator_id, round_id=ref.round_id),
            ev,
        )
    except (ConditionFailed, OutcomeUnknown) as exc:
        current = repo.get_round(operator_id, ref)
        if current is not None and current.write_id == record.write_id:
            return RoundOut.model_validate(round_view(current))  # it was dealt: a lost answer
        if isinstance(exc, OutcomeUnknown):
            raise
        idempotency.check_duplicate(exc)
        if current is None:
            raise LiveMoved from None  # the round is not dealt: another change at the table
        raise lost_race() from None
    return RoundOut.model_validate(round_view(record))


def stored_bytes(record: RoundRecord) -> int:
    """At most the bytes of ``record``'s item at its largest — voided, with the longest note:
    every field's name and JSON (what the codec stores, a little more), the void added
    (its ``replaced`` nets and house take, reason, time, note of
    :data:`~baccarat_api.limits.MAX_VOID_NOTE_LENGTH` characters of up to 4 bytes), and 512
    bytes for the key and index attributes."""
    fields = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    size = sum(len(name) + limits.json_bytes(value) for name, value in fields.items())
    void = {"reason": "technical_fault", "note": "x" * 4 * limits.MAX_VOID_NOTE_LENGTH,
            "voided_at": record.created_at, "replaced": replaced(record.money) if record.money
            else {}}  # fmt: skip
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


def _settled_at_deal(record: RoundRecord) -> RoundRecord:
    """A round nobody bet on: settled (no lines) the moment it is dealt."""
    settled = replace(record, settled_at=record.created_at)
    assert settled.settlement is not None
    return replace(settled, settlement_hash=settlement_hash(record.round_hash, settled.settlement))


def _moved(
    shoe: ShoeRecord, rnd: Round, config: TableConfig, bettors: list[str], head: str
) -> ShoeRecord:
    """The shoe after dealing ``rnd``: cursor, version, roads' results, recent bettors, head."""
    recent = shoe.recent_bettors
    limit = config.profile.idle_round_limit
    if limit is not None:
        recent = [*recent, bettors][-2 * limit :]
    result: dict[str, Any] = {
        "result": rnd.result.value,
        "player_total": rnd.player_total,
        "banker_total": rnd.banker_total,
        "player_pair": rnd.player_pair,
        "banker_pair": rnd.banker_pair,
    }
    return replace(
        shoe,
        rounds_dealt=rnd.number,
        cursor=rnd.end,
        version=shoe.version + 1,
        results=[*shoe.results, result],
        recent_bettors=recent,
        chain_head=head,
    )
