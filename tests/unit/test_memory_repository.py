"""The in-memory repository honours the port like DynamoDB does: a transaction is all or
nothing, every condition is checked against the state before the transaction, one item is
written at most once per transaction, and a lost condition says which record won."""

from __future__ import annotations

import dataclasses

import pytest

from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.ports.records import IdempotencyRecord, TableRecord
from baccarat_api.ports.repository import ConditionFailed
from baccarat_api.ports.writes import ABSENT, Put, Update


def table(table_id: str = "tbl_aaaaaaaaaaaaaaaa", **fields: object) -> TableRecord:
    base = TableRecord(
        operator_id="op", table_id=table_id, config={}, rules={}, anchor="00",
        chain_length=3, chain_secret_ct=b"ct", next_shoe_number=1, open_shoe_id=None,
        created_at="2026-01-01T00:00:00.000Z",
    )  # fmt: skip
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


def bump(expect: int, to: int) -> Update:
    return Update(
        TableRecord,
        ("op", "tbl_aaaaaaaaaaaaaaaa"),
        set={"next_shoe_number": to},
        expect={"next_shoe_number": expect},
        return_existing=True,
    )


def test_a_transaction_is_all_or_nothing() -> None:
    repo = MemoryRepository()
    repo.transact("t", [Put(table())])
    other = table("tbl_bbbbbbbbbbbbbbbb")
    with pytest.raises(ConditionFailed) as lost:
        repo.transact("t", [Put(other), bump(expect=5, to=6)])
    assert lost.value.existing == table()  # the stored record that won
    assert repo.get_table("op", "tbl_bbbbbbbbbbbbbbbb") is None  # the first write did not happen


def test_every_condition_is_checked_before_any_write_whatever_the_order() -> None:
    repo = MemoryRepository()
    repo.transact("t", [Put(table())])
    new = Put(table("tbl_bbbbbbbbbbbbbbbb"))
    stale = bump(expect=5, to=6)
    for writes in ([new, stale], [stale, new]):
        with pytest.raises(ConditionFailed):
            repo.transact("t", writes)
        assert repo.get_table("op", "tbl_bbbbbbbbbbbbbbbb") is None
    # and a transaction whose conditions all hold on the state before applies every write
    repo.transact("t", [bump(expect=1, to=2), new])
    moved = repo.get_table("op", "tbl_aaaaaaaaaaaaaaaa")
    assert moved is not None and moved.next_shoe_number == 2
    assert repo.get_table("op", "tbl_bbbbbbbbbbbbbbbb") == table("tbl_bbbbbbbbbbbbbbbb")


def test_two_writes_to_one_item_are_refused_like_dynamodb_does() -> None:
    repo = MemoryRepository()
    with pytest.raises(ValueError):
        repo.transact("t", [Put(table()), Put(table(), if_absent=False)])
    assert repo.items == {}


def test_put_update_and_absent_conditions() -> None:
    repo = MemoryRepository()
    repo.transact("t", [Put(table())])
    with pytest.raises(ConditionFailed):
        repo.transact("t", [Put(table())])  # exists
    with pytest.raises(ConditionFailed):  # an update never creates an item
        repo.transact("t", [Update(TableRecord, ("op", "tbl_missing"), set={"anchor": "1"})])
    open_ = Update(TableRecord, ("op", "tbl_aaaaaaaaaaaaaaaa"), set={"open_shoe_id": "s"},
                   expect={"open_shoe_id": ABSENT})  # fmt: skip
    repo.transact("t", [open_])
    with pytest.raises(ConditionFailed):
        repo.transact("t", [open_])
    close = Update(TableRecord, ("op", "tbl_aaaaaaaaaaaaaaaa"), set={}, remove=("open_shoe_id",),
                   expect={"open_shoe_id": "s"})  # fmt: skip
    repo.transact("t", [close])
    stored = repo.get_table("op", "tbl_aaaaaaaaaaaaaaaa")
    assert stored is not None and stored.open_shoe_id is None


def test_an_idempotency_record_replaces_only_an_expired_one_and_flags_a_duplicate() -> None:
    repo = MemoryRepository()
    record = IdempotencyRecord("op", "h", "f", 201, {"a": 1}, "2026-01-01T00:00:00.000Z", 100)
    repo.transact("t", [Put(table()), Put(record, expired_by=50)])
    with pytest.raises(ConditionFailed) as lost:
        repo.transact("t", [bump(expect=1, to=2), Put(record, expired_by=99)])
    assert lost.value.duplicate
    assert repo.get_table("op", "tbl_aaaaaaaaaaaaaaaa") == table()
    repo.transact("t", [bump(expect=1, to=2), Put(record, expired_by=100)])  # expired now
    stored = repo.get_table("op", "tbl_aaaaaaaaaaaaaaaa")
    assert stored is not None and stored.next_shoe_number == 2


def test_the_vault_binds_each_ciphertext_to_its_context() -> None:
    vault = MemoryVault()
    secret, sealed = vault.draw_secret({"table": "a"})
    assert vault.unseal(sealed, {"table": "a"}) == secret and len(secret) == 32
    with pytest.raises(PermissionError):
        vault.unseal(sealed, {"table": "b"})
