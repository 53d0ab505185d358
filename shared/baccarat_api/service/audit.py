"""Tamper evidence (bacc-audit-v1, :mod:`baccarat.audit`): the hash chain over a table's round
records, verified one shoe per call by ``GET /v1/tables/{table_id}/audit``.

Each deal hashes its round onto the shoe's head in the transaction that puts the round; a shoe
starts where the table's head was and hands its head back when it ends. Verifying a shoe reads
a bounded amount (the table, the shoe's items, the previous shoe's head), recomputes every hash
and reports every place the chain breaks."""

from __future__ import annotations

from typing import Any

from baccarat.audit import (
    AUDIT_SPEC,
    OPTIONAL_ROUND_FIELDS,
    ROUND_FIELDS,
    genesis,
    round_hash,
    settlement_hash,
)
from baccarat_api.ids import RoundRef, ShoeRef, parse_table_id
from baccarat_api.ports.records import ENDED, RoundRecord, ShoeRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.errors import not_found
from baccarat_api.service.models import AuditOut

#: Most breaks one audit answer lists (the first is always ``first_break``).
MAX_BREAKS = 100


def record_hash(r: RoundRecord) -> str:
    """The round record's bacc-audit-v1 hash (over the record as dealt)."""
    names = (*ROUND_FIELDS, *OPTIONAL_ROUND_FIELDS)
    return round_hash({name: getattr(r, name) for name in names if name != "spec"})


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


def _start_of(
    repo: Repository,
    operator_id: str,
    table: TableRecord,
    number: int,
    checkpoint: str | None,
    breaks: _Breaks,
) -> str:
    """Where shoe ``number``'s chain must start: the caller's checkpoint, else the genesis value
    (shoe 1) or the previous shoe's stored head."""
    if checkpoint is not None:
        return checkpoint
    if number == 1:
        return genesis(table.table_id, table.anchor)
    previous = ShoeRef(table.table_id, number - 1)
    head = repo.chain_head_of(operator_id, previous)
    if head is None:
        breaks.add("shoe", "a shoe record", "missing", shoe_id=previous.shoe_id)
        return ""
    return head


def audit_table(
    repo: Repository,
    operator_id: str,
    table_id: str,
    shoe_number: int | None = None,
    checkpoint: str | None = None,
) -> AuditOut:
    """Audit one shoe of the table: ``shoe_number`` (default: the latest, open or ended), its
    chain starting from ``checkpoint`` when given (the head of the previous shoe as the caller
    verified it), else from the previous shoe's stored head (the genesis value for shoe 1)."""
    table = repo.get_table(operator_id, table_id) if parse_table_id(table_id) else None
    if table is None:
        raise not_found("table", table_id)
    start = genesis(table.table_id, table.anchor)
    latest = table.next_shoe_number - 1
    number = latest if shoe_number is None else shoe_number
    ref = ShoeRef(table.table_id, number)
    if number > latest:
        raise not_found("shoe", ref.shoe_id)
    breaks = _Breaks()
    head, rounds, settlements, shoe_id = start, 0, 0, None
    if number >= 1:
        shoe_id = ref.shoe_id
        start = _start_of(repo, operator_id, table, number, checkpoint, breaks)
        history = repo.shoe_history(operator_id, ref)
        for sk in history.unreadable:
            breaks.add("item", "a readable record", "unreadable", item=sk)
        if history.shoe is None:
            breaks.add("shoe", "a shoe record", "missing", shoe_id=shoe_id)
            head = start
        else:
            head, settlements = _walk_shoe(history.shoe, history.rounds, start, breaks)
            if number == latest:  # the table's head: where this shoe started, or ended
                handed_back = head if history.shoe.status == ENDED else start
                if table.chain_head != handed_back:
                    breaks.add("chain_head", handed_back, table.chain_head, item="TABLE")
        rounds = len(history.rounds)
    elif table.chain_head != start:  # no shoe yet: the table's head is the genesis value
        breaks.add("chain_head", start, table.chain_head, item="TABLE")
    return AuditOut.model_validate(
        {
            "spec": AUDIT_SPEC,
            "table_id": table.table_id,
            "shoe_id": shoe_id,
            "shoes": latest,
            "verified": not breaks,
            "genesis": genesis(table.table_id, table.anchor),
            "start": start,
            "head": head,
            "shoes_checked": 1 if shoe_id else 0,
            "rounds_checked": rounds,
            "settlements_checked": settlements,
            "first_break": breaks[0] if breaks else None,
            "breaks": breaks[:MAX_BREAKS],
        }
    )
