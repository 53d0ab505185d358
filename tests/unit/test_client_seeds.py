"""Client seeds given a running table in advance, and its automatic commit, over the in-memory
repository: FIFO with published shoe numbers, at most three, consumed in the commit's own
transaction, a table without a seed waits (reported once), a retried commit never commits
twice, an explicit commit never takes a queued seed's shoe, operator tables unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat import proofdoc
from baccarat.fairness import client_hash
from baccarat.proofchecks import check_commit
from baccarat.verify import verify, verify_proof
from baccarat_api.ids import ShoeRef, parse_shoe_id
from baccarat_api.limits import MAX_QUEUED_CLIENT_SEEDS
from baccarat_api.ports.documents import ClockDoc
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.repository import OutcomeUnknown
from baccarat_api.service import client_seeds, tables
from baccarat_api.service.errors import DomainError
from baccarat_api.service.events import emit
from baccarat_api.service.idempotency import Replayed, request_for
from baccarat_api.service.models import ProofPageOut
from baccarat_verify import es256

from .conftest import Game
from .test_service import OP, final_proof, new_table

pytestmark = pytest.mark.unit

T0 = "2026-03-01T12:00:00.000Z"


def auto_table(game: Game, **clock: Any) -> str:
    """A table made running by hand: its live state carries a clock document (what the create
    option writes), no event."""
    game.clock.set(T0)
    table_id = new_table(game)
    doc = ClockDoc(dealing="auto", pause_seconds=5, paused=False, needs_banker=False, waiting=None)
    ev = emit(None, OP, table_id, T0, [], clock={**doc, **clock})  # type: ignore[typeddict-item]
    game.repo.table_change("live", ev)
    return table_id


def live_of(game: Game, table_id: str) -> LiveRecord:
    live = game.repo.load(OP, live=table_id).live
    assert live is not None
    return live


def events_of(game: Game, table_id: str) -> list[tuple[str, dict[str, Any]]]:
    events, _ = game.repo.table_events(OP, table_id, 0, 100)
    return [(e.type, e.data) for e in events]


def round_trips(game: Game, before: dict[str, int]) -> dict[str, int]:
    """The repository's round trips since ``before`` (a copy of its counts)."""
    calls = game.repo.calls
    return {k: n - before.get(k, 0) for k, n in calls.items() if n != before.get(k, 0)}


def end_shoe(game: Game, shoe_id: str) -> None:
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)


def test_seeds_queue_in_order_each_for_its_shoe(game: Game) -> None:
    table_id = auto_table(game)
    outs = []
    for i, seed in enumerate(["first", "second", "third"]):
        game.clock.set(f"2026-03-01T12:00:0{i + 1}.000Z")
        calls = dict(game.repo.calls)
        outs.append(client_seeds.give(game.repo, OP, table_id, seed))
        assert round_trips(game, calls) == {"batch_get": 1, "transaction": 1}
    assert [(o.for_shoe_number, o.queued, o.seq) for o in outs] == [(1, 1, 1), (2, 2, 2), (3, 3, 3)]
    assert outs[0].client_hash == client_hash("first").hex()
    assert outs[1].given_at == "2026-03-01T12:00:02.000Z"
    assert events_of(game, table_id) == [
        ("client_seed_given", {"client_hash": client_hash(s).hex(), "for_shoe_number": n})
        for n, s in enumerate(["first", "second", "third"], start=1)
    ]
    queued = live_of(game, table_id).client_seeds or []
    assert [(q["client_seed"], q["for_shoe_number"]) for q in queued] == [
        ("first", 1),
        ("second", 2),
        ("third", 3),
    ]


def test_a_fourth_seed_is_refused_and_changes_nothing(game: Game) -> None:
    table_id = auto_table(game)
    for i in range(MAX_QUEUED_CLIENT_SEEDS):
        client_seeds.give(game.repo, OP, table_id, f"s{i}")
    before = live_of(game, table_id)
    with pytest.raises(DomainError) as err:
        client_seeds.give(game.repo, OP, table_id, "one too many")
    assert err.value.code == "client_seed_queue_full"
    assert err.value.details["for_shoe_numbers"] == [1, 2, 3]
    assert live_of(game, table_id) == before


def test_an_operator_table_takes_no_seed_and_stays_as_it_was(game: Game) -> None:
    table_id = new_table(game)
    with pytest.raises(DomainError) as err:
        client_seeds.give(game.repo, OP, table_id, "x")
    assert err.value.code == "not_auto_dealing"
    with pytest.raises(DomainError) as err:
        client_seeds.commit_next(game.repo, game.vault, OP, table_id)
    assert err.value.code == "not_auto_dealing"
    shoe = tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed")
    live = live_of(game, table_id)
    assert (live.clock, live.client_seeds, live.tick) == (None, None, None)
    stored = game.repo.get_shoe(OP, ShoeRef(table_id, shoe.shoe_number))
    assert stored is not None and stored.client_seed_given_at is None


