"""A new table's number (桌號), written with the table in ONE transaction: the number given,
claimed (409 ``table_number_taken`` when another table of the operator holds it); or, none
given, the operator's next number — drawn from its counter by an atomic increment (racing
creations each draw their own number, none waits for another) and claimed in the table's
transaction. A drawn number met taken (a table created with it) lifts the counter past the run
of taken numbers after it, and the next is drawn. Of creations racing for one number exactly one
gets it: a claim is put only if absent.

Numbers are unique per operator and increasing in creation order, not necessarily consecutive:
a creation that fails after drawing its number (its transaction refused, its answer an error)
leaves that number unused. Round trips (DynamoDB): one more than a numbered creation's (the
increment, an ``UpdateItem``); a taken number costs a ``Query`` of the taken run and one
conditional ``UpdateItem``."""

from __future__ import annotations

import base64
import hashlib
from contextlib import suppress
from dataclasses import replace

from baccarat_api.limits import MAX_TABLE_NUMBER
from baccarat_api.ports.records import TableNumberCounter, TableRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.writes import Below, Emit, Update
from baccarat_api.service import idempotency
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import TableOut
from baccarat_api.service.views import table_view

#: Numbers drawn for a table created without one before answering 409 ``concurrent_update``:
#: a try fails only on a number taken by a table created with it (each lifts the counter past
#: the run it meets), or taken by an explicit creation racing the same moment.
NUMBER_TRIES = 8
#: Claims read at once to skip a run of taken numbers.
SKIP_SCAN = 1000


class _Taken(Exception):
    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def write_table(
    repo: Repository,
    record: TableRecord,
    idem: IdempotencyRequest | None,
    live: Emit | None,
) -> TableOut:
    """Write the new table ``record`` (its number given, or ``None``: drawn here), its claim
    and ``live``, and answer it."""
    if record.number is not None:
        try:
            return _attempt(repo, record, idem, live)
        except _Taken as held:
            raise _taken_error(record.number, held.holder) from None
    operator_id = record.operator_id
    for _ in range(NUMBER_TRIES):
        number = repo.next_table_number(operator_id)
        if number > MAX_TABLE_NUMBER:
            raise _exhausted()
        numbered = replace(record, number=number, write_id=_numbered(record.write_id, number))
        try:
            return _attempt(repo, numbered, idem, live)
        except _Taken:  # created with that number: the counter past the run of taken ones
            taken = repo.taken_table_numbers(operator_id, number, SKIP_SCAN)
            _lift(repo, operator_id, first_free(taken, number) - 1)
    raise lost_race()


def _lift(repo: Repository, operator_id: str, last: int) -> None:
    """The operator's counter moved up to ``last`` unless it is there or past it already (one
    conditional write; its lost condition is the answer "already past")."""
    lift = Update(
        TableNumberCounter, (operator_id,), set={"last": last}, expect={"last": Below(last)}
    )
    with suppress(ConditionFailed):
        repo.transact("table number counter", [replace(lift, upsert=True)])


def first_free(taken: list[int], start: int) -> int:
    """The first number from ``start`` up not in ``taken`` (ascending, all ≥ ``start``)."""
    free = start
    for n in taken:
        if n != free:
            break
        free += 1
    return free


def _attempt(
    repo: Repository,
    record: TableRecord,
    idem: IdempotencyRequest | None,
    live: Emit | None,
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
