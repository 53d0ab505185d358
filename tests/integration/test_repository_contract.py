"""One contract, two adapters: the in-memory repository (which the unit tier's service tests
trust) and the DynamoDB adapter over moto answer every port call the same way — the same
records, the same lost conditions (with the same winner and the same duplicate flag), the same
all-or-nothing transactions, the same index and partition reads."""

from __future__ import annotations

import dataclasses
import hashlib
import time

import pytest
from support.stack import TIERS, Stack, star_city_bets

from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.jobs.seed import tier_docs
from baccarat_api.ports.records import (
    FairnessTotals,
    IdempotencyRecord,
    ProofRecord,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
    TableRecord,
    WebhookFailure,
)
from baccarat_api.ports.repository import ConditionFailed, Repository, ShoeHistory
from baccarat_api.ports.writes import ABSENT, Put, Update
from baccarat_api.service import presence, tables
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.models import CreateTableRequest, DealRequest

OP = "operator-a"


@pytest.fixture(params=["memory", "dynamodb"])
def repo(request: pytest.FixtureRequest) -> Repository:
    if request.param == "memory":
        memory = MemoryRepository()
        memory.put_tiers(tier_docs(TIERS))
        return memory
    stack: Stack = request.getfixturevalue("stack")
    return stack.repo


def played(repo: Repository, *, bets: bool = True) -> tuple[str, str]:
    """A table with an open shoe and one dealt round (locked bets): (shoe id, round id)."""
    vault = MemoryVault()
    request = CreateTableRequest(profile="star-city", tier="star-city-fun", banking="house")
    table = tables.create_table(repo, vault, OP, request)
    shoe = tables.commit_shoe(repo, vault, OP, table.table_id, "seed")
    presence.take_seat(repo, OP, table.table_id, 1, "alice", 50_000, 3)  # the deal's company
    deal = DealRequest.model_validate({"bets": star_city_bets() if bets else []})
    rnd = deal_round(repo, ShoeCache(vault), OP, shoe.shoe_id, deal)
    return shoe.shoe_id, rnd.round_id


def idem(key: str, expires_at: int) -> IdempotencyRecord:
    return IdempotencyRecord(OP, key, "fp", 201, {"b": 1, "a": 2}, "2026-01-01", expires_at)


def stored_round(repo: Repository, round_id: str) -> RoundRecord:
    table_id, shoe, number = round_id.rsplit("_s", 1)[0], *round_id.rsplit("_s", 1)[1].split("_r")
    found = repo.get_round(OP, RoundRef(table_id, int(shoe), int(number)))
    assert found is not None
    return found


def test_a_record_reads_back_as_written(repo: Repository) -> None:
    shoe_id, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    assert len(rnd.bets) == 3 and rnd.settle_by is not None and rnd.money["lines"]
    snap = repo.load(OP, shoe=ShoeRef(rnd.table_id, 1), round_=rnd.ref, table_id=rnd.table_id)
    assert snap.round == rnd and snap.shoe is not None and snap.table is not None
    assert snap.shoe.rounds_dealt == 1 and snap.table.open_shoe_id == shoe_id
    assert repo.load("operator-b", round_=rnd.ref).round is None  # another operator's: nothing


def test_a_void_is_priced_once_and_its_hashed_record_is_unchanged(repo: Repository) -> None:
    """``price_beacon_void``: the later beacon stored once (a second loses), nothing else."""
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    doc = {"round": 7, "signature": "ab" * 48}
    repo.price_beacon_void(rnd, doc)  # type: ignore[arg-type]
    with pytest.raises(ConditionFailed):
        repo.price_beacon_void(rnd, {"round": 7, "signature": "cd" * 48})
    assert stored_round(repo, round_id) == dataclasses.replace(rnd, late_beacon=doc)


