"""Write ids: how a write whose answer was lost finds out that it happened.

Every game-state write (create a table, commit a shoe, deal, settle, void, close) is named by an
id derived from the request — the operator, the write, its target, the request's content, its
``Idempotency-Key`` (if any) and the state it was computed from (the shoe's version for a deal or
a close, the next shoe number for a commit). The id is

* the transaction's ``ClientRequestToken`` (at most 36 characters), so DynamoDB applies a
  transaction once however often botocore re-sends it after a lost response;
* stored on the write's primary item (``write_id`` of the table, shoe or round it creates;
  ``end_write_id`` of the shoe it ends; ``resolve_write_id`` of the round it settles or voids).

A write that loses its conditions, times out after botocore's retries, or whose token comes back
with other writes (``OutcomeUnknown``) re-reads its primary item before answering: if its own
write id is there, the write happened — it answers exactly as if it had succeeded, with or
without an ``Idempotency-Key``. The same request computed from the same state has the same id,
so two identical requests without a key resolve to the one committed result; requests with
different keys (or from a moved state) never share one.

Settling and voiding need no id to recognise their effect: a round has no settlement inputs of
its own (the money was fixed at the deal), so any settlement of it is *the* settlement, and
voiding again answers the stored void."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from baccarat.audit import canonical
from baccarat_api.service.idempotency import IdempotencyRequest

#: DynamoDB's limit for a ``ClientRequestToken``.
MAX_TOKEN_LENGTH = 36


def write_id(
    operator_id: str,
    what: str,
    target: str,
    request: Any,
    idem: IdempotencyRequest | None,
    state: Any = None,
) -> str:
    """``w`` + 32 base32 characters of SHA-256 over the write's canonical description."""
    doc = {
        "operator": operator_id,
        "write": what,
        "target": target,
        "request": request,
        "idempotency_key": None if idem is None else idem.key_hash,
        "state": state,
    }
    digest = hashlib.sha256(canonical(doc)).digest()[:20]
    out = "w" + base64.b32encode(digest).decode("ascii").lower()
    assert len(out) <= MAX_TOKEN_LENGTH
    return out
