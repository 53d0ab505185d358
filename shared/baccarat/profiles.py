"""Profiles, tiers and table configurations, as data (game-rules.md, "Profile star-city" and
"Profile bid-squeeze").

A :class:`Profile` is a game: its shoe rules, current pay table and its seed's table rules. A
:class:`Tier` is a stake level of a profile (chip unit, chips, limits, minimum balances), read
from ONE data file, ``infra/tiers.json`` — no limit is written in Python. A
:class:`TableConfig` is one table: profile + tier + pay-table version and choices + banking mode
+ rounding rule (:mod:`baccarat.tableoptions`). Money is integer minor units everywhere."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from . import paytables
from .currency import COIN, COIN_EXPONENT, DEFAULT_EXPONENTS, MAX_EXPONENT, MIN_EXPONENT, of_tier
from .paytables import BANKER_PAY_VARIANTS, BetType, PayTable
from .rules import PROFILE_RULES, ShoeRules
from .tableoptions import Banking as Banking
from .tableoptions import CommissionModel as CommissionModel
from .tableoptions import Rounding as Rounding

__all__ = [
    "BID_SQUEEZE",
    "PROFILES",
    "STAR_CITY",
    "AreaLimit",
    "Banking",
    "CommissionModel",
    "Profile",
    "Rounding",
    "TableConfig",
    "Tier",
    "TierError",
    "load_tiers",
    "repo_tiers",
    "repo_tiers_path",
]


@dataclass(frozen=True, slots=True)
class Profile:
    """A game's rules as data. Field by field, the rule of game-rules.md each one states:

    * ``seats`` — betting seats (star-city: 7 beside the player-banker seat; bid-squeeze: 7).
    * ``spectators_may_bet`` — star-city spectators only watch; bid-squeeze spectators bet.
    * ``spectators_need_seated`` — bid-squeeze: an empty table accepts only seated bets.
    * ``banker_and_player_together`` — star-city: a bettor stakes Banker *or* Player.
    * ``big_small_last_round`` — bid-squeeze: Big/Small may not be bet after round 20.
    * ``commission`` — see :class:`CommissionModel`.
    * ``banking_modes`` and ``player_banker_covers`` — what a player-banker may bank.
    * ``min_participants`` — star-city: "two people make a round", player-banker included.
    * ``idle_round_limit`` — star-city: 5 rounds in a row without a bet and the bettor is removed
      (``None``: the seed has no such rule).
    * ``banker_pays_choices`` (per banking mode) / ``dragon_choices`` — the pay-table variants a
      table may choose; the first is the default. Star-city's Banker 1:1 (less the 1% round
      commission) favours the bettor (house edge −0.78% at 4 decks): the seed can afford it
      because a *player* banks Banker/Player, so only player-banker tables offer it; a
      house-banked star-city table pays Banker 0.95.
    """

    name: str
    shoe_rules: ShoeRules
    seats: int
    spectators_may_bet: bool
    spectators_need_seated: bool
    banker_and_player_together: bool
    big_small_last_round: int | None
    commission: CommissionModel
    banking_modes: frozenset[Banking]
    player_banker_covers: frozenset[BetType]
    min_participants: int
    idle_round_limit: int | None
    banker_pays_choices: Mapping[Banking, tuple[str, ...]]
    dragon_choices: tuple[str, ...] = ()

    @property
    def pay_table(self) -> PayTable:
        """The pay table this profile's new tables get (``paytables.CURRENT``)."""
        return paytables.current(self.name)

    @property
    def offered(self) -> frozenset[BetType]:
        return self.pay_table.offered

    def __hash__(self) -> int:  # the choices mapping is not hashable; the name is enough
        return hash(self.name)


#: Star-city (seed 000): 4 decks, 30 rounds a shoe; a player-banker seat covering Banker/Player,
#: the house covering Tie and the pairs; 1% commission on every positive round result.
STAR_CITY = Profile(
    name="star-city",
    shoe_rules=PROFILE_RULES["star-city"],
    seats=7,
    spectators_may_bet=False,
    spectators_need_seated=False,
    banker_and_player_together=False,
    big_small_last_round=None,
    commission=CommissionModel.ON_POSITIVE_NET,
    banking_modes=frozenset(Banking),
    player_banker_covers=frozenset({BetType.BANKER, BetType.PLAYER}),
    min_participants=2,
    idle_round_limit=5,
    banker_pays_choices=MappingProxyType(
        {Banking.PLAYER_BANKER: ("1", "0.95"), Banking.HOUSE: ("0.95",)}
    ),
)