def test_a_stale_deal_loses_and_writes_nothing(repo: Repository) -> None:
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None
    stale = dataclasses.replace(shoe, version=shoe.version - 1)
    moved = dataclasses.replace(shoe, version=shoe.version + 1, rounds_dealt=2)
    second = dataclasses.replace(rnd, round_number=2, write_id="wsecond")
    with pytest.raises(ConditionFailed) as lost:
        repo.record_round(stale, moved, second, None)
    assert (lost.value.existing, lost.value.duplicate) == (None, False)
    assert repo.get_round(OP, second.ref) is None  # all or nothing: the round put is undone
    assert repo.get_shoe(OP, rnd.ref.shoe) == shoe


def test_a_second_settlement_loses_to_the_first_which_comes_back(repo: Repository) -> None:
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    repo.save_settlement(rnd, "2026-01-01T00:00:01.000Z", False)
    with pytest.raises(ConditionFailed) as lost:
        repo.void_round(rnd, {"reason": "misdeal"})
    winner = lost.value.existing
    assert isinstance(winner, RoundRecord)
    assert (winner.settled_at, winner.void, winner.money) == (
        "2026-01-01T00:00:01.000Z",
        None,
        rnd.money,
    )
    assert winner.settlement_hash is not None
    assert stored_round(repo, round_id) == winner


def test_the_due_index_holds_exactly_the_unsettled_locked_rounds(repo: Repository) -> None:
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    assert rnd.settle_by is not None
    assert repo.due_rounds(rnd.settle_by, 10) == [(OP, rnd.ref)]
    assert repo.due_rounds("2000-01-01T00:00:00.000Z", 10) == []
    repo.save_settlement(rnd, "2026-01-01T00:00:01.000Z", True)
    assert repo.due_rounds(rnd.settle_by, 10) == []
    second = _other_round(repo, rnd)
    assert repo.due_rounds(rnd.settle_by, 10) == [(OP, second.ref)]
    repo.void_round(second, {"reason": "misdeal"})
    assert repo.due_rounds(rnd.settle_by, 10) == []


def test_an_idempotency_record_is_put_with_its_effect_or_not_at_all(repo: Repository) -> None:
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    now = int(time.time())
    repo.save_settlement(rnd, "t", False, idem=idem("k1", now + 3600))
    assert repo.load(OP, idem_key="k1").idempotency == idem("k1", now + 3600)
    # a live record with the same key: the transaction loses on it (duplicate), nothing written
    with pytest.raises(ConditionFailed) as lost:
        repo.create_table(
            dataclasses.replace(
                _table(repo, rnd), table_id="tbl_bbbbbbbbbbbbbbbb", write_id="wb", number=None
            ),
            idem("k1", now + 7200),
        )
    assert lost.value.duplicate
    assert repo.get_table(OP, "tbl_bbbbbbbbbbbbbbbb") is None
    # an expired one is replaced
    repo.save_settlement(_other_round(repo, rnd), "t", False, idem=idem("k2", now - 1))
    repo.create_table(
        dataclasses.replace(
            _table(repo, rnd), table_id="tbl_cccccccccccccccc", write_id="wc", number=None
        ),
        idem("k2", now + 60),
    )
    assert repo.load(OP, idem_key="k2").idempotency == idem("k2", now + 60)


def _table(repo: Repository, rnd: RoundRecord) -> TableRecord:
    table = repo.get_table(OP, rnd.table_id)
    assert table is not None
    return table


def _other_round(repo: Repository, rnd: RoundRecord) -> RoundRecord:
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None
    second = dataclasses.replace(rnd, round_number=2, settled_at=None, write_id="wsecond")
    moved = dataclasses.replace(shoe, version=shoe.version + 1, rounds_dealt=2)
    repo.record_round(shoe, moved, second, None)
    return second


