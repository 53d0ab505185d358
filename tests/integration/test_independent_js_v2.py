"""The JavaScript implementation of the v2 draw (web/bacc-pf-v2.js), written from
docs/bacc-pf-v2.md, must deal the same cards as the engine (baccarat.fairness_v2) on any shoe key,
rules, book roots and beacons — including rounds voided ``beacon_unavailable``. One node process
checks a whole batch of hypothesis-generated shoes."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.shoe_strategies import beacons, key32, round_inputs, safe_rules

from baccarat.cards import codes
from baccarat.fairness_v2 import RoundInput, shoe_from_key_v2
from baccarat.rules import ShoeRules

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

#: Reads [{key, rules, rounds}] on stdin, prints each shoe as bacc-pf-v2.js derives it.
RUNNER = """
const V2 = require(process.argv[1]);
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', async () => {
  const out = [];
  for (const c of JSON.parse(text)) out.push(await V2.shoeFromKey(c.key, c.rules, c.rounds, true));
  process.stdout.write(JSON.stringify(out));
});
"""


shoes = st.tuples(
    key32,
    safe_rules(),
    st.lists(round_inputs(st.none() | beacons(2**53 - 1, 96)), min_size=1, max_size=5),
)


def _wire(item: RoundInput) -> dict[str, Any]:
    b = item.beacon
    beacon = None if b is None else {
        "chain_hash": b.chain_hash.hex(), "round": b.round, "signature": b.signature.hex()
    }  # fmt: skip
    return {"book_root": item.book_root.hex(), "beacon": beacon}


@settings(max_examples=examples(0.1))
@given(batch=st.lists(shoes, min_size=4, max_size=6))
def test_engine_and_independent_javascript_draw_the_same_v2_shoes(
    batch: list[tuple[bytes, ShoeRules, list[RoundInput]]],
) -> None:
    cases, ours = [], []
    for key, rules, inputs in batch:
        if all(i.beacon is None for i in inputs):
            continue
        # Enough rounds to reach the end of any shoe: the inputs cycled.
        many = list(itertools.islice(itertools.cycle(inputs), 400))
        shoe = shoe_from_key_v2(key, rules, many, until_end=True)
        cases.append({"key": key.hex(), "rules": rules.as_dict(), "rounds": list(map(_wire, many))})
        ours.append(shoe)
    if not cases:
        return
    out = subprocess.run(
        [str(NODE), "-e", RUNNER, str(ROOT / "web" / "bacc-pf-v2.js")],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    for shoe, theirs in zip(ours, json.loads(out.stdout), strict=True):
        assert theirs["card_ids"] == list(shoe.cards)
        assert theirs["cut_index"] == shoe.cut_index
        assert theirs["ended_by_rules"] is shoe.ended_by_rules is True
        drawn = [
            {"round_number": r["round_number"], "key": r["key"], "start": r["start"],
             "player": r["player"], "banker": r["banker"]}
            for r in theirs["rounds"] if r.get("beacon", 1) is not None
        ]  # fmt: skip
        assert drawn == [
            {"round_number": d.round.number, "key": d.key.hex(), "start": d.round.start,
             "player": codes(d.round.player), "banker": codes(d.round.banker)}
            for d in shoe.draws if d is not None
        ]  # fmt: skip