#: Bid-squeeze (seed 001): 8 decks with burn and cut card; seated and spectator bettors; every
#: bet of the vocabulary; Banker pays 0.95; Big/Small close after round 20. A player-banker, when
#: a table has one (the seed has none), covers Banker, Player and No-commission Banker.
BID_SQUEEZE = Profile(
    name="bid-squeeze",
    shoe_rules=PROFILE_RULES["bid-squeeze"],
    seats=7,
    spectators_may_bet=True,
    spectators_need_seated=True,
    banker_and_player_together=True,
    big_small_last_round=20,
    commission=CommissionModel.IN_BANKER_PAY,
    banking_modes=frozenset(Banking),
    player_banker_covers=frozenset({BetType.BANKER, BetType.PLAYER, BetType.BANKER_NO_COMMISSION}),
    min_participants=2,
    idle_round_limit=None,
    banker_pays_choices=MappingProxyType(
        {Banking.PLAYER_BANKER: ("0.95",), Banking.HOUSE: ("0.95",)}
    ),
    dragon_choices=("seed", "common"),
)

PROFILES: Mapping[str, Profile] = MappingProxyType(
    {STAR_CITY.name: STAR_CITY, BID_SQUEEZE.name: BID_SQUEEZE}
)


# --- tiers ----------------------------------------------------------------------------------


class TierError(ValueError):
    """A tier (or table configuration) that does not parse or is inconsistent."""


@dataclass(frozen=True, slots=True)
class AreaLimit:
    """One bettor's total stake on one bet area in one round: ``min`` ≤ total ≤ ``max``."""

    min: int
    max: int


_TIER_KEYS = frozenset(
    {
        "id",
        "profile",
        "name",
        "name_zh",
        "unit",
        "chips",
        "min_bet",
        "table_max",
        "bettor_min_balance",
        "player_banker_min_balance",
        "limits",
        "seated_min_level",
        "notes",
        "currency",
        "minor_unit_exponent",
    }
)
_OPTIONAL_TIER_KEYS = frozenset(
    {"table_max", "seated_min_level", "notes", "currency", "minor_unit_exponent"}
)


def _int(data: Mapping[str, Any], key: str, where: str, minimum: int = 1) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise TierError(f"{where}: {key} must be an integer ≥ {minimum}, got {value!r}")
    return value


