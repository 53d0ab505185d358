"""The browser's settlement engine (web/money.js) is a second implementation of the pay tables
and the rounding, written from the spec pages. On any round — random bets of every type of both
profiles, random cards (naturals, pairs, ties, every dragon margin), every published pay-table
version, both bankings and roundings, every ``banker_pays`` and dragon table — it must give the
settlement the engine gives, to the minor unit."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from baccarat.cards import codes
from baccarat.outcome import deal_round
from baccarat.paytables import PUBLISHED
from baccarat.profiles import PROFILES, Banking
from baccarat.proofchecks import recompute_settlement

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
VECTORS = ROOT / "tests" / "vectors"
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

#: A tier of each profile, as proofs carry it (the vectors' table configurations).
TIERS = {
    "star-city": json.loads((VECTORS / "proof_v2_sample.json").read_text())["pages"][0][
        "table_config"
    ]["tier"],
    "bid-squeeze": json.loads((VECTORS / "receipts.json").read_text())["proof"][0]["table_config"][
        "tier"
    ],
}
SETTLEMENT = ("result", "lines", "bettors", "player_banker", "house", "nets")
REFS = [f"br_{c * 24}" for c in "abcde"]
PLAYER_BANKER = "br_" + "p" * 24


@st.composite
def table_configs(draw: st.DrawFn) -> dict[str, Any]:
    profile = PROFILES[draw(st.sampled_from(sorted(PROFILES)))]
    banking = draw(st.sampled_from(sorted(profile.banking_modes, key=str)))
    versions = sorted(v for v, t in PUBLISHED.items() if t.name == profile.name)
    config: dict[str, Any] = {
        "profile": profile.name,
        "tier": TIERS[profile.name],
        "banking": banking.value,
        "banker_pays": draw(st.sampled_from(profile.banker_pays_choices[banking])),
        "dragon_table": draw(st.sampled_from(profile.dragon_choices or (None,))),
        "rounding": draw(st.sampled_from(["floor_house_favour", "half_up"])),
    }
    version = draw(st.sampled_from([*versions, None]))
    if version is not None:  # a configuration naming none: its profile's first version
        config["pay_table"] = version
    return config


#: Amounts: small ones (the rounding's halves and fractions) and large ones (BigInt territory:
#: ×30 still within 2^53).
amounts = st.one_of(st.integers(1, 300), st.integers(1, 10**14))


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(table_configs())
    # v2 proofs name bettors by ref; old v1 proofs by id (participants as "id")
    id_field = draw(st.sampled_from(["bettor_ref", "bettor_id"]))
    types = sorted(PUBLISHED[config.get("pay_table", f"{config['profile']}@1")].offered)
    bets = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    id_field: st.sampled_from(REFS),
                    "role": st.just("seated"),
                    "type": st.sampled_from(types),
                    "amount": amounts,
                }
            ),
            max_size=8,
        )
    )
    # six cards of an 8-deck shoe: same-rank and same-card pairs, naturals and draws all occur
    cards = draw(st.lists(st.integers(0, 52 * 8 - 1), min_size=6, max_size=6))
    pb = {id_field: PLAYER_BANKER} if config["banking"] == Banking.PLAYER_BANKER.value else None
    return {
        "table_config": config,
        "cards": cards,
        "bets": bets,
        "player_banker": pb,
        "id_field": id_field,
    }


def _python(case: dict[str, Any]) -> dict[str, Any]:
    round_ = deal_round(case["cards"], 0)
    proof: dict[str, Any] = {"table_config": case["table_config"]}
    if case["id_field"] == "bettor_ref":
        proof["interventions"] = {}  # what makes a proof v2 (bettors by ref)
    doc = recompute_settlement(proof, case, round_)
    assert isinstance(doc, dict), doc
    return {k: doc[k] for k in SETTLEMENT}


def _javascript(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    stdin = []
    for case in batch:
        round_ = deal_round(case["cards"], 0)
        stdin.append({**case, "player": codes(round_.player), "banker": codes(round_.banker)})
    out = subprocess.run(
        [str(NODE), str(ROOT / "web" / "cli.js"), "settle"],
        input=json.dumps(stdin),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: list[dict[str, Any]] = json.loads(out.stdout)
    return result


@settings(max_examples=examples(0.1))
@given(batch=st.lists(cases(), min_size=30, max_size=30))
def test_javascript_settles_every_round_as_the_engine_does(batch: list[dict[str, Any]]) -> None:
    theirs = _javascript(batch)
    assert len(theirs) == len(batch)
    for case, js in zip(batch, theirs, strict=True):
        assert js == _python(case), case
