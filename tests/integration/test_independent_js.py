"""The browser verifier's JavaScript (web/bacc-pf-v1.js) is a second implementation of
bacc-pf-v1, written from the spec page alone. It must agree with the engine on any shoe."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.shoe_strategies import safe_rules

from baccarat.cli import shoe_json
from baccarat.rules import ShoeRules

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def _node_shoe(secret: bytes, number: int, seed: str, rules: ShoeRules) -> dict[str, object]:
    args = [
        str(NODE),
        str(ROOT / "web" / "cli.js"),
        "shoe",
        f"--server-seed={secret.hex()}",
        f"--shoe-number={number}",
        f"--client-seed={seed}",
        f"--decks={rules.decks}",
        f"--burn={rules.burn}",
        f"--cut-min={rules.cut_min}",
        f"--cut-max={rules.cut_max}",
        f"--round-limit={rules.round_limit}",
    ]
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=30)
    result: dict[str, object] = json.loads(out.stdout)
    return result


seeds = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
    max_size=40,
)


@settings(max_examples=examples(0.25))
@given(
    secret=st.binary(min_size=32, max_size=32),
    number=st.integers(1, 2**32 - 1),
    seed=seeds,
    rules=safe_rules(),
)
def test_engine_and_independent_javascript_deal_the_same_shoe(
    secret: bytes, number: int, seed: str, rules: ShoeRules
) -> None:
    ours = shoe_json(secret, number, seed, rules)
    theirs = _node_shoe(secret, number, seed, rules)
    for key in ("client_hash", "cut_index", "burn", "burn_exposed", "cards"):
        assert theirs[key] == ours[key], key
    assert _rounds(theirs["rounds"]) == _rounds(ours["rounds"])


def _rounds(rounds: object) -> list[dict[str, object]]:
    keys = ("round_number", "start", "player", "banker", "player_total", "banker_total", "result")
    assert isinstance(rounds, list) and rounds
    return [{k: r[k] for k in keys} for r in rounds]


def test_javascript_known_answer_suite_passes() -> None:
    out = subprocess.run(
        [str(NODE), "--test", str(ROOT / "web" / "test")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
