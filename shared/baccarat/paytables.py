"""Pay tables as data, by version: what every bet pays, read by the settlement, the validators,
the RTP calculator, the verifier, the API and the docs.

Amounts are *net win per unit staked* as exact fractions (``Fraction(19, 20)`` is 0.95). Every
published table is named ``<profile>@<n>`` and never changes (docs/bacc-pf-v1.md lists each
version's values; ``tests/vectors/pay_tables.json`` pins them): a table's configuration and every
proof name the version they were priced with, so a payout change is a new version — open tables
and old proofs keep theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Protocol

from .outcome import Result


class BetType(StrEnum):
    BANKER = "banker"
    PLAYER = "player"
    TIE = "tie"
    BANKER_PAIR = "banker_pair"
    PLAYER_PAIR = "player_pair"
    BANKER_NO_COMMISSION = "banker_no_commission"
    BIG = "big"
    SMALL = "small"
    LUCKY6 = "lucky6"
    ANY_PAIR = "any_pair"
    PERFECT_PAIR = "perfect_pair"
    PLAYER_DRAGON = "player_dragon"
    BANKER_DRAGON = "banker_dragon"


class Grade(StrEnum):
    WIN = "win"
    PUSH = "push"
    LOSE = "lose"


class RoundFacts(Protocol):
    """What a bet is graded on (:class:`baccarat.outcome.Round` provides all of it)."""

    @property
    def result(self) -> Result: ...
    @property
    def player_total(self) -> int: ...
    @property
    def banker_total(self) -> int: ...
    @property
    def player_natural(self) -> bool: ...
    @property
    def banker_natural(self) -> bool: ...
    @property
    def player_pair(self) -> bool: ...
    @property
    def banker_pair(self) -> bool: ...
    @property
    def player_perfect_pair(self) -> bool: ...
    @property
    def banker_perfect_pair(self) -> bool: ...
    @property
    def cards_dealt(self) -> int: ...
    @property
    def banker_card_count(self) -> int: ...


def _margins(pays: Mapping[int, int]) -> Mapping[int, Fraction]:
    return MappingProxyType({k: Fraction(v) for k, v in pays.items()})


#: Dragon bonus, non-natural win by margin → pays. The seed's (bid-squeeze) table …
DRAGON_SEED = _margins({9: 30, 8: 10, 7: 5, 6: 3, 5: 2, 4: 1})
#: … and the common casino table (1/2/4/6/10/30) a table may choose instead.
DRAGON_COMMON = _margins({9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1})
DRAGON_TABLES: Mapping[str, Mapping[int, Fraction]] = MappingProxyType(
    {"seed": DRAGON_SEED, "common": DRAGON_COMMON}
)


@dataclass(frozen=True, slots=True)
class PayTable:
    """Every bet's pay, as data. ``offered`` is the set of bets a profile's tables accept;
    ``version`` the published version these values are (``<profile>@<n>``); ``dragons`` the dragon
    tables a table of this version may choose."""

    name: str
    offered: frozenset[BetType]
    version: str
    banker: Fraction = Fraction(19, 20)
    player: Fraction = Fraction(1)
    tie: Fraction = Fraction(8)
    pair: Fraction = Fraction(11)
    banker_no_commission: Fraction = Fraction(1)
    banker_no_commission_six: Fraction = Fraction(1, 2)
    big: Fraction = Fraction(1, 2)
    small: Fraction = Fraction(3, 2)
    lucky6_two_cards: Fraction = Fraction(12)
    lucky6_three_cards: Fraction = Fraction(20)
    any_pair: Fraction = Fraction(5)
    perfect_pair: Fraction = Fraction(25)
    dragon_natural: Fraction = Fraction(1)
    dragon_name: str = "seed"
    dragon_margins: Mapping[int, Fraction] = field(default_factory=lambda: DRAGON_SEED)
    dragons: Mapping[str, Mapping[int, Fraction]] = field(default_factory=lambda: DRAGON_TABLES)
    #: Commission the house takes from each participant's positive net for the round
    #: (star-city: 1%). Zero where the commission is built into the pays (Banker 0.95).
    commission_rate: Fraction = Fraction(0)

    def with_dragon(self, name: str) -> PayTable:
        return replace(self, dragon_name=name, dragon_margins=self.dragons[name])

    def with_banker(self, pays: Fraction) -> PayTable:
        return replace(self, banker=pays)

    def max_multiplier(self, bet: BetType) -> Fraction:
        """The most one unit of ``bet`` can win (used for worst-case liabilities)."""
        return max(m for _, m in _possible(self, bet))

    def describe(self) -> dict[str, object]:
        """JSON-ready pay table: bet → pays (as strings of exact fractions)."""
        s = str
        pays: dict[BetType, object] = {
            BetType.BANKER: s(self.banker),
            BetType.PLAYER: s(self.player),
            BetType.TIE: s(self.tie),
            BetType.BANKER_PAIR: s(self.pair),
            BetType.PLAYER_PAIR: s(self.pair),
            BetType.BANKER_NO_COMMISSION: {
                "win": s(self.banker_no_commission),
                "win_with_six": s(self.banker_no_commission_six),
            },
            BetType.BIG: s(self.big),
            BetType.SMALL: s(self.small),
            BetType.LUCKY6: {
                "two_cards": s(self.lucky6_two_cards),
                "three_cards": s(self.lucky6_three_cards),
            },
            BetType.ANY_PAIR: s(self.any_pair),
            BetType.PERFECT_PAIR: s(self.perfect_pair),
        }
        dragon = {
            "table": self.dragon_name,
            "natural_win": s(self.dragon_natural),
            "margins": {str(k): s(v) for k, v in sorted(self.dragon_margins.items())},
        }
        pays[BetType.PLAYER_DRAGON] = dragon
        pays[BetType.BANKER_DRAGON] = dragon
        return {
            "name": self.name,
            "commission_rate": s(self.commission_rate),
            "pays": {k.value: v for k, v in pays.items() if k in self.offered},
        }


def describe_version(table: PayTable) -> dict[str, object]:
    """A published version as the spec lists it: :meth:`PayTable.describe` (with its default
    dragon table), its ``version`` and every dragon table it offers."""
    return {
        "version": table.version,
        **table.describe(),
        "dragon_tables": {
            name: {str(k): str(v) for k, v in sorted(margins.items())}
            for name, margins in table.dragons.items()
        }
        if BetType.PLAYER_DRAGON in table.offered
        else {},
    }


def _possible(table: PayTable, bet: BetType) -> list[tuple[Grade, Fraction]]:
    """Every (grade, multiplier) a bet can end with, for liabilities and docs."""
    base = {
        BetType.BANKER: [table.banker],
        BetType.PLAYER: [table.player],
        BetType.TIE: [table.tie],
        BetType.BANKER_PAIR: [table.pair],
        BetType.PLAYER_PAIR: [table.pair],
        BetType.BANKER_NO_COMMISSION: [table.banker_no_commission, table.banker_no_commission_six],
        BetType.BIG: [table.big],
        BetType.SMALL: [table.small],
        BetType.LUCKY6: [table.lucky6_two_cards, table.lucky6_three_cards],
        BetType.ANY_PAIR: [table.any_pair],
        BetType.PERFECT_PAIR: [table.perfect_pair],
        BetType.PLAYER_DRAGON: [table.dragon_natural, *table.dragon_margins.values()],
        BetType.BANKER_DRAGON: [table.dragon_natural, *table.dragon_margins.values()],
    }[bet]
    return [(Grade.WIN, m) for m in base]


_LOSE = (Grade.LOSE, Fraction(0))
_PUSH = (Grade.PUSH, Fraction(0))


def _dragon(
    table: PayTable, won: bool, natural: bool, tie: bool, margin: int
) -> tuple[Grade, Fraction]:
    if natural:
        if won:
            return Grade.WIN, table.dragon_natural
        return _PUSH if tie else _LOSE
    if won and margin in table.dragon_margins:
        return Grade.WIN, table.dragon_margins[margin]
    return _LOSE


def _banker(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    res = r.result
    if res is Result.BANKER:
        return Grade.WIN, table.banker
    return _PUSH if res is Result.TIE else _LOSE


def _player(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    res = r.result
    if res is Result.PLAYER:
        return Grade.WIN, table.player
    return _PUSH if res is Result.TIE else _LOSE


def _banker_no_commission(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    res = r.result
    if res is Result.BANKER:
        six = r.banker_total == 6
        return Grade.WIN, table.banker_no_commission_six if six else table.banker_no_commission
    return _PUSH if res is Result.TIE else _LOSE


def _tie(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    return (Grade.WIN, table.tie) if r.result is Result.TIE else _LOSE


def _banker_pair(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    return (Grade.WIN, table.pair) if r.banker_pair else _LOSE


def _player_pair(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    return (Grade.WIN, table.pair) if r.player_pair else _LOSE


def _big(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    return (Grade.WIN, table.big) if r.cards_dealt >= 5 else _LOSE


def _small(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    return (Grade.WIN, table.small) if r.cards_dealt == 4 else _LOSE


def _lucky6(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    if r.result is Result.BANKER and r.banker_total == 6:
        three = r.banker_card_count == 3
        return Grade.WIN, table.lucky6_three_cards if three else table.lucky6_two_cards
    return _LOSE


def _any_pair(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    return (Grade.WIN, table.any_pair) if r.player_pair or r.banker_pair else _LOSE


def _perfect_pair(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    perfect = r.player_perfect_pair or r.banker_perfect_pair
    return (Grade.WIN, table.perfect_pair) if perfect else _LOSE


def _player_dragon(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    res = r.result
    margin = abs(r.player_total - r.banker_total)
    natural = r.player_natural or r.banker_natural
    return _dragon(table, res is Result.PLAYER, natural, res is Result.TIE, margin)


def _banker_dragon(r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    res = r.result
    margin = abs(r.player_total - r.banker_total)
    natural = r.player_natural or r.banker_natural
    return _dragon(table, res is Result.BANKER, natural, res is Result.TIE, margin)


#: How each bet is graded (one function per bet: a lookup instead of a chain of tests, and
#: the round's facts are read only as far as the bet needs them).
_GRADERS = {
    BetType.BANKER: _banker,
    BetType.PLAYER: _player,
    BetType.TIE: _tie,
    BetType.BANKER_PAIR: _banker_pair,
    BetType.PLAYER_PAIR: _player_pair,
    BetType.BANKER_NO_COMMISSION: _banker_no_commission,
    BetType.BIG: _big,
    BetType.SMALL: _small,
    BetType.LUCKY6: _lucky6,
    BetType.ANY_PAIR: _any_pair,
    BetType.PERFECT_PAIR: _perfect_pair,
    BetType.PLAYER_DRAGON: _player_dragon,
    BetType.BANKER_DRAGON: _banker_dragon,
}


def grade(bet: BetType, r: RoundFacts, table: PayTable) -> tuple[Grade, Fraction]:
    """How ``bet`` ends on round ``r``: (win, net multiplier) / (push, 0) / (lose, 0)."""
    grader = _GRADERS.get(bet)
    if grader is None or not isinstance(bet, BetType):
        raise ValueError(f"unknown bet type {bet!r}")  # pragma: no cover
    return grader(r, table)


# --- the two profiles' pay tables -----------------------------------------------------------

STAR_CITY_BETS = frozenset(
    {BetType.BANKER, BetType.PLAYER, BetType.TIE, BetType.BANKER_PAIR, BetType.PLAYER_PAIR}
)

#: Star-city (seed 000): Banker and Player 1:1, Tie 1:8, pairs 1:11; the house takes 1% of each
#: participant's positive net for the round. Every value is written out: a published version
#: does not follow the defaults above.
STAR_CITY_1 = PayTable(
    name="star-city",
    offered=STAR_CITY_BETS,
    version="star-city@1",
    banker=Fraction(1),
    player=Fraction(1),
    tie=Fraction(8),
    pair=Fraction(11),
    commission_rate=Fraction(1, 100),
)

#: The bets seed 001 offers, written out: a bet type added to the vocabulary later joins a new
#: version, never this published one.
BID_SQUEEZE_BETS = frozenset(
    {
        BetType.BANKER, BetType.PLAYER, BetType.TIE, BetType.BANKER_PAIR, BetType.PLAYER_PAIR,
        BetType.BANKER_NO_COMMISSION, BetType.BIG, BetType.SMALL, BetType.LUCKY6,
        BetType.ANY_PAIR, BetType.PERFECT_PAIR, BetType.PLAYER_DRAGON, BetType.BANKER_DRAGON,
    }
)  # fmt: skip

#: Bid-squeeze (seed 001): the bets above, Banker 0.95, the seed's dragon table.
BID_SQUEEZE_1 = PayTable(
    name="bid-squeeze",
    offered=BID_SQUEEZE_BETS,
    version="bid-squeeze@1",
    banker=Fraction(19, 20),
    player=Fraction(1),
    tie=Fraction(8),
    pair=Fraction(11),
    banker_no_commission=Fraction(1),
    banker_no_commission_six=Fraction(1, 2),
    big=Fraction(1, 2),
    small=Fraction(3, 2),
    lucky6_two_cards=Fraction(12),
    lucky6_three_cards=Fraction(20),
    any_pair=Fraction(5),
    perfect_pair=Fraction(25),
    dragon_natural=Fraction(1),
    dragon_name="seed",
    dragon_margins=DRAGON_SEED,
    dragons=DRAGON_TABLES,
    commission_rate=Fraction(0),
)

#: Every published pay table by version. A published version's values never change.
PUBLISHED: Mapping[str, PayTable] = MappingProxyType(
    {t.version: t for t in (STAR_CITY_1, BID_SQUEEZE_1)}
)

#: The version each profile's new tables get.
CURRENT: Mapping[str, str] = MappingProxyType(
    {"star-city": STAR_CITY_1.version, "bid-squeeze": BID_SQUEEZE_1.version}
)


def legacy_version(profile: str) -> str:
    """The version a configuration or proof written before tables named one was priced with."""
    return f"{profile}@1"


def current(profile: str) -> PayTable:
    """The pay table a new table of ``profile`` gets."""
    return PUBLISHED[CURRENT[profile]]


def published_table(version: str, profile: str) -> PayTable:
    """The published table ``version`` of ``profile``; ``ValueError`` if there is none."""
    table = PUBLISHED.get(version)
    if table is None or table.name != profile:
        raise ValueError(f"{profile} has no published pay table {version!r}")
    return table


#: The current tables by profile (what the docs and the RTP calculator describe).
STAR_CITY = current("star-city")
BID_SQUEEZE = current("bid-squeeze")
PAY_TABLES: Mapping[str, PayTable] = MappingProxyType(
    {STAR_CITY.name: STAR_CITY, BID_SQUEEZE.name: BID_SQUEEZE}
)

#: The variants a table may choose on top of its profile's pay table.
BANKER_PAY_VARIANTS: Mapping[str, Fraction] = MappingProxyType(
    {"1": Fraction(1), "0.95": Fraction(19, 20)}
)