def test_closing_publishes_the_proof_naming_the_partition_of_its_rounds(repo: Repository) -> None:
    shoe_id, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    repo.save_settlement(rnd, "2026-01-01T00:00:01.000Z", False)
    assert repo.proof_page(shoe_id, 1) == (None, None)
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None
    after, proof = tables.end_shoe(shoe, b"\x00" * 32, "closed", "wclose", repo.clock())
    repo.close_shoe(shoe, after, proof)
    published, page = repo.proof_page(shoe_id, 1)
    assert published == proof and published.operator_id == OP and page is None
    assert repo.shoe_history(OP, rnd.ref.shoe) == ShoeHistory(after, [stored_round(repo, round_id)])
    assert repo.shoe_history("operator-b", rnd.ref.shoe) == ShoeHistory()
    assert repo.due_proofs("2999-01-01T00:00:00.000Z", 10) == [shoe_id]
    assert repo.due_proofs("2000-01-01T00:00:00.000Z", 10) == []  # before the shoe ended
    table = repo.get_table(OP, rnd.table_id)
    assert table is not None and table.open_shoe_id is None and table.chain_head == shoe.chain_head
    history = repo.shoe_history(OP, rnd.ref.shoe)
    assert history.shoe is not None and history.shoe.shoe_number == 1
    assert [r.round_number for r in history.rounds] == [1] and history.rounds[0].settlement
    assert repo.chain_head_of(OP, rnd.ref.shoe) == shoe.chain_head
    assert repo.chain_head_of(OP, ShoeRef(rnd.table_id, 2)) is None
    assert repo.shoe_history(OP, ShoeRef(rnd.table_id, 2)) == ShoeHistory()


def test_a_single_update_that_loses_brings_the_winner_back_too(repo: Repository) -> None:
    """One write is one UpdateItem (no transaction); its lost condition still says who won."""
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    repo.save_settlement(rnd, "2026-01-01T00:00:01.000Z", False)
    late = Update(
        RoundRecord,
        (rnd.operator_id, rnd.table_id, rnd.shoe_number, rnd.round_number),
        set={"settled_at": "never"},
        expect={"settled_at": ABSENT},
        return_existing=True,
    )
    with pytest.raises(ConditionFailed) as lost:
        repo.transact("late settlement", [late])
    assert lost.value.existing == stored_round(repo, round_id)
    assert stored_round(repo, round_id).settled_at == "2026-01-01T00:00:01.000Z"


@pytest.mark.parametrize("alone", [True, False], ids=["UpdateItem", "TransactWriteItems"])
def test_a_lost_shoe_update_brings_the_whole_shoe_back(repo: Repository, alone: bool) -> None:
    """A shoe is stored as two items (the DynamoDB adapter: what every deal moves, and the
    constants of its commit); the winner a lost condition returns is still the whole shoe."""
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None
    stale = Update(
        ShoeRecord,
        (shoe.operator_id, shoe.table_id, shoe.shoe_number),
        set={"cursor": 0},
        expect={"version": shoe.version - 1},
        return_existing=True,
    )
    writes = [stale] if alone else [Put(idem("k" * 64, 1)), stale]
    with pytest.raises(ConditionFailed) as lost:
        repo.transact("stale shoe", writes)
    assert lost.value.existing == shoe and repo.get_shoe(OP, rnd.ref.shoe) == shoe


# --- final proofs ---------------------------------------------------------------------------


def closed(repo: Repository) -> tuple[str, RoundRecord, ShoeRecord, ProofRecord]:
    """A shoe of one round, closed: its id, the round, the ended shoe, its proof item."""
    shoe_id, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None
    after, proof = tables.end_shoe(shoe, b"\x00" * 32, "closed", "wclose", repo.clock())
    repo.close_shoe(shoe, after, proof)
    return shoe_id, rnd, after, proof


def test_stored_pages_read_back_byte_for_byte_with_the_proof_item(repo: Repository) -> None:
    """Pages of one part and of more parts than one read fetches (a page longer than any the
    split rule makes: the adapter's second read)."""
    from baccarat_api.adapters.dynamodb.pages import PART_BYTES, PREFETCH_PARTS

    shoe_id, _, _, proof = closed(repo)
    small = b'{"page":1,"x":"' + "é".encode() * 10 + b'"}'
    noise = hashlib.shake_256(b"incompressible").digest(PART_BYTES * (PREFETCH_PARTS + 1) + 7)
    large = b'{"page":2,"x":"' + noise.hex().encode()[: len(noise)] + b'"}'
    repo.put_proof_pages(shoe_id, [small, large])
    assert repo.proof_page(shoe_id, 1) == (proof, small)
    assert repo.proof_page(shoe_id, 2) == (proof, large)
    assert repo.proof_page(shoe_id, 3) == (proof, None)
    repo.put_proof_pages(shoe_id, [small, large])  # a second finaliser: the same items
    assert repo.proof_page(shoe_id, 2) == (proof, large)


