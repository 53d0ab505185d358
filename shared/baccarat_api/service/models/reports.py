"""Reconciliation: rounds listed by time, and the daily report."""

from __future__ import annotations

from pydantic import Field

from baccarat_api.service.models.common import CurrencyCode, MinorUnitExponent, Result, Strict
from baccarat_api.service.models.rounds import RoundStatus


class RoundSummaryOut(Strict):
    """One round as reconciliation sees it: its state and its money."""

    round_id: str
    table_id: str
    shoe_id: str
    round_number: int
    status: RoundStatus = Field(
        description="dealt (not resolved yet), settled (by a call), auto_settled (by the "
        "system after the table's deadline), voided"
    )
    dealt_at: str
    resolved_at: str | None = Field(description="when it was settled or voided")
    result: Result | None = Field(
        description="null while a card of the round is still face down at its table (a "
        "squeeze counting down): nothing of a round's outcome is shown before its table shows it"
    )
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent
    lines: int = Field(description="bet lines")
    staked: int = Field(description="Σ stakes (a void returned them)")
    commission: int = Field(description="every commission of the round (0 unless settled)")
    house_take: int = Field(description="the house's take (0 unless settled)")
    nets: dict[str, int] = Field(
        description="participant → net applied to its wallet (all 0 until settled, and when "
        "voided); bettors in the order of their first bet, then the player-banker"
    )


class RoundListOut(Strict):
    rounds: list[RoundSummaryOut]
    next_cursor: str | None = Field(
        description="pass as ?cursor= for the next page; null: no more. A page may be short "
        "(even empty) and still have a next_cursor"
    )


class ReportTotalsOut(Strict):
    rounds: int = Field(description="rounds dealt that day")
    dealt: int = Field(description="of which not resolved yet")
    settled: int = Field(description="of which settled by a call")
    auto_settled: int = Field(description="of which settled by the system")
    voided: int
    staked: int = Field(description="Σ stakes of the settled rounds (voids returned theirs)")
    paid: int = Field(description="Σ of the participants' positive nets (what wallets got)")
    collected: int = Field(description="Σ of the participants' negative nets, as a positive sum")
    commission: int = Field(description="Σ of the settled rounds' commission")
    house_take: int = Field(description="Σ of the settled rounds' house take = collected - paid")
    nets: dict[str, int] = Field(
        description="participant → Σ of its nets (bettors and player-bankers by id)"
    )


class ReportTableOut(ReportTotalsOut):
    table_id: str
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent


class _InCurrency(Strict):
    currency: CurrencyCode
    minor_unit_exponent: MinorUnitExponent


class ReportCurrencyOut(ReportTotalsOut, _InCurrency):  # (the currency first)
    """The day's total in one currency (and exponent): two currencies are never added."""


class DailyReportOut(Strict):
    date: str = Field(description="the UTC day: every round dealt on it, however resolved")
    final: bool = Field(
        description="no round of the day is still unresolved: the report will not change"
    )
    tables: list[ReportTableOut] = Field(description="per table with rounds that day, by id")
    totals: list[ReportCurrencyOut] = Field(
        description="per currency (and minor_unit_exponent) of the day's tables, by code: the "
        "sum of its tables' rows"
    )