def test_the_commit_uses_the_head_and_consumes_it_in_its_own_transaction(game: Game) -> None:
    table_id = auto_table(game)
    client_seeds.give(game.repo, OP, table_id, "for shoe 1")
    game.clock.set("2026-03-01T12:00:05.000Z")
    client_seeds.give(game.repo, OP, table_id, "for shoe 2")
    game.clock.set("2026-03-01T12:01:00.000Z")
    calls = dict(game.repo.calls)
    shoe_id = client_seeds.commit_next(game.repo, game.vault, OP, table_id)
    assert shoe_id == f"{table_id}_s1"
    # one read (table + live state), one transaction (shoe, table, live state, event)
    assert round_trips(game, calls) == {"batch_get": 1, "transaction": 1}
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    shoe = game.repo.get_shoe(OP, ref)
    assert shoe is not None
    assert (shoe.client_seed, shoe.client_seed_given_at, shoe.created_at) == (
        "for shoe 1",
        T0,
        "2026-03-01T12:01:00.000Z",
    )
    live = live_of(game, table_id)
    assert [q["client_seed"] for q in live.client_seeds or []] == ["for shoe 2"]
    assert live.open_shoe_id == shoe_id
    assert events_of(game, table_id)[-1] == (
        "shoe_committed",
        {"shoe_id": shoe_id, "shoe_number": 1, "cards_remaining": 4 * 52},  # star-city, no burn
    )
    # the open shoe: nothing more to commit, the queue untouched, one read
    calls = dict(game.repo.calls)
    assert client_seeds.commit_next(game.repo, game.vault, OP, table_id) is None
    assert round_trips(game, calls) == {"batch_get": 1}
    assert live_of(game, table_id) == live
    end_shoe(game, shoe_id)
    second = client_seeds.commit_next(game.repo, game.vault, OP, table_id)
    assert second == f"{table_id}_s2"
    shoe2 = game.repo.get_shoe(OP, ShoeRef(table_id, 2))
    assert shoe2 is not None and shoe2.client_seed == "for shoe 2"
    assert live_of(game, table_id).client_seeds == []


def test_no_seed_the_table_waits_reported_once_and_a_seed_ends_the_wait(game: Game) -> None:
    table_id = auto_table(game)
    assert client_seeds.commit_next(game.repo, game.vault, OP, table_id) is None
    live = live_of(game, table_id)
    assert live.clock is not None and live.clock["waiting"] == "no_client_seed"
    assert events_of(game, table_id) == [("table_waiting", {"reason": "no_client_seed"})]
    assert client_seeds.commit_next(game.repo, game.vault, OP, table_id) is None
    assert live_of(game, table_id) == live  # a second call writes nothing
    out = client_seeds.give(game.repo, OP, table_id, "late")
    assert out.for_shoe_number == 1
    clock = live_of(game, table_id).clock
    assert clock is not None and clock["waiting"] is None
    assert client_seeds.commit_next(game.repo, game.vault, OP, table_id) == f"{table_id}_s1"


def test_a_commit_whose_answer_was_lost_is_not_made_twice(game: Game) -> None:
    table_id = auto_table(game)
    client_seeds.give(game.repo, OP, table_id, "one")
    client_seeds.give(game.repo, OP, table_id, "two")
    real = game.repo.commit_shoe
    lost: list[str] = []

    def commit_then_lose(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)  # written …
        if not lost:
            lost.append("answer")
            raise OutcomeUnknown("the answer was lost")  # … but the caller never heard

    game.repo.commit_shoe = commit_then_lose  # type: ignore[method-assign]
    first = client_seeds.commit_next(game.repo, game.vault, OP, table_id)
    assert first == f"{table_id}_s1" and lost == ["answer"]
    # the timer delivered again: nothing committed, the second seed kept for shoe 2
    assert client_seeds.commit_next(game.repo, game.vault, OP, table_id) is None
    assert game.repo.get_shoe(OP, ShoeRef(table_id, 2)) is None
    assert [q["client_seed"] for q in live_of(game, table_id).client_seeds or []] == ["two"]
    committed = [e for e in events_of(game, table_id) if e[0] == "shoe_committed"]
    assert len(committed) == 1


def test_an_explicit_commit_never_takes_a_queued_seeds_shoe(game: Game) -> None:
    table_id = auto_table(game)
    client_seeds.give(game.repo, OP, table_id, "queued for 1")
    with pytest.raises(DomainError) as err:
        tables.commit_shoe(game.repo, game.vault, OP, table_id, "operator's own")
    assert err.value.code == "client_seeds_queued"
    assert err.value.details == {"for_shoe_numbers": [1]}
    assert game.repo.get_shoe(OP, ShoeRef(table_id, 1)) is None


def test_an_explicit_commit_at_a_waiting_running_table_ends_the_wait(game: Game) -> None:
    table_id = auto_table(game)
    client_seeds.commit_next(game.repo, game.vault, OP, table_id)
    shoe = tables.commit_shoe(game.repo, game.vault, OP, table_id, "operator's own")
    stored = game.repo.get_shoe(OP, ShoeRef(table_id, shoe.shoe_number))
    assert stored is not None and stored.client_seed_given_at is None
    clock = live_of(game, table_id).clock
    assert clock is not None and clock["waiting"] is None
    # a seed given now is for the shoe after the open one
    assert client_seeds.give(game.repo, OP, table_id, "next").for_shoe_number == 2


