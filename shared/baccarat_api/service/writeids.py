"""Write ids: how a write whose answer was lost finds out that it happened.

Every game-state write is named by an id derived from the request — operator, write, target,
content, ``Idempotency-Key`` and the state it was computed from (a shoe's version, the next
shoe number). The id is the transaction's ``ClientRequestToken`` (DynamoDB applies it once
however often botocore re-sends it) and is stored on the write's primary item (``write_id``,
``end_write_id``, ``resolve_write_id``). A write that lost its conditions or timed out re-reads
that item: its own id there means it happened, and it answers as if it had succeeded. The same
request from the same state has the same id; different keys or states never share one.

Settling and voiding need no id: the money was fixed at the deal, so any settlement of a round
is *the* settlement, and voiding again answers the stored void."""

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
