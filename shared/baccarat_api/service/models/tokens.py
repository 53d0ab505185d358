"""Player and lobby tokens (docs/api.md "Player tokens"): what an operator asks for, what it is
answered. The token itself is opaque to every client: only this service reads it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictInt

from baccarat_api.limits import TOKEN_TTL_DEFAULT_SECONDS, TOKEN_TTL_MAX_SECONDS
from baccarat_api.service.models.common import BettorId, Strict

TableRole = Literal["seat", "banker", "spectator", "watcher"]
_TTL_DESCRIPTION = (
    f"the token's lifetime in seconds (default {TOKEN_TTL_DEFAULT_SECONDS}, at most "
    f"{TOKEN_TTL_MAX_SECONDS})"
)


class TokenRequest(Strict):
    bettor_id: BettorId = Field(description="the person the token is for (its only subject)")
    role: TableRole = Field(
        description="what the holder may try (the table state still decides): seat, banker, "
        "spectator, watcher"
    )
    ttl_seconds: StrictInt | None = Field(
        default=None, ge=1, le=TOKEN_TTL_MAX_SECONDS, description=_TTL_DESCRIPTION
    )


class LobbyTokenRequest(Strict):
    ttl_seconds: StrictInt | None = Field(
        default=None, ge=1, le=TOKEN_TTL_MAX_SECONDS, description=_TTL_DESCRIPTION
    )


class LobbyTokenOut(Strict):
    token: str = Field(description="opaque: send it as Authorization: Bearer <token>")
    jti: str = Field(description="the token's id (to revoke it)")
    expires_at: str = Field(description="when it stops working (ISO 8601 UTC)")
    role: Literal["lobby"] = "lobby"


class TokenOut(Strict):
    token: str = Field(description="opaque: send it as Authorization: Bearer <token>")
    jti: str = Field(description="the token's id (to revoke it)")
    expires_at: str = Field(description="when it stops working (ISO 8601 UTC)")
    role: TableRole
    table_id: str
    bettor_id: str
    push_url: str | None = Field(
        description="where the holder's page subscribes: the push channel's WebSocket URL, as "
        "`GET …/state` answers it (null where no push is configured)"
    )
    push_channel: str = Field(
        description="the table's push channel at the mint, `/tables/{table_id}/e{epoch}` (a "
        "rotation since moves it on: `GET …/state` names the current one)"
    )
