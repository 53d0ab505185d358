"""Operator authentication over HTTP: ``Authorization: Bearer <operator key>``, and the operator
id the HttpApi Lambda authorizer hands over in the event. The key check itself is
:func:`baccarat_api.service.auth.authenticate_key`."""

from __future__ import annotations

import hmac
from typing import Any

from baccarat_api.ports.repository import Repository
from baccarat_api.service.auth import KeyCache, authenticate_key
from baccarat_api.service.errors import DomainError

_MAX_KEY_LENGTH = 256


def bearer_token(authorization: str | None) -> str:
    """The key of an ``Authorization: Bearer <key>`` header, or 401."""
    if not authorization:
        raise DomainError(
            "unauthorized", "an operator key is required: Authorization: Bearer <key>"
        )
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if (
        not hmac.compare_digest(scheme.lower(), "bearer")
        or not token
        or len(token) > _MAX_KEY_LENGTH
        or not token.isascii()
        or not token.isprintable()
        or " " in token
    ):
        raise DomainError("unauthorized", "the Authorization header must be 'Bearer <key>'")
    return token


def authorizer_operator(event: Any) -> str | None:
    """The operator id the HttpApi Lambda authorizer put in the event
    (``requestContext.authorizer.lambda.operator_id``), or ``None`` when the request did not
    come through it. Only API Gateway (and whoever may invoke the function directly) can set
    it: a client's headers or body cannot."""
    if not isinstance(event, dict):
        return None
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    context = authorizer.get("lambda") or {}
    if context.get("kind") == "player":  # a token's: the app verifies and scopes it itself
        return None
    operator_id = context.get("operator_id")
    return operator_id if isinstance(operator_id, str) and operator_id else None


def authenticate(authorization: str | None, repo: Repository, cache: KeyCache | None) -> str:
    """The operator id of the request's ``Authorization`` header, or ``unauthorized``."""
    return authenticate_key(bearer_token(authorization), repo, cache)
