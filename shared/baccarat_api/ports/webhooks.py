"""What webhook delivery needs from outside: a way to POST (:class:`Sender`) and, in AWS, a way
to be called again later (:class:`Wakeup`: an SQS message with a delay)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Sent:
    """What a POST came to: the HTTP status (``None``: no answer — refused, timed out)."""

    status: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class Sender(Protocol):
    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent: ...


class Wakeup(Protocol):
    def later(
        self, operator_id: str, shard: int, delay_seconds: int, retry: bool = False, due_ms: int = 0
    ) -> None:
        """Deliver the operator's feed shard again in ``delay_seconds`` (at most 900);
        ``retry``: the message goes on with a pass's own work (its backoff, its next events),
        not a wake of the indexer's; ``due_ms``: the backoff it goes on for (0: none)."""


def wake_message(
    operator_id: str, shard: int, retry: bool = False, due_ms: int = 0
) -> dict[str, object]:
    """The body of a delivery message (DeliveryQueue): the shard, and for a pass's own message
    ``retry`` and the ``due_ms`` of the backoff it goes on for (left out when unset)."""
    body: dict[str, object] = {"operator_id": operator_id, "shard": shard}
    if retry:
        body["retry"] = True
    if due_ms:
        body["due_ms"] = due_ms
    return body
