"""Pay tables by version: a table's configuration and every proof name the published version
they were priced with; a payout change is a new version, so it never re-prices an open table nor
changes how an old proof recomputes. Every published version is pinned by
``tests/vectors/pay_tables.json`` (the values docs/bacc-pf-v1.md lists)."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

import make_proof_vectors
import pytest
from support.signed_proofs import TEST_KEYS, signed_pages

from baccarat import paytables
from baccarat.audit import canonical
from baccarat.bets import Bet, BetType, Role
from baccarat.fairness import derive_shoe
from baccarat.profiles import BID_SQUEEZE, PROFILES, STAR_CITY, TableConfig, TierError, repo_tiers
from baccarat.settlement import settle
from baccarat.verify import verify
from baccarat_api.service.settling import settle_round
from baccarat_verify import es256

from .conftest import Game
from .test_service import OP, deal, new_shoe

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
PINNED = json.loads((VECTORS / "pay_tables.json").read_text(encoding="utf-8"))
SAMPLE = json.loads((VECTORS / "proof_v2_sample.json").read_text(encoding="utf-8"))
TIERS = repo_tiers()
F = Fraction


def _new_current_version(monkeypatch: pytest.MonkeyPatch, profile: str) -> paytables.PayTable:
    """A payout change as the core takes it: a new version of ``profile``'s table, paying more
    on every bet, made current."""
    old = paytables.current(profile)
    number = int(old.version.rsplit("@", 1)[1]) + 1
    new = replace(
        old,
        version=f"{profile}@{number}",
        banker=old.banker + 1,
        player=old.player + 1,
        tie=old.tie + 1,
        pair=old.pair + 1,
        big=old.big + 1,
        lucky6_two_cards=old.lucky6_two_cards + 1,
    )
    monkeypatch.setattr(
        paytables, "PUBLISHED", MappingProxyType({**paytables.PUBLISHED, new.version: new})
    )
    monkeypatch.setattr(
        paytables, "CURRENT", MappingProxyType({**paytables.CURRENT, profile: new.version})
    )
    return new


def _every_bet(config: TableConfig) -> list[Bet]:
    offered = sorted(config.pay_table.offered)
    if not config.profile.banker_and_player_together:
        offered = [b for b in offered if b is not BetType.BANKER]
    return [Bet(f"b{i}", Role.SEATED, bet, 1000, order=i) for i, bet in enumerate(offered)]


def _settlements(stored: dict[str, Any]) -> list[dict[str, Any]]:
    """Every round of one shoe settled at the table ``stored`` describes."""
    config = TableConfig.from_dict(stored)
    shoe = derive_shoe(b"\x07" * 32, "pay-table-versions", 1, config.profile.shoe_rules)
    return [settle(config, r, _every_bet(config)).as_dict() for r in shoe.rounds[:40]]


def _without_version(stored: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in stored.items() if k != "pay_table"}


@pytest.mark.parametrize(
    "config",
    [
        TableConfig(STAR_CITY, TIERS["star-city-fun"]),
        TableConfig(BID_SQUEEZE, TIERS["bid-squeeze-standard"], dragon_table="common"),
    ],
    ids=lambda c: c.profile.name,
)
def test_a_payout_change_does_not_reprice_an_open_table(
    config: TableConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = config.to_dict()
    assert stored["pay_table"] == paytables.CURRENT[config.profile.name]
    before = _settlements(stored)
    legacy_before = _settlements(_without_version(stored))

    new = _new_current_version(monkeypatch, config.profile.name)

    # the change took: a table opened now pays the new values, and settles differently …
    opened_now = TableConfig(config.profile, config.tier, dragon_table=config.dragon_table)
    assert opened_now.to_dict()["pay_table"] == new.version
    assert opened_now.pay_table.tie == new.tie
    assert _settlements(opened_now.to_dict()) != before
    # … while the table opened before it, and one stored before tables named a version, do not
    assert _settlements(stored) == before
    assert _settlements(_without_version(stored)) == legacy_before


def test_a_payout_change_does_not_change_how_a_published_proof_verifies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pages = SAMPLE["pages"]
    assert "pay_table" not in pages[0]["table_config"]  # published before versions: star-city@1
    versioned = signed_pages(make_proof_vectors.sample_private_proof() | {
        "table_config": TableConfig(STAR_CITY, TIERS["star-city-fun"]).to_dict()
    })  # fmt: skip
    assert versioned[0]["table_config"]["pay_table"] == "star-city@1"
    for proof in (pages, versioned):
        assert verify(proof, keys=TEST_KEYS, signature_check=es256.check).ok

    _new_current_version(monkeypatch, "star-city")

    for proof in (pages, versioned):
        verdict = verify(copy.deepcopy(proof), keys=TEST_KEYS, signature_check=es256.check)
        assert verdict.ok, verdict.line()


def test_a_proof_naming_an_unknown_or_foreign_version_fails() -> None:
    private = make_proof_vectors.sample_private_proof()
    config = TableConfig(STAR_CITY, TIERS["star-city-fun"]).to_dict()
    for version in ("star-city@99", "bid-squeeze@1", 1):
        with pytest.raises(TierError):
            TableConfig.from_dict({**config, "pay_table": version})
    # a signer cannot name a version no verifier knows (or another profile's) and be believed
    with pytest.raises(TierError):
        signed_pages({**private, "table_config": {**config, "pay_table": "star-city@99"}})


def test_every_published_version_is_pinned_and_never_changes() -> None:
    """A published version's values are the pinned ones: editing a payout in place fails here
    (make ``<profile>@<n+1>`` and make it current instead)."""
    assert set(PINNED["versions"]) == set(paytables.PUBLISHED)
    for version, table in paytables.PUBLISHED.items():
        doc = paytables.describe_version(table)
        pinned = PINNED["versions"][version]
        assert doc == pinned["table"], f"published pay table {version} changed"
        assert hashlib.sha256(canonical(doc)).hexdigest() == pinned["sha256"]
        assert table.name == version.rsplit("@", 1)[0]


def test_legacy_is_each_profiles_first_version_and_current_is_published() -> None:
    assert PINNED["legacy"] == {p: paytables.legacy_version(p) for p in PROFILES}
    for name, profile in PROFILES.items():
        assert paytables.legacy_version(name) in paytables.PUBLISHED
        assert profile.pay_table is paytables.PUBLISHED[paytables.CURRENT[name]]


def test_an_in_place_edit_is_visible_to_the_pin() -> None:
    edited = replace(paytables.BID_SQUEEZE_1, tie=F(9))
    assert paytables.describe_version(edited) != PINNED["versions"]["bid-squeeze@1"]["table"]


def test_an_open_table_of_the_service_keeps_its_pays(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the use cases: a table opened before a new version became current settles with
    its own (Player 1:1); a table opened after it with the new one (Player 2:1)."""
    bets = [
        {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker", "amount": 1000,
         "balance": 50_000},
        {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player", "amount": 1000,
         "balance": 50_000},
    ]  # fmt: skip
    before = new_shoe(game)
    _new_current_version(monkeypatch, "star-city")
    after = new_shoe(game)

    def player_win(shoe_id: str) -> int:
        for _ in range(30):
            dealt = deal(game, shoe_id, bets)
            out = settle_round(game.repo, OP, dealt.round_id)
            if dealt.result == "player":
                return int(out.nets["bob"])
        raise AssertionError("no Player win in 30 rounds")  # pragma: no cover

    assert player_win(before) == 990  # +1,000 less the 1% round commission
    assert player_win(after) == 1980  # +2,000 less the 1% round commission