def test_finalising_is_write_once_and_adds_to_the_totals_it_makes(repo: Repository) -> None:
    shoe_id, rnd, after, proof = closed(repo)
    iv = {"voided_rounds": 1, "voided_player_net": -250, "voided_player_banker_net": 240,
          "closed_early": True, "rounds_dealt": 1, "rounds_possible": 30}  # fmt: skip
    line = ShoeFairness(rnd.table_id, 1, shoe_id, after.ended_at or "", "closed", iv, "t1")
    before = repo.fairness(rnd.table_id, before=None, limit=10)
    assert before.totals == FairnessTotals(rnd.table_id, operator_id=OP, latest_shoe_number=1)
    assert before.shoes == []
    repo.finalise_proof(proof, {"value": "first"}, 1, "t1", line)
    with pytest.raises(ConditionFailed) as lost:
        repo.finalise_proof(proof, {"value": "second"}, 1, "t2", line)
    winner = lost.value.existing
    assert isinstance(winner, ProofRecord) and winner.signature == {"value": "first"}
    assert (winner.page_count, winner.finalised_at) == (1, "t1")
    assert repo.due_proofs("2999-01-01T00:00:00.000Z", 10) == []  # final: out of the index
    page = repo.fairness(rnd.table_id, before=None, limit=10)
    assert page.shoes == [line] and not page.more
    assert page.totals == FairnessTotals(rnd.table_id, 1, 1, -250, 1, 1, 30, 240, OP, 1)
    # a table without totals (made before they existed): the first finalisation makes them
    other = ShoeFairness(
        "tbl_bbbbbbbbbbbbbbbb", 3, "tbl_bbbbbbbbbbbbbbbb_s3", "t", "rules", iv, "t"
    )
    stray = dataclasses.replace(proof, shoe_id=other.shoe_id, table_id=other.table_id)
    repo.transact("stray proof", [Put(stray)])
    assert repo.fairness(other.table_id, before=None, limit=10).totals is None
    repo.finalise_proof(stray, {"value": "x"}, 1, "t", other)
    assert repo.fairness(other.table_id, before=None, limit=10).totals == FairnessTotals(
        other.table_id, 1, 1, -250, 1, 1, 30, 240
    )


def test_fairness_lines_come_newest_first_a_page_at_a_time(repo: Repository) -> None:
    table_id = "tbl_cccccccccccccccc"
    repo.transact("totals", [Put(FairnessTotals(table_id, shoes=5))])
    lines = [
        ShoeFairness(table_id, n, f"{table_id}_s{n}", "t", "rules", {"n": n}, "t")
        for n in range(1, 6)
    ]
    repo.transact("lines", [Put(line) for line in lines])
    first = repo.fairness(table_id, before=None, limit=2)
    assert [x.shoe_number for x in first.shoes] == [5, 4] and first.more
    assert first.totals is not None and first.totals.shoes == 5
    rest = repo.fairness(table_id, before=4, limit=2)
    assert (
        [x.shoe_number for x in rest.shoes] == [3, 2] and rest.more and rest.totals == first.totals
    )
    last = repo.fairness(table_id, before=2, limit=2)
    assert [x.shoe_number for x in last.shoes] == [1] and not last.more
    exact = repo.fairness(table_id, before=None, limit=5)
    assert len(exact.shoes) == 5 and not exact.more


def test_open_rounds_lists_the_unresolved_rounds_of_a_shoe(repo: Repository) -> None:
    shoe_id, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    second = _other_round(repo, rnd)
    assert repo.open_rounds(shoe_id) == [(1, rnd.settle_by), (2, second.settle_by)]
    repo.save_settlement(rnd, "2026-01-01T00:00:01.000Z", False)
    void = {"reason": "misdeal", "note": None, "voided_at": "t", "replaced": {}}
    repo.void_round(stored_round(repo, second.round_id), void)
    assert repo.open_rounds(shoe_id) == []
    assert repo.open_rounds("tbl_aaaaaaaaaaaaaaaa_s1") == []


