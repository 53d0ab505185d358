"""Every error the API answers, in one JSON shape:

``{"error": {"code", "message", "retryable", "details", "request_id"}}``

``code`` is stable and machine-readable (the catalogue is :data:`CODES`), ``message`` is safe to
show, ``retryable`` says whether the same request may succeed later, ``details`` carries the
specifics (a refused bet's bettor, bet, limit and attempted amount; the invalid fields of a
request), ``request_id`` is the API Gateway request id (the powertools correlation id).
4xx for the caller's fault, 5xx only for ours."""

from __future__ import annotations

from typing import Any

#: Every code the API can answer with, its HTTP status and whether a retry may succeed. A refused
#: bet list answers 422 with the refusal's own code (``baccarat.validation.Refusal``: e.g.
#: ``above_area_limit``), details naming the bettor, the bet, the limit and the attempted value.
CODES: dict[str, tuple[int, bool, str]] = {
    "invalid_request": (400, False, "the request does not match the schema (see details)"),
    "unauthorized": (401, False, "missing, malformed, unknown or revoked operator key"),
    "not_found": (404, False, "no such resource for this operator (or no such route)"),
    "method_not_allowed": (405, False, "the route exists but not with this method"),
    "shoe_open": (409, False, "the table already has an open shoe; close it first"),
    "shoe_ended": (409, False, "the shoe has ended; commit a new shoe"),
    "chain_exhausted": (409, False, "every shoe of the table's seed chain has been used"),
    "bets_locked": (409, False, "the round's bets were locked when it was dealt; these differ"),
    "settlement_conflict": (409, False, "the round is already settled with other inputs"),
    "concurrent_update": (409, True, "another request changed this resource first; retry"),
    "round_settled": (409, False, "the round is settled; a settled round cannot be voided"),
    "round_voided": (409, False, "the round is voided; a voided round can never be settled"),
    "idempotency_in_progress": (
        409,
        True,
        "a request with this Idempotency-Key was in flight; retry to get its response",
    ),
    "idempotency_key_reused": (
        422,
        False,
        "this Idempotency-Key was used for another request; use a new key",
    ),
    "invalid_table": (422, False, "the table configuration is refused (see message)"),
    "payload_too_large": (413, False, "the request body is too large"),
    "rate_limited": (429, True, "too many requests for this operator; see Retry-After"),
    "internal_error": (500, False, "an unexpected error on our side"),
    "unavailable": (503, True, "a dependency is throttling or briefly unavailable; retry"),
}


class ApiError(Exception):
    """An error with its HTTP status, stable code, safe message and details."""

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        details: dict[str, Any] | None = None,
        status: int | None = None,
        retryable: bool | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        default_status, default_retry, default_message = CODES.get(code, CODES["internal_error"])
        self.code = code
        self.message = message or default_message
        self.status = status if status is not None else default_status
        self.retryable = retryable if retryable is not None else default_retry
        self.details: dict[str, Any] = details or {}
        #: Extra response headers (``Retry-After`` of a 429).
        self.headers: dict[str, str] = headers or {}
        super().__init__(self.message)

    def body(self, request_id: str) -> dict[str, Any]:
        return envelope(self.code, self.message, self.retryable, self.details, request_id)


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


def not_found(what: str, ident: str) -> ApiError:
    """404 for a missing resource *and* for another operator's: the two are indistinguishable."""
    return ApiError("not_found", f"no {what} {ident!r}", details={what: ident})


def unavailable(reason: str = "a dependency is briefly unavailable; retry") -> ApiError:
    return ApiError("unavailable", reason)
