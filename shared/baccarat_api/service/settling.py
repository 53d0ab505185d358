"""settle-bets: settle a round's bets, exactly once.

Round trips (DynamoDB): GetItem round + one conditional UpdateItem that stores the settlement
only if the round has none (``ReturnValuesOnConditionCheckFailure=ALL_OLD`` brings back the
winner's settlement in the same call when another request got there first) = 2; 1 when the
round is already settled. The same inputs (bets + player-banker, compared by SHA-256 of their
canonical JSON) always get the stored settlement back; other inputs get 409. A voided round is
never settled (409 ``round_voided``; :mod:`.voiding`). The auto-settlement sweep settles through
here too (``auto=True``). With an ``Idempotency-Key``: BatchGetItem (round + the key's record) +
the same transaction carrying the record = 2; a replay is 1 (:mod:`.idempotency`)."""

from __future__ import annotations

from typing import Any

from baccarat.bets import Bet, PlayerBanker
from baccarat.cards import parse_code
from baccarat.eligibility import below_minimum_after, idle_bettors
from baccarat.outcome import Round
from baccarat.profiles import TableConfig
from baccarat.settlement import settle
from baccarat.validation import BetRefused, validate_bets
from baccarat_api.clock import now
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.service import idempotency
from baccarat_api.service.bets import BetsIn, refused
from baccarat_api.service.common import digest
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import SettlementOut, SettleRequest
from baccarat_api.service.reading import round_record
from baccarat_api.service.voiding import is_void, voided


def _round_of(facts: dict[str, Any]) -> Round:
    return Round(
        number=facts["round_number"],
        start=facts["start"],
        player=tuple(parse_code(c) for c in facts["player"]["cards"]),
        banker=tuple(parse_code(c) for c in facts["banker"]["cards"]),
    )


def _conflict(r: RoundRecord) -> DomainError:
    return DomainError(
        "settlement_conflict",
        f"round {r.round_id} is already settled with other bets",
        details={"settled_at": r.settled_at},
    )


def _eligibility(
    config: TableConfig,
    r: RoundRecord,
    bets: list[Bet],
    pb: PlayerBanker | None,
    nets: dict[str, int],
) -> dict[str, Any]:
    balances = {b.bettor_id: b.balance for b in bets if b.balance is not None}
    if pb is not None:
        balances[pb.bettor_id] = pb.balance
    below = below_minimum_after(config, balances, nets, None if pb is None else pb.bettor_id)
    history = [*r.previous_bettors, list(dict.fromkeys(b.bettor_id for b in bets))]
    seen = [bettor for rnd in history for bettor in rnd]
    idle = idle_bettors(config, history, seen)
    return {
        "below_min_balance": list(below.bettors),
        "player_banker_below_min_balance": below.player_banker,
        "balances_after": dict(below.balances_after),
        "idle_bettors": list(idle),
        "idle_round_limit": config.profile.idle_round_limit,
    }


def settle_round(
    repo: Repository,
    operator_id: str,
    round_id: str,
    request: SettleRequest | None = None,
    idem: IdempotencyRequest | None = None,
    *,
    auto: bool = False,
) -> SettlementOut:
    """Settle with the request's bets (none given: the round's locked ones). ``auto``: the
    auto-settlement sweep settling a round past its deadline with its locked bets (the
    settlement says ``auto_settled: true``)."""
    given = BetsIn() if request is None else BetsIn.of(request.bets, request.player_banker)
    bets, player_banker = given.bets, given.player_banker
    r = round_record(repo, operator_id, round_id, idem)
    if is_void(r.settlement):
        raise voided(r)
    if r.bets is not None:  # locked at deal time: settlement uses exactly them
        if (bets is not None and bets != r.bets) or (
            player_banker is not None and player_banker != r.player_banker
        ):
            raise DomainError(
                "bets_locked",
                f"round {round_id} was dealt with locked bets; settle it with those (or none)",
            )
        bets, player_banker = r.bets, r.player_banker
    inputs = {"bets": bets or [], "player_banker": player_banker}
    key = digest(inputs)
    if r.settlement is not None:
        if r.settlement_digest == key:
            return SettlementOut.model_validate(r.settlement)
        raise _conflict(r)

    config = TableConfig.from_dict(r.config)
    bet_objects, pb = BetsIn(bets, player_banker).objects()
    try:
        accepted = validate_bets(config, bet_objects, r.round_number, pb)
    except BetRefused as exc:
        raise refused(exc) from None
    settlement = settle(config, _round_of(r.facts), accepted.bets, pb)
    settled_at = now()
    doc = {
        "round_id": r.round_id,
        "shoe_id": r.ref.shoe.shoe_id,
        "round_number": r.round_number,
        **settlement.as_dict(),
        "nets": settlement.nets(),
        "eligibility": _eligibility(config, r, list(accepted.bets), pb, settlement.nets()),
        "settled_at": settled_at,
        "auto_settled": auto,
    }
    try:
        repo.save_settlement(
            r, doc, key, settled_at, inputs, idempotency.record(idem, operator_id, doc)
        )
    except ConditionFailed as exc:
        idempotency.check_duplicate(exc)
        existing = exc.existing
        if not isinstance(existing, RoundRecord) or existing.settlement is None:
            raise lost_race() from None
        if is_void(existing.settlement):
            raise voided(existing) from None
        if existing.settlement_digest == key:
            return SettlementOut.model_validate(existing.settlement)
        raise _conflict(existing) from None
    return SettlementOut.model_validate(doc)
