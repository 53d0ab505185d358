"""Profiles, tiers (infra/tiers.json) and table configurations."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from baccarat.paytables import DRAGON_COMMON, DRAGON_SEED, PAY_TABLES, BetType
from baccarat.profiles import (
    BID_SQUEEZE,
    PROFILES,
    STAR_CITY,
    AreaLimit,
    Banking,
    CommissionModel,
    Rounding,
    TableConfig,
    Tier,
    TierError,
    load_tiers,
    repo_tiers,
    repo_tiers_path,
)
from baccarat.rules import PROFILE_RULES

TIERS = repo_tiers()
STAR_CITY_SIDE = (BetType.TIE, BetType.BANKER_PAIR, BetType.PLAYER_PAIR)
STAR_CITY_MAIN = (BetType.BANKER, BetType.PLAYER)


# --- star-city tiers: exactly game-rules.md's table ------------------------------------------

# id, Chinese name, unit, min bet, table max, bettor min balance, player-banker min balance
STAR_CITY_TABLE = [
    ("star-city-fun", "歡樂區", 100, 100, 8_000, 1_000, 35_000),
    ("star-city-vip", "貴賓區", 1_000, 1_000, 80_000, 10_000, 350_000),
    ("star-city-supreme", "至尊區", 10_000, 10_000, 800_000, 100_000, 3_500_000),
]


@pytest.mark.parametrize("row", STAR_CITY_TABLE, ids=lambda r: r[0])
def test_star_city_tiers_match_the_rules_table(row: tuple[Any, ...]) -> None:
    tid, zh, unit, min_bet, table_max, bettor_min, pb_min = row
    tier = TIERS[tid]
    assert (tier.profile, tier.name_zh, tier.unit, tier.min_bet) == ("star-city", zh, unit, min_bet)
    assert (tier.table_max, tier.bettor_min_balance, tier.player_banker_min_balance) == (
        table_max,
        bettor_min,
        pb_min,
    )
    assert tier.chips == (1, 2, 3, 5, 10)
    assert tier.chip_values == tuple(c * unit for c in (1, 2, 3, 5, 10))
    assert tier.seated_min_level is None
    for bet in STAR_CITY_SIDE:
        assert tier.limit(bet) == AreaLimit(min=min_bet, max=10 * unit)
    for bet in STAR_CITY_MAIN:
        assert tier.limit(bet) == AreaLimit(min=min_bet, max=50 * unit)


def test_star_city_tiers_are_exactly_three() -> None:
    ids = [t.id for t in TIERS.values() if t.profile == "star-city"]
    assert ids == [row[0] for row in STAR_CITY_TABLE]


@pytest.mark.parametrize("tid", [row[0] for row in STAR_CITY_TABLE])
def test_star_city_numbers_agree(tid: str) -> None:
    """game-rules.md: 50+10+10+10 units = the table max; 7 seats × 50 units = the player-banker
    minimum (its maximum Banker/Player exposure)."""
    tier = TIERS[tid]
    one_of_each = tier.limit(BetType.BANKER).max + sum(tier.limit(b).max for b in STAR_CITY_SIDE)
    assert one_of_each == tier.table_max
    assert STAR_CITY.seats * tier.limit(BetType.BANKER).max == tier.player_banker_min_balance


def test_bid_squeeze_tiers_have_a_limit_for_every_offered_bet() -> None:
    tiers = [t for t in TIERS.values() if t.profile == "bid-squeeze"]
    assert tiers
    for tier in tiers:
        assert set(tier.limits) == set(BetType) == BID_SQUEEZE.offered
        assert tier.seated_min_level is not None
        assert all(
            lim.min % tier.unit == 0 and lim.max % tier.unit == 0 for lim in tier.limits.values()
        )


def test_tiers_json_is_the_path_we_load() -> None:
    assert repo_tiers_path() == Path(__file__).resolve().parents[2] / "infra" / "tiers.json"
    assert load_tiers(repo_tiers_path()) == TIERS


# --- profiles --------------------------------------------------------------------------------


def test_profiles_take_shoe_rules_and_pay_tables_from_their_modules() -> None:
    assert set(PROFILES) == set(PROFILE_RULES) == set(PAY_TABLES)
    for name, profile in PROFILES.items():
        assert profile.name == name
        assert profile.shoe_rules is PROFILE_RULES[name]
        assert profile.pay_table is PAY_TABLES[name]
        assert profile.seats == 7
        assert profile.banking_modes == frozenset(Banking)


def test_star_city_profile_rules() -> None:
    assert not STAR_CITY.spectators_may_bet
    assert not STAR_CITY.banker_and_player_together
    assert STAR_CITY.big_small_last_round is None
    assert STAR_CITY.commission is CommissionModel.ON_POSITIVE_NET
    assert STAR_CITY.pay_table.commission_rate == Fraction(1, 100)
    assert STAR_CITY.player_banker_covers == {BetType.BANKER, BetType.PLAYER}
    assert STAR_CITY.idle_round_limit == 5
    assert STAR_CITY.min_participants == 2


def test_bid_squeeze_profile_rules() -> None:
    assert BID_SQUEEZE.spectators_may_bet and BID_SQUEEZE.spectators_need_seated
    assert BID_SQUEEZE.banker_and_player_together
    assert BID_SQUEEZE.big_small_last_round == 20
    assert BID_SQUEEZE.commission is CommissionModel.IN_BANKER_PAY
    assert BID_SQUEEZE.pay_table.commission_rate == 0
    assert BID_SQUEEZE.pay_table.banker == Fraction(19, 20)
    assert BID_SQUEEZE.player_banker_covers == {
        BetType.BANKER,
        BetType.PLAYER,
        BetType.BANKER_NO_COMMISSION,
    }
    assert BID_SQUEEZE.idle_round_limit is None


# --- tables ----------------------------------------------------------------------------------


def test_star_city_table_banker_pays_choice() -> None:
    tier = TIERS["star-city-fun"]
    pb = Banking.PLAYER_BANKER
    # the seed's Banker 1:1 is offered where a player banks it …
    assert TableConfig(STAR_CITY, tier, pb).pay_table.banker == 1
    assert TableConfig(STAR_CITY, tier, pb, banker_pays="0.95").pay_table.banker == Fraction(19, 20)
    # … never on a house-banked table, where it would give the bettor the edge
    assert TableConfig(STAR_CITY, tier).pay_table.banker == Fraction(19, 20)
    with pytest.raises(TierError, match="banker_pays"):
        TableConfig(STAR_CITY, tier, banker_pays="1")
    assert TableConfig(STAR_CITY, tier).pay_table.commission_rate == Fraction(1, 100)
    with pytest.raises(TierError):
        TableConfig(STAR_CITY, tier, pb, banker_pays="0.9")
    with pytest.raises(TierError):
        TableConfig(STAR_CITY, tier, dragon_table="seed")


def test_bid_squeeze_table_dragon_choice() -> None:
    tier = TIERS["bid-squeeze-standard"]
    assert TableConfig(BID_SQUEEZE, tier).pay_table.dragon_margins == DRAGON_SEED
    common = TableConfig(BID_SQUEEZE, tier, dragon_table="common")
    assert common.pay_table.dragon_margins == DRAGON_COMMON
    assert common.pay_table.banker == Fraction(19, 20)
    with pytest.raises(TierError):
        TableConfig(BID_SQUEEZE, tier, banker_pays="1")


def test_table_tier_must_belong_to_the_profile() -> None:
    with pytest.raises(TierError):
        TableConfig(BID_SQUEEZE, TIERS["star-city-fun"])


def test_table_banking_must_be_allowed() -> None:
    house_only = replace(STAR_CITY, banking_modes=frozenset({Banking.HOUSE}))
    with pytest.raises(TierError):
        TableConfig(house_only, TIERS["star-city-fun"], Banking.PLAYER_BANKER)


@pytest.mark.parametrize(
    "table",
    [
        TableConfig(STAR_CITY, TIERS["star-city-vip"], Banking.PLAYER_BANKER, banker_pays="0.95"),
        TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-high"], dragon_table="common"),
        TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-standard"], rounding=Rounding.HALF_UP),
    ],
)
def test_table_config_round_trips_through_json(table: TableConfig) -> None:
    data = json.loads(json.dumps(table.to_dict()))
    back = TableConfig.from_dict(data)
    assert back == table
    assert back.pay_table == table.pay_table
    assert back.to_dict() == table.to_dict()


def test_tables_are_hashable_values() -> None:
    a = TableConfig(STAR_CITY, TIERS["star-city-fun"], Banking.PLAYER_BANKER)
    b = TableConfig.from_dict(a.to_dict())
    assert a == b and hash(a) == hash(b)
    assert len({a, b, TableConfig(STAR_CITY, TIERS["star-city-fun"])}) == 2


def test_table_config_defaults_are_resolved() -> None:
    table = TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-standard"])
    assert table.to_dict()["banker_pays"] == "0.95"
    assert table.to_dict()["dragon_table"] == "seed"
    assert table.to_dict()["banking"] == "house"
    assert table.to_dict()["rounding"] == "floor_house_favour"


@pytest.mark.parametrize(
    "change",
    [
        {"profile": "blackjack"},
        {"banking": "casino"},
        {"rounding": "banker"},
        {"banker_pays": "2"},
        {"tier": {"id": "x"}},
    ],
)
def test_bad_table_config_is_refused(change: dict[str, Any]) -> None:
    data = TableConfig(STAR_CITY, TIERS["star-city-fun"]).to_dict() | change
    with pytest.raises(TierError):
        TableConfig.from_dict(data)


# --- Tier.from_dict refuses what it cannot trust ---------------------------------------------


def _raw(tid: str = "star-city-fun") -> dict[str, Any]:
    raw: list[dict[str, Any]] = json.loads(repo_tiers_path().read_text(encoding="utf-8"))["tiers"]
    return copy.deepcopy(next(t for t in raw if t["id"] == tid))


def _set(path: str, value: Any) -> dict[str, Any]:
    raw = _raw()
    *parents, last = path.split(".")
    node = raw
    for key in parents:
        node = node[key]
    node[last] = value
    return raw


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (_set("unit", 0), "unit"),
        (_set("unit", True), "unit"),
        (_set("min_bet", 150), "multiple"),
        (_set("table_max", 8050), "multiple"),
        (_set("table_max", 50), "below min_bet"),
        (_set("limits.tie.max", 1050), "multiple"),
        (_set("limits.tie.min", 2000), "exceeds"),
        (_set("limits.tie.max", "1000"), "integer"),
        (_set("limits.lucky6", {"max": 1000}), "exactly the bets"),
        (_set("limits.dragon", {"max": 1000}), "unknown bet type"),
        (_set("chips", [2, 3, 5]), "chips"),
        (_set("chips", [1, 3, 2]), "chips"),
        (_set("chips", []), "chips"),
        (_set("profile", "blackjack"), "unknown profile"),
        (_set("bettor_min_balance", -1), "bettor_min_balance"),
        (_set("extra", 1), "unknown keys"),
        (_set("name", ""), "name"),
    ],
)
def test_tier_from_dict_refuses(raw: dict[str, Any], why: str) -> None:
    with pytest.raises(TierError, match=why):
        Tier.from_dict(raw)


def test_tier_from_dict_refuses_a_missing_key() -> None:
    raw = _raw()
    del raw["player_banker_min_balance"]
    with pytest.raises(TierError, match="missing"):
        Tier.from_dict(raw)


def test_limits_min_defaults_to_min_bet_and_round_trips() -> None:
    raw = _raw()
    tier = Tier.from_dict(raw)
    assert all(lim.min == raw["min_bet"] for lim in tier.limits.values())
    assert Tier.from_dict(tier.to_dict()) == tier


def test_load_tiers_refuses_duplicate_ids(tmp_path: Path) -> None:
    path = tmp_path / "tiers.json"
    path.write_text(json.dumps({"tiers": [_raw(), _raw()]}), encoding="utf-8")
    with pytest.raises(TierError, match="duplicate"):
        load_tiers(path)
    path.write_text(json.dumps([_raw()]), encoding="utf-8")
    with pytest.raises(TierError, match="tiers"):
        load_tiers(path)


# --- rounding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "floor", "half_up"),
    [
        (Fraction(0), 0, 0),
        (Fraction(95), 95, 95),
        (Fraction(9405, 100), 94, 94),
        (Fraction(189, 2), 94, 95),
        (Fraction(9499, 100), 94, 95),
        (Fraction(19, 20), 0, 1),
    ],
)
def test_rounding_rules(amount: Fraction, floor: int, half_up: int) -> None:
    assert Rounding.FLOOR_HOUSE_FAVOUR.receive(amount) == floor
    assert Rounding.HALF_UP.receive(amount) == half_up


def test_rounding_applies_to_amounts_received_only() -> None:
    with pytest.raises(ValueError):
        Rounding.FLOOR_HOUSE_FAVOUR.receive(Fraction(-1))


def test_every_tiers_notes_state_its_unit_in_its_own_minor_units() -> None:
    """The bid-squeeze tiers said "unit 100 = 1.00" beside
    minor_unit_exponent 0 (no decimals: 100 is 100 coins). A note names the chip's value as
    the tier's unit in whole minor units, and no decimal amount where there are no decimals."""
    import re

    raw = json.loads(repo_tiers_path().read_text(encoding="utf-8"))
    docs = raw["tiers"] if isinstance(raw, dict) else raw
    for t in docs:
        notes = t.get("notes", "")
        assert f"chip 1 = {t['unit']} coins" in notes, (t["id"], notes)
        if t["minor_unit_exponent"] == 0:
            assert not re.search(r"\d\.\d", notes), (t["id"], notes)
