"""The exact RTP report: every offered bet's win/push/lose probabilities, multiplier
distribution and house edge, from the weighed classes of rounds :mod:`baccarat.rtp` enumerates,
and its fixed-width table for a terminal."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .cards import CARDS_PER_DECK
from .outcome import Result
from .paytables import BetType, Grade, PayTable, RoundFacts, grade

__all__ = ["ROUND_CARDS", "BetRtp", "RtpReport", "falling", "format_table", "report"]

#: Every round is completed to six cards, so that all share one denominator.
ROUND_CARDS = 6

_DRAGONS = frozenset({BetType.PLAYER_DRAGON, BetType.BANKER_DRAGON})


def falling(n: int, k: int) -> int:
    """``n · (n − 1) ··· (n − k + 1)``: ordered ways to deal ``k`` of ``n`` cards."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


# --- the figures of each bet ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BetRtp:
    """One bet's exact figures per unit staked."""

    bet: BetType
    p_win: Fraction
    p_push: Fraction
    p_lose: Fraction
    #: (net multiplier the table pays, probability), one entry per distinct winning multiplier.
    multipliers: tuple[tuple[Fraction, Fraction], ...]
    #: The table's commission on a positive net (a lone win nets ``m · (1 − rate)``).
    commission_rate: Fraction
    house_edge: Fraction

    @property
    def expected_net(self) -> Fraction:
        return -self.house_edge

    @property
    def rtp(self) -> Fraction:
        """Return to player: expected amount back per unit staked (1 − house edge)."""
        return 1 - self.house_edge

    @property
    def house_edge_per_resolved(self) -> Fraction:
        """House edge per bet that is not pushed (the usual figure for Banker/Player with ties)."""
        return self.house_edge / (1 - self.p_push) if self.p_push != 1 else Fraction(0)

    def as_dict(self) -> dict[str, Any]:
        keep = 1 - self.commission_rate
        return {
            "bet": self.bet.value,
            "p_win": _exact(self.p_win),
            "p_push": _exact(self.p_push),
            "p_lose": _exact(self.p_lose),
            "multipliers": [
                {
                    "pays": str(m),
                    "net_after_commission": str(_net(m, keep)),
                    "p": _exact(p),
                }
                for m, p in self.multipliers
            ],
            "house_edge": _exact(self.house_edge),
            "house_edge_percent": _percent(self.house_edge),
            "house_edge_per_resolved_percent": _percent(self.house_edge_per_resolved),
            "rtp": _exact(self.rtp),
            "rtp_percent": _percent(self.rtp),
        }


@dataclass(frozen=True, slots=True)
class RtpReport:
    """Exact RTP of every bet a pay table offers, for one round from a fresh shoe."""

    table: PayTable
    decks: int
    p_banker: Fraction
    p_player: Fraction
    p_tie: Fraction
    bets: tuple[BetRtp, ...]

    def bet(self, bet: BetType) -> BetRtp:
        for entry in self.bets:
            if entry.bet is bet:
                return entry
        raise KeyError(f"{bet.value} is not offered by {self.table.name}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table.name,
            "dragon_table": self.table.dragon_name if self.table.offered & _DRAGONS else None,
            "banker_pays": str(self.table.banker),
            "commission_rate": str(self.table.commission_rate),
            "decks": self.decks,
            "method": "exact enumeration of every deal from a fresh shoe",
            "outcomes": {
                Result.BANKER.value: _exact(self.p_banker),
                Result.PLAYER.value: _exact(self.p_player),
                Result.TIE.value: _exact(self.p_tie),
            },
            "bets": [b.as_dict() for b in self.bets],
        }


def _net(multiplier: Fraction, keep: Fraction) -> Fraction:
    """Net won by a lone winning bet: the commission is taken on a positive net only."""
    return multiplier * keep if multiplier > 0 else multiplier


def _decimal(x: Fraction, digits: int) -> str:
    scaled = round(abs(x) * 10**digits)
    whole, frac = divmod(scaled, 10**digits)
    sign = "-" if x < 0 and scaled else ""
    return f"{sign}{whole}.{frac:0{digits}d}" if digits else f"{sign}{whole}"


def _exact(x: Fraction) -> dict[str, str]:
    return {"decimal": _decimal(x, 10), "exact": str(x)}


def _percent(x: Fraction, digits: int = 4) -> str:
    return _decimal(x * 100, digits) + "%"


