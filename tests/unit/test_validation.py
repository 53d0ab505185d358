"""validate_bets: every refusal code has a case that violates only its rule, and where a limit is
involved, the limit itself is accepted (so an off-by-one would fail too)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import pytest

from baccarat.bets import Bet, BetType, PlayerBanker, Role
from baccarat.profiles import BID_SQUEEZE, STAR_CITY, Banking, TableConfig, repo_tiers
from baccarat.settlement import player_banker_liability
from baccarat.validation import AcceptedRound, BetRefused, Refusal, validate_bets

TIERS = repo_tiers()
FUN = TIERS["star-city-fun"]
STD = TIERS["bid-squeeze-standard"]
SC = TableConfig(STAR_CITY, FUN)
SC_PB = TableConfig(STAR_CITY, FUN, Banking.PLAYER_BANKER)
BS = TableConfig(BID_SQUEEZE, STD)
BS_PB = TableConfig(BID_SQUEEZE, STD, Banking.PLAYER_BANKER)
A_SC = PlayerBanker("A", FUN.player_banker_min_balance)
A_BS = PlayerBanker("A", STD.player_banker_min_balance)
RICH = 100_000_000


def seated(bettor: str, bet: str, amount: Any, seat: Any = 1, **kw: Any) -> Bet:
    kw.setdefault("balance", RICH)
    kw.setdefault("level", 5)
    return Bet(bettor, Role.SEATED, cast(BetType, bet), amount, seat=seat, **kw)


def spectator(bettor: str, bet: str, amount: Any, **kw: Any) -> Bet:
    kw.setdefault("balance", RICH)
    return Bet(bettor, Role.SPECTATOR, cast(BetType, bet), amount, **kw)


@dataclass
class Case:
    table: TableConfig
    bets: Sequence[Bet]
    round_number: int = 1
    pb: PlayerBanker | None = None
    seated_present: Sequence[str] = field(default_factory=tuple)

    def run(self) -> AcceptedRound:
        return validate_bets(
            self.table, self.bets, self.round_number, self.pb, seated_present=self.seated_present
        )


SEVEN_BANKERS = [seated(f"S{n}", "banker", 500_000, seat=n) for n in range(1, 8)]

#: code → a round that breaks that rule and no other.
REFUSED: dict[Refusal, Case] = {
    Refusal.UNKNOWN_BET_TYPE: Case(SC, [seated("B", "dragon_tiger", 100)]),
    Refusal.BET_TYPE_NOT_OFFERED: Case(SC, [seated("B", "lucky6", 100)]),
    Refusal.UNKNOWN_ROLE: Case(
        SC, [Bet("B", cast(Role, "vip"), BetType.BANKER, 100, seat=1, balance=RICH)]
    ),
    Refusal.INVALID_AMOUNT: Case(SC, [seated("B", "banker", 0)]),
    Refusal.NOT_CHIP_MULTIPLE: Case(SC, [seated("B", "banker", 150)]),
    Refusal.BIG_SMALL_CLOSED: Case(BS, [seated("B", "big", 1000)], round_number=21),
    Refusal.SPECTATOR_BETTING_NOT_ALLOWED: Case(
        SC, [seated("B", "banker", 100), spectator("W", "tie", 100)]
    ),
    Refusal.SEAT_REQUIRED: Case(SC, [seated("B", "banker", 100, seat=None)]),
    Refusal.SEAT_OUT_OF_RANGE: Case(SC, [seated("B", "banker", 100, seat=8)]),
    Refusal.SPECTATOR_HAS_SEAT: Case(
        BS, [seated("B", "banker", 1000), spectator("W", "banker", 1000, seat=2)]
    ),
    Refusal.PLAYER_BANKER_CANNOT_BET: Case(
        SC_PB, [seated("B", "banker", 100), seated("A", "tie", 100, seat=2)], pb=A_SC
    ),
    Refusal.INVALID_PERSONAL_LIMIT: Case(
        BS,
        [
            seated("B", "banker", 1000),
            spectator("W", "banker", 1000, personal_limits={BetType.BANKER: -1}),
        ],
    ),
    Refusal.INCONSISTENT_BETTOR: Case(
        SC, [seated("B", "banker", 100), seated("B", "tie", 100, balance=RICH - 1)]
    ),
    Refusal.BALANCE_REQUIRED: Case(SC, [seated("B", "banker", 100, balance=None)]),
    Refusal.BELOW_MIN_BALANCE: Case(SC, [seated("B", "banker", 100, balance=999)]),
    Refusal.BELOW_SEATED_MIN_LEVEL: Case(BS, [seated("B", "banker", 1000, level=0)]),
    Refusal.BANKER_AND_PLAYER_TOGETHER: Case(
        SC, [seated("B", "banker", 100), seated("B", "tie", 100), seated("B", "player", 100)]
    ),
    Refusal.BELOW_MIN_BET: Case(BS, [seated("B", "banker", 500)]),
    Refusal.ABOVE_AREA_LIMIT: Case(
        SC, [seated("B", "banker", 5000), seated("B", "tie", 100), seated("B", "banker", 100)]
    ),
    Refusal.ABOVE_PERSONAL_LIMIT: Case(
        BS,
        [
            seated("B", "banker", 1000),
            spectator("W", "banker", 2100, personal_limits={BetType.BANKER: 2000}),
        ],
    ),
    Refusal.BELOW_PERSONAL_LIMIT: Case(
        BS,
        [
            seated("B", "banker", 1000),
            spectator("W", "banker", 1900, personal_minimums={BetType.BANKER: 2000}),
        ],
    ),
    Refusal.ABOVE_TABLE_MAX: Case(
        TableConfig(STAR_CITY, replace(FUN, table_max=1000)),
        [seated("B", "banker", 500), seated("B", "tie", 600)],
    ),
    Refusal.INSUFFICIENT_BALANCE: Case(SC, [seated("B", "banker", 1100, balance=1000)]),
    Refusal.TOO_MANY_SEATED: Case(BS, SEVEN_BANKERS, seated_present=["H"]),
    Refusal.SEAT_TAKEN: Case(
        SC, [seated("B", "banker", 100, seat=3), seated("C", "player", 100, seat=3)]
    ),
    Refusal.SEATED_BETTOR_REQUIRED: Case(BS, [spectator("W", "banker", 1000)]),
    Refusal.PLAYER_BANKER_REQUIRED: Case(SC_PB, [seated("B", "banker", 100)]),
    Refusal.PLAYER_BANKER_NOT_ALLOWED: Case(SC, [seated("B", "banker", 100)], pb=A_SC),
    Refusal.PLAYER_BANKER_BELOW_MIN_BALANCE: Case(
        SC_PB, [seated("B", "banker", 100)], pb=PlayerBanker("A", 34_900)
    ),
    Refusal.NOT_ENOUGH_PLAYERS: Case(SC_PB, [], pb=A_SC),
    Refusal.PLAYER_BANKER_CANNOT_COVER: Case(
        BS_PB, [*SEVEN_BANKERS, spectator("W", "banker", 500_000)], pb=A_BS
    ),
}


def test_every_refusal_code_has_a_case() -> None:
    assert set(REFUSED) == set(Refusal)


@pytest.mark.parametrize("code", list(REFUSED), ids=str)
def test_refusal(code: Refusal) -> None:
    with pytest.raises(BetRefused) as info:
        REFUSED[code].run()
    assert info.value.code is code
    json.dumps(info.value.as_dict())


def test_refusal_codes_are_stable() -> None:
    """The API returns these verbatim: renaming one is a breaking change."""
    assert sorted(r.value for r in Refusal) == sorted(
        [
            "unknown_bet_type",
            "bet_type_not_offered",
            "unknown_role",
            "invalid_amount",
            "not_chip_multiple",
            "big_small_closed",
            "spectator_betting_not_allowed",
            "seat_required",
            "seat_out_of_range",
            "spectator_has_seat",
            "player_banker_cannot_bet",
            "invalid_personal_limit",
            "inconsistent_bettor",
            "balance_required",
            "below_min_balance",
            "below_seated_min_level",
            "banker_and_player_together",
            "below_min_bet",
            "above_area_limit",
            "above_personal_limit",
            "below_personal_limit",
            "above_table_max",
            "insufficient_balance",
            "too_many_seated",
            "seat_taken",
            "seated_bettor_required",
            "player_banker_required",
            "player_banker_not_allowed",
            "player_banker_below_min_balance",
            "not_enough_players",
            "player_banker_cannot_cover",
        ]
    )


# --- what a refusal says ------------------------------------------------------------------------


def test_refusal_names_bettor_bet_limit_and_attempt() -> None:
    with pytest.raises(BetRefused) as info:
        REFUSED[Refusal.ABOVE_AREA_LIMIT].run()
    e = info.value
    assert (e.bettor_id, e.bet_index, e.bet_type, e.limit, e.attempted) == (
        "B",
        2,
        "banker",
        5000,
        5100,
    )
    assert e.as_dict()["code"] == "above_area_limit"


def test_all_or_nothing_a_later_bad_bet_refuses_the_list() -> None:
    bets = [seated("B", "banker", 100), seated("C", "player", 100, seat=2, balance=10)]
    with pytest.raises(BetRefused) as info:
        validate_bets(SC, bets, 1)
    assert info.value.code is Refusal.BELOW_MIN_BALANCE
    assert info.value.bet_index == 1


@pytest.mark.parametrize("amount", [0, -100, 100.0, True, "100", None])
def test_invalid_amounts(amount: Any) -> None:
    with pytest.raises(BetRefused) as info:
        validate_bets(SC, [seated("B", "banker", amount)], 1)
    assert info.value.code is Refusal.INVALID_AMOUNT


@pytest.mark.parametrize("seat", [0, 8, -1, True, "1"])
def test_seats_out_of_range(seat: Any) -> None:
    with pytest.raises(BetRefused) as info:
        validate_bets(SC, [seated("B", "banker", 100, seat=seat)], 1)
    assert info.value.code is Refusal.SEAT_OUT_OF_RANGE


def test_below_seated_min_level_when_level_unknown() -> None:
    with pytest.raises(BetRefused) as info:
        validate_bets(BS, [seated("B", "banker", 1000, level=None)], 1)
    assert info.value.code is Refusal.BELOW_SEATED_MIN_LEVEL


@pytest.mark.parametrize(
    "limits", [{"banker": "1000"}, {"dragon": 1000}, {"tie": True}, {"banker": 0}, {"tie": -5}]
)
def test_invalid_personal_limits(limits: dict[Any, Any]) -> None:
    bets = [seated("B", "banker", 1000), spectator("W", "banker", 1000, personal_limits=limits)]
    with pytest.raises(BetRefused) as info:
        validate_bets(BS, bets, 1)
    assert info.value.code is Refusal.INVALID_PERSONAL_LIMIT


def test_a_personal_minimum_above_its_maximum_is_invalid() -> None:
    """個人限紅 is a range: its minimum is at most its maximum (else no stake fits)."""
    bets = [
        seated("B", "banker", 1000),
        spectator(
            "W", "banker", 3000, personal_limits={BetType.BANKER: 2000},
            personal_minimums={BetType.BANKER: 5000},
        ),
    ]  # fmt: skip
    with pytest.raises(BetRefused) as info:
        validate_bets(BS, bets, 1)
    assert info.value.code is Refusal.INVALID_PERSONAL_LIMIT


def test_personal_limits_in_api_form_are_a_maximum_or_a_range() -> None:
    from baccarat.bets import bets_from_json

    line = {"bettor_id": "W", "role": "spectator", "type": "banker", "balance": RICH}
    ranged = {"banker": {"min": 2000, "max": 5000}, "tie": 1000}
    seat = {"bettor_id": "B", "role": "seated", "seat": 1, "type": "banker", "amount": 1000,
            "balance": RICH, "level": 1}  # fmt: skip
    for amount, code in ((1000, "below_personal_limit"), (6000, "above_personal_limit")):
        with pytest.raises(BetRefused) as info:
            validate_bets(BS, bets_from_json([seat, {**line, "amount": amount,
                                                     "personal_limits": ranged}]), 1)  # fmt: skip
        assert (info.value.code, info.value.attempted) == (code, amount)
    validate_bets(
        BS, bets_from_json([seat, {**line, "amount": 3000, "personal_limits": ranged}]), 1
    )


def test_personal_limit_above_the_table_limit_leaves_the_table_limit() -> None:
    bets = [
        seated("B", "banker", 1000),
        spectator("W", "banker", 500_100, personal_limits={BetType.BANKER: 10**9}),
    ]
    with pytest.raises(BetRefused) as info:
        validate_bets(BS, bets, 1)
    assert info.value.code is Refusal.ABOVE_AREA_LIMIT


def test_two_seated_bettors_too_many_for_the_seats() -> None:
    eight = [seated(f"S{n}", "banker", 1000, seat=1 + n % 7) for n in range(8)]
    with pytest.raises(BetRefused) as info:
        validate_bets(BS, eight, 1)
    assert info.value.code is Refusal.TOO_MANY_SEATED


# --- the limits themselves are accepted -------------------------------------------------------

ACCEPTED: dict[str, Case] = {
    "area limit reached in two bets": Case(
        SC, [seated("B", "banker", 4900), seated("B", "banker", 100)]
    ),
    "every star-city area at its max = the table max": Case(
        SC,
        [seated("B", b, 5000 if b == "banker" else 1000) for b in STAR_CITY.offered - {"player"}],
    ),
    "minimum reached in two bets": Case(
        BS, [seated("B", "banker", 500), seated("B", "banker", 500)]
    ),
    "balance exactly the minimum": Case(SC, [seated("B", "banker", 1000, balance=1000)]),
    "Big on round 20": Case(BS, [seated("B", "big", 1000), seated("B", "small", 1000)], 20),
    "seated level exactly the minimum": Case(BS, [seated("B", "banker", 1000, level=1)]),
    "a spectator needs no level": Case(
        BS, [seated("B", "banker", 1000), spectator("W", "tie", 500, level=0)]
    ),
    "personal limit reached": Case(
        BS,
        [
            seated("B", "banker", 1000),
            spectator("W", "banker", 2000, personal_limits={BetType.BANKER: 2000}),
        ],
    ),
    "seated bettors ignore personal limits": Case(
        BS, [seated("B", "banker", 5000, personal_limits={BetType.BANKER: 1000})]
    ),
    "a seated bettor present makes spectator bets valid": Case(
        BS, [spectator("W", "banker", 1000)], seated_present=["B"]
    ),
    "bid-squeeze allows Banker and Player together": Case(
        BS, [seated("B", "banker", 1000), seated("B", "player", 1000)]
    ),
    "seven seats": Case(BS, SEVEN_BANKERS),
    "star-city player-banker at its minimum covers seven max Banker bets": Case(
        SC_PB, [seated(f"S{n}", "banker", 5000, seat=n) for n in range(1, 8)], pb=A_SC
    ),
    "liability is the worst outcome, not the sum of all wins": Case(
        BS_PB, [*SEVEN_BANKERS, spectator("W", "player", 500_000)], pb=A_BS
    ),
    "a house table may have an empty round": Case(SC, []),
    "bet types given as strings are normalised": Case(SC, [seated("B", "tie", 100)]),
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted(name: str) -> None:
    case = ACCEPTED[name]
    accepted = case.run()
    assert len(accepted.bets) == len(case.bets)
    assert all(isinstance(b.type, BetType) and isinstance(b.role, Role) for b in accepted.bets)


def test_accepted_round_reports_stakes_and_liability() -> None:
    bets = [seated("B", "banker", 200), seated("C", "player", 100, seat=2), seated("B", "tie", 100)]
    accepted = validate_bets(SC_PB, bets, 1, A_SC)
    assert dict(accepted.stakes) == {"B": 300, "C": 100}
    assert accepted.player_banker_liability == 100
    assert accepted.bets[2].type is BetType.TIE


def test_round_number_must_be_positive() -> None:
    for bad in (0, -1, True, 1.0):
        with pytest.raises(ValueError):
            validate_bets(SC, [], cast(int, bad))


# --- the player-banker's liability ------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "bets", "liability"),
    [
        # the seed's example: Banker wins → pays 200, takes 100
        (SC_PB, [seated("B", "banker", 200), seated("C", "player", 100, seat=2)], 100),
        # Tie and pairs are the house's
        (SC_PB, [seated("B", "tie", 1000), seated("C", "player_pair", 1000, seat=2)], 0),
        # bid-squeeze Banker: the player-banker owes even money, the 5% is the house's
        (BS_PB, [seated("B", "banker", 1000)], 1000),
        # No-commission Banker hedged by Player: worst case is 0 (Banker 6 even gains 500)
        (BS_PB, [seated("B", "banker_no_commission", 1000), seated("C", "player", 1000, 2)], 0),
        # side bets are the house's
        (BS_PB, [seated("B", "lucky6", 20_000), seated("B", "player_dragon", 20_000)], 0),
        # star-city with Banker paying 0.95: the player-banker still owes even money
        (
            TableConfig(STAR_CITY, FUN, Banking.PLAYER_BANKER, banker_pays="0.95"),
            [seated("B", "banker", 1000)],
            1000,
        ),
    ],
)
def test_player_banker_liability(table: TableConfig, bets: list[Bet], liability: int) -> None:
    normalised = [replace(b, type=BetType(b.type)) for b in bets]
    assert player_banker_liability(table, normalised) == liability
