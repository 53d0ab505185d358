"""Roads: hand-worked shoes (worked out in the comments) and properties."""

from __future__ import annotations

import json
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from baccarat.outcome import Round
from baccarat.roads import (
    DERIVED_ROADS,
    RoundSummary,
    big_road,
    derived_colours,
    history,
    layout,
    roads,
)

_CODE = {"B": "banker", "P": "player", "T": "tie"}


def shoe(text: str) -> list[RoundSummary]:
    """'BPT…' → rounds; Banker wins 7–3, Player wins 8–2, ties 5–5 (totals don't matter here)."""
    totals = {"B": (3, 7), "P": (8, 2), "T": (5, 5)}
    return [RoundSummary(_CODE[ch], *totals[ch]) for ch in text.replace(" ", "")]


def results_of(road_columns: list[list[str]]) -> str:
    return " ".join("".join(c[0].upper() for c in col) for col in road_columns)


def colours(text: str, k: int) -> str:
    """Derived road of k over shoe ``text``, as a string of r/b."""
    return "".join(c[0] for c in derived_colours(big_road(shoe(text)).heights, k))


# --- history -----------------------------------------------------------------------------------
def test_history_colours_totals_and_pair_dots() -> None:
    rounds = [
        RoundSummary("banker", 3, 7, banker_pair=True),  # red circle "7", red dot
        RoundSummary("player", 9, 2, player_pair=True),  # blue circle "9", blue dot
        RoundSummary("tie", 6, 6, player_pair=True, banker_pair=True),  # green "6 6", both dots
        RoundSummary("player", 1, 0),  # blue "1", no dot
    ]
    got = [(e.colour, e.totals, e.dots) for e in history(rounds)]
    assert got == [
        ("red", [7], ["red"]),
        ("blue", [9], ["blue"]),
        ("green", [6, 6], ["red", "blue"]),
        ("blue", [1], []),
    ]


def test_history_keeps_the_last_30_rounds_oldest_first() -> None:
    rounds = shoe("P" * 5 + "B" * 30)  # 35 rounds: rounds 6…35 are the Banker ones
    h = history(rounds)
    assert len(h) == 30
    assert [e.round for e in h] == list(range(6, 36))
    assert {e.result for e in h} == {"banker"}
    assert len(history(rounds[:4])) == 4


def test_history_and_bead_plate_accept_outcome_rounds() -> None:
    # Card ids: rank = id % 13 (A=0 … 9=8, T=9, K=12), suit = (id % 52) // 13.
    # Round 1: Player 9♠ T♠ = 9, Banker A♠ A♥ = 2 (Banker pair) → Player wins 9.
    # Round 2: Player 4♠ 4♥ = 8 (Player pair), Banker 8♠ K♠ = 8 → tie 8–8.
    r1 = Round(number=1, start=0, player=(8, 9), banker=(0, 13))
    r2 = Round(number=2, start=4, player=(3, 16), banker=(7, 12))
    h = [e.as_dict() for e in history([r1, r2])]
    assert [(e["result"], e["colour"], e["totals"], e["dots"]) for e in h] == [
        ("player", "blue", [9], ["red"]),
        ("tie", "green", [8, 8], ["blue"]),
    ]
    assert roads([r1, r2]).big_road.columns[0][0].ties == 1


# --- bead plate --------------------------------------------------------------------------------
def test_bead_plate_fills_six_rows_column_by_column() -> None:
    # 8 rounds: rounds 1–6 fill column 0 rows 0–5, rounds 7–8 start column 1; ties included.
    plate = roads(shoe("BPTBBP TP")).bead_plate.as_dict()
    cells = [(c["col"], c["row"], c["result"][0].upper()) for c in plate["cells"]]
    assert cells == [
        (0, 0, "B"), (0, 1, "P"), (0, 2, "T"), (0, 3, "B"), (0, 4, "B"), (0, 5, "P"),
        (1, 0, "T"), (1, 1, "P"),
    ]  # fmt: skip


