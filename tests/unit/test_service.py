"""Every use case over the in-memory repository: commit, deal, settle, void, close, auto-settle,
idempotency, reads and the audit — the answers, the refusals (with their codes), what is stored,
and that a refused or lost request changes nothing."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from baccarat.verify import verify
from baccarat_api.ids import parse_round_id, parse_shoe_id
from baccarat_api.ports.records import RoundRecord
from baccarat_api.service import auto_settle, idempotency, presence, proofs, reading, tables
from baccarat_api.service.audit import audit_table
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import Replayed, request_for
from baccarat_api.service.models import CreateTableRequest, DealRequest
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round
from baccarat_verify import es256

from .conftest import Game, star_city_bets

OP = "operator-a"


def new_table(game: Game, **fields: Any) -> str:
    """A table (star-city at its first tier, house-banked, unless ``fields`` say otherwise).
    Without a squeeze (``squeeze_seconds: 0``: every card shown at the deal, so a round may be
    settled at once) unless ``fields`` give one: the squeeze's own tests do."""
    request = CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house",
         "squeeze_seconds": 0, **fields}
    )  # fmt: skip
    return tables.create_table(game.repo, game.vault, OP, request).table_id


def new_shoe(game: Game, **fields: Any) -> str:
    table_id = new_table(game, **fields)
    return tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed").shoe_id


#: Who sits down when a deal's bets name no seated bettor (a round nobody bets on still needs
#: the company seed 000 asks for: 兩人成局).
HOST = {"bettor_id": "sam", "balance": 50_000, "level": 5}


def present(
    game: Game, table_id: str, bets: list[dict[str, Any]], pb: dict[str, Any] | None
) -> None:
    """Report the presence a deal's bets imply, as an operator does before dealing (an
    explicit deal needs the profile's company): each seated bettor not yet at the
    table on their seat, the player-banker in the banker seat, and — when nobody sits — HOST on
    the last free seat."""
    live = game.repo.load(OP, live=table_id).live
    seats = {} if live is None else dict(live.seats)
    sitting = {w["bettor_id"] for w in seats.values()}
    for b in bets:
        if b["role"] != "seated" or b["bettor_id"] in sitting or str(b["seat"]) in seats:
            continue
        presence.take_seat(
            game.repo, OP, table_id, b["seat"], b["bettor_id"], b["balance"], b.get("level")
        )
        sitting.add(b["bettor_id"])
        seats[str(b["seat"])] = b
    if pb is not None and (live is None or live.banker is None):
        presence.take_banker(game.repo, OP, table_id, pb["bettor_id"], pb["balance"])
    if not seats:
        presence.take_seat(
            game.repo, OP, table_id, 7, HOST["bettor_id"], HOST["balance"], HOST["level"]
        )


def deal(
    game: Game,
    shoe_id: str,
    bets: list[dict[str, Any]] | None = None,
    *,
    seat: bool = True,
    **body: Any,
) -> Any:
    """Deal ``bets`` explicitly; ``seat``: report the presence they imply first
    (:func:`present`)."""
    request = DealRequest.model_validate({"bets": bets or [], **body})
    if seat:
        ref = parse_shoe_id(shoe_id)
        if ref is not None:
            present(game, ref.table_id, bets or [], body.get("player_banker"))
    return deal_round(game.repo, game.shoes, OP, shoe_id, request)


def played(game: Game, shoe_id: str, bets: list[dict[str, Any]] | None = None, **body: Any) -> Any:
    """A round dealt (:func:`deal`) and, if anyone bet, settled (the helpers' tables have no
    squeeze: every card is shown at the deal): the next round may follow."""
    dealt = deal(game, shoe_id, bets, **body)
    if dealt.settle_by is not None:
        settle_round(game.repo, OP, dealt.round_id)
    return dealt


def table_of(shoe_id: str) -> str:
    return shoe_id.rsplit("_s", 1)[0]


def final_proof(game: Game, shoe_id: str) -> dict[str, Any]:
    """Page 1 of the shoe's final proof, as served."""
    served = proofs.proof_page(game.repo, game.vault, game.ref_keys, shoe_id)
    page: dict[str, Any] = json.loads(served.body)
    return page


