"""deal-and-resolve: deal the next round of a shoe.

Round trips (DynamoDB): GetItem shoe + ONE TransactWriteItems (put the round if new; move the
shoe's cursor and version if unchanged since the read; when the round ends the shoe, also free the
table and publish the proof) = 2. Two concurrent deals read the same version: one transaction
wins, the other fails its condition and answers 409 ``concurrent_update`` (retryable) — no card
is dealt twice and none is skipped. KMS: one Decrypt when this container has not derived the shoe
yet, else none.

The same transaction extends the table's bacc-audit-v1 chain (the round's ``prev_hash`` is the
shoe's head, which moves to the round's hash; :mod:`.audit`) and, when bets are locked, puts the
round in the DueRounds index with its ``settle_by`` time (:mod:`.auto_settle`). With an
``Idempotency-Key`` the read is one BatchGetItem (shoe + the key's record) and the transaction
also puts the record: still 2; a replay is 1 (:mod:`.idempotency`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baccarat.bets import Bet
from baccarat.profiles import TableConfig
from baccarat.squeeze import reveal_plan, squeeze_rights
from baccarat.validation import BetRefused, validate_bets
from baccarat_api.clock import now, seconds_after
from baccarat_api.ports.records import ENDED, OPEN, RoundRecord, ShoeRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.service import idempotency
from baccarat_api.service.audit import record_hash
from baccarat_api.service.bets import BetsIn, refused
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import DealRequest, RoundOut
from baccarat_api.service.reading import shoe_record
from baccarat_api.service.tables import end_shoe
from baccarat_api.service.views import round_view


def _bettors(bets: list[Bet]) -> list[str]:
    return list(dict.fromkeys(b.bettor_id for b in bets))


def deal_round(
    repo: Repository,
    shoes: ShoeSource,
    operator_id: str,
    shoe_id: str,
    request: DealRequest | None = None,
    idem: IdempotencyRequest | None = None,
) -> RoundOut:
    """Deal the shoe's next round; bets (and the player-banker) given are validated and locked
    with it."""
    given = BetsIn() if request is None else BetsIn.of(request.bets, request.player_banker)
    shoe = shoe_record(repo, operator_id, shoe_id, idem)
    if shoe.status == ENDED:
        raise DomainError("shoe_ended", f"shoe {shoe_id} has ended; commit a new shoe")
    derived = shoes.get(shoe)
    number = shoe.rounds_dealt + 1
    if number > len(derived.shoe.rounds):
        raise RuntimeError(f"shoe {shoe_id} is open with every round dealt")
    rnd = derived.shoe.rounds[number - 1]
    if rnd.start != shoe.cursor:
        raise RuntimeError(f"shoe {shoe_id}: cursor {shoe.cursor} but round starts {rnd.start}")

    config = TableConfig.from_dict(shoe.config)
    squeeze: dict[str, Any] | None = None
    bettors: list[str] = []
    locked = False
    bets, player_banker = given.bets, given.player_banker
    if given.given:
        bet_objects, pb = given.objects()
        try:
            accepted = validate_bets(config, bet_objects, number, pb)
        except BetRefused as exc:
            raise refused(exc) from None
        pb_id = None if pb is None else pb.bettor_id
        rights = squeeze_rights(config.profile.name, accepted.bets, player_banker_id=pb_id)
        plan = reveal_plan(rnd, rights)
        squeeze = {**rights.as_dict(), "cards": [c.as_dict() for c in plan.cards]}
        bettors = _bettors(list(accepted.bets))
        locked = bool(accepted.bets)
        if bets is None:
            bets = []

    last = number == len(derived.shoe.rounds)
    created_at = now()
    record = RoundRecord(
        operator_id=operator_id,
        table_id=shoe.table_id,
        shoe_number=shoe.shoe_number,
        round_number=number,
        facts=rnd.facts(),
        config=shoe.config,
        bets=bets,
        player_banker=player_banker,
        squeeze=squeeze,
        shoe_status=ENDED if last else OPEN,
        previous_bettors=shoe.recent_bettors,
        created_at=created_at,
        # locked bets are settled by the deadline, or by the auto-settlement sweep after it
        settle_by=seconds_after(created_at, shoe.settle_deadline_seconds) if locked else None,
        prev_hash=shoe.chain_head,
    )
    record = replace(record, round_hash=record_hash(record))
    recent = shoe.recent_bettors
    limit = config.profile.idle_round_limit
    if limit is not None:
        recent = [*recent, bettors][-2 * limit :]
    moved = replace(
        shoe,
        rounds_dealt=number,
        cursor=rnd.end,
        version=shoe.version + 1,
        results=[
            *shoe.results,
            {
                "result": rnd.result.value,
                "player_total": rnd.player_total,
                "banker_total": rnd.banker_total,
                "player_pair": rnd.player_pair,
                "banker_pair": rnd.banker_pair,
            },
        ],
        recent_bettors=recent,
        chain_head=record.round_hash,
    )
    proof = None
    after: ShoeRecord = moved
    if last:
        ended, proof = end_shoe(replace(moved, version=shoe.version), derived.secret, "rules")
        after = ended
    view = round_view(record, with_settlement=False)
    try:
        repo.record_round(shoe, after, record, proof, idempotency.record(idem, operator_id, view))
    except ConditionFailed as exc:
        idempotency.check_duplicate(exc)
        raise lost_race() from None
    return RoundOut.model_validate(view)
