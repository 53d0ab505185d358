"""The fuzz run's strictness filter (tests/live/schemathesis_hooks.py) on the API's own answer to
a body whose only fault is whole floats where integers are due: dropped — and kept as soon as
one error is about something else."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import schemathesis_hooks as hooks

pytestmark = pytest.mark.live

#: The body schemathesis' stateful phase sent, and the errors the API answered (400).
BODY: dict[str, Any] = {
    "round_number": 2981,
    "from_book": False,
    "player_banker": {"balance": -10435513260759, "bettor_id": "2.i"},
    "bets": [
        {"balance": None, "amount": 539.0, "type": "perfect_pair", "role": "spectator",
         "personal_limits": {"banker_no_commission": -559, "tie": -7076.0}, "bettor_id": "X",
         "seat": 15.0, "level": None},
        {"type": "player", "amount": -5902.0, "role": "seated", "bettor_id": "P91x0-Ws"},
    ],
}  # fmt: skip
TIE = ["body", "bets", "0", "personal_limits", "tie"]
ERRORS = [
    {"loc": ["body", "bets", "0", "seat"], "type": "int_type"},
    {"loc": ["body", "bets", "0", "amount"], "type": "int_type"},
    {"loc": [*TIE, "constrained-int"], "type": "int_type"},
    {"loc": [*TIE, "function-after[_a_bound(), PersonalLimitIn]"],
     "type": "model_attributes_type"},
    {"loc": ["body", "bets", "1", "amount"], "type": "int_type"},
]  # fmt: skip


def test_whole_floats_alone_are_the_documented_strictness() -> None:
    assert hooks._only_whole_floats(BODY, ERRORS)


def test_any_other_error_keeps_the_failure() -> None:
    other = {"loc": ["body", "bets", "1", "type"], "type": "enum"}
    assert not hooks._only_whole_floats(BODY, [*ERRORS, other])
    body = {**BODY, "bets": [{**BODY["bets"][0], "seat": 15.5}, BODY["bets"][1]]}
    assert not hooks._only_whole_floats(body, ERRORS)
