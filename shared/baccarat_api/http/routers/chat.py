"""A table's chat (聊天視窗): post and read (a player token of the table, or the operator key for
a person); the operator moderates (remove a message, mute and unmute a person)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from baccarat_api.http.deps import Bettor, CallerDep, OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.limits import DEFAULT_CHAT_PAGE, MAX_CHAT_PAGE
from baccarat_api.service import chat
from baccarat_api.service.models import ChatIn, ChatOut, ChatPageOut, MuteIn, MuteOut

router = APIRouter(route_class=JsonRoute, tags=["chat"])

TOKEN_ERRORS = ("token_expired", "token_revoked", "token_route_forbidden", "token_table_mismatch")


@router.post(
    "/v1/tables/{table_id}/chat",
    status_code=201,
    response_model=ChatOut,
    operation_id="post_chat",
    summary="Post a chat line as a person at the table (a player token's, or bettor_id's)",
    responses=errors(
        "unauthorized", "not_found", "not_at_table", "chat_text_invalid", "chat_text_too_long",
        "chat_muted", "chat_rate_limited", "token_person_mismatch", "concurrent_update",
        *TOKEN_ERRORS, *IDEM_ERRORS,
    ),
)  # fmt: skip
def post_chat(table_id: str, body: ChatIn, caller: CallerDep, rt: Rt, idem: Idem) -> ChatOut:
    return chat.post(rt.repo, caller, table_id, body, idem)


@router.get(
    "/v1/tables/{table_id}/chat",
    response_model=ChatPageOut,
    operation_id="get_chat",
    summary="The table's last chat messages, oldest first (kept 24 h)",
    responses=errors("unauthorized", "not_found", *TOKEN_ERRORS),
)
def get_chat(
    table_id: str,
    caller: CallerDep,
    rt: Rt,
    limit: Annotated[
        int,
        Query(ge=1, le=MAX_CHAT_PAGE, description=f"most messages (max {MAX_CHAT_PAGE})"),
    ] = DEFAULT_CHAT_PAGE,
) -> ChatPageOut:
    return chat.recent(rt.repo, caller, table_id, limit)


@router.delete(
    "/v1/tables/{table_id}/chat/{message_id}",
    status_code=204,
    operation_id="remove_chat_message",
    summary="Remove a chat message (marked removed, its text dropped): chat_message_deleted",
    responses=errors("unauthorized", "not_found", "concurrent_update"),
)
def remove_chat_message(table_id: str, message_id: str, operator: OperatorId, rt: Rt) -> Response:
    chat.remove(rt.repo, operator, table_id, message_id)
    return Response(status_code=204)


@router.put(
    "/v1/tables/{table_id}/chat/mutes/{bettor_id}",
    response_model=MuteOut,
    operation_id="mute_chat",
    summary="Mute a person's chat at the table for some seconds (at most a day): chat_muted",
    responses=errors("unauthorized", "not_found", "concurrent_update"),
)
def mute_chat(
    table_id: str, bettor_id: Bettor, body: MuteIn, operator: OperatorId, rt: Rt
) -> MuteOut:
    return chat.mute(rt.repo, operator, table_id, bettor_id, body.seconds)


@router.delete(
    "/v1/tables/{table_id}/chat/mutes/{bettor_id}",
    status_code=204,
    operation_id="unmute_chat",
    summary="End a person's chat mute (chat_unmuted; nothing when they are not muted)",
    responses=errors("unauthorized", "not_found", "concurrent_update"),
)
def unmute_chat(table_id: str, bettor_id: Bettor, operator: OperatorId, rt: Rt) -> Response:
    chat.unmute(rt.repo, operator, table_id, bettor_id)
    return Response(status_code=204)
