"""One contract, two adapters: the in-memory repository (which the unit tier's service tests
trust) and the DynamoDB adapter over moto answer every port call the same way — the same
records, the same lost conditions (with the same winner and the same duplicate flag), the same
all-or-nothing transactions, the same index and partition reads."""

from __future__ import annotations

import dataclasses
import time

import pytest
from support.stack import TIERS, Stack, star_city_bets

from baccarat_api.adapters.memory import MemoryRepository, MemoryVault
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.jobs.seed import tier_docs
from baccarat_api.ports.records import IdempotencyRecord, RoundRecord, TableRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.ports.writes import ABSENT, Update
from baccarat_api.service import tables
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


def test_a_stale_deal_loses_and_writes_nothing(repo: Repository) -> None:
    _, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None
    stale = dataclasses.replace(shoe, version=shoe.version - 1)
    moved = dataclasses.replace(shoe, version=shoe.version + 1, rounds_dealt=2)
    second = dataclasses.replace(rnd, round_number=2)
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
            dataclasses.replace(_table(repo, rnd), table_id="tbl_bbbbbbbbbbbbbbbb"),
            idem("k1", now + 7200),
        )
    assert lost.value.duplicate
    assert repo.get_table(OP, "tbl_bbbbbbbbbbbbbbbb") is None
    # an expired one is replaced
    repo.save_settlement(_other_round(repo, rnd), "t", False, idem=idem("k2", now - 1))
    repo.create_table(
        dataclasses.replace(_table(repo, rnd), table_id="tbl_cccccccccccccccc"),
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
    second = dataclasses.replace(rnd, round_number=2, settled_at=None)
    moved = dataclasses.replace(shoe, version=shoe.version + 1, rounds_dealt=2)
    repo.record_round(shoe, moved, second, None)
    return second


def test_closing_publishes_the_proof_naming_the_partition_of_its_rounds(repo: Repository) -> None:
    shoe_id, round_id = played(repo)
    rnd = stored_round(repo, round_id)
    repo.save_settlement(rnd, "2026-01-01T00:00:01.000Z", False)
    assert repo.get_proof(shoe_id) is None
    shoe = repo.get_shoe(OP, rnd.ref.shoe)
    assert shoe is not None
    after, proof = tables.end_shoe(shoe, b"\x00" * 32, "closed")
    repo.close_shoe(shoe, after, proof)
    published = repo.get_proof(shoe_id)
    assert published == proof and published.operator_id == OP
    assert repo.shoe_rounds(OP, rnd.ref.shoe) == [stored_round(repo, round_id)]
    assert repo.shoe_rounds("operator-b", rnd.ref.shoe) == []
    assert repo.shoe_rounds(OP, ShoeRef(rnd.table_id, 2)) == []
    table = repo.get_table(OP, rnd.table_id)
    assert table is not None and table.open_shoe_id is None and table.chain_head == shoe.chain_head
    history = repo.table_history(OP, rnd.table_id)
    assert [s.shoe_number for s in history.shoes] == [1] and history.rounds[0].settlement


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