# --- big road: ties ------------------------------------------------------------------------------
def test_big_road_ties_at_start_and_middle() -> None:
    # T T | B | P T T | P | B T
    # Rounds 1–2 are ties before any cell → leading_ties = 2.
    # Round 3 B opens column 0. Round 4 P opens column 1; ties 5, 6 go on it (ties = 2).
    # Round 7 P goes under it. Round 8 B opens column 2; tie 9 goes on it (ties = 1).
    road = big_road(shoe("TTBPTTPBT"))
    assert road.leading_ties == 2
    assert [[(c.round, c.result, c.ties) for c in col] for col in road.columns] == [
        [(3, "banker", 0)],
        [(4, "player", 2), (7, "player", 0)],
        [(8, "banker", 1)],
    ]


def test_big_road_only_ties() -> None:
    road = big_road(shoe("TTT"))
    assert road.leading_ties == 3
    assert road.columns == ()
    assert road.grid() == []


# --- big road: dragon tail ---------------------------------------------------------------------
def test_big_road_dragon_tail_at_row_six_and_under_a_taken_cell() -> None:
    # B×8: column 0 rows 0–5, then the tail turns right along row 5: (1,5), (2,5).
    # P×3: starts at column 1: (1,0) (1,1) (1,2).
    # B×7: starts at column 2: (2,0)…(2,4); (2,5) is taken by the first tail → turns right on
    #      row 4: (3,4), (4,4).
    # P×1: starts at column 3: (3,0).
    road = big_road(shoe("BBBBBBBB PPP BBBBBBB P"))
    assert road.heights == [8, 3, 7, 1]
    grid = [(c, r, cell.result[0].upper()) for c, r, cell in road.grid()]
    assert grid == [
        (0, 0, "B"), (0, 1, "B"), (0, 2, "B"), (0, 3, "B"), (0, 4, "B"), (0, 5, "B"),
        (1, 5, "B"), (2, 5, "B"),
        (1, 0, "P"), (1, 1, "P"), (1, 2, "P"),
        (2, 0, "B"), (2, 1, "B"), (2, 2, "B"), (2, 3, "B"), (2, 4, "B"), (3, 4, "B"), (4, 4, "B"),
        (3, 0, "P"),
    ]  # fmt: skip
    # The logical columns are untouched by the bend.
    assert results_of([[c.result for c in col] for col in road.columns]) == "BBBBBBBB PPP BBBBBBB P"


def test_big_road_second_column_bends_above_the_first_tail() -> None:
    # B×8 as above; P×6 starts at column 1: rows 0–4, (1,5) is taken → (2,4); B×1 at (2,0).
    road = big_road(shoe("BBBBBBBB PPPPPP B"))
    grid = [(c, r) for c, r, _ in road.grid()]
    assert grid[8:] == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (2, 0)]


def test_layout_skips_a_start_taken_by_a_tail() -> None:
    # Two rows only. Heights 4, 3, 1:
    # column 0: (0,0) (0,1) then right along row 1: (1,1) (2,1);
    # column 1 starts at (1,0); (1,1) is taken → right along row 0: (2,0) (3,0);
    # column 2 would start at column 2, but (2,0) and (3,0) are taken → (4,0).
    assert layout([4, 3, 1], rows=2) == [
        [(0, 0), (0, 1), (1, 1), (2, 1)],
        [(1, 0), (2, 0), (3, 0)],
        [(4, 0)],
    ]


