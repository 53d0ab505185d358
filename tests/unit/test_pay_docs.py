"""The pay and house-edge tables the documents show are the core's: every cell of README.md's
pay table is compared with the current pay tables (``paytables``, the profiles' choices) and
``baccarat.rtp``; docs/rules/game-rules.md, the seeds' rules, with each profile's first published
version (the seeds' tables). A payout changed in the code and not in the documents fails here,
and so does a pay or edge table added to a document without a check."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from baccarat import paytables
from baccarat.paytables import BANKER_PAY_VARIANTS, BetType, PayTable
from baccarat.profiles import PROFILES, Profile
from baccarat.rtp import RtpReport, compute_rtp

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
API = ROOT / "docs" / "api.md"
GAME_RULES = ROOT / "docs" / "rules" / "game-rules.md"
SPEC = ROOT / "docs" / "bacc-pf-v1.md"

#: What the documents call each bet.
NAMES = {
    "Banker": BetType.BANKER,
    "Player": BetType.PLAYER,
    "Tie": BetType.TIE,
    "Banker Pair": BetType.BANKER_PAIR,
    "Player Pair": BetType.PLAYER_PAIR,
    "No-commission Banker": BetType.BANKER_NO_COMMISSION,
    "Big": BetType.BIG,
    "Small": BetType.SMALL,
    "Lucky 6": BetType.LUCKY6,
    "Any Pair": BetType.ANY_PAIR,
    "Perfect Pair": BetType.PERFECT_PAIR,
    "Player Dragon": BetType.PLAYER_DRAGON,
    "Banker Dragon": BetType.BANKER_DRAGON,
}
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_DRAGONS = (BetType.PLAYER_DRAGON, BetType.BANKER_DRAGON)


def tables(path: Path) -> Iterator[list[list[str]]]:
    """Every Markdown table of ``path``: its rows (header first, the rule left out) of cells."""
    rows: list[list[str]] = []
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        text = line.strip()
        if text.startswith("|"):
            cells = [c.strip() for c in text.strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif rows:
            yield rows
            rows = []


def numbers(cell: str) -> list[Fraction]:
    """The pays a cell states, in order ("total 6" is a condition, not a pay)."""
    return [Fraction(n) for n in _NUMBER.findall(re.sub(r"total \d+", "", cell))]


def bets_of(label: str) -> tuple[list[BetType], str | None]:
    """A row label's bets ("Banker Pair, Player Pair") and dragon table ("(seed table …)")."""
    dragon = re.search(r"\((\w+) table", label)
    names = re.sub(r"\s*\(.*\)", "", label).split(", ")
    return [NAMES[n] for n in names], dragon.group(1) if dragon else None


def pays(table: PayTable, bet: BetType, dragons: Sequence[str]) -> list[Fraction]:
    """A bet's pays in the order the documents state them."""
    if bet in _DRAGONS:
        out = [table.dragon_natural]
        for name in dragons:
            for margin, pay in sorted(table.dragons[name].items(), reverse=True):
                out += [Fraction(margin), pay]
        return out
    return {
        BetType.BANKER_NO_COMMISSION: [table.banker_no_commission, table.banker_no_commission_six],
        BetType.LUCKY6: [table.lucky6_two_cards, table.lucky6_three_cards],
    }.get(bet) or [p for _, p in paytables._possible(table, bet)]


def banker_choices(profile: Profile) -> list[Fraction]:
    """Every Banker pay a table of ``profile`` may choose, the default first."""
    seen: dict[str, None] = {}
    for choices in profile.banker_pays_choices.values():
        seen.update(dict.fromkeys(choices))
    return [BANKER_PAY_VARIANTS[c] for c in seen]


@cache
def edges(dragon: str) -> RtpReport:
    return compute_rtp(paytables.PAY_TABLES["bid-squeeze"].with_dragon(dragon), 8)


def edge_of(report: RtpReport, bet: BetType) -> str:
    """The house edge as ``baccarat rtp`` prints it, with a typographic minus."""
    return str(report.bet(bet).as_dict()["house_edge_percent"]).replace("-", "−")


# --- README ------------------------------------------------------------------------------------


def readme_pay_table() -> list[list[str]]:
    found = [t for t in tables(README) if "house edge" in " ".join(t[0])]
    assert len(found) == 1, "README.md has one pay and house-edge table"
    return found[0]