def report(table: PayTable, decks: int, classes: Iterable[tuple[RoundFacts, int]]) -> RtpReport:
    """Grade every class of rounds (each weighed in ordered six-card sequences from a fresh
    ``decks``-deck shoe) for every bet ``table`` offers, and sum up."""
    total = falling(CARDS_PER_DECK * decks, ROUND_CARDS)
    bets = [b for b in BetType if b in table.offered]
    tally, results = _tally(table, bets, classes)
    return RtpReport(
        table=table,
        decks=decks,
        p_banker=Fraction(results[Result.BANKER], total),
        p_player=Fraction(results[Result.PLAYER], total),
        p_tie=Fraction(results[Result.TIE], total),
        bets=tuple(_bet_rtp(table, bet, tally[bet], total) for bet in bets),
    )


_Tally = dict[tuple[Grade, int, int], int]


def _tally(
    table: PayTable, bets: list[BetType], classes: Iterable[tuple[RoundFacts, int]]
) -> tuple[dict[BetType, _Tally], dict[Result, int]]:
    """Per bet, the weight of each (grade, multiplier) it gets; and the weight of each result."""
    # Keyed by (grade, numerator, denominator): ints hash much faster than a Fraction.
    tally: dict[BetType, _Tally] = {b: {} for b in bets}
    results = dict.fromkeys(Result, 0)
    for facts, w in classes:
        results[facts.result] += w
        for bet in bets:
            g, m = grade(bet, facts, table)
            key = (g, m.numerator, m.denominator)
            counts = tally[bet]
            counts[key] = counts.get(key, 0) + w
    return tally, results


def _bet_rtp(table: PayTable, bet: BetType, counts: _Tally, total: int) -> BetRtp:
    """One bet's figures from its tally over ``total`` ordered six-card sequences."""
    wins: dict[Fraction, int] = {}
    pushes = losses = 0
    for (g, num, den), w in counts.items():
        if g is Grade.WIN:
            m = Fraction(num, den)
            wins[m] = wins.get(m, 0) + w
        elif g is Grade.PUSH:
            pushes += w
        else:
            losses += w
    mults = tuple((m, Fraction(w, total)) for m, w in sorted(wins.items()))
    p_win = sum((p for _, p in mults), Fraction(0))
    p_lose = Fraction(losses, total)
    keep = 1 - table.commission_rate
    expected = sum((_net(m, keep) * p for m, p in mults), Fraction(0)) - p_lose
    return BetRtp(
        bet=bet,
        p_win=p_win,
        p_push=Fraction(pushes, total),
        p_lose=p_lose,
        multipliers=mults,
        commission_rate=table.commission_rate,
        house_edge=-expected,
    )


# --- terminal output ------------------------------------------------------------------------------


def _pays(m: Fraction) -> str:
    """``0.95``, ``1.5``, ``12``; a fraction without a short decimal stays ``a/b``."""
    for digits in range(4):
        if (m * 10**digits).denominator == 1:
            return _decimal(m, digits)
    return str(m)


def format_table(report: RtpReport) -> str:
    """A fixed-width table for a terminal: one line per bet, one more per multiplier of a bet
    that pays several."""
    t = report.table
    head = [f"Exact RTP — {t.name}, {report.decks} deck{'s' if report.decks != 1 else ''}"]
    if t.offered & _DRAGONS:
        head.append(f"dragon table {t.dragon_name}")
    if t.commission_rate:
        head.append(f"{_percent(t.commission_rate, 2)} commission on a win")
    lines = [
        ", ".join(head),
        f"Banker wins {_percent(report.p_banker)}   Player wins {_percent(report.p_player)}   "
        f"Tie {_percent(report.p_tie)}",
        "",
        f"{'bet':<22}{'pays':>14}{'P(win)':>11}{'P(push)':>11}{'P(lose)':>11}"
        f"{'house edge':>12}{'RTP':>11}",
    ]
    for e in report.bets:
        pays = ",".join(_pays(m) for m, _ in e.multipliers) or "-"
        lines.append(
            f"{e.bet.value:<22}{pays:>14}{_decimal(e.p_win, 6):>11}{_decimal(e.p_push, 6):>11}"
            f"{_decimal(e.p_lose, 6):>11}{_percent(e.house_edge):>12}{_percent(e.rtp):>11}"
        )
        if len(e.multipliers) > 1:
            for m, p in e.multipliers:
                lines.append(f"{'  wins ' + _pays(m):<36}{_decimal(p, 6):>11}")
    return "\n".join(lines)
