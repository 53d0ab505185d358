"""Player and lobby tokens (operator key only): minted for a person at one of the operator's
tables or for its lobby, revoked one at a time or per person (docs/api.md "Player tokens")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response
from pydantic import AfterValidator

from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.limits import BETTOR_ID_PATTERN
from baccarat_api.service import tokens
from baccarat_api.service.models import check_bettor_id
from baccarat_api.service.models.tokens import (
    LobbyTokenOut,
    LobbyTokenRequest,
    TokenOut,
    TokenRequest,
)

router = APIRouter(route_class=JsonRoute, tags=["player tokens"])

Jti = Annotated[str, Path(pattern="^tk_[a-z2-7]{26}$", description="the token's id")]


@router.post(
    "/v1/tables/{table_id}/tokens",
    status_code=201,
    response_model=TokenOut,
    operation_id="mint_token",
    summary="Mint a player token for a person at the table (a browser's only credential)",
    responses=errors("unauthorized", "not_found", *IDEM_ERRORS),
)
def mint_token(
    table_id: str, body: TokenRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> dict[str, Any]:
    return tokens.issue(rt.repo, rt.vault, operator, table_id, body, idem, rt.settings.push_url)


@router.post(
    "/v1/lobby-tokens",
    status_code=201,
    response_model=LobbyTokenOut,
    operation_id="mint_lobby_token",
    summary="Mint a lobby token (reads the operator's table list, nothing about people)",
    responses=errors("unauthorized", *IDEM_ERRORS),
)
def mint_lobby_token(
    body: LobbyTokenRequest, operator: OperatorId, rt: Rt, idem: Idem
) -> dict[str, Any]:
    return tokens.issue_lobby(rt.repo, rt.vault, operator, body, idem)


@router.delete(
    "/v1/tables/{table_id}/tokens/{jti}",
    status_code=204,
    operation_id="revoke_token",
    summary="Revoke one token (refused from the very next request; idempotent)",
    responses=errors("unauthorized", "not_found"),
)
def revoke_token(table_id: str, jti: Jti, operator: OperatorId, rt: Rt) -> Response:
    tokens.revoke(rt.repo, operator, table_id, jti=jti)
    return Response(status_code=204)


@router.delete(
    "/v1/tables/{table_id}/tokens",
    status_code=204,
    operation_id="revoke_person_tokens",
    summary="Revoke every token of a person minted until now at the table (idempotent)",
    responses=errors("unauthorized", "not_found"),
)
def revoke_person_tokens(
    table_id: str,
    bettor_id: Annotated[
        str,
        Query(pattern=f"^{BETTOR_ID_PATTERN}$", description="the person"),
        AfterValidator(check_bettor_id),
    ],
    operator: OperatorId,
    rt: Rt,
) -> Response:
    tokens.revoke(rt.repo, operator, table_id, bettor_id=bettor_id)
    return Response(status_code=204)
