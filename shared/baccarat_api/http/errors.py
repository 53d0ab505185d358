"""The one place where errors become HTTP answers.

Every response that is not a success is ``{"error": {"code", "message", "retryable",
"details", "request_id"}}`` (:func:`envelope`): ``code``, ``message``, ``retryable`` and
``details`` come from the :class:`~baccarat_api.service.errors.DomainError` (or the
:class:`HttpError` the HTTP layer raises itself), ``request_id`` is the API Gateway request id
(the powertools correlation id). The status of each code is :data:`STATUS` — 4xx for the
caller's fault, 5xx only for ours; a refused bet list (its refusal's own code) is 422."""

from __future__ import annotations

from typing import Any

from baccarat_api.service.errors import CODES, DomainError

#: The HTTP status of every code of the catalogue (:data:`baccarat_api.service.errors.CODES`).
STATUS: dict[str, int] = {
    "invalid_request": 400,
    "unauthorized": 401,
    "not_found": 404,
    "method_not_allowed": 405,
    "shoe_open": 409,
    "shoe_ended": 409,
    "chain_exhausted": 409,
    "round_mismatch": 409,
    "round_too_large": 422,
    "concurrent_update": 409,
    "round_settled": 409,
    "round_voided": 409,
    "proof_pending": 409,
    "shoe_not_closed": 409,
    "void_window_closed": 409,
    "not_auto_dealing": 409,
    "client_seed_queue_full": 409,
    "client_seeds_queued": 409,
    "idempotency_in_progress": 409,
    "idempotency_key_reused": 422,
    "invalid_table": 422,
    "unknown_currency": 422,
    "currency_mismatch": 422,
    "seat_occupied": 409,
    "already_present": 409,
    "table_full": 409,
    "not_squeezer": 409,
    "already_revealed": 409,
    "reveal_out_of_order": 409,
    "reveal_deadline_passed": 409,
    "no_draws": 409,
    "no_squeeze": 409,
    "duplicate_bet_type": 422,
    "not_player_banker": 409,
    "no_open_shoe": 409,
    "company_required": 409,
    "cards_not_shown": 409,
    "round_unsettled": 409,
    "betting_in_progress": 409,
    "betting_closed": 409,
    "auto_dealing": 409,
    "bets_or_from_book": 422,
    "no_betting_window": 409,
    "not_at_table": 409,
    "invalid_cursor": 422,
    "webhook_not_set": 409,
    "invalid_range": 422,
    "payload_too_large": 413,
    "rate_limited": 429,
    "urge_cooldown": 429,
    "internal_error": 500,
    "unavailable": 503,
    "settlement_pending": 404,
    "not_in_book": 404,
    "token_expired": 401,
    "token_revoked": 401,
    "token_route_forbidden": 403,
    "token_table_mismatch": 403,
    "token_person_mismatch": 403,
    "table_number_taken": 409,
    "chat_text_invalid": 422,
    "chat_text_too_long": 422,
    "chat_muted": 403,
    "chat_rate_limited": 429,
    "round_locked": 409,
    "no_beacon": 503,
}
assert set(STATUS) == set(CODES), "every code of the catalogue has exactly one HTTP status"
#: A refused bet list: the refusal's own code (``baccarat.validation.Refusal``).
REFUSED_STATUS = 422


def status_of(code: str) -> int:
    return STATUS.get(code, REFUSED_STATUS)


class HttpError(DomainError):
    """An error of the HTTP layer itself (schema, route, body size, rate limit, auth header),
    with the response headers it needs (``Retry-After``, ``Allow``) and, rarely, a status of
    its own (a framework error passed through)."""

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(code, message, details=details)
        self.headers: dict[str, str] = headers or {}
        self.status = status


def status_for(exc: DomainError) -> int:
    status = exc.status if isinstance(exc, HttpError) else None
    return status if status is not None else status_of(exc.code)


def headers_for(exc: DomainError) -> dict[str, str]:
    headers = dict(exc.headers) if isinstance(exc, HttpError) else {}
    if exc.retry_after is not None:
        headers.setdefault("retry-after", str(exc.retry_after))
    return headers


def envelope(
    code: str, message: str, retryable: bool, details: dict[str, Any], request_id: str
) -> dict[str, Any]:
    """The one error body."""
    return {
        "error": {
            "code": code,
            "message": message,
            "retryable": retryable,
            "details": details,
            "request_id": request_id,
        }
    }


def body_of(exc: DomainError, request_id: str) -> dict[str, Any]:
    return envelope(exc.code, exc.message, exc.retryable, exc.details, request_id)
