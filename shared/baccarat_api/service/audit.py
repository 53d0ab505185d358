"""Tamper evidence (bacc-audit-v1, :mod:`baccarat.audit`): the hash chain over a table's round
records, written as rounds are dealt and verified by ``GET /v1/tables/{table_id}/audit``.

Writing: the table starts at ``genesis(table_id, anchor)`` (``chain_head`` of the table item);
a committed shoe copies the table's head (``chain_start`` = ``chain_head`` of the shoe); each
deal hashes the new round record with ``prev_hash`` = the shoe's head and moves the head to it,
in the same transaction that puts the round (conditional on the shoe's version, so the chain is
linear); the transaction that ends the shoe hands its head back to the table. Settling or
voiding stores ``settlement_hash``, binding the document to its round's hash.

Verifying reads the table's whole partition with ONE strongly consistent ``Query`` (one more
per MB of history) and walks it in play order, recomputing every hash from the stored content.
It reports each place the chain breaks: the round (or shoe), the field, the expected and the
found hash."""

from __future__ import annotations

from typing import Any

from baccarat.audit import AUDIT_SPEC, ROUND_FIELDS, genesis, round_hash, settlement_hash
from baccarat_api.ids import RoundRef, ShoeRef, parse_table_id
from baccarat_api.ports.records import ENDED, RoundRecord, ShoeRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.errors import not_found
from baccarat_api.service.models import AuditOut

#: Most breaks one audit answer lists (the first is always ``first_break``).
MAX_BREAKS = 100


def record_hash(r: RoundRecord) -> str:
    """The round record's bacc-audit-v1 hash (over the record as dealt)."""
    return round_hash({name: getattr(r, name) for name in ROUND_FIELDS if name != "spec"})


class _Breaks(list[dict[str, Any]]):
    """Every place the chain breaks, in the order found."""

    def add(
        self,
        field: str,
        expected: Any,
        found: Any,
        *,
        round_id: str | None = None,
        shoe_id: str | None = None,
        item: str | None = None,
    ) -> None:
        self.append(
            {
                "round_id": round_id,
                "shoe_id": shoe_id,
                "item": item,
                "field": field,
                "expected": expected,
                "found": found,
            }
        )


def _walk_shoe(
    shoe: ShoeRecord, rounds: list[RoundRecord], expected: str, breaks: _Breaks
) -> tuple[str, int]:
    """Check one shoe's rounds in play order from the chain head ``expected``: the head after
    them, and how many settlements were checked."""
    settlements = 0
    if shoe.chain_start != expected:
        breaks.add("chain_start", expected, shoe.chain_start, shoe_id=shoe.shoe_id)
    for number, r in enumerate(rounds, start=1):
        if r.round_number != number:
            missing = RoundRef(shoe.table_id, shoe.shoe_number, number).round_id
            breaks.add("round_number", number, r.round_number, round_id=missing)
        if r.prev_hash != expected:
            breaks.add("prev_hash", expected, r.prev_hash, round_id=r.round_id)
        actual = record_hash(r)
        if r.round_hash != actual:
            breaks.add("round_hash", actual, r.round_hash, round_id=r.round_id)
        if r.resolution is not None:
            settled = settlement_hash(actual, r.resolution)
            if r.settlement_hash != settled:
                breaks.add("settlement_hash", settled, r.settlement_hash, round_id=r.round_id)
            settlements += 1
        expected = actual
    if len(rounds) != shoe.rounds_dealt:
        breaks.add("rounds_dealt", shoe.rounds_dealt, len(rounds), shoe_id=shoe.shoe_id)
    if shoe.chain_head != expected:
        breaks.add("chain_head", expected, shoe.chain_head, shoe_id=shoe.shoe_id)
    return expected, settlements


def audit_table(repo: Repository, operator_id: str, table_id: str) -> AuditOut:
    history = repo.table_history(operator_id, table_id) if parse_table_id(table_id) else None
    if history is None or history.table is None:
        raise not_found("table", table_id)
    table = history.table
    breaks = _Breaks()
    for sk in history.unreadable:
        breaks.add("item", "a readable record", "unreadable", item=sk)
    start = genesis(table.table_id, table.anchor)
    expected = head_of_ended = start
    settlements_checked = 0
    by_shoe: dict[int, list[RoundRecord]] = {}
    for r in history.rounds:
        by_shoe.setdefault(r.shoe_number, []).append(r)
    shoes = sorted(history.shoes, key=lambda s: s.shoe_number)
    for extra in sorted(set(by_shoe) - {s.shoe_number for s in shoes}):
        shoe_id = ShoeRef(table.table_id, extra).shoe_id
        breaks.add("shoe", "a shoe record", "missing", shoe_id=shoe_id)
    for shoe in shoes:
        rounds = by_shoe.get(shoe.shoe_number, [])
        expected, settled = _walk_shoe(shoe, rounds, expected, breaks)
        settlements_checked += settled
        if shoe.status == ENDED:
            head_of_ended = expected
    if table.chain_head != head_of_ended:
        breaks.add("chain_head", head_of_ended, table.chain_head, item="TABLE")
    return AuditOut.model_validate(
        {
            "spec": AUDIT_SPEC,
            "table_id": table.table_id,
            "verified": not breaks,
            "genesis": start,
            "head": expected,
            "shoes_checked": len(shoes),
            "rounds_checked": sum(len(by_shoe.get(s.shoe_number, [])) for s in shoes),
            "settlements_checked": settlements_checked,
            "first_break": breaks[0] if breaks else None,
            "breaks": breaks[:MAX_BREAKS],
        }
    )
