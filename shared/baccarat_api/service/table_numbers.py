"""A new table's number (桌號), written with the table in ONE transaction: the number given,
claimed (409 ``table_number_taken`` when another table of the operator holds it); or, none
given, the operator's next number — the counter read with the creation's first read, moved to
it on condition that it is still as read, and the number claimed, in the table's transaction (so
a failed creation moves nothing). A number held by a table created with it is skipped with the
run of taken numbers after it. Of creations racing for one number exactly one gets it: a claim
is put only if absent.

Round trips (DynamoDB): none more than a creation's (the counter rides in its first read, a
``BatchGetItem``); a creation that lost the counter or met a taken number reads again (the
table, the counter and the claim; the taken run: a ``Query``) and tries the next."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace

from baccarat_api.limits import MAX_TABLE_NUMBER
from baccarat_api.ports.records import TableNumberCounter, TableRecord
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.writes import Emit, Put, Update, Write
from baccarat_api.service import idempotency
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import TableOut
from baccarat_api.service.views import table_view

#: Numbers tried for a table created without one before answering 409 ``concurrent_update``
#: (each try lost to another creation moving the counter, or met a taken number). Of N
#: creations racing at one operator one wins each round, so the last of them tries N times:
#: 64 covers a storm of 64 at once (8 clients × 8 tables each took ≤ 16 in a CI run, and
#: more than 16 once).
NUMBER_TRIES = 64
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
    counter: TableNumberCounter | None,
) -> TableOut:
    """Write the new table ``record`` (its number given, or ``None``: assigned here from
    ``counter``, the operator's as read), its claim and ``live``, and answer it."""
    if record.number is not None:
        try:
            return _attempt(repo, record, idem, live, None)
        except _Taken as held:
            raise _taken_error(record.number, held.holder) from None
    operator_id = record.operator_id
    last = 0 if counter is None else counter.last
    number = last + 1
    for _ in range(NUMBER_TRIES):
        if number > MAX_TABLE_NUMBER:
            raise _exhausted()
        numbered = replace(record, number=number, write_id=_numbered(record.write_id, number))
        try:
            return _attempt(repo, numbered, idem, live, _move(operator_id, counter, number))
        except _Taken:  # a table created with that number: past the run of taken ones, and
            # past the counter as it is now (the taker may have moved it: trying with the
            # counter as first read would only lose to it once more)
            taken = repo.taken_table_numbers(operator_id, number, SKIP_SCAN)
            counter = repo.load(operator_id, numbers=True).numbers
            number = max(first_free(taken, number), (0 if counter is None else counter.last) + 1)
        except _Moved:  # another creation took the counter's next number: from where it is
            counter = repo.load(operator_id, numbers=True).numbers
            number = (0 if counter is None else counter.last) + 1
    raise lost_race()


class _Moved(Exception):
    """The counter is no longer as read: another creation assigned a number meanwhile."""


def _move(operator_id: str, counter: TableNumberCounter | None, number: int) -> Write:
    """The counter from as read to ``number`` (put if there was none)."""
    if counter is None:
        return Put(TableNumberCounter(operator_id, number))
    return Update(
        TableNumberCounter, (operator_id,), set={"last": number}, expect={"last": counter.last}
    )


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
    numbers: Write | None,
) -> TableOut:
    """One transaction: the table with its number's claim (and the counter moved). A lost
    answer (this very write is there) answers it; the number held by another table raises
    :class:`_Taken`, the counter moved :class:`_Moved`."""
    operator_id, table_id = record.operator_id, record.table_id
    view = table_view(record)
    try:
        repo.create_table(
            record, idempotency.record(repo.clock(), idem, operator_id, view), live, numbers
        )
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
        if numbers is not None:
            raise _Moved from None
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