def test_a_given_seed_replays_under_its_idempotency_key(game: Game) -> None:
    table_id = auto_table(game)
    body = b'{"client_seed": "once"}'
    idem = request_for("k-1", "POST", f"/v1/tables/{table_id}/client-seeds", body, 201)
    first = client_seeds.give(game.repo, OP, table_id, "once", idem)
    with pytest.raises(Replayed) as replayed:
        client_seeds.give(game.repo, OP, table_id, "once", idem)
    assert replayed.value.body == first.model_dump()
    assert len(live_of(game, table_id).client_seeds or []) == 1


# --- the proof -----------------------------------------------------------------------------------


def test_an_automatic_shoes_proof_shows_when_its_seed_was_given_and_verifies(game: Game) -> None:
    table_id = auto_table(game)
    client_seeds.give(game.repo, OP, table_id, "given early")
    game.clock.set("2026-03-01T12:10:00.000Z")
    shoe_id = client_seeds.commit_next(game.repo, game.vault, OP, table_id)
    assert shoe_id is not None
    game.clock.set("2026-03-01T12:20:00.000Z")
    end_shoe(game, shoe_id)
    page = final_proof(game, shoe_id)
    assert {k: page[k] for k in proofdoc.COMMIT_FIELDS} == {
        "committed_by": "clock",
        "committed_at": "2026-03-01T12:10:00.000Z",
        "client_seed_given_at": T0,
    }
    assert page["client_seed"] == "given early"
    ProofPageOut.model_validate(page)
    keys = {"keys": [game.vault.public_jwk()]}
    verdict = verify([page], keys=keys, signature_check=es256.check, shoe_id=shoe_id)
    assert verdict.ok, verdict.mismatches
    assert f"client seed given in advance at {T0}" in verdict.summary
    late = page | {"client_seed_given_at": "2026-03-01T12:10:00.001Z"}
    bad = verify([late], keys=keys, signature_check=es256.check, shoe_id=shoe_id)
    assert not bad.ok
    assert ("automatic commit", "client_seed_given_at") in [
        (m.where, m.field) for m in bad.mismatches
    ]


def test_an_operator_shoes_proof_has_no_commit_fields(game: Game) -> None:
    table_id = new_table(game)
    shoe_id = tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed").shoe_id
    end_shoe(game, shoe_id)
    page = final_proof(game, shoe_id)
    assert not set(proofdoc.COMMIT_FIELDS) & set(page)
    assert "committed by the table" not in verify_proof(page).summary


def commit_header(**fields: Any) -> dict[str, Any]:
    return {
        "committed_by": "clock",
        "committed_at": "2026-03-01T12:10:00.000Z",
        "client_seed_given_at": "2026-03-01T12:00:00.000Z",
        "ended_at": "2026-03-01T13:00:00.000Z",
        **fields,
    }


@pytest.mark.parametrize(
    ("fields", "rounds", "wrong"),
    [
        ({}, [], []),
        ({"client_seed_given_at": "2026-03-01T12:10:00.000Z"}, [], []),  # the same millisecond
        ({"client_seed_given_at": "2026-03-01T12:10:00.001Z"}, [], ["client_seed_given_at"]),
        ({}, [{"dealt_at": "2026-03-01T12:09:59.999Z"}], ["committed_at"]),
        ({"ended_at": "2026-03-01T12:09:00.000Z"}, [], ["committed_at"]),
        ({"committed_by": "operator"}, [], ["committed_by"]),
        ({"committed_at": "yesterday"}, [], ["committed_at"]),
    ],
)
def test_the_commit_fields_are_checked_in_order(
    fields: dict[str, Any], rounds: list[dict[str, Any]], wrong: list[str]
) -> None:
    bad, note = check_commit(commit_header(**fields), rounds)
    assert [m.field for m in bad] == wrong
    malformed = fields.get("committed_by", "clock") != "clock" or "yesterday" in fields.values()
    assert (note is None) == malformed  # out of order: still shown, with the mismatch


def test_a_commit_field_alone_is_a_mismatch() -> None:
    proof = commit_header()
    del proof["committed_by"]
    bad, note = check_commit(proof, [])
    assert [m.field for m in bad] == ["committed_by"] and note is None
    assert check_commit({"ended_at": "2026-03-01T13:00:00.000Z"}, []) == ([], None)


def test_no_seed_is_taken_for_a_shoe_past_the_chain(game: Game) -> None:
    game.clock.set(T0)
    table_id = new_table(game, chain_length=2)
    doc = ClockDoc(dealing="auto", pause_seconds=5, paused=False, needs_banker=False, waiting=None)
    game.repo.table_change("live", emit(None, OP, table_id, T0, [], clock=doc))
    assert [client_seeds.give(game.repo, OP, table_id, s).for_shoe_number for s in "ab"] == [1, 2]
    with pytest.raises(DomainError) as err:
        client_seeds.give(game.repo, OP, table_id, "c")
    assert err.value.code == "chain_exhausted"
