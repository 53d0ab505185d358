"""One contract, two token stores (ports/tokens.py): the in-memory twin and the DynamoDB adapter
answer the same — a key id stored once; a table's revocations empty until written, written only
at the next version (a stale write refused, nothing changed); and on DynamoDB Local, revocations
racing from threads all hold (each retried on its lost version, none lost)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from support.stack import Api, Stack, new_table

from baccarat_api.adapters.dynamodb.tokens import DynamoTokenStore
from baccarat_api.adapters.memory_tokens import MemoryTokenStore
from baccarat_api.ports.tokens import Revocations, RevocationsMoved, TokenKey, TokenStore
from baccarat_api.service import tokens

OP, TABLE = "operator-a", "tbl_aaaaaaaaaaaaaaaa"


@pytest.fixture(params=["memory", "dynamodb"])
def store(request: pytest.FixtureRequest) -> TokenStore:
    if request.param == "memory":
        return MemoryTokenStore()
    stack: Stack = request.getfixturevalue("stack")
    return DynamoTokenStore(stack.dynamodb, stack.repo.state, stack.repo.config)


def test_a_key_id_is_stored_once(store: TokenStore) -> None:
    assert store.token_keys() == []
    assert store.add_token_key(TokenKey("k_one", b"sealed-1", 100)) is True
    assert store.add_token_key(TokenKey("k_one", b"sealed-2", 200)) is False
    assert store.add_token_key(TokenKey("k_two", b"sealed-3", 300)) is True
    assert sorted(store.token_keys(), key=lambda k: k.kid) == [
        TokenKey("k_one", b"sealed-1", 100),
        TokenKey("k_two", b"sealed-3", 300),
    ]


def test_revocations_are_written_only_at_the_next_version(store: TokenStore) -> None:
    assert store.revocations(OP, TABLE) == Revocations()
    first = Revocations({"tk_a": 10}, {"alice": 5}, 1)
    store.put_revocations(OP, TABLE, first)
    assert store.revocations(OP, TABLE) == first
    with pytest.raises(RevocationsMoved):
        store.put_revocations(OP, TABLE, Revocations({}, {"bob": 6}, 1))  # stale: again v1
    with pytest.raises(RevocationsMoved):
        store.put_revocations(OP, TABLE, Revocations({}, {"bob": 6}, 3))  # skips v2
    assert store.revocations(OP, TABLE) == first
    second = Revocations({}, {"bob": 6}, 2)
    store.put_revocations(OP, TABLE, second)
    assert store.revocations(OP, TABLE) == second
    assert store.revocations("operator-b", TABLE) == Revocations()  # another operator's: none


def test_revocations_racing_on_dynamodb_local_all_hold(
    dynamodb_local_api: Api, dynamodb_local_stack: Stack
) -> None:
    from baccarat_api import runtime

    t = new_table(dynamodb_local_api)
    repo = runtime.get_runtime().repo
    people = [f"p{i}" for i in range(8)]
    errors: list[Any] = []
    start = threading.Barrier(len(people))

    def revoke(who: str) -> None:
        try:
            start.wait()
            tokens.revoke(repo, OP, t, bettor_id=who)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=revoke, args=(p,)) for p in people]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    stored = repo.token_store.revocations(OP, t)
    assert set(stored.floor) == set(people) and stored.version == len(people)