def code_of(call: Any) -> str:
    with pytest.raises(DomainError) as err:
        call()
    return err.value.code


def snapshot(game: Game) -> dict[Any, Any]:
    return dict(game.repo.items)


# --- commit -----------------------------------------------------------------------------------


def test_commit_fixes_the_shoe_before_any_card_and_frees_nothing_twice(game: Game) -> None:
    table_id = new_table(game)
    shoe = tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed")
    assert (shoe.shoe_number, shoe.status, shoe.client_seed) == (1, "open", "seed")
    table = game.repo.get_table(OP, table_id)
    assert table is not None and table.open_shoe_id == shoe.shoe_id and table.next_shoe_number == 2
    stored = game.repo.get_shoe(OP, parse_shoe_id(shoe.shoe_id))  # type: ignore[arg-type]
    assert stored is not None and stored.rounds_dealt == 0 and stored.server_seed is None
    before = snapshot(game)
    assert code_of(lambda: tables.commit_shoe(game.repo, game.vault, OP, table_id, "x")) == (
        "shoe_open"
    )
    assert snapshot(game) == before


def test_commit_refuses_an_unknown_or_foreign_table_and_an_exhausted_chain(game: Game) -> None:
    table_id = new_table(game, chain_length=1)
    assert code_of(lambda: tables.commit_shoe(game.repo, game.vault, "other", table_id, "s")) == (
        "not_found"
    )
    assert code_of(lambda: tables.commit_shoe(game.repo, game.vault, OP, "tbl_x", "s")) == (
        "not_found"
    )
    shoe = tables.commit_shoe(game.repo, game.vault, OP, table_id, "s")
    tables.close_shoe(game.repo, game.vault, OP, shoe.shoe_id)
    assert code_of(lambda: tables.commit_shoe(game.repo, game.vault, OP, table_id, "s")) == (
        "chain_exhausted"
    )


def test_an_unknown_tier_is_an_invalid_table_and_stores_nothing(game: Game) -> None:
    before = snapshot(game)
    assert code_of(lambda: new_table(game, tier="no-such-tier")) == "invalid_table"
    assert snapshot(game) == before


def test_a_table_chooses_its_rounding_rule_and_every_settlement_applies_it(game: Game) -> None:
    """Banker 1,000 wins 950 at a house star-city table; 1% of +950 leaves 940.5: floored to 940
    by default, 941 at a ``half_up`` table; either way Σ nets + house take = 0."""
    bets = [
        {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker", "amount": 1000,
         "balance": 50_000},
        {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player", "amount": 1000,
         "balance": 50_000},
    ]  # fmt: skip
    for rounding, alice_net in (("floor_house_favour", 940), ("half_up", 941)):
        shoe_id = new_shoe(game, rounding=rounding)
        table = reading.get_table(game.repo, OP, parse_shoe_id(shoe_id).table_id)  # type: ignore[union-attr]
        assert table.rounding == rounding
        for _ in range(30):
            dealt = deal(game, shoe_id, bets)
            if dealt.result == "banker":
                break
            settle_round(game.repo, OP, dealt.round_id)
        assert dealt.result == "banker"
        out = settle_round(game.repo, OP, dealt.round_id)
        assert out.rounding == rounding
        assert out.nets == {"alice": alice_net, "bob": -1000}
        assert sum(out.nets.values()) + out.house.take == 0


# --- deal -------------------------------------------------------------------------------------


def test_deal_moves_the_shoe_and_locks_the_bets(game: Game) -> None:
    shoe_id = new_shoe(game)
    first = deal(game, shoe_id, star_city_bets())
    assert first.round_number == 1 and len(first.bets) == 3
    assert first.settle_by is not None  # locked bets: due by the table's deadline
    settle_round(game.repo, OP, first.round_id)  # no round while the previous is unresolved
    second = deal(game, shoe_id)
    assert second.round_number == 2 and second.bets == [] and second.settle_by is None
    assert second.prev_hash == first.round_hash  # the audit chain runs through the deals
    shoe = reading.get_shoe(game.repo, OP, shoe_id)
    assert shoe.rounds_dealt == 2 and shoe.last_round_id == second.round_id


