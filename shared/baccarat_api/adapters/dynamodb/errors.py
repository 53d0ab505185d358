"""botocore failures → the port's (:mod:`baccarat_api.ports.repository`): a lost condition →
``ConditionFailed``; throttling and transaction conflicts → ``StoreUnavailable``; what may have
been applied — a timeout or broken connection after botocore's own retries, an internal error,
a token that came back with other writes (``IdempotentParameterMismatchException``) →
``OutcomeUnknown``; anything else propagates (a bug: 500)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, StoreUnavailable

#: Error codes after which the same request may succeed (the SDK already retried them).
RETRYABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "ServiceUnavailable",
        "TransactionConflictException",
        "TransactionInProgressException",
        "LimitExceededException",
    }
)
#: Error codes after which a write may or may not have been applied.
UNKNOWN_OUTCOME_CODES = frozenset({"InternalServerError", "IdempotentParameterMismatchException"})
_RETRYABLE_REASONS = frozenset(
    {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "InternalError"}
)


def cancellation_reasons(exc: BaseException | None) -> list[dict[str, Any]]:
    """The per-item reasons of a cancelled ``TransactWriteItems`` (in the order of its items;
    empty for any other error)."""
    from botocore.exceptions import ClientError

    if not isinstance(exc, ClientError):
        return []
    return list(exc.response.get("CancellationReasons") or [])  # type: ignore[arg-type]


@contextmanager
def mapped_errors(what: str) -> Iterator[None]:
    """Around one DynamoDB call (``what`` names it in the raised error's message)."""
    from botocore.exceptions import (
        ClientError,
        ConnectionError,
        ConnectTimeoutError,
        HTTPClientError,
        ReadTimeoutError,
    )

    try:
        yield
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code == "ConditionalCheckFailedException":
            raise ConditionFailed(f"{what}: condition failed") from exc
        if code == "TransactionCanceledException":
            reasons = [str(r.get("Code", "None")) for r in cancellation_reasons(exc)]
            if "ConditionalCheckFailed" in reasons:
                raise ConditionFailed(f"{what}: condition failed ({reasons})") from exc
            if set(reasons) & _RETRYABLE_REASONS or not reasons:
                raise StoreUnavailable(f"{what}: transaction cancelled ({reasons})") from exc
            raise
        if code in RETRYABLE_CODES:
            raise StoreUnavailable(f"{what}: {code}") from exc
        if code in UNKNOWN_OUTCOME_CODES:
            raise OutcomeUnknown(f"{what}: {code}") from exc
        raise
    except (ConnectTimeoutError, ReadTimeoutError, ConnectionError, HTTPClientError) as exc:
        # a timeout may hide a write that did happen: the service re-reads what it wrote
        raise OutcomeUnknown(f"{what}: {type(exc).__name__}") from exc
