"""A new table's number (桌號), written with the table: the number given, claimed in the
creation's transaction (409 ``table_number_taken`` when another table of the operator holds it);
or, none given, the operator's next free number — reserved from its counter, claimed the same
way; when a table created with that number holds it, the counter skips the run of taken numbers
and the next is tried. Of creations racing for one number exactly one gets it: the claim is put
only if absent.

Round trips (DynamoDB): a number given adds none to the creation's; none given adds one
``UpdateItem`` (the reservation), and per taken number met a ``GetItem``, a ``Query`` and two
``UpdateItem`` more."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace

from baccarat_api.limits import MAX_TABLE_NUMBER
from baccarat_api.ports.records import TableRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.writes import Emit
from baccarat_api.service import idempotency
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import TableOut
from baccarat_api.service.views import table_view

#: Numbers tried for a table created without one before answering 409 ``concurrent_update``.
NUMBER_TRIES = 8
#: Claims read at once to skip a run of taken numbers.
SKIP_SCAN = 1000


class _Taken(Exception):
    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def write_table(
    repo: Repository, record: TableRecord, idem: IdempotencyRequest | None, live: Emit | None
) -> TableOut:
    """Write the new table ``record`` (its number given, or ``None``: assigned here), its
    claim and ``live``, and answer it."""
    if record.number is not None:
        try:
            return _attempt(repo, record, idem, live)
        except _Taken as held:
            raise _taken_error(record.number, held.holder) from None
    operator_id = record.operator_id
    number = repo.reserve_table_number(operator_id)
    for _ in range(NUMBER_TRIES):
        if number > MAX_TABLE_NUMBER:
            raise _exhausted()
        numbered = replace(record, number=number, write_id=_numbered(record.write_id, number))
        try:
            return _attempt(repo, numbered, idem, live)
        except _Taken:
            taken = repo.taken_table_numbers(operator_id, number, SKIP_SCAN)
            repo.skip_table_numbers(operator_id, first_free(taken, number) - 1)
            number = repo.reserve_table_number(operator_id)
    raise lost_race()


def first_free(taken: list[int], start: int) -> int:
    """The first number from ``start`` up not in ``taken`` (ascending, all ≥ ``start``)."""
    free = start
    for n in taken:
        if n != free:
            break
        free += 1
    return free


def _attempt(
    repo: Repository, record: TableRecord, idem: IdempotencyRequest | None, live: Emit | None
) -> TableOut:
    """One transaction: the table with its number's claim. A lost answer (this very write is
    there) answers it; the number held by another table raises :class:`_Taken`."""
    operator_id, table_id = record.operator_id, record.table_id
    view = table_view(record)
    try:
        repo.create_table(record, idempotency.record(repo.clock(), idem, operator_id, view), live)
    except (ConditionFailed, OutcomeUnknown) as exc:
        current = repo.get_table(operator_id, table_id)
        if current is not None and current.write_id == record.write_id:
            return TableOut.model_validate(table_view(current))  # it was written: a lost answer
        if isinstance(exc, OutcomeUnknown):
            raise
        idempotency.check_duplicate(exc)
        assert record.number is not None
        holder = repo.table_number(operator_id, record.number)
        if holder is not None and holder.table_id != table_id:
            raise _Taken(holder.table_id) from None
        raise lost_race() from None  # an 80-bit id collision: practically never; retry is fine
    return TableOut.model_validate(view)


def _numbered(write_id: str, number: int) -> str:
    """The write id of the creation with an assigned ``number``: each try its own (a
    transaction's token names its writes)."""
    digest = hashlib.sha256(f"{write_id}#{number}".encode()).digest()[:20]
    return "w" + base64.b32encode(digest).decode("ascii").lower()


def _taken_error(number: int, holder: str) -> DomainError:
    return DomainError(
        "table_number_taken",
        f"table number {number} is the operator's table {holder}",
        details={"number": number, "table_id": holder},
    )


def _exhausted() -> DomainError:
    return DomainError(
        "table_number_taken",
        f"no number above the last one assigned is free (at most {MAX_TABLE_NUMBER}): give "
        "the table a free number",
        details={"number": None, "max": MAX_TABLE_NUMBER},
    )