def test_refused_bets_answer_the_refusal_code_and_deal_nothing(game: Game) -> None:
    shoe_id = new_shoe(game)
    bets = star_city_bets()
    present(game, table_of(shoe_id), bets, None)
    before = snapshot(game)
    bets[0]["amount"] = 10**12  # far above the tier's limits
    with pytest.raises(DomainError) as err:
        deal(game, shoe_id, bets)
    assert err.value.retryable is False and err.value.details["bet_index"] == 0
    assert snapshot(game) == before


def test_a_deal_that_lost_the_race_deals_nothing_and_is_retryable(game: Game) -> None:
    shoe_id = new_shoe(game)
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    present(game, ref.table_id, star_city_bets(), None)
    stale = game.repo.load(OP, shoe=ref, live=ref.table_id)
    winner = deal(game, shoe_id, star_city_bets())  # another request deals first
    after_winner = snapshot(game)
    game.repo.load = lambda *_a, **_k: stale  # type: ignore[method-assign]
    with pytest.raises(DomainError) as err:
        deal(game, shoe_id)  # other bets, from the same (stale) shoe
    assert (err.value.code, err.value.retryable) == ("concurrent_update", True)
    assert snapshot(game) == after_winner
    # the very same request from the same state is the same write: it answers the winner's round
    assert deal(game, shoe_id, star_city_bets()) == winner
    assert snapshot(game) == after_winner


def test_a_whole_shoe_deals_to_its_end_publishes_a_proof_that_verifies(game: Game) -> None:
    shoe_id = new_shoe(game)
    rounds = 0
    while True:
        out = deal(game, shoe_id)
        rounds += 1
        if out.shoe_status == "ended":
            break
    assert code_of(lambda: deal(game, shoe_id)) == "shoe_ended"
    for n in range(1, rounds + 1):
        settle_round(game.repo, OP, f"{shoe_id}_r{n}")
    proof = final_proof(game, shoe_id)
    assert len(proof["rounds"]) == rounds
    assert verify([proof], keys={"keys": [game.vault.public_jwk()]}, signature_check=es256.check).ok
    table = game.repo.get_table(OP, proof["table_id"])
    assert table is not None and table.open_shoe_id is None


# --- settle and void --------------------------------------------------------------------------


def test_settle_is_once_with_the_money_computed_at_the_deal(game: Game) -> None:
    shoe_id = new_shoe(game)
    rid = deal(game, shoe_id, star_city_bets()).round_id
    ref = parse_round_id(rid)
    assert ref is not None
    dealt = game.repo.get_round(OP, ref)
    assert dealt is not None and dealt.money["lines"] and dealt.settlement is None
    first = settle_round(game.repo, OP, rid)
    assert (first.round_id, len(first.lines), first.auto_settled) == (rid, 3, False)
    assert [line.bettor_id for line in first.lines] == ["alice", "alice", "bob"]
    stored = game.repo.get_round(OP, ref)
    assert stored is not None and stored.money == dealt.money  # settling stored no money
    # the answer is the stored settlement plus the table's currency (from the round's config)
    answer = first.model_dump(exclude={"voided", "void", "currency", "minor_unit_exponent"})
    assert stored.settlement == answer
    assert (first.currency, first.minor_unit_exponent) == ("XCN", 0)
    assert settle_round(game.repo, OP, rid) == first
    assert code_of(lambda: void_round(game.repo, OP, rid, reason="misdeal")) == "round_settled"


def test_a_round_nobody_bet_on_is_settled_at_its_deal_with_no_lines(game: Game) -> None:
    shoe_id = new_shoe(game)
    rid = deal(game, shoe_id).round_id
    ref = parse_round_id(rid)
    assert ref is not None
    stored = game.repo.get_round(OP, ref)
    assert stored is not None and stored.resolved and stored.settled_at == stored.dealt_at
    out = settle_round(game.repo, OP, rid)
    assert (out.lines, out.nets, out.house.take) == ([], {}, 0)
    assert code_of(lambda: void_round(game.repo, OP, rid, reason="misdeal")) == "round_settled"


