"""A shoe that is never ended hides nothing, over the in-memory repository:
the public fairness summary shows the open shoe's rounds and voids (no card), its proof route
says it is open (not the unknown-shoe 404), and the sweep closes a shoe idle for its table's
``idle_shoe_close_seconds`` — conditionally, once, and only when no round of it awaits
settlement — publishing its proof like ``POST /v1/shoes/{id}/close``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.verify import verify
from baccarat_api.clock import seconds_after
from baccarat_api.ids import parse_shoe_id
from baccarat_api.ports.records import ENDED
from baccarat_api.service import auto_settle, proofs, reading, tables
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import CreateTableRequest, FairnessOut
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round
from baccarat_verify import es256

from .conftest import Game, star_city_bets
from .test_service import OP, deal, new_shoe, new_table, played

pytestmark = pytest.mark.unit


def sweep(game: Game, at: str) -> auto_settle.SweepReport:
    return auto_settle.sweep(
        game.repo, at=at, vault=game.vault, ref_keys=game.ref_keys, unseal=game.vault
    )


def shoe_of(game: Game, shoe_id: str) -> Any:
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    return game.repo.get_shoe(OP, ref)


def six_rounds_four_voided(game: Game, **table: Any) -> tuple[str, list[Any]]:
    """Six rounds dealt at a new table, rounds 1, 2, 4 and 5 voided, 3 and 6 settled, the shoe
    left open (the issue's scenario)."""
    shoe_id = new_shoe(game, **table)
    dealt = []
    for i in range(6):  # each resolved before the next deal (the seeds' "late joiners wait")
        r = deal(game, shoe_id, star_city_bets())
        if i in (0, 1, 3, 4):
            void_round(game.repo, OP, r.round_id, reason="misdeal")
        else:
            settle_round(game.repo, OP, r.round_id)
        dealt.append(r)
    return shoe_id, dealt


def test_the_idle_setting_has_a_default_a_maximum_and_is_shown() -> None:
    base = {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    assert CreateTableRequest.model_validate(base).idle_shoe_close_seconds == 3600
    assert CreateTableRequest.model_validate(base | {"idle_shoe_close_seconds": 86_400})
    for bad in (86_401, 59, 0, -1, "60", 60.0):
        with pytest.raises(ValueError):
            CreateTableRequest.model_validate(base | {"idle_shoe_close_seconds": bad})


def test_an_open_shoes_proof_says_it_is_open_with_its_voids_so_far(game: Game) -> None:
    shoe_id, dealt = six_rounds_four_voided(game)
    with pytest.raises(DomainError) as err:
        proofs.proof_page(game.repo, game.vault, game.ref_keys, shoe_id)
    e = err.value
    assert (e.code, e.retryable) == ("shoe_not_closed", True)
    close_by = seconds_after(dealt[-1].dealt_at, 3600)
    assert e.details == {
        "table_id": shoe_id.rsplit("_s", 1)[0],
        "shoe_number": 1,
        "rounds_dealt": 6,
        "voided_rounds": 4,
        "close_by": close_by,
    }
    assert e.retry_after is not None and 3000 < e.retry_after <= 3600
    # an unknown shoe (of a known table, or of none) is still the plain 404
    for unknown in (shoe_id[:-1] + "2", "tbl_aaaaaaaaaaaaaaaa_s1"):
        with pytest.raises(DomainError) as err:
            proofs.proof_page(game.repo, game.vault, game.ref_keys, unknown)
        assert err.value.code == "not_found"


def test_the_fairness_summary_shows_the_open_shoe_and_its_voids_without_a_card(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a round voided while its star-city squeeze still counts down: the void is listed, but
    # what it replaced (which gives the result away) is not shown until every card is
    squeeze_shoe = new_shoe(game, squeeze_seconds=10)
    counting = deal(game, squeeze_shoe, star_city_bets())
    void_round(game.repo, OP, counting.round_id, reason="misdeal")
    squeezed = proofs.fairness(game.repo, squeeze_shoe.rsplit("_s", 1)[0]).open_shoe
    assert squeezed is not None and squeezed.interventions.voided_rounds == 1
    assert [v.replaced for v in squeezed.voids] == [None]
    assert squeezed.interventions.voided_player_net == 0
    game.clock.set(seconds_after(counting.dealt_at, 600))
    shown = proofs.fairness(game.repo, squeeze_shoe.rsplit("_s", 1)[0]).open_shoe
    assert shown is not None and shown.voids[0].replaced is not None
    # the scenario (a table without a squeeze: every card shown at the deal), priced
    shoe_id, dealt = six_rounds_four_voided(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    summary = proofs.fairness(game.repo, table_id)
    never = proofs.fairness(game.repo, new_table(game))
    assert summary.model_dump()["open_shoe"] != never.model_dump()["open_shoe"]
    assert never.open_shoe is None
    doc = json.loads(FairnessOut.model_validate(summary).model_dump_json())
    open_shoe = doc["open_shoe"]
    voided = [dealt[i] for i in (0, 1, 3, 4)]
    # what the voids took from the bettors, from the deals' own money (house table: no PB)
    expected = sum(sum(r.money["nets"].values()) for r in map(_record(game), voided))
    assert open_shoe["interventions"] == {
        "voided_rounds": 4,
        "voided_player_net": expected,
        "voided_player_banker_net": 0,
        "rounds_dealt": 6,
    }
    assert [v["round_number"] for v in open_shoe["voids"]] == [1, 2, 4, 5]
    assert all(v["reason"] == "misdeal" and v["replaced"] is not None for v in open_shoe["voids"])
    nets = open_shoe["voids"][0]["replaced"]["nets"]
    assert all(ref.startswith("br_") for ref in nets), "bettors by ref, never by id"
    assert (open_shoe["shoe_id"], open_shoe["close_by"]) == (
        shoe_id,
        seconds_after(dealt[-1].dealt_at, 3600),
    )
    text = json.dumps(doc)
    for r in dealt:  # no card of the open shoe, and no seed
        for card in [*r.player.cards, *r.banker.cards]:
            assert f'"{card}"' not in text
    assert "server_seed" not in text and "alice" not in text
    assert doc["totals"]["shoes"] == 0 and doc["shoes"] == []


def _record(game: Game) -> Any:
    from baccarat_api.ids import parse_round_id

    def get(r: Any) -> Any:
        ref = parse_round_id(r.round_id)
        assert ref is not None
        return game.repo.load(OP, round_=ref).round

    return get


def test_the_sweep_closes_an_idle_shoe_once_and_publishes_its_proof(game: Game) -> None:
    shoe_id, dealt = six_rounds_four_voided(game)
    close_by = shoe_of(game, shoe_id).close_by
    assert close_by == seconds_after(dealt[-1].dealt_at, 3600)
    early = sweep(game, seconds_after(close_by, -1))
    assert early.closed == [] and shoe_of(game, shoe_id).status != ENDED

    report = sweep(game, close_by)
    assert report.closed == [shoe_id] and report.failed == {}
    shoe = shoe_of(game, shoe_id)
    assert (shoe.status, shoe.end_reason, shoe.close_by) == (ENDED, "closed", None)
    # published like any closed shoe: the proof verifies and prices the four voids
    page = json.loads(proofs.proof_page(game.repo, game.vault, game.ref_keys, shoe_id).body)
    assert verify([page], keys={"keys": [game.vault.public_jwk()]}, signature_check=es256.check).ok
    assert page["interventions"]["voided_rounds"] == 4
    assert page["interventions"]["closed_early"] is True
    summary = proofs.fairness(game.repo, shoe_id.rsplit("_s", 1)[0])
    assert summary.open_shoe is None and summary.totals.voided_rounds == 4
    # the table can commit its next shoe; a second sweep closes nothing more
    events_before = len(game.repo.items)
    again = sweep(game, seconds_after(close_by, 60))
    assert again.closed == [] and again.failed == {}
    assert len(game.repo.items) == events_before


def test_a_shoe_dealt_from_meanwhile_is_not_closed(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    shoe_id = new_shoe(game)
    played(game, shoe_id, star_city_bets())
    first_close_by = shoe_of(game, shoe_id).close_by
    # the index is eventually consistent: it still lists the shoe at its old time, while a
    # deal (an hour later) has moved it
    stale = [(OP, parse_shoe_id(shoe_id))]
    monkeypatch.setattr(game.repo, "idle_shoes", lambda now, limit: stale)
    later = seconds_after(first_close_by, -60)
    game.clock.set(later)
    r2 = deal(game, shoe_id, star_city_bets())
    settle_round(game.repo, OP, r2.round_id)
    report = sweep(game, seconds_after(first_close_by, 1))
    assert report.closed == [] and report.failed == {}
    assert shoe_of(game, shoe_id).status != ENDED


def test_a_round_awaiting_settlement_keeps_the_shoe_open_until_it_is_settled(
    game: Game,
) -> None:
    """idle 60 s, settle deadline 600 s: at close_by the round still awaits settlement, so the
    shoe stays open (its proof would be pending); at the deadline the sweep auto-settles it and
    closes the shoe in the same run — the proof is final at once."""
    shoe_id = new_shoe(game, idle_shoe_close_seconds=60, settle_deadline_seconds=600)
    r = deal(game, shoe_id, star_city_bets())
    close_by = shoe_of(game, shoe_id).close_by
    assert sweep(game, seconds_after(close_by, 1)).closed == []
    assert shoe_of(game, shoe_id).status != ENDED
    report = sweep(game, r.settle_by)
    assert report.settled == [r.round_id] and report.closed == [shoe_id]
    assert json.loads(proofs.proof_page(game.repo, game.vault, game.ref_keys, shoe_id).body)


def test_a_table_shows_its_idle_setting_and_a_shoe_its_close_by(game: Game) -> None:
    table_id = new_table(game, idle_shoe_close_seconds=120)
    table = reading.get_table(game.repo, OP, table_id)
    assert table.idle_shoe_close_seconds == 120
    shoe = tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed")
    state = reading.get_shoe(game.repo, OP, shoe.shoe_id)
    assert state.close_by == seconds_after(shoe_of(game, shoe.shoe_id).created_at, 120)


def test_the_summary_reads_the_open_shoe_only_while_the_latest_shoe_is_not_final(
    game: Game,
) -> None:
    shoe_id, _ = six_rounds_four_voided(game)
    table_id = shoe_id.rsplit("_s", 1)[0]
    game.repo.calls.clear()
    assert proofs.fairness(game.repo, table_id).open_shoe is not None
    assert game.repo.calls == {"query": 2}  # the public partition, the open shoe
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    proofs.proof_page(game.repo, game.vault, game.ref_keys, shoe_id)  # final now
    game.repo.calls.clear()
    assert proofs.fairness(game.repo, table_id).open_shoe is None
    assert game.repo.calls == {"query": 1}
