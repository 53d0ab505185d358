"""Roads (路單) from a shoe's results: the star-city history, the bead plate, the big road and
the three derived roads, each a pure function of the rounds in order (numbered 1, 2, … as
given, unless a round says its ``round``): a :class:`baccarat.outcome.Round` or anything with
``result``, ``player_total``, ``banker_total``, ``player_pair`` and ``banker_pair``
(:class:`RoundSummary`). Each road's rule is on its function.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

__all__ = [
    "DERIVED_ROADS",
    "HISTORY_LIMIT",
    "ROWS",
    "BeadPlate",
    "BigRoad",
    "BigRoadCell",
    "DerivedRoad",
    "HistoryEntry",
    "Roads",
    "RoundLike",
    "RoundSummary",
    "bead_plate",
    "big_road",
    "derived_colours",
    "derived_road",
    "history",
    "layout",
    "roads",
    "streaks",
]

Colour = Literal["red", "blue", "green"]
ROWS = 6
HISTORY_LIMIT = 30
#: Derived roads: name → k.
DERIVED_ROADS: dict[str, int] = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}
_COLOUR: dict[str, Colour] = {"banker": "red", "player": "blue", "tie": "green"}


class RoundLike(Protocol):
    @property
    def result(self) -> str: ...
    @property
    def player_total(self) -> int: ...
    @property
    def banker_total(self) -> int: ...
    @property
    def player_pair(self) -> bool: ...
    @property
    def banker_pair(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """The facts a road needs from one round (``result``: 'player' | 'banker' | 'tie')."""

    result: str
    player_total: int
    banker_total: int
    player_pair: bool = False
    banker_pair: bool = False
    #: the round's number when it is not its place in the results (a round with no result before
    #: it: a bacc-pf-v2 beacon void); None: its place
    round: int | None = None


def _result(r: RoundLike) -> str:
    value = str(r.result)
    if value not in _COLOUR:
        raise ValueError(f"not a result: {value!r}")
    return value


# --- layout ------------------------------------------------------------------------------------
def streaks(items: Iterable[str]) -> list[list[str]]:
    """Logical columns: equal consecutive items go down one column, a change starts the next."""
    columns: list[list[str]] = []
    for item in items:
        if columns and columns[-1][0] == item:
            columns[-1].append(item)
        else:
            columns.append([item])
    return columns


def layout(heights: Sequence[int], rows: int = ROWS) -> list[list[tuple[int, int]]]:
    """Drawn ``(col, row)`` cells (0-based) of logical columns of the given heights.

    A column starts at row 0 of the first drawn column right of the previous column's start whose
    row 0 is free. It goes down until row ``rows − 1`` or until the cell below is taken, then
    turns right and keeps going right on that row (the dragon tail)."""
    taken: set[tuple[int, int]] = set()
    drawn: list[list[tuple[int, int]]] = []
    start = -1
    for height in heights:
        start += 1
        while (start, 0) in taken:
            start += 1
        col, row, turned = start, 0, False
        cells: list[tuple[int, int]] = []
        for i in range(height):
            if i:
                if not turned and row + 1 < rows and (col, row + 1) not in taken:
                    row += 1
                else:
                    turned = True
                    col += 1
                    while (col, row) in taken:  # defensive: never happens with tails below
                        col += 1
            taken.add((col, row))
            cells.append((col, row))
        drawn.append(cells)
    return drawn


# --- history -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HistoryEntry:
    round: int
    result: str
    player_total: int
    banker_total: int
    player_pair: bool
    banker_pair: bool

    @property
    def colour(self) -> Colour:
        return _COLOUR[self.result]

    @property
    def totals(self) -> list[int]:
        """What the circle shows: the winner's total, or Player's and Banker's on a tie."""
        if self.result == "tie":
            return [self.player_total, self.banker_total]
        return [self.banker_total if self.result == "banker" else self.player_total]

    @property
    def dots(self) -> list[Colour]:
        dots: list[Colour] = ["red"] if self.banker_pair else []
        return [*dots, "blue"] if self.player_pair else dots

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "result": self.result,
            "colour": self.colour,
            "totals": self.totals,
            "player_total": self.player_total,
            "banker_total": self.banker_total,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "dots": self.dots,
        }


def _entries(results: Iterable[RoundLike]) -> list[HistoryEntry]:
    """Each round's entry, numbered by its place unless it says its number (``round``)."""
    return [
        HistoryEntry(
            getattr(r, "round", None) or i,
            _result(r),
            r.player_total,
            r.banker_total,
            bool(r.player_pair),
            bool(r.banker_pair),
        )
        for i, r in enumerate(results, 1)
    ]


def history(results: Iterable[RoundLike], limit: int = HISTORY_LIMIT) -> list[HistoryEntry]:
    """The star-city history (seed 000 item 11 and 遊戲方式): the last ``limit`` (30) rounds,
    oldest first; a red circle with the Banker total when Banker wins, blue with the Player
    total when Player wins, green with both totals (Player's, then Banker's) on a tie; a red dot
    for a Banker pair, a blue dot for a Player pair, on any result."""
    entries = _entries(results)
    return entries[-limit:] if limit > 0 else []


# --- bead plate --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BeadPlate:
    entries: tuple[HistoryEntry, ...]
    rows: int = ROWS

    def cell(self, i: int) -> tuple[int, int]:
        """``(col, row)`` of the i-th round (0-based): column by column, ``rows`` per column."""
        return divmod(i, self.rows)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cells": [
                {"col": i // self.rows, "row": i % self.rows, **e.as_dict()}
                for i, e in enumerate(self.entries)
            ],
        }