def _str(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise TierError(f"{where}: {key} must be a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Tier:
    """A stake level of a profile (game-rules.md, star-city "Tiers" table; bid-squeeze limits).

    ``unit`` is the chip unit in minor units; ``chips`` the chip values in units; ``min_bet`` the
    default minimum total per area; ``limits`` each offered bet type's per-bettor per-round
    :class:`AreaLimit`; ``table_max`` one bettor's total over all areas in a round (``None``: no
    such limit); ``bettor_min_balance`` / ``player_banker_min_balance`` the balances below which a
    bettor / the player-banker may not play; ``seated_min_level`` the level seated betting needs
    (bid-squeeze; ``None``: no such rule)."""

    id: str
    profile: str
    name: str
    name_zh: str
    unit: int
    chips: tuple[int, ...]
    min_bet: int
    table_max: int | None
    bettor_min_balance: int
    player_banker_min_balance: int
    limits: Mapping[BetType, AreaLimit]
    seated_min_level: int | None = None
    notes: str = ""
    currency: str = COIN
    minor_unit_exponent: int = COIN_EXPONENT

    @property
    def chip_values(self) -> tuple[int, ...]:
        """The chips in minor units."""
        return tuple(c * self.unit for c in self.chips)

    def limit(self, bet: BetType) -> AreaLimit:
        return self.limits[bet]

    def __hash__(self) -> int:  # ``limits`` is a read-only mapping, not hashable
        return hash((self.id, self.profile, self.unit))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tier:
        """Parse and validate one tier of ``infra/tiers.json``; raises :class:`TierError`."""
        if not isinstance(data, Mapping):
            raise TierError(f"a tier must be an object, got {type(data).__name__}")
        where = f"tier {data.get('id')!r}"
        unknown = set(data) - _TIER_KEYS
        missing = _TIER_KEYS - _OPTIONAL_TIER_KEYS - set(data)
        if unknown or missing:
            raise TierError(f"{where}: unknown keys {sorted(unknown)}, missing {sorted(missing)}")
        profile = _str(data, "profile", where)
        if profile not in PROFILES:
            raise TierError(f"{where}: unknown profile {profile!r}")
        chips = data["chips"]
        if not isinstance(chips, list) or not chips:
            raise TierError(f"{where}: chips must be a non-empty list of units")
        level = data.get("seated_min_level")
        currency, exponent = of_tier(data)
        if currency not in DEFAULT_EXPONENTS:
            raise TierError(f"{where}: unknown currency {currency!r}")
        if "minor_unit_exponent" in data:
            exponent = _int(data, "minor_unit_exponent", where, minimum=MIN_EXPONENT)
            if exponent > MAX_EXPONENT:
                raise TierError(f"{where}: minor_unit_exponent must be ≤ {MAX_EXPONENT}")
        tier = cls(
            id=_str(data, "id", where),
            profile=profile,
            name=_str(data, "name", where),
            name_zh=_str(data, "name_zh", where),
            unit=_int(data, "unit", where),
            chips=tuple(_int({"chip": c}, "chip", where) for c in chips),
            min_bet=_int(data, "min_bet", where),
            table_max=None if data.get("table_max") is None else _int(data, "table_max", where),
            bettor_min_balance=_int(data, "bettor_min_balance", where, minimum=0),
            player_banker_min_balance=_int(data, "player_banker_min_balance", where, minimum=0),
            limits=_parse_limits(data.get("limits"), _int(data, "min_bet", where), where),
            seated_min_level=None if level is None else _int(data, "seated_min_level", where, 0),
            notes=str(data.get("notes", "")),
            currency=currency,
            minor_unit_exponent=exponent,
        )
        tier.check()
        return tier

    def check(self) -> Tier:
        """Return self, or raise :class:`TierError` naming the first inconsistency."""
        where = f"tier {self.id!r}"
        offered = PROFILES[self.profile].offered
        if set(self.limits) != offered:
            raise TierError(f"{where}: limits must name exactly the bets {sorted(offered)}")
        if list(self.chips) != sorted(set(self.chips)) or self.chips[0] != 1:
            raise TierError(f"{where}: chips must be ascending, distinct and start at 1 unit")
        amounts = {"min_bet": self.min_bet}
        if self.table_max is not None:
            amounts["table_max"] = self.table_max
            if self.table_max < self.min_bet:
                raise TierError(f"{where}: table_max {self.table_max} is below min_bet")
        for bet, lim in self.limits.items():
            amounts[f"limits.{bet}.min"] = lim.min
            amounts[f"limits.{bet}.max"] = lim.max
            if lim.min > lim.max:
                raise TierError(f"{where}: {bet} min {lim.min} exceeds max {lim.max}")
        for key, amount in amounts.items():
            if amount % self.unit:
                raise TierError(f"{where}: {key} {amount} is not a multiple of unit {self.unit}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the inverse of :meth:`from_dict`; every ``min`` is written out)."""
        out: dict[str, Any] = {
            "id": self.id,
            "profile": self.profile,
            "name": self.name,
            "name_zh": self.name_zh,
            "unit": self.unit,
            "chips": list(self.chips),
            "min_bet": self.min_bet,
            "table_max": self.table_max,
            "bettor_min_balance": self.bettor_min_balance,
            "player_banker_min_balance": self.player_banker_min_balance,
            "limits": {b.value: {"min": lim.min, "max": lim.max} for b, lim in self.limits.items()},
            "seated_min_level": self.seated_min_level,
            "currency": self.currency,
            "minor_unit_exponent": self.minor_unit_exponent,
        }
        if self.notes:
            out["notes"] = self.notes
        return out


def _parse_limits(raw: Any, min_bet: int, where: str) -> Mapping[BetType, AreaLimit]:
    """``{"banker": {"max": 5000}, "tie": {"min": 100, "max": 1000}, …}``; ``min`` defaults to the
    tier's ``min_bet``."""
    if not isinstance(raw, Mapping):
        raise TierError(f"{where}: limits must be an object of bet type → {{min, max}}")
    limits: dict[BetType, AreaLimit] = {}
    for key, value in raw.items():
        try:
            bet = BetType(key)
        except ValueError:
            raise TierError(f"{where}: unknown bet type {key!r} in limits") from None
        if not isinstance(value, Mapping) or set(value) - {"min", "max"}:
            raise TierError(f"{where}: limits.{key} must be {{min?, max}}")
        low = _int(value, "min", f"{where} limits.{key}") if "min" in value else min_bet
        limits[bet] = AreaLimit(min=low, max=_int(value, "max", f"{where} limits.{key}"))
    return MappingProxyType(limits)


def load_tiers(path: str | Path) -> dict[str, Tier]:
    """Read a tiers file (``{"tiers": [ … ]}``) → tier id → :class:`Tier`, in file order."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, Mapping) or not isinstance(data.get("tiers"), list):
        raise TierError(f"{path}: expected an object with a 'tiers' list")
    tiers: dict[str, Tier] = {}
    for raw in data["tiers"]:
        tier = Tier.from_dict(raw)
        if tier.id in tiers:
            raise TierError(f"{path}: duplicate tier id {tier.id!r}")
        tiers[tier.id] = tier
    return tiers


def repo_tiers_path() -> Path:
    """``infra/tiers.json`` of this repository (the one data file of tiers)."""
    return Path(__file__).resolve().parents[2] / "infra" / "tiers.json"


def repo_tiers() -> dict[str, Tier]:
    """The repository's tiers (tests, CLI, and the API's seeding step)."""
    return load_tiers(repo_tiers_path())


# --- tables ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableConfig:
    """One table: profile + tier + pay-table version and choices + banking mode + rounding rule.

    ``pay_table`` is a published version of the profile's pay table (``paytables.PUBLISHED``;
    ``None``: the profile's current one). ``banker_pays`` is a key of
    ``paytables.BANKER_PAY_VARIANTS`` the profile allows ("1" or "0.95" for star-city),
    ``dragon_table`` a dragon table of that version ("seed" or "common" for bid-squeeze); ``None``
    takes the profile's default (its first choice). Defaults are resolved on construction."""

    profile: Profile
    tier: Tier
    banking: Banking = Banking.HOUSE
    banker_pays: str | None = None
    dragon_table: str | None = None
    rounding: Rounding = Rounding.FLOOR_HOUSE_FAVOUR
    pay_table_version: str | None = None
    _pay_table: PayTable = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        p = self.profile
        if self.tier.profile != p.name:
            raise TierError(f"tier {self.tier.id!r} belongs to {self.tier.profile}, not {p.name}")
        if self.banking not in p.banking_modes:
            raise TierError(f"{p.name} tables may not be banked by {self.banking}")
        choices = p.banker_pays_choices[self.banking]
        if self.banker_pays is not None and self.banker_pays not in choices:
            raise TierError(
                f"{p.name} {self.banking.value} tables: banker_pays must be one of {choices}"
            )
        if self.dragon_table is not None and self.dragon_table not in p.dragon_choices:
            raise TierError(f"{p.name}: dragon_table must be one of {p.dragon_choices}")
        version = self.pay_table_version or paytables.CURRENT[p.name]
        try:
            base = paytables.published_table(version, p.name)
        except ValueError as e:
            raise TierError(str(e)) from None
        # Resolve the defaults, so a table equals its own to_dict/from_dict round trip.
        object.__setattr__(self, "pay_table_version", version)
        object.__setattr__(self, "banker_pays", self.banker_pays_choice)
        object.__setattr__(self, "dragon_table", self.dragon_choice)
        object.__setattr__(self, "_pay_table", self._build_pay_table(base))

    @property
    def banker_pays_choice(self) -> str:
        return self.banker_pays or self.profile.banker_pays_choices[self.banking][0]

    @property
    def dragon_choice(self) -> str | None:
        choices = self.profile.dragon_choices
        return self.dragon_table or (choices[0] if choices else None)

    def _build_pay_table(self, base: PayTable) -> PayTable:
        table = base.with_banker(BANKER_PAY_VARIANTS[self.banker_pays_choice])
        dragon = self.dragon_choice
        return table if dragon is None else table.with_dragon(dragon)

    @property
    def currency(self) -> str:
        """The table's currency: its tier's (every amount in its minor units)."""
        return self.tier.currency

    @property
    def minor_unit_exponent(self) -> int:
        return self.tier.minor_unit_exponent

    @property
    def pay_table(self) -> PayTable:
        """The effective pay table: the table's published version, with its choices applied."""
        return self._pay_table

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; the tier and the pay table's version are embedded so a stored table keeps
        the limits and pays it opened with."""
        return {
            "profile": self.profile.name,
            "pay_table": self.pay_table_version,
            "tier": self.tier.to_dict(),
            "banking": self.banking.value,
            "banker_pays": self.banker_pays_choice,
            "dragon_table": self.dragon_choice,
            "rounding": self.rounding.value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableConfig:
        """Inverse of :meth:`to_dict`; raises :class:`TierError` on anything inconsistent. A
        configuration without ``pay_table`` was written before tables named their version: it
        was priced with the profile's first (``paytables.legacy_version``)."""
        try:
            profile = PROFILES[data["profile"]]
            version = data.get("pay_table", paytables.legacy_version(profile.name))
            if not isinstance(version, str):
                raise TierError(f"pay_table must be a version string, got {version!r}")
            return cls(
                profile=profile,
                tier=Tier.from_dict(data["tier"]),
                banking=Banking(data.get("banking", Banking.HOUSE)),
                banker_pays=data.get("banker_pays"),
                dragon_table=data.get("dragon_table"),
                rounding=Rounding(data.get("rounding", Rounding.FLOOR_HOUSE_FAVOUR)),
                pay_table_version=version,
            )
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, TierError):
                raise
            raise TierError(f"bad table configuration: {e!r}") from None
