"""An explicit deal (``bets`` given, not from the book) enforces the seeds'
rules as the book deal does — seed 000 兩人成局 (a seated bettor, and at a player-banker table
the player-banker too: 409 ``company_required``) and "late joiners wait for the dealt round"
(no round while the table's latest round is neither settled nor voided: 409
``round_unsettled`` naming it). It was dealt with nobody present, and a round 2 was dealt while
round 1 was unsettled and still counting down its squeeze."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat_api.service import presence, tables, voiding
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round

from .conftest import Game, star_city_bets
from .test_service import OP, deal, new_table

pytestmark = pytest.mark.unit


def refused(call: Any) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call()
    return caught.value


def shoe_of(game: Game, table_id: str) -> str:
    return tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed").shoe_id


def test_an_explicit_deal_with_nobody_present_is_refused(game: Game) -> None:
    t = new_table(game)
    shoe_id = shoe_of(game, t)
    for bets in (star_city_bets(), []):
        err = refused(lambda bets=bets: deal(game, shoe_id, bets, seat=False))
        assert (err.code, err.details) == ("company_required", {"missing": ["seated_bettor"]})
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    assert deal(game, shoe_id, [], seat=False).round_number == 1  # a seated bettor: dealt


def test_an_explicit_deal_at_a_player_banker_table_needs_the_player_banker(game: Game) -> None:
    t = new_table(game, banking="player_banker")
    shoe_id = shoe_of(game, t)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(game.repo, OP, t, 2, "bob", 20_000, None)
    pb = {"bettor_id": "pat", "balance": 40_000}
    err = refused(lambda: deal(game, shoe_id, star_city_bets(), seat=False, player_banker=pb))
    assert (err.code, err.details) == ("company_required", {"missing": ["player_banker"]})
    presence.take_banker(game.repo, OP, t, "pat", 40_000)
    assert deal(game, shoe_id, star_city_bets(), seat=False, player_banker=pb).round_number == 1


def test_no_explicit_round_is_dealt_while_the_previous_is_unresolved(game: Game) -> None:
    t = new_table(game, squeeze_seconds=10)
    shoe_id = shoe_of(game, t)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(game.repo, OP, t, 2, "bob", 20_000, None)
    first = deal(game, shoe_id, star_city_bets(), seat=False)  # its squeeze counting down
    err = refused(lambda: deal(game, shoe_id, star_city_bets(), seat=False))
    assert (err.code, err.details) == ("round_unsettled", {"round_id": first.round_id})
    # a void resolves it (a settlement would wait for its cards): the next round is dealt
    voiding.void_round(game.repo, OP, first.round_id, reason="misdeal")
    second = deal(game, shoe_id, star_city_bets(), seat=False)
    assert second.round_number == 2
    assert refused(lambda: deal(game, shoe_id, [], seat=False)).code == "round_unsettled"


def test_a_round_nobody_bet_on_is_resolved_at_its_deal_and_the_next_follows(game: Game) -> None:
    t = new_table(game)
    shoe_id = shoe_of(game, t)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(game.repo, OP, t, 2, "bob", 20_000, None)
    assert deal(game, shoe_id, [], seat=False).round_number == 1
    dealt = deal(game, shoe_id, star_city_bets(), seat=False)
    assert refused(lambda: deal(game, shoe_id, [], seat=False)).code == "round_unsettled"
    settle_round(game.repo, OP, dealt.round_id)  # no squeeze at this table: settled at once
    assert deal(game, shoe_id, [], seat=False).round_number == 3