def bead_plate(results: Iterable[RoundLike], rows: int = ROWS) -> BeadPlate:
    """Every round, ties included, ``rows`` (6) rows, filled column by column (top to bottom,
    then the next column to the right). The whole shoe: the client scrolls."""
    return BeadPlate(tuple(_entries(results)), rows)


# --- big road ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BigRoadCell:
    """One non-tie round; ``ties`` counts the ties that followed it before the next non-tie."""

    round: int
    result: str
    ties: int = 0
    player_pair: bool = False
    banker_pair: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "result": self.result,
            "colour": _COLOUR[self.result],
            "ties": self.ties,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
        }


@dataclass(frozen=True, slots=True)
class BigRoad:
    leading_ties: int
    columns: tuple[tuple[BigRoadCell, ...], ...]
    rows: int = ROWS

    @property
    def heights(self) -> list[int]:
        return [len(c) for c in self.columns]

    def grid(self) -> list[tuple[int, int, BigRoadCell]]:
        """Drawn cells ``(col, row, cell)`` in road order, with the dragon tail."""
        drawn = layout(self.heights, self.rows)
        return [
            (c, r, cell)
            for column, cells in zip(self.columns, drawn, strict=True)
            for cell, (c, r) in zip(column, cells, strict=True)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "leading_ties": self.leading_ties,
            "columns": [[cell.as_dict() for cell in column] for column in self.columns],
            "grid": [{"col": c, "row": r, **cell.as_dict()} for c, r, cell in self.grid()],
        }


def big_road(results: Iterable[RoundLike], rows: int = ROWS) -> BigRoad:
    """One cell per non-tie round; a streak of the same winner goes down one logical column, a
    change of winner starts the next. A tie adds to the tie count of the current (last) cell;
    ties before the first non-tie have no cell and are kept as ``leading_ties`` (drawn on the
    first cell by the client, if it likes). Drawn with the dragon tail (:func:`layout`)."""
    leading_ties = 0
    columns: list[list[BigRoadCell]] = []
    for e in _entries(results):
        if e.result == "tie":
            if columns:
                columns[-1][-1] = replace(columns[-1][-1], ties=columns[-1][-1].ties + 1)
            else:
                leading_ties += 1
            continue
        cell = BigRoadCell(e.round, e.result, 0, e.player_pair, e.banker_pair)
        if columns and columns[-1][0].result == e.result:
            columns[-1].append(cell)
        else:
            columns.append([cell])
    return BigRoad(leading_ties, tuple(tuple(c) for c in columns), rows)


# --- derived roads -----------------------------------------------------------------------------
def derived_colours(heights: Sequence[int], k: int) -> list[Colour]:
    """The derived road of offset ``k`` (big eye boy 1, small road 2, cockroach pig 3) over the
    big road's logical column ``heights``, in big-road order: an entry at row m ≥ 2 of column n,
    with column n − k of height p, is red if m ≤ p, blue if m = p + 1, red if m > p + 1; the
    first entry (row 1) of column n is red if columns n − 1 and n − 1 − k have equal height,
    else blue; no entry where the compared column does not exist. (0-based ``n``, 1-based ``m``;
    each derived road is then laid out like a big road: same colour down, a change of colour
    starts a new column, dragon tail.)"""
    out: list[Colour] = []
    for n, height in enumerate(heights):
        for m in range(1, height + 1):
            if m == 1:
                if n - 1 - k >= 0:
                    out.append("red" if heights[n - 1] == heights[n - 1 - k] else "blue")
            elif n - k >= 0:
                out.append("blue" if m == heights[n - k] + 1 else "red")
    return out


@dataclass(frozen=True, slots=True)
class DerivedRoad:
    name: str
    k: int
    sequence: tuple[Colour, ...]
    rows: int = ROWS

    @property
    def columns(self) -> list[list[str]]:
        return streaks(self.sequence)

    def grid(self) -> list[tuple[int, int, str]]:
        columns = self.columns
        drawn = layout([len(c) for c in columns], self.rows)
        return [
            (c, r, colour)
            for column, cells in zip(columns, drawn, strict=True)
            for colour, (c, r) in zip(column, cells, strict=True)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "k": self.k,
            "rows": self.rows,
            "sequence": list(self.sequence),
            "columns": self.columns,
            "grid": [{"col": c, "row": r, "colour": colour} for c, r, colour in self.grid()],
        }


def derived_road(road: BigRoad, name: str) -> DerivedRoad:
    k = DERIVED_ROADS[name]
    return DerivedRoad(name, k, tuple(derived_colours(road.heights, k)), road.rows)


# --- everything --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Roads:
    history: tuple[HistoryEntry, ...]
    bead_plate: BeadPlate
    big_road: BigRoad
    derived: tuple[DerivedRoad, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "history": [e.as_dict() for e in self.history],
            "bead_plate": self.bead_plate.as_dict(),
            "big_road": self.big_road.as_dict(),
            **{d.name: d.as_dict() for d in self.derived},
        }


def roads(
    results: Iterable[RoundLike], *, history_limit: int = HISTORY_LIMIT, rows: int = ROWS
) -> Roads:
    """All roads of a shoe's results (rounds in order)."""
    results = list(results)
    big = big_road(results, rows)
    return Roads(
        history=tuple(history(results, history_limit)),
        bead_plate=bead_plate(results, rows),
        big_road=big,
        derived=tuple(derived_road(big, name) for name in DERIVED_ROADS),
    )
