"""shuffle-commit: create a table, commit a shoe, close a shoe early; presence at the table
(seats, the player-banker seat, spectators, watchers)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.metrics import MetricUnit
from fastapi import APIRouter, Path

from baccarat_api.http.deps import Bettor, OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.observability import logger, metrics
from baccarat_api.service import presence, squeezing, tables
from baccarat_api.service.models import (
    BankerRequest,
    CommitShoeRequest,
    CreateTableRequest,
    PresenceOut,
    SeatRequest,
    ShoeOut,
    ShoeStateOut,
    SpectatorRequest,
    TableOut,
    UrgeOut,
    UrgeRequest,
    personal_limits_json,
)

router = APIRouter(route_class=JsonRoute, tags=["tables and shoes"])


@router.post(
    "/v1/tables",
    status_code=201,
    response_model=TableOut,
    operation_id="create_table",
    summary="Create a table and draw its seed chain (the anchor is returned)",
    responses=errors(
        "unauthorized", "invalid_table", "unknown_currency", "currency_mismatch", *IDEM_ERRORS
    ),
)
def create_table(body: CreateTableRequest, operator: OperatorId, rt: Rt, idem: Idem) -> TableOut:
    out = tables.create_table(rt.repo, rt.vault, operator, body, idem)
    metrics.add_metric(name="TablesCreated", unit=MetricUnit.Count, value=1)
    logger.info("table created", extra={"table_id": out.table_id, "anchor": out.anchor})
    return out


@router.post(
    "/v1/tables/{table_id}/shoes",
    status_code=201,
    response_model=ShoeOut,
    operation_id="commit_shoe",
    summary="Commit the table's next shoe (409 while it has an open shoe)",
    responses=errors("unauthorized", "not_found", "shoe_open", "chain_exhausted", *IDEM_ERRORS),
)
def commit_shoe(
    table_id: str, body: CommitShoeRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> ShoeOut:
    out = tables.commit_shoe(rt.repo, rt.vault, operator, table_id, body.client_seed, idem)
    metrics.add_metric(name="ShoesCommitted", unit=MetricUnit.Count, value=1)
    logger.info("shoe committed", extra={"shoe_id": out.shoe_id, "client_hash": out.client_hash})
    return out


@router.post(
    "/v1/shoes/{shoe_id}/close",
    response_model=ShoeStateOut,
    operation_id="close_shoe",
    summary="End the shoe early and reveal it",
    responses=errors("unauthorized", "not_found", "shoe_ended", "concurrent_update", *IDEM_ERRORS),
)
def close_shoe(shoe_id: str, operator: OperatorId, rt: Rt, idem: Idem) -> ShoeStateOut:
    out = tables.close_shoe(rt.repo, rt.vault, operator, shoe_id, idem)
    metrics.add_metric(name="ShoesClosed", unit=MetricUnit.Count, value=1)
    logger.info("shoe closed", extra={"shoe_id": shoe_id, "rounds_dealt": out.rounds_dealt})
    return out


# --- presence (issue 13) ----------------------------------------------------------------------

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
    responses=errors(*PLACE_ERRORS),
)
def leave_seat(table_id: str, seat: Seat, operator: OperatorId, rt: Rt) -> PresenceOut:
    return presence.leave_seat(rt.repo, operator, table_id, seat)


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
    responses=errors(*PLACE_ERRORS),
)
def leave_banker(table_id: str, operator: OperatorId, rt: Rt) -> PresenceOut:
    return presence.leave_banker(rt.repo, operator, table_id)


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
    return presence.join_spectators(rt.repo, operator, table_id, bettor_id, body.balance, limits)


@router.delete(
    "/v1/tables/{table_id}/spectators/{bettor_id}",
    response_model=PresenceOut,
    operation_id="leave_spectators",
    summary="Stop spectating",
    responses=errors(*PLACE_ERRORS),
)
def leave_spectators(table_id: str, bettor_id: Bettor, operator: OperatorId, rt: Rt) -> PresenceOut:
    return presence.leave_spectators(rt.repo, operator, table_id, bettor_id)


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
    responses=errors(*PLACE_ERRORS),
)
def leave_watchers(table_id: str, bettor_id: Bettor, operator: OperatorId, rt: Rt) -> PresenceOut:
    return presence.leave_watchers(rt.repo, operator, table_id, bettor_id)


@router.post(
    "/v1/tables/{table_id}/urge",
    response_model=UrgeOut,
    operation_id="urge",
    summary="The seated player-banker presses the urge button (催促鈕): an urge event",
    responses=errors(
        "unauthorized", "not_found", "not_player_banker", "player_banker_not_allowed",
        "concurrent_update", "urge_cooldown", *IDEM_ERRORS,
    ),
)  # fmt: skip
def urge(table_id: str, body: UrgeRequest, operator: OperatorId, rt: Rt, idem: Idem) -> UrgeOut:
    return squeezing.urge(rt.repo, operator, table_id, body.bettor_id, idem)
