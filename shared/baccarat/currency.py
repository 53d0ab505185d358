"""The currencies a tier (and so a table) may be denominated in, written once.

Every amount the API takes or answers is an integer in the **minor units** of its table's
currency: ``amount / 10 ** minor_unit_exponent`` of the currency (USD 2: 150 = 1.50 USD; JPY 0:
150 = 150 JPY; KWD 3: 1500 = 1.500 KWD). A currency is an ISO 4217 alphabetic code of
:data:`ISO_EXPONENTS`, or :data:`COIN`, the play-money code of social tables (coins with no
value outside the game; the seeds' tiers are in coins).

:data:`ISO_EXPONENTS` is a short table of the codes we accept, with ISO 4217's own number of
minor-unit digits (tests check it against the maintained ``iso4217`` data package); a tier may
state another exponent (0–4), e.g. a USD tier counting in mills (3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Play money: "coins" of a social or demo table. Not an ISO 4217 currency (ISO leaves X-codes
#: outside its list unassigned; XCN is none of them today), never convertible.
COIN = "XCN"
COIN_EXPONENT = 0
#: The exponents a tier may state (ISO 4217 uses 0–4).
MIN_EXPONENT, MAX_EXPONENT = 0, 4

#: ISO 4217 code → its minor-unit digits (ISO 4217 list one, the codes we accept).
ISO_EXPONENTS: Mapping[str, int] = {
    # 0 digits
    "CLP": 0, "ISK": 0, "JPY": 0, "KRW": 0, "PYG": 0, "UGX": 0, "VND": 0, "XAF": 0, "XOF": 0,
    # 2 digits
    "AED": 2, "ARS": 2, "AUD": 2, "BRL": 2, "CAD": 2, "CHF": 2, "CNY": 2, "COP": 2,
    "CZK": 2, "DKK": 2, "EGP": 2, "EUR": 2, "GBP": 2, "HKD": 2, "HUF": 2, "IDR": 2, "ILS": 2,
    "INR": 2, "KES": 2, "KHR": 2, "KZT": 2, "MOP": 2, "MXN": 2, "MYR": 2, "NGN": 2, "NOK": 2,
    "NZD": 2, "PEN": 2, "PHP": 2, "PLN": 2, "QAR": 2, "RON": 2, "SAR": 2, "SEK": 2, "SGD": 2,
    "THB": 2, "TRY": 2, "TWD": 2, "UAH": 2, "USD": 2, "ZAR": 2,
    # 3 digits
    "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
    # 4 digits
    "CLF": 4, "UYW": 4,
}  # fmt: skip

#: Every accepted code → its default exponent.
DEFAULT_EXPONENTS: Mapping[str, int] = {**ISO_EXPONENTS, COIN: COIN_EXPONENT}


def default_exponent(code: str) -> int:
    """The default minor-unit exponent of an accepted code; ``KeyError`` for any other."""
    return DEFAULT_EXPONENTS[code]


def of_tier(tier: Mapping[str, Any]) -> tuple[str, int]:
    """``(currency, minor_unit_exponent)`` of a tier's JSON form, as stored. A tier (or a table
    stored) before currencies existed has neither: it is in coins (:data:`COIN`, exponent 0)."""
    code = str(tier.get("currency", COIN))
    exponent = tier.get("minor_unit_exponent")
    return code, DEFAULT_EXPONENTS.get(code, 0) if exponent is None else int(exponent)


def of_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """``{currency, minor_unit_exponent}`` of a stored table configuration (its tier's)."""
    code, exponent = of_tier(config["tier"])
    return {"currency": code, "minor_unit_exponent": exponent}
