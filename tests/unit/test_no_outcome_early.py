"""No outcome is visible anywhere before the table shows it.

A round dealt with its cards face down (a squeeze counting down) is settled only once every card
is shown — by its squeezers, or by the system at ``reveal_by``: an explicit settlement before is
``409 cards_not_shown`` (retryable, naming the step and its ``reveal_by``) and changes nothing;
the sweep never settles inside a squeeze. Until every card is shown no surface shows an
outcome-dependent datum of the round: the feed (hence the operator feed and webhooks), the
state's balances, ``GET /v1/shoes/{id}`` (history, roads, cards remaining, server seed),
reconciliation (``GET /v1/rounds``), a void's event. A table with ``squeeze_seconds: 0`` shows
every card at the deal: settling at once stays possible there."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat_api.clock import seconds_after
from baccarat_api.service import (
    betting,
    events,
    presence,
    reading,
    reconciliation,
    tables,
    voiding,
)
from baccarat_api.service.auto_settle import sweep
from baccarat_api.service.errors import DomainError
from baccarat_api.service.settling import settle_round
from baccarat_api.service.table_state import table_state

from .conftest import Game
from .test_betting import from_book, slip, table_with_shoe
from .test_service import OP

pytestmark = pytest.mark.unit


def feed(game: Game, table_id: str) -> list[tuple[str, dict[str, Any]]]:
    page, _ = events.table_events(game.repo, OP, table_id, 0, 200)
    return [(e.type, e.data) for e in page.events]


def dealt_round(game: Game, **table: Any) -> tuple[str, str, Any]:
    """A star-city house table, alice seated with 50,000, her Banker 1,000 dealt from the book:
    (table, shoe, the deal's answer). A 10-second squeeze unless ``table`` says otherwise."""
    t, shoe_id = table_with_shoe(game, **{"squeeze_seconds": 10, **table})
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    betting.open_betting(game.repo, OP, t)
    betting.place_slip(game.repo, OP, t, "alice", slip(("banker", 1000)))
    return t, shoe_id, from_book(game, shoe_id)


def refusal(call: Any) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call()
    return caught.value


def balance(game: Game, t: str) -> int:
    state, _ = table_state(game.repo, OP, t)
    return int(state.seats[1]["balance"])


def test_a_settlement_while_a_card_is_face_down_is_refused_and_moves_nothing(game: Game) -> None:
    t, _, dealt = dealt_round(game)
    rid = dealt.round_id
    game.clock.set(seconds_after(dealt.dealt_at, 3))
    before = feed(game, t)
    refused = refusal(lambda: settle_round(game.repo, OP, rid))
    assert (refused.code, refused.retryable) == ("cards_not_shown", True)
    assert refused.details == {
        "round_id": rid,
        "step": "initial",
        "status": "squeezing",
        "reveal_by": seconds_after(dealt.dealt_at, 10),
    }
    assert refused.retry_after == 7
    assert feed(game, t) == before  # nothing reported
    assert balance(game, t) == 50_000  # nothing moved
    assert reading.get_round(game.repo, OP, rid).settlement is None

    # past the initial reveal_by the system has opened the initial cards; third cards (if any)
    # count down from then
    has_draws = dealt.cards_dealt > 4
    game.clock.set(seconds_after(dealt.dealt_at, 12))
    if has_draws:
        refused = refusal(lambda: settle_round(game.repo, OP, rid))
        assert (refused.code, refused.details["step"]) == ("cards_not_shown", "draws")
        assert refused.details["reveal_by"] == seconds_after(dealt.dealt_at, 20)
        game.clock.set(seconds_after(dealt.dealt_at, 21))
    out = settle_round(game.repo, OP, rid)
    assert not out.auto_settled
    reported = [k for k, _ in feed(game, t)[len(before) :]]
    # the due system reveals are reported first, then the settlement
    assert reported[: 2 if has_draws else 1] == ["squeeze_revealed"] * (2 if has_draws else 1)
    assert "round_settled" in reported
    assert balance(game, t) == 50_000 + int(out.nets["alice"])


def test_the_squeezers_reveal_lets_the_settlement_through_at_once(game: Game) -> None:
    _, _, dealt = dealt_round(game)
    rid = dealt.round_id
    game.clock.set(seconds_after(dealt.dealt_at, 1))
    from baccarat_api.service import squeezing

    squeezing.reveal_round(game.repo, OP, rid, "alice", "initial")
    if dealt.cards_dealt > 4:
        assert refusal(lambda: settle_round(game.repo, OP, rid)).code == "cards_not_shown"
        squeezing.reveal_round(game.repo, OP, rid, "alice", "draws")
    assert settle_round(game.repo, OP, rid).round_id == rid


def test_the_sweep_never_settles_inside_a_squeeze(game: Game) -> None:
    t, _, dealt = dealt_round(game, settle_deadline_seconds=5, squeeze_seconds=60)
    rid = dealt.round_id
    inside = seconds_after(dealt.dealt_at, 30)  # past settle_by, inside the squeeze
    game.clock.set(inside)
    report = sweep(game.repo, at=inside)
    assert (report.settled, report.squeezing, report.failed) == ([], [rid], {})
    assert "round_auto_settled" not in [k for k, _ in feed(game, t)]
    assert balance(game, t) == 50_000
    after = seconds_after(dealt.dealt_at, 121)  # past both steps' reveal_by
    game.clock.set(after)
    report = sweep(game.repo, at=after)
    assert report.settled == [rid]
    kinds = [k for k, _ in feed(game, t)]
    assert kinds.index("squeeze_revealed") < kinds.index("round_auto_settled")


def test_a_table_without_a_squeeze_shows_every_card_at_the_deal_and_settles_at_once(
    game: Game,
) -> None:
    t, _, dealt = dealt_round(game, squeeze_seconds=0)
    plan = dealt.squeeze
    assert plan["squeeze_seconds"] == 0 and plan["steps"] == {}
    assert {c["face"] for c in plan["initial"] + plan["draws"]} == {"up"}
    state, _ = table_state(game.repo, OP, t)
    assert state.round is not None and state.phase == "dealt"
    assert state.round.result == dealt.result
    assert len(state.round.cards) == dealt.cards_dealt
    assert all(c.code is not None for c in state.round.cards)
    assert state.shoe is not None and len(state.shoe.history) == 1
    assert settle_round(game.repo, OP, dealt.round_id).round_id == dealt.round_id


def test_the_shoe_leaves_a_squeezed_round_out_until_its_cards_are_shown(game: Game) -> None:
    """``GET /v1/shoes/{id}`` listed the squeezed round in its history and roads and counted
    its third cards as dealt."""
    _, shoe_id, dealt = dealt_round(game)
    game.clock.set(seconds_after(dealt.dealt_at, 2))
    during = reading.get_shoe(game.repo, OP, shoe_id)
    assert during.rounds_dealt == 1
    assert during.history == []
    assert during.roads == reading.get_shoe(game.repo, OP, shoe_id).roads
    game.clock.set(seconds_after(dealt.dealt_at, 25))
    shown = reading.get_shoe(game.repo, OP, shoe_id)
    assert len(shown.history) == 1 and shown.history[0]["result"] == dealt.result  # type: ignore[index]
    third = dealt.cards_dealt - 4
    assert during.cards_remaining == shown.cards_remaining + third
    assert during.roads != shown.roads


def test_reconciliation_names_no_result_while_a_card_is_face_down(game: Game) -> None:
    t, _, dealt = dealt_round(game)
    game.clock.set(seconds_after(dealt.dealt_at, 2))
    listed = reconciliation.list_rounds(game.repo, OP, table_id=t).rounds
    assert [(r.round_id, r.status, r.result) for r in listed] == [(dealt.round_id, "dealt", None)]
    game.clock.set(seconds_after(dealt.dealt_at, 25))
    listed = reconciliation.list_rounds(game.repo, OP, table_id=t).rounds
    assert [r.result for r in listed] == [dealt.result]


def test_a_void_during_a_squeeze_is_possible_and_tells_no_outcome(game: Game) -> None:
    t, _, dealt = dealt_round(game)
    game.clock.set(seconds_after(dealt.dealt_at, 2))
    voiding.void_round(game.repo, OP, dealt.round_id, reason="technical_fault")
    kind, data = feed(game, t)[-1]
    assert kind == "round_voided"
    assert (data["nets"], data["house_take"]) == (None, None)
    assert balance(game, t) == 50_000


def test_a_void_once_the_cards_are_shown_tells_what_it_replaced(game: Game) -> None:
    t, _, dealt = dealt_round(game)
    game.clock.set(seconds_after(dealt.dealt_at, 25))
    voiding.void_round(game.repo, OP, dealt.round_id, reason="technical_fault")
    data = next(d for k, d in feed(game, t) if k == "round_voided")
    assert set(data["nets"]) == {"alice"} and isinstance(data["house_take"], int)


def test_closing_the_shoe_waits_until_its_last_rounds_cards_are_shown(game: Game) -> None:
    """Ending a shoe reveals its seed — every card of it, the squeezed round's face-down ones
    too — in the close's answer and the public proof: refused (409 cards_not_shown, retryable,
    naming reveal_by) while a card of its last round is face down; closed once shown."""
    _, shoe_id, dealt = dealt_round(game)
    before = reading.get_shoe(game.repo, OP, shoe_id)
    err = refusal(lambda: tables.close_shoe(game.repo, game.vault, OP, shoe_id))
    assert (err.code, err.retryable) == ("cards_not_shown", True)
    assert err.details["round_id"] == dealt.round_id and err.details["reveal_by"] is not None
    assert reading.get_shoe(game.repo, OP, shoe_id) == before  # still open, nothing revealed
    game.clock.set(seconds_after(err.details["reveal_by"], 600))  # every step revealed
    closed = tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    assert closed.status == "ended" and closed.server_seed is not None
