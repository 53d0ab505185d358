"""The money of a book of spectators' slips at a house-banked table: each slip settled alone (at
a house-banked table a slip's money depends only on its own lines and the cards — nobody covers
anybody, so :func:`baccarat.settlement.settle` of one bettor's lines is that bettor's settlement
in any book), and the book's totals, summed slip by slip so that no total needs the whole book in
memory. ``Σ bettors' nets + the house's take = 0`` for each slip, hence for the totals.

Pure: the deal (the totals it stores), the settlement fan-out (each receipt's settlement) and
both verifiers (a receipt, a book page) call exactly these."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .bets import Bet, Role
from .paytables import BetType, RoundFacts
from .profiles import Banking, TableConfig
from .settlement import Settlement, settle

__all__ = ["BookTotals", "slip_doc", "slip_settlement"]

#: The id a slip is settled under (a slip's money does not depend on who holds it).
_SLIP = "slip"


def slip_settlement(
    table: TableConfig, round_: RoundFacts, lines: Iterable[Mapping[str, Any]]
) -> Settlement:
    """One spectator's slip settled alone: ``lines`` are ``{type, amount}`` (one per bet type).
    Only at a house-banked table (``ValueError`` elsewhere: a player-banker covers in book
    order, so one slip's money would depend on the others)."""
    if table.banking is not Banking.HOUSE:
        raise ValueError("a slip is settled alone only at a house-banked table")
    bets = [
        Bet(
            bettor_id=_SLIP,
            role=Role.SPECTATOR,
            type=BetType(line["type"]),
            amount=int(line["amount"]),
            order=i,
        )
        for i, line in enumerate(sorted(lines, key=lambda line: str(line["type"])))
    ]
    return settle(table, round_, bets)


def slip_doc(settled: Settlement) -> dict[str, Any]:
    """A slip's settlement as receipts and book pages write it: its lines (in bet-type order)
    ``{type, stake, grade, multiplier, gross_win, commission, net}``, the round commission of the
    bettor (0 at profiles without one) and its ``net`` for the round."""
    (bettor,) = settled.bettors
    return {
        "lines": [
            {
                k: v
                for k, v in line.as_dict().items()
                if k not in ("index", "bettor_id", "covered_by")
            }
            for line in settled.lines
        ],
        "commission": bettor.commission,
        "net": bettor.net,
    }


@dataclass(slots=True)
class BookTotals:
    """The totals of a book (or of a part of it: parts add up with :meth:`merge`). Per bet type
    ``{stake, gross_win, commission, net}``; ``bettors`` (slips), ``stake``, ``net`` (Σ bettors'
    nets), and the house's ``covered``, ``commission`` and ``take`` (= −``net``)."""

    bettors: int = 0
    stake: int = 0
    net: int = 0
    covered: int = 0
    commission: int = 0
    by_type: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, settled: Settlement) -> None:
        """Count one slip's settlement."""
        (bettor,) = settled.bettors
        self.bettors += 1
        self.stake += bettor.stake
        self.net += bettor.net
        self.covered += settled.house_covered
        self.commission += settled.house_commission
        for line in settled.lines:
            kind = self._kind(line.type.value)
            kind["stake"] += line.stake
            kind["gross_win"] += line.gross_win
            kind["commission"] += line.commission
            kind["net"] += line.net

    def refund(self, lines: Iterable[Mapping[str, Any]]) -> None:
        """Count one slip whose stake is returned whole (its round voided before any card
        existed: a bacc-pf-v2 ``beacon_unavailable`` void): its stake, nothing won or lost."""
        self.bettors += 1
        for line in lines:
            self.stake += int(line["amount"])
            self._kind(str(line["type"]))["stake"] += int(line["amount"])

    def _kind(self, name: str) -> dict[str, int]:
        return self.by_type.setdefault(
            name, {"stake": 0, "gross_win": 0, "commission": 0, "net": 0}
        )

    def merge(self, other: BookTotals) -> None:
        """Add another part's totals."""
        self.bettors += other.bettors
        self.stake += other.stake
        self.net += other.net
        self.covered += other.covered
        self.commission += other.commission
        for kind, sums in other.by_type.items():
            mine = self.by_type.setdefault(kind, dict.fromkeys(sums, 0))
            for k, v in sums.items():
                mine[k] += v

    @property
    def take(self) -> int:
        return self.covered + self.commission

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, bet types sorted; ``net + house.take == 0``."""
        if self.net + self.take != 0:  # by construction; a broken sum must never be published
            raise AssertionError(f"book totals do not balance: {self.net} + {self.take}")
        return {
            "bettors": self.bettors,
            "stake": self.stake,
            "net": self.net,
            "by_type": {k: dict(self.by_type[k]) for k in sorted(self.by_type)},
            "house": {"covered": self.covered, "commission": self.commission, "take": self.take},
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> BookTotals:
        """The totals :meth:`as_dict` wrote."""
        house = doc["house"]
        return cls(
            bettors=int(doc["bettors"]),
            stake=int(doc["stake"]),
            net=int(doc["net"]),
            covered=int(house["covered"]),
            commission=int(house["commission"]),
            by_type={k: {n: int(v) for n, v in s.items()} for k, s in doc["by_type"].items()},
        )
