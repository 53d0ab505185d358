"""Reconciliation: an operator's rounds of a time range (``GET /v1/rounds``) and the daily report
(``GET /v1/reports/daily``), both read through the repository's rounds-of-a-day listing (the
``RoundsByDay`` index: 32 partitions per operator and day, docs/scaling.md).

A round belongs to the UTC day it was **dealt** (its bets were locked then), whenever it is
settled or voided: its place never moves, so paging never repeats or skips a round of a past
day, and a day's report is final once none of its rounds is still unresolved (at most the
tables' settle deadline after midnight, when the sweep has settled the rest)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from baccarat import currency
from baccarat_api.ids import ShoeRef
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import BadPosition, DayPosition, Repository
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import (
    DailyReportOut,
    ReportCurrencyOut,
    ReportTableOut,
    RoundListOut,
    RoundStatus,
    RoundSummaryOut,
)
from baccarat_api.service.reveals import face_down
from baccarat_api.service.views import status_of

#: The longest range one listing may cover.
MAX_RANGE_DAYS = 31
#: Reads of the index per page of ``GET /v1/rounds`` (a page may stop short of its limit).
PAGE_QUERIES = 40
#: Reads per index query of the report (it reads the whole day).
REPORT_PAGE = 1000
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$")


def summary(r: RoundRecord, at: str) -> RoundSummaryOut:
    status = status_of(r)
    money = r.money
    settled = status in ("settled", "auto_settled")
    nets: dict[str, int] = dict(money.get("nets") or {})
    house = money.get("house") or {}
    return RoundSummaryOut(
        round_id=r.round_id,
        table_id=r.table_id,
        shoe_id=ShoeRef(r.table_id, r.shoe_number).shoe_id,
        round_number=r.round_number,
        status=status,
        dealt_at=r.dealt_at,
        resolved_at=r.void["voided_at"] if r.void is not None else r.settled_at,
        # (a bacc-pf-v2 round voided beacon_unavailable has no card: no result)
        result=None if face_down(r, at) is not None else r.facts.get("result"),
        **currency.of_config(r.config),
        lines=len(money.get("lines") or ()),
        staked=sum(int(line["stake"]) for line in money.get("lines") or ()),
        commission=int(house.get("commission", 0)) if settled else 0,
        house_take=int(house.get("take", 0)) if settled else 0,
        nets=nets if settled else dict.fromkeys(nets, 0),
    )


# --- GET /v1/rounds ----------------------------------------------------------------------------


def _instant(value: str | None, what: str) -> datetime | None:
    if value is None:
        return None
    if _DAY.match(value):
        value += "T00:00:00Z"
    if not _TIME.match(value):
        raise DomainError(
            "invalid_range",
            f"{what} must be a UTC day (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM:SS[.mmm]Z)",
            details={what: value},
        )
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise DomainError("invalid_range", f"{what} is not a date", details={what: value}) from None


def _stored(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _days(start: datetime, end: datetime) -> list[str]:
    """The UTC days of [start, end)."""
    first, last = start.date(), (end - timedelta(milliseconds=1)).date()
    return [str(first + timedelta(days=i)) for i in range((last - first).days + 1)]


def _query_id(*parts: str | None) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:12]


def _encode(day: str, pos: DayPosition | None, query: str) -> str:
    doc = {"q": query, "d": day, "p": list(pos) if pos else None}
    return base64.urlsafe_b64encode(json.dumps(doc, separators=(",", ":")).encode()).decode()


#: The longest cursor this route makes (a longer one is malformed: 422 invalid_cursor).
MAX_CURSOR_LENGTH = 512


def _decode(cursor: str, query: str) -> tuple[str, DayPosition | None]:
    try:
        if len(cursor) > MAX_CURSOR_LENGTH:
            raise ValueError(cursor)
        doc = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
        day, pos = doc["d"], doc["p"]
        ok = doc["q"] == query and isinstance(day, str) and _DAY.match(day)
        position = None if pos is None else (int(pos[0]), str(pos[1]))
    except (ValueError, KeyError, TypeError, IndexError, binascii.Error, RecursionError):
        ok = False  # (UnicodeError is a ValueError)
    if not ok:
        raise _bad_cursor()
    return day, position


def _bad_cursor() -> DomainError:
    return DomainError("invalid_cursor", "the cursor is malformed or of another query")


def _range(start: str | None, end: str | None, at: str) -> tuple[datetime, datetime]:
    """[from, to) of a listing: ``from`` defaults to the start (UTC) of ``at``'s day, ``to`` to
    the end of from's day; a range that is empty, longer than MAX_RANGE_DAYS or past the calendar is
    refused (422 invalid_range)."""
    begin = _instant(start, "from")
    if begin is None:
        today = datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(UTC)
        begin = today.replace(hour=0, minute=0, second=0, microsecond=0)
    try:
        finish = _instant(end, "to") or begin.replace(
            hour=0, minute=0, second=0, microsecond=0
        ) + timedelta(days=1)
    except OverflowError:  # from=9999-12-31: the end of its day is past the calendar's
        finish = None
    if finish is None or finish <= begin or finish - begin > timedelta(days=MAX_RANGE_DAYS):
        raise DomainError(
            "invalid_range",
            f"to must be after from, at most {MAX_RANGE_DAYS} days later, before year 10000",
            details={"from": _stored(begin), "to": None if finish is None else _stored(finish)},
        )
    return begin, finish


def _days_left(
    days: list[str], cursor: str | None, query: str
) -> tuple[list[str], DayPosition | None]:
    """The days a page reads, from the cursor's day (all of them without a cursor), and the
    position inside the first one."""
    if cursor is None:
        return days, None
    day, position = _decode(cursor, query)
    if day not in days:
        raise _bad_cursor()
    return days[days.index(day) :], position


def _wanted(s: RoundSummaryOut, lo: str, hi: str, status: RoundStatus | None) -> bool:
    return lo <= s.dealt_at < hi and (status is None or s.status == status)


@dataclass(slots=True)
class _Page:
    """A page being filled: the rounds kept so far and the index reads left."""

    lo: str
    hi: str
    status: RoundStatus | None
    limit: int
    rounds: list[RoundSummaryOut] = field(default_factory=list)
    budget: int = PAGE_QUERIES

    @property
    def full(self) -> bool:
        return self.budget <= 0 or len(self.rounds) >= self.limit


def _read_day(
    repo: Repository,
    operator_id: str,
    table_id: str | None,
    day: str,
    position: DayPosition | None,
    page: _Page,
) -> DayPosition | None:
    """Reads ``day`` from ``position`` into ``page`` until the day ends (None) or the page is
    full (the position reached)."""
    while not page.full:
        try:
            rounds, position = repo.day_rounds(
                operator_id, day, table_id=table_id, after=position,
                limit=page.limit - len(page.rounds), queries=1,
            )  # fmt: skip
        except BadPosition:  # a cursor's position the store never gave: forged
            raise _bad_cursor() from None
        page.budget -= 1
        page.rounds += [
            s
            for s in (summary(r, repo.clock()) for r in rounds)
            if _wanted(s, page.lo, page.hi, page.status)
        ]
        if position is None:
            break
    return position


def list_rounds(
    repo: Repository,
    operator_id: str,
    *,
    table_id: str | None = None,
    start: str | None = None,
    end: str | None = None,
    status: RoundStatus | None = None,
    cursor: str | None = None,
    limit: int = 100,
) -> RoundListOut:
    """Rounds dealt in [``start``, ``end``) (default: today, UTC), of one table or all, of one
    status or all; a page of at most ``limit`` from ``cursor``. Days in order; within a day
    table by table, each table's rounds in play order."""
    begin, finish = _range(start, end, repo.clock())
    lo, hi = _stored(begin), _stored(finish)
    query = _query_id(table_id, lo, hi, status)
    days, position = _days_left(_days(begin, finish), cursor, query)
    page = _Page(lo=lo, hi=hi, status=status, limit=limit)
    for i, day in enumerate(days):
        position = _read_day(repo, operator_id, table_id, day, position, page)
        if position is not None:  # stopped inside the day
            return RoundListOut(rounds=page.rounds, next_cursor=_encode(day, position, query))
        if page.full and i + 1 < len(days):
            return RoundListOut(rounds=page.rounds, next_cursor=_encode(days[i + 1], None, query))
    return RoundListOut(rounds=page.rounds, next_cursor=None)


