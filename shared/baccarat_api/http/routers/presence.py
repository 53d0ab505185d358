"""Presence at a table: the seats, the player-banker seat, the spectators, the watchers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from baccarat_api.http.deps import Bettor, CallerDep, OperatorId, Rt, errors
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.http.player import TOKEN_ERRORS, holder
from baccarat_api.limits import DEFAULT_NAMES_PAGE, MAX_ID_LENGTH, MAX_NAMES_PAGE
from baccarat_api.service import presence, presence_reads
from baccarat_api.service.models import (
    BankerRequest,
    PresenceOut,
    SeatRequest,
    SpectatorRequest,
    SpectatorsPageOut,
    WatchersPageOut,
    personal_limits_json,
)
from baccarat_api.service.views import presence_as_seen

router = APIRouter(route_class=JsonRoute, tags=["tables and shoes"])

Seat = Annotated[int, Path(ge=1, le=7, description="seat 1 to 7")]
PLACE_ERRORS = ("unauthorized", "not_found", "already_present", "concurrent_update")


@router.put(
    "/v1/tables/{table_id}/seats/{seat}",
    response_model=PresenceOut,
    operation_id="take_seat",
    summary="Take seat 1–7 (the tier's minimum balance; bid-squeeze: the seated minimum level)",
    responses=errors(
        *PLACE_ERRORS, "seat_occupied", "seat_out_of_range", "below_min_balance",
        "below_seated_min_level",
    ),
)  # fmt: skip
def take_seat(
    table_id: str, seat: Seat, body: SeatRequest, operator: OperatorId, rt: Rt
) -> PresenceOut:
    return presence.take_seat(
        rt.repo, operator, table_id, seat, body.bettor_id, body.balance, body.level
    )


@router.delete(
    "/v1/tables/{table_id}/seats/{seat}",
    response_model=PresenceOut,
    operation_id="leave_seat",
    summary="Leave the seat (the last seated bettor leaving removes the spectators)",
    responses=errors(*TOKEN_ERRORS, *PLACE_ERRORS),
)
def leave_seat(table_id: str, seat: Seat, caller: CallerDep, rt: Rt) -> PresenceOut:
    out = presence.leave_seat(rt.repo, caller.operator_id, table_id, seat, holder(caller))
    return presence_as_seen(out, caller)


@router.put(
    "/v1/tables/{table_id}/banker",
    response_model=PresenceOut,
    operation_id="take_banker",
    summary="Take the player-banker seat of a player-banker table (its minimum balance)",
    responses=errors(
        *PLACE_ERRORS, "seat_occupied", "player_banker_not_allowed",
        "player_banker_below_min_balance",
    ),
)  # fmt: skip
def take_banker(table_id: str, body: BankerRequest, operator: OperatorId, rt: Rt) -> PresenceOut:
    return presence.take_banker(rt.repo, operator, table_id, body.bettor_id, body.balance)


@router.delete(
    "/v1/tables/{table_id}/banker",
    response_model=PresenceOut,
    operation_id="leave_banker",
    summary="Leave the player-banker seat",
    responses=errors(*TOKEN_ERRORS, *PLACE_ERRORS),
)
def leave_banker(table_id: str, caller: CallerDep, rt: Rt) -> PresenceOut:
    out = presence.leave_banker(rt.repo, caller.operator_id, table_id, holder(caller))
    return presence_as_seen(out, caller)


@router.put(
    "/v1/tables/{table_id}/spectators/{bettor_id}",
    response_model=PresenceOut,
    operation_id="join_spectators",
    summary="Bet as a spectator (bid-squeeze; only while a seat is taken)",
    responses=errors(
        *PLACE_ERRORS, "spectator_betting_not_allowed", "seated_bettor_required", "table_full",
        "below_min_balance", "invalid_personal_limit",
    ),
)  # fmt: skip
def join_spectators(
    table_id: str, bettor_id: Bettor, body: SpectatorRequest, operator: OperatorId, rt: Rt
) -> PresenceOut:
    limits = personal_limits_json(body.personal_limits)
    return presence.join_spectators(
        rt.repo, operator, table_id, bettor_id, body.balance, limits, rt.vault
    )


@router.delete(
    "/v1/tables/{table_id}/spectators/{bettor_id}",
    response_model=PresenceOut,
    operation_id="leave_spectators",
    summary="Stop spectating",
    responses=errors(*TOKEN_ERRORS, *PLACE_ERRORS),
)
def leave_spectators(table_id: str, bettor_id: Bettor, caller: CallerDep, rt: Rt) -> PresenceOut:
    out = presence.leave_spectators(rt.repo, caller.operator_id, table_id, bettor_id)
    return presence_as_seen(out, caller)


@router.put(
    "/v1/tables/{table_id}/watchers/{bettor_id}",
    response_model=PresenceOut,
    operation_id="join_watchers",
    summary="Watch the table (the observer list)",
    responses=errors(*PLACE_ERRORS, "table_full"),
)
def join_watchers(table_id: str, bettor_id: Bettor, operator: OperatorId, rt: Rt) -> PresenceOut:
    return presence.join_watchers(rt.repo, operator, table_id, bettor_id)


@router.delete(
    "/v1/tables/{table_id}/watchers/{bettor_id}",
    response_model=PresenceOut,
    operation_id="leave_watchers",
    summary="Stop watching",
    responses=errors(*TOKEN_ERRORS, *PLACE_ERRORS),
)
def leave_watchers(table_id: str, bettor_id: Bettor, caller: CallerDep, rt: Rt) -> PresenceOut:
    out = presence.leave_watchers(rt.repo, caller.operator_id, table_id, bettor_id)
    return presence_as_seen(out, caller)


After = Annotated[
    str | None,
    Query(max_length=MAX_ID_LENGTH, description="the last bettor id you have (none: the first)"),
]
Limit = Annotated[
    int, Query(ge=1, le=MAX_NAMES_PAGE, description=f"most entries (max {MAX_NAMES_PAGE})")
]


@router.get(
    "/v1/tables/{table_id}/spectators",
    response_model=SpectatorsPageOut,
    operation_id="list_spectators",
    summary="The table's spectators, a page at a time in bettor-id order (any number present)",
    tags=["read"],
    responses=errors("unauthorized", "not_found"),
)
def list_spectators(
    table_id: str,
    operator: OperatorId,
    rt: Rt,
    after: After = None,
    limit: Limit = DEFAULT_NAMES_PAGE,
) -> SpectatorsPageOut:
    return presence_reads.spectators_page(rt.repo, operator, table_id, limit, after)


@router.get(
    "/v1/tables/{table_id}/watchers",
    response_model=WatchersPageOut,
    operation_id="list_watchers",
    summary="The table's watchers, a page at a time in bettor-id order (any number present)",
    tags=["read"],
    responses=errors("unauthorized", "not_found"),
)
def list_watchers(
    table_id: str,
    operator: OperatorId,
    rt: Rt,
    after: After = None,
    limit: Limit = DEFAULT_NAMES_PAGE,
) -> WatchersPageOut:
    return presence_reads.watchers_page(rt.repo, operator, table_id, limit, after)
