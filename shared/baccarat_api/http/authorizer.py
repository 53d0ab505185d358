"""The HttpApi Lambda authorizer (REQUEST type, payload format 2.0, simple responses).

API Gateway calls it with the ``Authorization`` header before any function runs and caches the
answer per header value. It runs the same check as ``make run``'s dependency
(:func:`baccarat_api.http.auth.authenticate`); an accepted key answers the operator id in the
context, which the functions read without looking the key up again. A refused key is
``{"isAuthorized": false}`` (API Gateway: 403); an unavailable key store fails (500, not cached)
rather than deny a valid key for the cache's lifetime. Nothing of the key is logged.

A player or lobby token (``Bearer bpt1.…``, docs/design/browsers.md §1) is accepted when its MAC
verifies under a live key, **even expired or revoked**: the app checks expiry, revocation and
scope itself and answers them in the error envelope with stable codes (so this cache, too, never
outlives them). Its claims go in the context, flat: ``{operator_id, kind: "player", tbl, sub,
role, jti, iat, exp}`` (``tbl``/``sub`` empty on a lobby token). Only a malformed or forged token
is refused here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.logging import correlation_paths

from baccarat_api.http.auth import authenticate
from baccarat_api.observability import logger
from baccarat_api.runtime import get_runtime
from baccarat_api.service.errors import DomainError
from baccarat_api.service.tokens import PREFIX, verify


def authorize(event: dict[str, Any]) -> dict[str, Any]:
    """The simple response for an authorizer v2 event."""
    headers = event.get("headers") or {}
    authorization = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
    rt = get_runtime()
    scheme, _, value = (authorization or "").partition(" ")
    if scheme.lower() == "bearer" and value.strip().startswith(PREFIX):
        return _player(value.strip())
    try:
        operator_id = authenticate(authorization, rt.repo, rt.key_cache)
    except DomainError as exc:
        logger.info("operator key refused", extra={"reason": exc.message})
        return {"isAuthorized": False}
    logger.append_keys(operator_id=operator_id)
    return {"isAuthorized": True, "context": {"operator_id": operator_id}}


def _player(token: str) -> dict[str, Any]:
    rt = get_runtime()
    try:
        player = verify(rt.repo, rt.vault, token, expiry=False)
    except DomainError as exc:
        logger.info("player token refused", extra={"reason": exc.message})
        return {"isAuthorized": False}
    logger.append_keys(operator_id=player.operator_id, token_jti=player.jti)
    context = {
        "operator_id": player.operator_id, "kind": "player", "tbl": player.table_id or "",
        "sub": player.bettor_id or "", "role": player.role, "jti": player.jti,
        "iat": player.iat, "exp": player.exp,
    }  # fmt: skip
    return {"isAuthorized": True, "context": context}


def lambda_handler() -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The authorizer's handler, built at cold start (settings read and validated here)."""
    get_runtime()

    @logger.inject_lambda_context(
        correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True
    )
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return authorize(event)

    return handler