def test_the_readme_pay_table_names_every_bet_once() -> None:
    header, *rows = readme_pay_table()
    assert header == ["bet", "star-city", "bid-squeeze", "house edge, bid-squeeze, 8 decks"]
    named = [b for row in rows if row[0] != "house commission" for b in bets_of(row[0])[0]]
    assert sorted(set(named)) == sorted(BetType)


@pytest.mark.parametrize("row", readme_pay_table()[1:], ids=lambda r: r[0])
def test_every_readme_pay_cell_is_the_cores(row: list[str]) -> None:
    label, *cells, edge = row
    if label == "house commission":
        for name, cell in zip(("star-city", "bid-squeeze"), cells, strict=True):
            rate = paytables.PAY_TABLES[name].commission_rate
            assert numbers(cell)[0] == rate * 100 and cell.startswith(f"{numbers(cell)[0]}%")
        assert edge == ""
        return
    bets, dragon = bets_of(label)
    for name, cell in zip(("star-city", "bid-squeeze"), cells, strict=True):
        profile, table = PROFILES[name], paytables.PAY_TABLES[name]
        for bet in bets:
            if bet not in table.offered:
                assert cell == "—", f"{name} does not offer {bet}"
                continue
            expected = pays(table, bet, [dragon or table.dragon_name])
            if bet is BetType.BANKER:
                expected = banker_choices(profile)
            assert numbers(cell) == expected, f"{name} {bet}: {cell!r}"
    report = edges(dragon or "seed")
    shown = re.findall(r"−?\d+\.\d+%", edge)
    wanted = list(dict.fromkeys(edge_of(report, b) for b in bets))
    assert shown == wanted, f"{label}: house edge {edge!r}"


def test_the_readme_outcome_probabilities_and_star_city_edge_are_the_cores() -> None:
    text = README.read_text(encoding="utf-8")
    report = edges("seed")
    line = re.search(r"Outcome probabilities \(8 decks\): Banker (\d\.\d+), Player (\d\.\d+), "
                     r"Tie (\d\.\d+)", text)  # fmt: skip
    assert line is not None
    for shown, p in zip(
        line.groups(), (report.p_banker, report.p_player, report.p_tie), strict=True
    ):
        assert shown == f"{float(p):.6f}"
    star = edge_of(compute_rtp(paytables.PAY_TABLES["star-city"], 4), BetType.BANKER)
    assert f"*negative* house edge ({star})" in text


# --- docs/rules/game-rules.md: the seeds' tables, each profile's first version -----------------


def first(profile: str) -> PayTable:
    return paytables.PUBLISHED[paytables.legacy_version(profile)]


def test_game_rules_star_city_bet_areas_are_its_first_version() -> None:
    text = GAME_RULES.read_text(encoding="utf-8")
    line = re.search(r"- Bet areas: (.*)\.", text)
    assert line is not None
    table = first("star-city")
    shown = dict(re.findall(r"([A-Z][\w ]*?) 1:(\d+)", line.group(1)))
    assert {NAMES[n]: Fraction(v) for n, v in shown.items()} == {
        b: pays(table, b, [])[0] for b in table.offered
    }


def test_game_rules_bid_squeeze_bet_table_is_its_first_version() -> None:
    found = [t for t in tables(GAME_RULES) if t[0] == ["bet", "wins when", "pays"]]
    assert len(found) == 1
    table = first("bid-squeeze")
    seen = []
    for label, _, cell in found[0][1:]:
        names = label.split(" / ")  # "Banker Pair / Player Pair", "Player / Banker Dragon"
        kind = names[-1].rsplit(" ", 1)[-1]
        bets = [NAMES[n if n.endswith(kind) else f"{n} {kind}"] for n in names]
        for bet in bets:
            assert numbers(cell) == pays(table, bet, [table.dragon_name]), f"{bet}: {cell!r}"
        seen += bets
    assert sorted(seen) == sorted(table.offered)


# --- no other pay or edge table ----------------------------------------------------------------


def test_no_document_has_an_unchecked_pay_or_edge_table() -> None:
    checked = {(README, 1), (GAME_RULES, 1)}
    for path in (README, API, GAME_RULES, SPEC):
        count = sum(
            1 for t in tables(path) if any(re.search(r"\bpays\b|house edge", c) for c in t[0])
        )
        assert (path, count) in checked or count == 0, f"{path.name}: {count} pay tables"
