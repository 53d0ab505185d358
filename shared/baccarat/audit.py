"""bacc-audit-v1: the tamper-evident hash chain over a table's round records.

Every round record carries ``prev_hash``, the hash of the table's previous round record (across
the table's shoes), starting from a genesis value derived from the table id and its anchor; and
``round_hash``, its own hash. A settlement (or void) stored later carries ``settlement_hash``,
which binds it to its round's hash. Changing, removing, reordering or inserting a round record
breaks the chain at that round; changing a settlement breaks its ``settlement_hash``.

Canonical bytes (all hashes are SHA-256, lowercase hex):

* ``canonical(doc)`` = ``json.dumps(doc, sort_keys=True, separators=(",", ":"),
  ensure_ascii=False)`` encoded as UTF-8 — keys sorted by code point, no whitespace, strings as
  they are (no ``\\u`` escapes except those JSON requires), integers in decimal, ``true``,
  ``false``, ``null``. Records hold no floats.
* ``genesis(table_id, anchor)`` = ``H("bacc-audit-v1/genesis" ‖ 0x00 ‖ table_id ‖ 0x00 ‖
  anchor)`` with ``anchor`` the table's published ``s_0`` in lowercase hex.
* ``round_hash`` = ``H("bacc-audit-v1/round" ‖ 0x00 ‖ canonical(round_doc))`` where
  ``round_doc`` has exactly the :data:`ROUND_FIELDS` below (absent optional values as
  ``null``) — what the round was when it was dealt; nothing that changes later.
* ``settlement_hash`` = ``H("bacc-audit-v1/settlement" ‖ 0x00 ‖ round_hash ‖ 0x00 ‖
  canonical(settlement))`` with ``settlement`` the stored settlement (or void) document.

Standard library only."""

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
    doc["spec"] = AUDIT_SPEC
    return doc


def round_hash(record: Mapping[str, Any]) -> str:
    return _h(f"{AUDIT_SPEC}/round".encode(), canonical(round_doc(record)))


def settlement_hash(round_hash_hex: str, settlement: Any) -> str:
    return _h(
        f"{AUDIT_SPEC}/settlement".encode(), round_hash_hex.encode("ascii"), canonical(settlement)
    )