# --- GET /v1/reports/daily ---------------------------------------------------------------------


def _all_rounds(repo: Repository, operator_id: str, day: str) -> Iterator[RoundRecord]:
    position: DayPosition | None = None
    while True:
        rounds, position = repo.day_rounds(
            operator_id, day, after=position, limit=REPORT_PAGE, queries=REPORT_PAGE
        )
        yield from rounds
        if position is None:
            return


class _Totals:
    def __init__(self) -> None:
        self.counts = dict.fromkeys(("rounds", "dealt", "settled", "auto_settled", "voided"), 0)
        self.money = dict.fromkeys(("staked", "paid", "collected", "commission", "house_take"), 0)
        self.nets: dict[str, int] = {}

    def add(self, s: RoundSummaryOut) -> None:
        self.counts["rounds"] += 1
        self.counts[s.status] += 1
        if s.status not in ("settled", "auto_settled"):
            return
        self.money["staked"] += s.staked
        self.money["commission"] += s.commission
        self.money["house_take"] += s.house_take
        for who, net in s.nets.items():
            self.nets[who] = self.nets.get(who, 0) + net
            self.money["paid" if net > 0 else "collected"] += abs(net)

    def fields(self) -> dict[str, Any]:
        return {**self.counts, **self.money, "nets": dict(sorted(self.nets.items()))}


def daily_report(repo: Repository, operator_id: str, day: str) -> DailyReportOut:
    """Per table and per currency, every round dealt on ``day`` (UTC): counts by status and the
    money of the settled ones. Σ ``nets`` + ``house_take`` = 0 in every row. Two currencies (or
    two exponents of one) are never added: a total is per ``(currency, minor_unit_exponent)``."""
    if not _DAY.match(day):
        raise DomainError(
            "invalid_range", "date must be a UTC day: YYYY-MM-DD", details={"date": day}
        )
    try:
        date.fromisoformat(day)
    except ValueError:
        raise DomainError("invalid_range", "date is not a date", details={"date": day}) from None
    totals: dict[tuple[str, int], _Totals] = {}
    tables: dict[str, tuple[_Totals, tuple[str, int]]] = {}
    for r in _all_rounds(repo, operator_id, day):
        s = summary(r, repo.clock())
        unit = (s.currency, s.minor_unit_exponent)
        totals.setdefault(unit, _Totals()).add(s)
        tables.setdefault(r.table_id, (_Totals(), unit))[0].add(s)

    def unit_of(key: tuple[str, int]) -> dict[str, Any]:
        return {"currency": key[0], "minor_unit_exponent": key[1]}

    return DailyReportOut(
        date=day,
        final=all(t.counts["dealt"] == 0 for t in totals.values()) and day < repo.clock()[:10],
        tables=[
            ReportTableOut(table_id=t, **unit_of(tables[t][1]), **tables[t][0].fields())
            for t in sorted(tables)
        ],
        totals=[ReportCurrencyOut(**unit_of(k), **totals[k].fields()) for k in sorted(totals)],
    )
