"""bacc-audit-v1: the tamper-evident hash chain over a table's round records.

Each round record carries ``prev_hash`` (the hash of the table's previous round record, across
its shoes, from a genesis value of the table id and its anchor) and its own ``round_hash``; a
settlement or void stored later carries ``settlement_hash``, bound to its round's hash. Changing,
removing, reordering or inserting a round record breaks the chain at that round; changing a
settlement breaks its ``settlement_hash``. The bytes hashed (:func:`canonical`,
:data:`ROUND_FIELDS`) are specified in docs/guarantees-b.md, section 6. Standard library only."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

AUDIT_SPEC = "bacc-audit-v1"

#: The fields of a round record that its hash covers (the record as dealt).
ROUND_FIELDS = (
    "spec",
    "operator_id",
    "table_id",
    "shoe_number",
    "round_number",
    "facts",
    "config",
    "bets",
    "player_banker",
    "squeeze",
    "shoe_status",
    "previous_bettors",
    "created_at",
    "money",
    "settle_by",
    "void_window_seconds",
    "request_digest",
    "prev_hash",
)
#: Fields a round record has only at some tables (``book``: a bet-behind book's commitment and
#: totals; ``lock`` and ``beacon``: a bacc-pf-v2 round's lock and beacon): hashed when present,
#: absent from the hashed view otherwise — so the hash of every round without one is what it
#: always was.
OPTIONAL_ROUND_FIELDS = ("book", "lock", "beacon")


def canonical(doc: Any) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _h(*parts: bytes) -> str:
    return hashlib.sha256(b"\x00".join(parts)).hexdigest()


def genesis(table_id: str, anchor: str) -> str:
    """The ``prev_hash`` of a table's very first round."""
    return _h(f"{AUDIT_SPEC}/genesis".encode(), table_id.encode(), anchor.encode())


def round_doc(record: Mapping[str, Any]) -> dict[str, Any]:
    """The hashed view of a round record (``spec`` is always :data:`AUDIT_SPEC`)."""
    doc = {name: record.get(name) for name in ROUND_FIELDS}
    doc |= {n: record[n] for n in OPTIONAL_ROUND_FIELDS if record.get(n) is not None}
    doc["spec"] = AUDIT_SPEC
    return doc


def round_hash(record: Mapping[str, Any]) -> str:
    return _h(f"{AUDIT_SPEC}/round".encode(), canonical(round_doc(record)))


def settlement_hash(round_hash_hex: str, settlement: Any) -> str:
    return _h(
        f"{AUDIT_SPEC}/settlement".encode(), round_hash_hex.encode("ascii"), canonical(settlement)
    )
