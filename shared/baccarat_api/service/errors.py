"""Domain exceptions: what went wrong in a use case, with no HTTP in sight.

Every error the API can answer has a stable machine ``code`` (the catalogue is :data:`CODES`;
a refused bet list raises the refusal's own code, ``baccarat.validation.Refusal``: e.g.
``above_area_limit``), a ``message`` safe to show, ``details`` with the specifics (a refused
bet's bettor, bet, limit and attempted amount; the invalid fields of a request) and
``retryable`` (whether the same request may succeed later). The HTTP status of each code is
decided in one place only: :mod:`baccarat_api.http.errors`."""

from __future__ import annotations

from typing import Any

#: Every code (bet refusals aside): whether a retry of the same request may succeed, and what
#: it means (the error catalogue of the docs).
CODES: dict[str, tuple[bool, str]] = {
    "invalid_request": (False, "the request does not match the schema (see details)"),
    "unauthorized": (False, "missing, malformed, unknown or revoked operator key"),
    "not_found": (False, "no such resource for this operator (or no such route)"),
    "method_not_allowed": (False, "the route exists but not with this method"),
    "shoe_open": (False, "the table already has an open shoe; close it first"),
    "shoe_ended": (False, "the shoe has ended; commit a new shoe"),
    "chain_exhausted": (False, "every shoe of the table's seed chain has been used"),
    "round_mismatch": (
        False,
        "the deal's round_number is not the next round, nor a round dealt with this request",
    ),
    "round_too_large": (
        False,
        "the round would exceed its byte budget as stored (never for bets within the limits)",
    ),
    "concurrent_update": (True, "another request changed this resource first; retry"),
    "round_settled": (False, "the round is settled; a settled round cannot be voided"),
    "round_voided": (False, "the round is voided; a voided round can never be settled"),
    "proof_pending": (
        True,
        "the shoe has ended but some rounds are not resolved yet; its proof is final (and "
        "served) once each is settled, voided or auto-settled at its deadline",
    ),
    "shoe_not_closed": (
        True,
        "the shoe is known but still open: its proof exists once it ends (by its rules, "
        "POST /v1/shoes/{id}/close, or the service's idle close by details.close_by)",
    ),
    "void_window_closed": (
        False,
        "the round's void window has passed (or voids are disabled at its table)",
    ),
    "not_auto_dealing": (False, "the table is dealt by its operator: it does not run itself"),
    "client_seed_queue_full": (
        False,
        "the table already holds the most client seeds given in advance; give the next one "
        "once a shoe has used one",
    ),
    "client_seeds_queued": (
        False,
        "client seeds given in advance wait for the table's next shoes: those shoes are "
        "committed by the table itself, each with its own seed",
    ),
    "idempotency_in_progress": (
        True,
        "a request with this Idempotency-Key was in flight; retry to get its response",
    ),
    "idempotency_key_reused": (
        False,
        "this Idempotency-Key was used for another request; use a new key",
    ),
    "invalid_table": (False, "the table configuration is refused (see message)"),
    "unknown_currency": (
        False,
        "the currency is neither an accepted ISO 4217 code nor the play-money code XCN",
    ),
    "currency_mismatch": (
        False,
        "the table's currency or minor_unit_exponent is not its tier's (tiers are per currency)",
    ),
    "seat_occupied": (False, "that seat (or the player-banker seat) is taken by someone else"),
    "already_present": (False, "the bettor is already at this table in another place"),
    "table_full": (False, "the table holds no more spectators or watchers"),
    "not_squeezer": (False, "the bettor does not squeeze these cards (see details.squeezers)"),
    "already_revealed": (False, "the bettor already opened the cards of this step"),
    "reveal_out_of_order": (
        False,
        "the draws open only once the initial cards are revealed, the player's third card first",
    ),
    "reveal_deadline_passed": (
        False,
        "the step's reveal_by has passed: the system opened the cards then",
    ),
    "no_draws": (False, "the round has no third cards (no draws step)"),
    "duplicate_bet_type": (False, "a slip names a bet type twice: one line per type"),
    "no_squeeze": (False, "the round was dealt face up (a table without a squeeze)"),
    "not_player_banker": (False, "only the seated player-banker presses the urge button"),
    "no_open_shoe": (False, "the table has no open shoe; commit one first"),
    "company_required": (
        False,
        "betting opens, and a round is dealt (from the book or with explicit bets), only with "
        "the profile's minimum company present (details.missing)",
    ),
    "cards_not_shown": (
        True,
        "a card of the round is still face down (details.step, details.reveal_by): it is "
        "settled once every card is shown — by its squeezers, or by the system at reveal_by",
    ),
    "round_unsettled": (
        False,
        "the table's latest round is neither settled nor voided (details.round_id): no next "
        "round is opened or dealt before",
    ),
    "betting_in_progress": (
        False,
        "a betting window of the open shoe is waiting to be dealt; deal it from the book",
    ),
    "betting_closed": (False, "no betting window is open (past closes_at, dealt, or none)"),
    "auto_dealing": (
        False,
        "the table runs itself (dealing auto): it opens betting and deals by itself",
    ),
    "bets_or_from_book": (False, "a deal carries its bets or from_book: true (not both)"),
    "no_betting_window": (False, "no betting window waits for this round; open betting first"),
    "not_at_table": (False, "the bettor holds no seat and is no spectator at this table"),
    "invalid_cursor": (False, "the cursor is malformed or belongs to another query"),
    "webhook_not_set": (False, "no webhook is set: PUT /v1/webhook first"),
    "invalid_range": (False, "from/to is not a range of at most 31 days, to after from"),
    "payload_too_large": (False, "the request body is too large"),
    "rate_limited": (True, "too many requests for this operator; see Retry-After"),
    # not retryable: the table was urged moments ago, a client repeating the press later would
    # only add urges nobody asked for (Retry-After says when a new press is taken)
    "urge_cooldown": (False, "the urge button was pressed moments ago; see Retry-After"),
    "internal_error": (False, "an unexpected error on our side"),
    "unavailable": (True, "a dependency is throttling or briefly unavailable; retry"),
    "settlement_pending": (
        True,
        "the round's book is not settled that far yet: its receipts and pages are written in "
        "chunks after the settlement; retry shortly",
    ),
    "not_in_book": (
        False,
        "no slip of that bettor in the round's book (a seated bettor's bets are in the proof; "
        "a round of a table without bet_behind: book has no book)",
    ),
    "token_expired": (False, "the player token has expired: ask the operator for a new one"),
    "token_revoked": (False, "the player token was revoked by the operator"),
    "token_route_forbidden": (
        False,
        "a player or lobby token may not call this route (or not with its role); see "
        "docs/api.md, Player tokens",
    ),
    "token_table_mismatch": (False, "the token is for another table"),
    "token_person_mismatch": (False, "the token's holder may act only for themselves"),
    "table_number_taken": (False, "another table of the operator has that number"),
    "chat_text_invalid": (
        False,
        "the chat text is empty or holds a character refused in chat (details.reason, "
        "details.index)",
    ),
    "chat_text_too_long": (False, "the chat text is longer than the documented maximum"),
    "chat_muted": (False, "the operator muted this person's chat until details.until"),
    "chat_rate_limited": (True, "too many chat messages just now; see Retry-After"),
    "round_locked": (
        True,
        "a bacc-pf-v2 round is locked and its cards wait for its beacon round (details."
        "expected_at): settle it once it is dealt; one deal at a time",
    ),
    "no_beacon": (True, "this deployment has no beacon source: bacc-pf-v2 is unavailable"),
}


class DomainError(Exception):
    """A use case refused or failed: stable ``code``, safe ``message``, ``details``,
    ``retryable`` (defaults from :data:`CODES`; a bet refusal's code is not listed there) and,
    when known, ``retry_after`` (seconds)."""

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        details: dict[str, Any] | None = None,
        retryable: bool | None = None,
        retry_after: int | None = None,
    ) -> None:
        default_retry, default_message = CODES.get(code, CODES["internal_error"])
        self.code = code
        self.message = message or default_message
        self.retryable = retryable if retryable is not None else default_retry
        self.details: dict[str, Any] = details or {}
        #: seconds after which a retry may succeed (``Retry-After``), if known
        self.retry_after = retry_after
        super().__init__(self.message)


def not_found(what: str, ident: str) -> DomainError:
    """A missing resource *and* another operator's: the two are indistinguishable."""
    return DomainError("not_found", f"no {what} {ident!r}", details={what: ident})


def lost_race() -> DomainError:
    """A conditional write that lost to a concurrent request (retryable)."""
    return DomainError(
        "concurrent_update", "another request changed this resource first; retry the request"
    )