def test_void_returns_every_stake_once_and_forbids_settlement(game: Game) -> None:
    shoe_id = new_shoe(game)
    rid = deal(game, shoe_id, star_city_bets()).round_id
    ref = parse_round_id(rid)
    assert ref is not None
    money = game.repo.get_round(OP, ref).money  # type: ignore[union-attr]
    voided = void_round(game.repo, OP, rid, reason="misdeal", note="card on the floor")
    assert voided.voided and voided.void is not None
    assert (voided.void.reason, voided.void.note) == ("misdeal", "card on the floor")
    # what the void replaced: exactly the settlement the locked bets came to
    assert voided.void.replaced.nets == money["nets"]
    assert voided.void.replaced.house_take == money["house"]["take"]
    assert all(line.net == 0 and line.grade == "void" for line in voided.lines)
    assert voided.nets == dict.fromkeys(money["nets"], 0)
    assert void_round(game.repo, OP, rid, reason="regulatory") == voided
    assert code_of(lambda: settle_round(game.repo, OP, rid)) == "round_voided"


def test_a_settlement_that_lost_to_a_void_answers_round_voided(game: Game) -> None:
    shoe_id = new_shoe(game)
    rid = deal(game, shoe_id, star_city_bets()).round_id
    ref = parse_round_id(rid)
    assert ref is not None
    stale = game.repo.load(OP, round_=ref, live=ref.table_id)
    void_round(game.repo, OP, rid, reason="technical_fault")
    game.repo.load = lambda *_a, **_k: stale  # type: ignore[method-assign]
    assert code_of(lambda: settle_round(game.repo, OP, rid)) == "round_voided"


# --- close ------------------------------------------------------------------------------------


def test_close_ends_the_shoe_frees_the_table_and_reveals_the_seed(game: Game) -> None:
    shoe_id = new_shoe(game)
    deal(game, shoe_id)
    closed = tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    assert (closed.status, closed.end_reason) == ("ended", "closed")
    assert closed.server_seed is not None and closed.rounds_dealt == 1
    assert code_of(lambda: tables.close_shoe(game.repo, game.vault, OP, shoe_id)) == "shoe_ended"
    settle_round(game.repo, OP, f"{shoe_id}_r1")
    proof = final_proof(game, shoe_id)
    assert proof["server_seed"] == closed.server_seed
    assert verify([proof], keys={"keys": [game.vault.public_jwk()]}, signature_check=es256.check).ok


# --- auto-settle ------------------------------------------------------------------------------


def test_the_sweep_settles_due_locked_rounds_once_and_skips_voided_ones(game: Game) -> None:
    shoe_id = new_shoe(game, settle_deadline_seconds=1)
    voided = deal(game, shoe_id, star_city_bets())
    void_round(game.repo, OP, voided.round_id, reason="technical_fault")
    deal(game, shoe_id)  # no bets: never due
    due = deal(game, shoe_id, star_city_bets())
    assert auto_settle.sweep(game.repo, at="2000-01-01T00:00:00Z").due == 0  # not yet due
    later = "2999-01-01T00:00:00Z"
    report = auto_settle.sweep(game.repo, at=later)
    assert (report.due, report.settled, report.failed) == (1, [due.round_id], {})
    assert reading.get_round(game.repo, OP, due.round_id).settlement.auto_settled  # type: ignore[union-attr]
    assert auto_settle.sweep(game.repo, at=later).due == 0


# --- idempotency ------------------------------------------------------------------------------


def _key(body: bytes, key: str = "k-1") -> idempotency.IdempotencyRequest:
    request = request_for(key, "POST", "/v1/tables", body, 201)
    assert request is not None
    return request


