"""Settlement of one round: who pays whom, exactly, in integer minor units (game-rules.md,
star-city "Money" and the bid-squeeze pay table).

:func:`settle` is pure and deterministic: the same table, round and bets give an identical
:class:`Settlement`. Every bet is graded by ``paytables.grade`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .bets import Bet, PlayerBanker
from .outcome import FactSnapshot, Result, Round
from .paytables import BetType, Grade, PayTable, RoundFacts, grade
from .profiles import Banking, Rounding, TableConfig

__all__ = [
    "HOUSE",
    "PLAYER_BANKER",
    "RESERVED_IDS",
    "Line",
    "Participant",
    "Settlement",
    "player_banker_liability",
    "settle",
]

#: The two coverers a line can have.
HOUSE = "house"
PLAYER_BANKER = "player_banker"
#: Names a settlement uses for its own participants (coverers, roles): no bettor may be called
#: so, or it would read like one of them next to the bettors' entries.
RESERVED_IDS = frozenset({HOUSE, PLAYER_BANKER})


@dataclass(frozen=True, slots=True)
class Line:
    """One settled bet: ``net = gross_win − commission`` on a win, 0 on a push, ``−stake`` on a
    loss; ``multiplier`` is what ``paytables.grade`` returned (net win per unit staked)."""

    index: int
    bettor_id: str
    type: BetType
    stake: int
    grade: Grade
    multiplier: Fraction
    gross_win: int
    commission: int
    net: int
    covered_by: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "bettor_id": self.bettor_id,
            "type": self.type.value,
            "stake": self.stake,
            "grade": self.grade.value,
            "multiplier": str(self.multiplier),
            "gross_win": self.gross_win,
            "commission": self.commission,
            "net": self.net,
            "covered_by": self.covered_by,
        }


@dataclass(frozen=True, slots=True)
class Participant:
    """One participant's round: ``gross`` before the round commission, ``net`` after it.
    ``stake`` is the total staked (0 for the player-banker, who stakes nothing)."""

    id: str
    role: str
    stake: int
    gross: int
    commission: int
    net: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
            "stake": self.stake,
            "gross": self.gross,
            "commission": self.commission,
            "net": self.net,
        }


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled round. ``house_covered`` is the house's result on the lines it covers,
    ``house_commission`` every commission (line and round), ``house_take`` their sum."""

    profile: str
    tier: str
    banking: Banking
    rounding: Rounding
    result: Result
    lines: tuple[Line, ...]
    bettors: tuple[Participant, ...]
    player_banker: Participant | None
    house_covered: int
    house_commission: int

    @property
    def house_take(self) -> int:
        return self.house_covered + self.house_commission

    def nets(self) -> dict[str, int]:
        """Participant id → net for the round (bettors, then the player-banker)."""
        out = {p.id: p.net for p in self.bettors}
        if self.player_banker is not None:
            out[self.player_banker.id] = self.player_banker.net
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (ints and strings only)."""
        pb = self.player_banker
        return {
            "profile": self.profile,
            "tier": self.tier,
            "banking": self.banking.value,
            "rounding": self.rounding.value,
            "result": self.result.value,
            "lines": [line.as_dict() for line in self.lines],
            "bettors": [p.as_dict() for p in self.bettors],
            "player_banker": None if pb is None else pb.as_dict(),
            "house": {
                "covered": self.house_covered,
                "commission": self.house_commission,
                "take": self.house_take,
            },
        }


def settle(
    table: TableConfig,
    round: RoundFacts,
    bets: Sequence[Bet],
    player_banker: PlayerBanker | None = None,
) -> Settlement:
    """Settle ``bets`` (already accepted by ``validation.validate_bets``) on ``round``.

    How money moves (``Σ participants' nets + house take = 0`` always, by construction):

    * **A bet line** wins ``gross_win`` from whoever covers it, minus the line's
      ``commission`` (the 5% of a Banker bet paying 0.95, which goes to the house), so its
      ``net`` is ``gross_win − commission``; a push nets 0 (the stake comes back); a loss nets
      ``−stake``, the stake going to whoever covers the line.
    * **Who covers a line:** the house, except on a player-banker table, where the
      player-banker covers the bets its profile names (star-city: Banker and Player —
      "當荷官的玩家，只針對１賠１的部份負責"; bid-squeeze: Banker, Player and No-commission
      Banker) and the house covers the rest. The player-banker's gross is Σ losing covered
      stakes − Σ winning covered gross wins.
    * **Round commission** (star-city, ``pay_table.commission_rate`` = 1%): every participant
      — bettors and the player-banker — whose gross for the round is positive pays it to the
      house; losses pay none. (The seed's example decides that it is 1% of the *net*:
      A +99 = (200−100)×0.99.)
    * **Rounding:** the table's :class:`~baccarat.profiles.Rounding` rule, named in the
      settlement; whatever is rounded away is part of a commission, so it stays with the house.

    Raises ``ValueError`` on input that validation refuses outright (a missing or
    unexpected player-banker, a player-banker betting, a non-positive amount)."""
    _check_inputs(table, bets, player_banker)
    pays = table.pay_table
    rounding = table.rounding
    covers = table.profile.player_banker_covers if player_banker is not None else frozenset()
    # The round's facts once (not a dozen property reads per line), and each bet type graded once.
    facts: RoundFacts = FactSnapshot(round) if isinstance(round, Round) else round
    prices: dict[str, _Price] = {}
    lines = []
    for i, bet in enumerate(bets):
        price = prices.get(bet.type)
        if price is None:
            price = prices[bet.type] = _price(BetType(bet.type), facts, pays, covers)
        lines.append(_priced_line(i, bet, price, rounding))
    rate = pays.commission_rate
    bettors = _bettors(lines, rate, rounding)
    pb = None
    if player_banker is not None:
        pb_gross = sum(_coverer_result(x) for x in lines if x.covered_by == PLAYER_BANKER)
        pb = _participant(player_banker.bettor_id, PLAYER_BANKER, 0, pb_gross, rate, rounding)
    participants = (*bettors, *(() if pb is None else (pb,)))
    return Settlement(
        profile=table.profile.name,
        tier=table.tier.id,
        banking=table.banking,
        rounding=rounding,
        result=facts.result,
        lines=tuple(lines),
        bettors=bettors,
        player_banker=pb,
        house_covered=sum(_coverer_result(x) for x in lines if x.covered_by == HOUSE),
        house_commission=sum(x.commission for x in lines) + sum(p.commission for p in participants),
    )


def _check_inputs(table: TableConfig, bets: Sequence[Bet], pb: PlayerBanker | None) -> None:
    # a round nobody bet on needs no player-banker (it covers nothing), at any table
    if (table.banking is Banking.PLAYER_BANKER) != (pb is not None) and (bets or pb is not None):
        raise ValueError(
            f"a {table.banking} table settles {'with' if pb is None else 'without'} a player-banker"
        )
    for bet in bets:
        if isinstance(bet.amount, bool) or not isinstance(bet.amount, int) or bet.amount <= 0:
            raise ValueError(f"bet amounts must be positive integers, got {bet.amount!r}")
        if pb is not None and bet.bettor_id == pb.bettor_id:
            raise ValueError("the player-banker does not bet at its own table")


def _nominal(bet: BetType, multiplier: Fraction, pays: PayTable) -> Fraction:
    """What a winning line is owed before the line's commission: a Banker bet paying less than
    even money (0.95) is owed even money, and the difference is its commission."""
    if bet is BetType.BANKER and pays.banker < 1:
        return Fraction(1)
    return multiplier


def _receive(rounding: Rounding, num: int, den: int) -> int:
    """``rounding.receive(Fraction(num, den))`` in integer arithmetic (``den`` > 0): the same
    floor, and ``⌊x + ½⌋ = ⌊(2·num + den) / (2·den)⌋`` for half-up; no Fraction is built."""
    if num < 0:
        raise ValueError(f"rounding applies to amounts received, got {Fraction(num, den)}")
    if rounding is Rounding.FLOOR_HOUSE_FAVOUR:
        return num // den
    if rounding is Rounding.HALF_UP:
        return (2 * num + den) // (2 * den)
    return rounding.receive(Fraction(num, den))  # pragma: no cover - a rule added later


#: A graded bet type: (type, grade, multiplier, nominal as (num, den), multiplier as (num, den),
#: coverer). Pricing a line from it needs integer arithmetic only.
_Price = tuple[BetType, Grade, Fraction, int, int, int, int, str]


def _price(bet_type: BetType, r: RoundFacts, pays: PayTable, covers: frozenset[BetType]) -> _Price:
    """Grade one bet type on the round (``paytables.grade``)."""
    g, mult = grade(bet_type, r, pays)
    nominal = _nominal(bet_type, mult, pays)
    coverer = PLAYER_BANKER if bet_type in covers else HOUSE
    return (
        bet_type,
        g,
        mult,
        nominal.numerator,
        nominal.denominator,
        mult.numerator,
        mult.denominator,
        coverer,
    )


def _priced_line(i: int, bet: Bet, price: _Price, rounding: Rounding) -> Line:
    """Price one bet of a graded type: ``gross`` and ``net`` rounded by the table's rule."""
    bet_type, g, mult, nom_num, nom_den, mult_num, mult_den, coverer = price
    amount = bet.amount
    if g is Grade.WIN:
        gross = _receive(rounding, amount * nom_num, nom_den)
        net = _receive(rounding, amount * mult_num, mult_den)
        commission = gross - net
    elif g is Grade.LOSE:
        gross, net, commission = 0, -amount, 0
    else:
        gross = net = commission = 0
    return Line(i, bet.bettor_id, bet_type, amount, g, mult, gross, commission, net, coverer)


def _line(
    i: int,
    bet: Bet,
    r: RoundFacts,
    pays: PayTable,
    rounding: Rounding,
    covers: frozenset[BetType],
) -> Line:
    """Grade one bet (``paytables.grade``) and price it."""
    return _priced_line(i, bet, _price(BetType(bet.type), r, pays, covers), rounding)


def _coverer_result(line: Line) -> int:
    """The coverer's result on a line: it pays the gross win (the commission goes to the house),
    or takes the losing stake."""
    return -(line.net + line.commission)


def _bettors(lines: Sequence[Line], rate: Fraction, rounding: Rounding) -> tuple[Participant, ...]:
    """Each bettor's stake and gross (Σ line nets), bettors in order of first appearance."""
    totals: dict[str, tuple[int, int]] = {}
    for x in lines:
        stake, gross = totals.get(x.bettor_id, (0, 0))
        totals[x.bettor_id] = (stake + x.stake, gross + x.net)
    return tuple(
        _participant(bettor, "bettor", stake, gross, rate, rounding)
        for bettor, (stake, gross) in totals.items()
    )


def _participant(
    pid: str, role: str, stake: int, gross: int, rate: Fraction, rounding: Rounding
) -> Participant:
    """Star-city: 1% commission on a positive round result ("輸錢不抽佣金"); the participant
    receives the rest, rounded by the table's rule."""
    net = gross
    if gross > 0 and rate:
        keep = 1 - rate
        net = _receive(rounding, gross * keep.numerator, keep.denominator)
    return Participant(pid, role, stake, gross, gross - net, net)


# --- the player-banker's worst case ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcome:
    """A stand-in round for bets graded on the result and Banker's total alone (Banker, Player,
    No-commission Banker): the player-banker's worst case is among :data:`_OUTCOMES`."""

    result: Result
    player_total: int
    banker_total: int
    player_natural: bool = False
    banker_natural: bool = False
    player_pair: bool = False
    banker_pair: bool = False
    player_perfect_pair: bool = False
    banker_perfect_pair: bool = False
    cards_dealt: int = 6
    banker_card_count: int = 3


_OUTCOMES = (
    _Outcome(Result.PLAYER, player_total=7, banker_total=0),
    _Outcome(Result.BANKER, player_total=0, banker_total=7),
    _Outcome(Result.BANKER, player_total=0, banker_total=6),
    _Outcome(Result.TIE, player_total=5, banker_total=5),
)
_RESULT_ONLY = frozenset({BetType.BANKER, BetType.PLAYER, BetType.BANKER_NO_COMMISSION})


def player_banker_liability(table: TableConfig, bets: Sequence[Bet]) -> int:
    """The most a player-banker can lose on ``bets`` in one round, before commission: the max over
    outcomes of −(its gross), priced exactly as :func:`settle` prices it; 0 if it cannot lose."""
    covered = [b for b in bets if BetType(b.type) in table.profile.player_banker_covers]
    if not covered:
        return 0
    if any(BetType(b.type) not in _RESULT_ONLY for b in covered):
        raise ValueError("the liability is defined for Banker/Player bets only")
    pays, covers = table.pay_table, table.profile.player_banker_covers
    worst = 0
    for outcome in _OUTCOMES:
        lines = [_line(i, b, outcome, pays, table.rounding, covers) for i, b in enumerate(covered)]
        worst = max(worst, -sum(_coverer_result(x) for x in lines))
    return worst