# --- derived roads -------------------------------------------------------------------------------
def test_derived_roads_hand_worked() -> None:
    # Big road (ties do not matter): c1 = B×3, c2 = P×1, c3 = B×2, c4 = P×2, c5 = B×1, c6 = P×3,
    # heights h = 3, 1, 2, 2, 1, 3 (1-based columns as in the rules).
    #
    # Big eye boy, k = 1:
    #   c1 r1–r3, c2 r1: the compared column (c0 / c−1) does not exist → no entry.
    #   c3 r1: h(c2)=1 vs h(c1)=3 differ → blue.   c3 r2: p=h(c2)=1, m=2=p+1 → blue.
    #   c4 r1: h(c3)=2 vs h(c2)=1 → blue.          c4 r2: p=h(c3)=2, m=2≤p → red.
    #   c5 r1: h(c4)=2 vs h(c3)=2 equal → red.
    #   c6 r1: h(c5)=1 vs h(c4)=2 → blue.          c6 r2: p=h(c5)=1, m=2=p+1 → blue.
    #   c6 r3: p=1, m=3>p+1 → red.
    # Small road, k = 2:
    #   c1, c2, c3 r1 (needs c0): none.            c3 r2: p=h(c1)=3, m≤p → red.
    #   c4 r1: h(c3)=2 vs h(c1)=3 → blue.          c4 r2: p=h(c2)=1, m=p+1 → blue.
    #   c5 r1: h(c4)=2 vs h(c2)=1 → blue.
    #   c6 r1: h(c5)=1 vs h(c3)=2 → blue.          c6 r2: p=h(c4)=2, m≤p → red.
    #   c6 r3: p=2, m=p+1 → blue.
    # Cockroach pig, k = 3:
    #   c1–c3, c4 r1 (needs c0): none.             c4 r2: p=h(c1)=3 → red.
    #   c5 r1: h(c4)=2 vs h(c1)=3 → blue.
    #   c6 r1: h(c5)=1 vs h(c2)=1 → red.           c6 r2: p=h(c3)=2, m≤p → red.
    #   c6 r3: p=2, m=p+1 → blue.
    text = "BBB P T BB PP BT PPP"
    assert big_road(shoe(text)).heights == [3, 1, 2, 2, 1, 3]
    assert colours(text, 1) == "bbbrrbbr"
    assert colours(text, 2) == "rbbbbrb"
    assert colours(text, 3) == "rbrrb"

    d = {x.name: x for x in roads(shoe(text)).derived}
    assert d["big_eye_boy"].columns == [
        ["blue"] * 3,
        ["red"] * 2,
        ["blue"] * 2,
        ["red"],
    ]
    assert d["small_road"].columns == [["red"], ["blue"] * 4, ["red"], ["blue"]]
    assert d["cockroach_pig"].columns == [["red"], ["blue"], ["red"] * 2, ["blue"]]
    assert [(c, r) for c, r, _ in d["small_road"].grid()] == [
        (0, 0), (1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (3, 0),
    ]  # fmt: skip


def test_each_derived_roads_first_entries() -> None:
    # Big eye boy (k=1) starts at c2 r2 (compares c1) or c3 r1 (compares c2 with c1).
    assert colours("BP", 1) == ""
    assert colours("BPP", 1) == "b"  # c2 r2: p=h(c1)=1, m=2=p+1
    assert colours("BBPP", 1) == "r"  # c2 r2: p=2, m≤p
    assert colours("BPPP", 1) == "br"  # c2 r3: p=1, m=3>p+1
    assert colours("BPB", 1) == "r"  # c3 r1: h(c2)=1 = h(c1)=1
    assert colours("BBPB", 1) == "b"  # c3 r1: h(c2)=1 ≠ h(c1)=2
    # Small road (k=2) starts at c3 r2 (compares c1) or c4 r1 (compares c3 with c1).
    assert colours("BPB", 2) == ""
    assert colours("BPBB", 2) == "b"  # c3 r2: p=h(c1)=1, m=p+1
    assert colours("BBPBB", 2) == "r"  # c3 r2: p=2, m≤p
    assert colours("BPBP", 2) == "r"  # c4 r1: h(c3)=1 = h(c1)=1
    assert colours("BBPBP", 2) == "b"  # c4 r1: h(c3)=1 ≠ h(c1)=2
    # Cockroach pig (k=3) starts at c4 r2 (compares c1) or c5 r1 (compares c4 with c1).
    assert colours("BPBP", 3) == ""
    assert colours("BPBPP", 3) == "b"  # c4 r2: p=h(c1)=1, m=p+1
    assert colours("BBPBPP", 3) == "r"  # c4 r2: p=2, m≤p
    assert colours("BPBPB", 3) == "r"  # c5 r1: h(c4)=1 = h(c1)=1
    assert colours("BBPBPB", 3) == "b"  # c5 r1: h(c4)=1 ≠ h(c1)=2


def test_derived_road_has_its_own_dragon_tail() -> None:
    # B, P×9: big eye boy gets c2 r2 blue (p=1, m=p+1), then c2 r3…r9 red (m>p+1): blue + 7 red.
    # Laid out: blue (0,0); reds (1,0)…(1,5), then the tail (2,5). Small road / cockroach: none
    # (column n−k does not exist for c2 when k ≥ 2).
    r = roads(shoe("B" + "P" * 9))
    eye, small, roach = r.derived
    assert eye.sequence == ("blue",) + ("red",) * 7
    assert [(c, row) for c, row, _ in eye.grid()] == [
        (0, 0), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 5),
    ]  # fmt: skip
    assert small.sequence == roach.sequence == ()