def test_the_parked_failures_listed_skip_the_replayed_ones_whatever_the_page(
    repo: Repository,
) -> None:
    """Five events parked, the first three replayed since (``delivered_at`` set): a page of two
    is the two still parked (regression: DynamoDB applies a Query's ``Limit``
    before its filter, so the page read the first two failures, both replayed, and answered
    none — the parked ones stayed invisible to ``GET /v1/webhook/failures``)."""
    parked = [
        WebhookFailure(OP, f"tbl_x:{n}", "tbl_x", n, 5, "2026-01-01T00:00:00Z",
                       "2026-01-02T00:00:00Z", "HTTP 500")
        for n in range(1, 6)
    ]  # fmt: skip
    repo.transact("park", [Put(f) for f in parked])
    for f in parked[:3]:
        key = (OP, f.event_id)
        repo.transact("replayed", [Update(WebhookFailure, key, set={"delivered_at": "now"})])
    assert [f.event_id for f in repo.webhook_failures(OP, 2)] == ["tbl_x:4", "tbl_x:5"]
    assert [f.event_id for f in repo.webhook_failures(OP, 100)] == ["tbl_x:4", "tbl_x:5"]
    assert repo.webhook_failures("operator-b", 100) == []


def test_a_webhook_put_on_a_stale_read_loses(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two ``PUT /v1/webhook`` at once, both after an earlier one: the write conditioned on the
    secret as read wins once; the other is 409 ``concurrent_update`` and stores nothing."""
    from baccarat_api.service import webhooks
    from baccarat_api.service.errors import DomainError

    vault = MemoryVault()
    webhooks.set_webhook(repo, vault, OP, "https://example.com/old")
    as_read = repo.get_webhook(OP)
    monkeypatch.setattr(repo, "get_webhook", lambda operator_id, **_: as_read)
    winner = webhooks.set_webhook(repo, vault, OP, "https://example.com/a")
    with pytest.raises(DomainError) as refused:
        webhooks.set_webhook(repo, vault, OP, "https://example.com/b")
    assert refused.value.code == "concurrent_update"
    monkeypatch.undo()
    stored = repo.get_webhook(OP)
    assert stored is not None and as_read is not None
    assert (stored.url, stored.created_at) == (winner.url, winner.created_at)
    assert stored.secret_ct != as_read.secret_ct and stored.removed_at is None


def test_the_idle_index_holds_open_shoes_at_their_close_by_moved_by_deals_and_ends(
    repo: Repository,
) -> None:
    """An open shoe is listed for the sweep's idle close at its ``close_by``
    (commit or last deal + the table's idle_shoe_close_seconds); a deal moves it, the end
    removes it."""
    shoe_id, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None and shoe.close_by is not None and shoe.close_by > rnd.dealt_at
    assert repo.idle_shoes(shoe.close_by, 10) == [(OP, shoe.ref)]
    before = "2000-01-01T00:00:00.000Z"
    assert repo.idle_shoes(before, 10) == []
    moved = dataclasses.replace(shoe, version=shoe.version + 1, close_by="2031-01-01T00:00:00.000Z")
    repo.transact("move", [repo._shoe_update(shoe, moved)])  # type: ignore[attr-defined]
    assert repo.idle_shoes(shoe.close_by, 10) == []
    assert repo.idle_shoes("2031-01-01T00:00:00.000Z", 10) == [(OP, shoe.ref)]
    after, proof = tables.end_shoe(moved, b"\x00" * 32, "closed", "wend", repo.clock())
    repo.close_shoe(moved, after, proof)
    assert repo.idle_shoes("2999-01-01T00:00:00.000Z", 10) == []
    stored = repo.get_shoe(OP, shoe.ref)
    assert stored is not None and stored.close_by is None and shoe_id == stored.shoe_id
