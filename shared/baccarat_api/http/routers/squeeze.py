"""The squeeze: the squeezer reveals their face-down cards; the player-banker urges."""

from __future__ import annotations

from fastapi import APIRouter

from baccarat_api.http.deps import CallerDep, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.http.player import TOKEN_ERRORS, own_body
from baccarat_api.service import squeezing
from baccarat_api.service.models import RevealOut, RevealRequest, UrgeOut, UrgeRequest

router = APIRouter(route_class=JsonRoute)


@router.post(
    "/v1/tables/{table_id}/urge",
    response_model=UrgeOut,
    operation_id="urge",
    summary="The seated player-banker presses the urge button (催促鈕): an urge event",
    tags=["tables and shoes"],
    responses=errors(*TOKEN_ERRORS,
        "unauthorized", "not_found", "not_player_banker", "player_banker_not_allowed",
        "concurrent_update", "urge_cooldown", *IDEM_ERRORS,
    ),
)  # fmt: skip
def urge(table_id: str, body: UrgeRequest, caller: CallerDep, rt: Rt, idem: Idem) -> UrgeOut:
    own_body(caller, body.bettor_id)
    return squeezing.urge(rt.repo, caller.operator_id, table_id, body.bettor_id, idem)


@router.post(
    "/v1/rounds/{round_id}/reveal",
    response_model=RevealOut,
    operation_id="reveal_cards",
    summary="The squeezer opens their face-down cards of a step (before its reveal_by)",
    tags=["rounds"],
    responses=errors(*TOKEN_ERRORS,
        "unauthorized", "not_found", "not_squeezer", "already_revealed", "reveal_out_of_order",
        "reveal_deadline_passed", "no_draws", "round_voided", "concurrent_update", *IDEM_ERRORS,
    ),
)  # fmt: skip
def reveal(round_id: str, body: RevealRequest, caller: CallerDep, rt: Rt, idem: Idem) -> RevealOut:
    own_body(caller, body.bettor_id)
    op = caller.operator_id
    return squeezing.reveal_round(rt.repo, op, round_id, body.bettor_id, body.step, idem)
