"""Public ids. A table id is random; a shoe id is its table id and shoe number; a round id is its
shoe id and round number. So every id names its item's DynamoDB key without a lookup, and a shoe
number or round number can exist only once (the item put is conditional).

    tbl_4k2j7x9mq3c5d8hv          a table (80 random bits, base32)
    tbl_4k2j7x9mq3c5d8hv_s1       shoe 1 of that table
    tbl_4k2j7x9mq3c5d8hv_s1_r12   round 12 of that shoe
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass

_TABLE = r"tbl_[a-z2-7]{16}"
_NUMBER = r"[1-9][0-9]{0,5}"
#: A shoe (or round) number as it appears in ids: 1 to 999999, no leading zero.
SHOE_NUMBER = _NUMBER
_TABLE_RE = re.compile(rf"^({_TABLE})$")
_SHOE_RE = re.compile(rf"^({_TABLE})_s({_NUMBER})$")
_ROUND_RE = re.compile(rf"^({_TABLE})_s({_NUMBER})_r({_NUMBER})$")
#: Path parameter → the shape of its ids (documented in the OpenAPI document; an id of another
#: shape names nothing: 404 like any missing id).
ID_PATTERNS = {
    "table_id": _TABLE_RE.pattern,
    "shoe_id": _SHOE_RE.pattern,
    "round_id": _ROUND_RE.pattern,
}


def new_table_id() -> str:
    return "tbl_" + base64.b32encode(os.urandom(10)).decode("ascii").lower()


@dataclass(frozen=True, slots=True)
class ShoeRef:
    table_id: str
    shoe_number: int

    @property
    def shoe_id(self) -> str:
        return f"{self.table_id}_s{self.shoe_number}"


@dataclass(frozen=True, slots=True)
class RoundRef:
    table_id: str
    shoe_number: int
    round_number: int

    @property
    def shoe(self) -> ShoeRef:
        return ShoeRef(self.table_id, self.shoe_number)

    @property
    def round_id(self) -> str:
        return f"{self.shoe.shoe_id}_r{self.round_number}"


def parse_table_id(text: str) -> str | None:
    return text if _TABLE_RE.fullmatch(text) else None


def parse_shoe_id(text: str) -> ShoeRef | None:
    m = _SHOE_RE.fullmatch(text)
    return ShoeRef(m[1], int(m[2])) if m else None


def parse_round_id(text: str) -> RoundRef | None:
    m = _ROUND_RE.fullmatch(text)
    return RoundRef(m[1], int(m[2]), int(m[3])) if m else None