def test_a_retry_with_the_same_key_replays_the_stored_answer_byte_for_byte(game: Game) -> None:
    body = b'{"profile": "star-city", "tier": "star-city-fun", "banking": "house"}'
    request = CreateTableRequest.model_validate_json(body)
    first = tables.create_table(game.repo, game.vault, OP, request, _key(body))
    tables_before = snapshot(game)
    with pytest.raises(Replayed) as replay:
        tables.create_table(game.repo, game.vault, OP, request, _key(body))
    assert replay.value.status == 201
    assert replay.value.body == first.model_dump(mode="json")
    assert snapshot(game) == tables_before  # a replay writes nothing
    other = (
        b'{"profile": "star-city", "tier": "star-city-fun", "banking": "house", "chain_length": 5}'
    )
    assert (
        code_of(lambda: tables.create_table(game.repo, game.vault, OP, request, _key(other)))
        == "idempotency_key_reused"
    )


def test_a_duplicate_in_flight_answers_the_first_ones_committed_result(game: Game) -> None:
    table_id = new_table(game)
    body = b'{"client_seed": "s"}'
    key = request_for("k-2", "POST", f"/v1/tables/{table_id}/shoes", body, 201)
    # both requests read before either wrote: the second's transaction loses on the record
    real_load = game.repo.load
    snap = real_load(OP, table_id=table_id, idem_key=key.key_hash, live=table_id)  # type: ignore[union-attr]
    first = tables.commit_shoe(game.repo, game.vault, OP, table_id, "s", key)
    after_first = snapshot(game)
    game.repo.load = lambda *_a, **_k: snap  # type: ignore[method-assign]
    # the same request, from the same state: the same write; it finds its effect and answers it
    assert tables.commit_shoe(game.repo, game.vault, OP, table_id, "s", key) == first
    assert snapshot(game) == after_first