def test_as_dict_is_json_ready() -> None:
    d = roads(shoe("TBBPTPBBBBBBBPP"), history_limit=5).as_dict()
    assert json.loads(json.dumps(d)) == d
    assert set(d) == {"history", "bead_plate", "big_road", *DERIVED_ROADS}
    assert len(d["history"]) == 5
    assert d["big_road"]["leading_ties"] == 1
    assert d["big_eye_boy"]["k"] == 1 and d["cockroach_pig"]["k"] == 3


# --- properties --------------------------------------------------------------------------------
shoes = st.text(alphabet="BPT", max_size=90).map(shoe)


@given(shoes)
def test_big_road_columns_give_back_the_non_tie_results(rounds: list[RoundSummary]) -> None:
    road = big_road(rounds)
    flat = [cell.result for col in road.columns for cell in col]
    assert flat == [r.result for r in rounds if r.result != "tie"]
    ties = road.leading_ties + sum(cell.ties for col in road.columns for cell in col)
    assert ties == sum(r.result == "tie" for r in rounds)
    assert all(len({c.result for c in col}) == 1 for col in road.columns)
    assert all(a[0].result != b[0].result for a, b in pairwise(road.columns))


@given(st.lists(st.integers(1, 14), max_size=40), st.integers(1, 6))
def test_layout_is_a_valid_drawing(heights: list[int], rows: int) -> None:
    drawn = layout(heights, rows)
    cells = [cell for col in drawn for cell in col]
    assert len(cells) == len(set(cells)) == sum(heights)
    assert all(0 <= r < rows for _, r in cells)
    starts = [col[0] for col in drawn]
    assert all(r == 0 for _, r in starts)
    assert all(a[0] < b[0] for a, b in pairwise(starts))
    for col in drawn:  # each step goes one down, or (once turned) one or more right on the row
        turned = False
        for (c0, r0), (c1, r1) in pairwise(col):
            down = (c1, r1) == (c0, r0 + 1)
            assert (down and not turned) or (r1 == r0 and c1 > c0)
            turned = turned or not down


@given(shoes)
def test_derived_road_lengths(rounds: list[RoundSummary]) -> None:
    # An entry exists for row m ≥ 2 of column n when column n − k exists (n > k), and for row 1
    # when column n − 1 − k exists (n > k + 1): all entries but those of the first k columns and
    # the first cell of column k + 1.
    h = big_road(rounds).heights
    r = roads(rounds)
    for d in r.derived:
        expected = sum(h) - sum(h[: d.k]) - (1 if len(h) > d.k else 0)
        assert len(d.sequence) == expected
        assert [c for col in d.columns for c in col] == list(d.sequence)
        assert len(d.grid()) == len(d.sequence)
