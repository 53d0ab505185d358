"""Who may connect to and subscribe on the push channel (docs/design/browsers.md §2): ONE check,
:func:`authorize_subscribe`, for AppSync Events' Lambda authorizer (``PushAuthorizerFunction``,
:func:`lambda_handler`) and ``make run``'s stand-in (``baccarat_dev/push_local.py``).

An operator key, for any channel of its own tables; a table token (the same verification as
``current_caller``: MAC, expiry, the revocation item), for its own table's channel only. The
channel's epoch is checked against the live state, so after a rotation the old channel
refuses every new subscription."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baccarat_api.http.auth import authenticate
from baccarat_api.observability import logger
from baccarat_api.runtime import get_runtime
from baccarat_api.service import tokens
from baccarat_api.service.errors import DomainError
from baccarat_api.service.push import parse_channel, subscribe_refusal


@dataclass(frozen=True, slots=True)
class PushAccess:
    """The check's answer: the operator allowed, or why not (``error``)."""

    operator_id: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def authorize_subscribe(authorization: str | None, channel: str | None) -> PushAccess:
    """Whether ``authorization`` (an ``Authorization`` header's value) may connect (``channel``
    ``None``) or subscribe to ``channel``: an operator key, to any of its tables' current
    channel; a table token (verified, unexpired, unrevoked — the revocation item read), to its
    own table's current channel only; a lobby token connects but subscribes to nothing. Raises
    only when the stores are unavailable."""
    rt = get_runtime()
    scheme, _, value = (authorization or "").partition(" ")
    token = value.strip() if scheme.lower() == "bearer" else ""
    try:
        if token.startswith(tokens.PREFIX):
            player = tokens.authenticate(rt.repo, rt.vault, token)
            operator_id = player.operator_id
            wanted = None if channel is None else parse_channel(channel)
            if channel is not None and (wanted is None or wanted[0] != player.table_id):
                return PushAccess(operator_id, "token_table_mismatch: not this token's table")
        else:
            operator_id = authenticate(authorization, rt.repo, rt.key_cache)
    except DomainError as exc:
        return PushAccess(error=f"{exc.code}: {exc.message}")
    refusal = None if channel is None else subscribe_refusal(rt.repo, operator_id, channel)
    return PushAccess(operator_id, refusal)


def authorize(event: dict[str, Any]) -> dict[str, Any]:
    """AppSync Events' Lambda authorizer answer for ``event`` (``authorizationToken``;
    ``requestContext.operation`` EVENT_CONNECT / EVENT_SUBSCRIBE / EVENT_PUBLISH and
    ``.channel``). Publishing is IAM's (``PushFunction``), never a token's; a subscription is
    checked every time (``ttlOverride`` 0)."""
    context = event.get("requestContext") or {}
    operation = context.get("operation")
    if operation not in ("EVENT_CONNECT", "EVENT_SUBSCRIBE"):
        return {"isAuthorized": False}
    channel = context.get("channel") if operation == "EVENT_SUBSCRIBE" else None
    access = authorize_subscribe(event.get("authorizationToken"), channel or None)
    if not access.ok:
        logger.info("push refused", extra={"operation": operation, "reason": access.error})
        return {"isAuthorized": False}
    return {
        "isAuthorized": True,
        "handlerContext": {"operator_id": access.operator_id},
        "ttlOverride": 0 if operation == "EVENT_SUBSCRIBE" else 60,
    }


def lambda_handler() -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """``PushAuthorizerFunction``'s handler, built at cold start."""
    get_runtime()

    @logger.inject_lambda_context(clear_state=True)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return authorize(event)

    return handler