@pytest.mark.parametrize("route", ["commit", "close"])
def test_a_duplicate_reading_the_state_after_the_first_and_its_key_before_replays(
    game: Game, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    """One BatchGetItem is not isolated from the first request's transaction: the duplicate
    can read the table (or shoe) after it and the key's record before it. It must answer the
    first one's response, not refuse its own effect (409 shoe_open / shoe_ended)."""
    table_id = new_table(game)
    body = b'{"client_seed": "s"}'
    if route == "commit":
        key = request_for("k-3", "POST", f"/v1/tables/{table_id}/shoes", body, 201)

        def call() -> Any:
            return tables.commit_shoe(game.repo, game.vault, OP, table_id, "s", key)
    else:
        shoe_id = tables.commit_shoe(game.repo, game.vault, OP, table_id, "s").shoe_id
        key = request_for("k-3", "POST", f"/v1/shoes/{shoe_id}/close", b"", 200)

        def call() -> Any:
            return tables.close_shoe(game.repo, game.vault, OP, shoe_id, key)

    first = call()
    real = game.repo.load
    torn = [True]

    def stale_key(operator_id: str, **wanted: Any) -> Any:
        snap = real(operator_id, **wanted)
        if torn and wanted.get("idem_key"):
            torn.clear()  # once: the record is read before the first's transaction
            snap.idempotency = None
        return snap

    monkeypatch.setattr(game.repo, "load", stale_key)
    with pytest.raises(Replayed) as replay:
        call()
    assert not torn and replay.value.body == first.model_dump(mode="json")


def test_a_duplicate_that_cannot_tell_its_effect_is_told_to_retry(game: Game) -> None:
    """The same key's record is there but the write it made is not this one's (the shoe moved
    in between): 409 idempotency_in_progress, retryable; the retry replays the first answer."""
    shoe_id = new_shoe(game)
    body = b'{"bets": []}'
    key = request_for("k-3", "POST", f"/v1/shoes/{shoe_id}/rounds", body, 201)
    request = DealRequest.model_validate({"bets": []})
    present(game, table_of(shoe_id), [], None)
    first = deal_round(game.repo, game.shoes, OP, shoe_id, request, key)
    deal(game, shoe_id)  # round 2, another request
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    moved = game.repo.load(OP, shoe=ref, live=ref.table_id)  # after round 2, no record read
    game.repo.load = lambda *_a, **_k: moved  # type: ignore[method-assign]
    with pytest.raises(DomainError) as err:
        deal_round(game.repo, game.shoes, OP, shoe_id, request, key)
    assert (err.value.code, err.value.retryable) == ("idempotency_in_progress", True)
    del game.repo.load
    with pytest.raises(Replayed) as replay:
        deal_round(game.repo, game.shoes, OP, shoe_id, request, key)
    assert replay.value.body == first.model_dump()


# --- reads and the audit ----------------------------------------------------------------------


def test_reads_answer_404_for_foreign_and_malformed_ids(game: Game) -> None:
    shoe_id = new_shoe(game)
    rid = deal(game, shoe_id).round_id
    for call in (
        lambda: reading.get_shoe(game.repo, "other", shoe_id),
        lambda: reading.get_round(game.repo, "other", rid),
        lambda: reading.get_round(game.repo, OP, "not-an-id"),
    ):
        assert code_of(call) == "not_found"
    assert code_of(lambda: final_proof(game, shoe_id)) == "shoe_not_closed"  # not ended yet


def test_the_audit_verifies_a_played_table_and_finds_a_rewritten_round(game: Game) -> None:
    shoe_id = new_shoe(game)
    for _ in range(3):
        played(game, shoe_id, star_city_bets())
    table_id = shoe_id.rsplit("_s", 1)[0]
    ok = audit_table(game.repo, OP, table_id)
    assert ok.verified and ok.rounds_checked == 3
    key = next(k for k in game.repo.items if k[0] is RoundRecord and k[1][3] == 2)
    stored = game.repo.items[key]
    assert isinstance(stored, RoundRecord)
    game.repo.items[key] = dataclasses.replace(stored, created_at="1999-01-01T00:00:00.000Z")
    broken = audit_table(game.repo, OP, table_id)
    assert not broken.verified and broken.first_break is not None
    assert (broken.first_break.field, broken.first_break.round_id) == (
        "round_hash",
        stored.round_id,
    )


def test_the_audit_reads_one_shoe_and_the_previous_shoes_head(game: Game) -> None:
    """Bounded: the table, the shoe's items, the previous shoe's head — whatever came before."""
    first = new_shoe(game)
    for _ in range(2):
        played(game, first, star_city_bets())
    table_id = first.rsplit("_s", 1)[0]
    tables.close_shoe(game.repo, game.vault, OP, first)
    second = tables.commit_shoe(game.repo, game.vault, OP, table_id, "two").shoe_id
    deal(game, second, star_city_bets())
    reads: dict[str, Any] = {}
    for query in (None, 1):
        game.repo.calls.clear()
        out = audit_table(game.repo, OP, table_id, query)
        reads[str(query)] = (out.shoe_id, out.rounds_checked, dict(game.repo.calls))
        assert out.verified, out.breaks
    assert reads == {
        "None": (second, 1, {"get": 2, "query": 1}),  # table, shoe 1's head; shoe 2's items
        "1": (first, 2, {"get": 1, "query": 1}),  # table; shoe 1's items (from genesis)
    }
    assert (
        audit_table(game.repo, OP, table_id, 1).head == audit_table(game.repo, OP, table_id).start
    )


def test_every_round_trip_is_what_the_dynamodb_adapter_makes(game: Game) -> None:
    """The same counts as tests/integration/test_round_trips.py pins over moto: deal 2, settle 2,
    commit 2, every read 1."""
    table_id = new_table(game)
    counts: dict[str, int] = {}

    def measure(name: str, call: Any) -> None:
        game.repo.calls.clear()
        call()
        counts[name] = sum(game.repo.calls.values())

    measure("commit", lambda: tables.commit_shoe(game.repo, game.vault, OP, table_id, "s"))
    shoe_id = f"{table_id}_s1"
    present(game, table_id, star_city_bets(), None)
    measure("deal", lambda: deal(game, shoe_id, star_city_bets(), seat=False))
    measure("settle", lambda: settle_round(game.repo, OP, f"{shoe_id}_r1"))
    measure("read", lambda: reading.get_round(game.repo, OP, f"{shoe_id}_r1"))
    assert counts == {"commit": 2, "deal": 2, "settle": 2, "read": 1}


# --- auth -------------------------------------------------------------------------------------


def test_a_key_names_its_operator_once_per_cache_lifetime_and_revoked_is_unknown(
    game: Game,
) -> None:
    from baccarat_api.apikeys import hash_key, new_key
    from baccarat_api.service.auth import KeyCache, authenticate_key

    key, revoked = new_key(), new_key()
    game.repo.add_key(hash_key(key), OP)
    game.repo.add_key(hash_key(revoked), OP, revoked=True)
    cache = KeyCache(60)
    assert authenticate_key(key, game.repo, cache) == OP
    game.repo.calls.clear()
    assert authenticate_key(key, game.repo, cache) == OP
    assert sum(game.repo.calls.values()) == 0  # the warm container remembers it
    for refused in (revoked, new_key()):
        assert code_of(lambda k=refused: authenticate_key(k, game.repo, cache)) == "unauthorized"


# --- byte budgets -----------------------------------------------------------------------------


def test_a_round_over_its_byte_budget_is_refused_at_the_deal_and_nothing_is_stored(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worst case of the limits is under the budget (tests/integration/test_byte_budgets.py),
    so the check is tested by lowering the budget: 422 ``round_too_large``, nothing stored; the
    same request deals once the budget allows it."""
    from baccarat_api import limits

    shoe_id = new_shoe(game)
    present(game, table_of(shoe_id), star_city_bets(), None)
    before = snapshot(game)
    monkeypatch.setattr(limits, "ROUND_ITEM_BUDGET_BYTES", 2048)
    with pytest.raises(DomainError) as err:
        deal(game, shoe_id, star_city_bets())
    assert err.value.code == "round_too_large"
    assert err.value.details["budget"] == 2048 and err.value.details["bytes"] > 2048
    assert snapshot(game) == before
    monkeypatch.undo()
    assert deal(game, shoe_id, star_city_bets()).round_id.endswith("_r1")


def test_the_deals_size_estimate_bounds_the_stored_item_even_voided(game: Game) -> None:
    """What the deal checks (``stored_bytes``) is at least the item as DynamoDB counts it, in
    its largest form: voided with the longest note."""
    from baccarat_api import limits
    from baccarat_api.adapters.dynamodb.codec import item_size, to_item
    from baccarat_api.service.dealing import stored_bytes

    shoe_id = new_shoe(game)
    dealt = deal(game, shoe_id, star_city_bets())
    (record,) = [r for r in game.repo.items.values() if isinstance(r, RoundRecord)]
    estimate = stored_bytes(record)
    note = "\U0001f0a1" * limits.MAX_VOID_NOTE_LENGTH  # 4 bytes each
    void_round(game.repo, OP, dealt.round_id, reason="technical_fault", note=note)
    (voided,) = [r for r in game.repo.items.values() if isinstance(r, RoundRecord)]
    assert voided.void is not None
    assert item_size(to_item(voided)) <= estimate


def test_a_whole_shoes_item_stays_within_its_computed_worst_case(game: Game) -> None:
    """A shoe item grows with its rounds (the roads' results) and the idle rule's recent
    bettors: dealt to its end at star-city with the same seated bettors every round, it stays
    under :func:`~baccarat_api.limits.worst_case_bytes`'s ``shoe_item``."""
    from baccarat_api import limits
    from baccarat_api.adapters.dynamodb.codec import item_size, to_items
    from baccarat_api.ports.records import ShoeRecord

    shoe_id = new_shoe(game)
    while played(game, shoe_id, star_city_bets()).shoe_status != "ended":
        pass
    (shoe,) = [r for r in game.repo.items.values() if isinstance(r, ShoeRecord)]
    assert shoe.rounds_dealt >= 30 and shoe.recent_bettors
    stored = sum(map(item_size, to_items(shoe)))  # the shoe's item and its constants' item
    assert stored <= limits.worst_case_bytes("star-city")["shoe_item"]
