"""The spec's lifecycle promises and the concurrency guarantees of the write paths.

* ``s_i`` (and the chain secret ``s_N``) is never returned, logged or stored in clear before the
  shoe ends; stored only as KMS ciphertext bound to its item; revealed once the shoe ends.
* Operator keys are stored only hashed and never logged.
* Two deals racing on one shoe: one wins, the other gets 409 ``concurrent_update`` (retryable);
  no card is dealt twice, none skipped. Two settlements racing: one settlement is stored; the
  loser gets it back (same inputs) or 409 (other inputs)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from botocore.exceptions import ClientError
from support.stack import TABLE_NAMES, Api, Stack, star_city_bets

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.ids import parse_round_id, parse_shoe_id
from baccarat_api.ports.vault import chain_context, shoe_context


def dump_tables(stack: Stack) -> str:
    """Every item of both tables, as text (binary attributes as hex too)."""
    out = []
    for name in TABLE_NAMES.values():
        for item in stack.dynamodb.scan(TableName=name)["Items"]:
            for value in item.values():
                if "B" in value:
                    out.append(bytes(value["B"]).hex())
            out.append(json.dumps(item, default=str))
    return "\n".join(out)


def test_no_secret_or_key_leaks_before_the_shoe_ends(
    api: Api, stack: Stack, logs: list[str]
) -> None:
    responses: list[Any] = []

    def keep(r: Any) -> Any:
        responses.append(r.body)
        return r

    table = keep(
        api.post(
            "/v1/tables", {"squeeze_seconds": 0, "profile": "bid-squeeze",
                           "tier": "bid-squeeze-standard", "banking": "house"}
        )
    ).body  # fmt: skip
    shoe = keep(api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "c"})).body
    bets = [
        {"bettor_id": "s1", "role": "seated", "seat": 1, "type": "player", "amount": 1000,
         "balance": 100_000, "level": 2},
    ]  # fmt: skip
    for _ in range(5):
        rnd = keep(api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"bets": bets})).body
        keep(api.post(f"/v1/rounds/{rnd['round_id']}/settlement"))
        keep(api.get(f"/v1/rounds/{rnd['round_id']}"))
    keep(api.get(f"/v1/shoes/{shoe['shoe_id']}"))
    keep(api.get(f"/v1/tables/{table['table_id']}"))
    keep(api.get(f"/v1/shoes/{shoe['shoe_id']}/proof", key=None))

    # what the stored ciphertexts hide (the test may decrypt; the API never shows them)
    ref = parse_shoe_id(shoe["shoe_id"])
    assert ref is not None
    repo = runtime.get_runtime().repo
    stored_table = repo.get_table("operator-a", table["table_id"])
    stored_shoe = repo.get_shoe("operator-a", ref)
    assert stored_table is not None and stored_shoe is not None
    chain_secret = stack.kms.decrypt(
        CiphertextBlob=stored_table.chain_secret_ct,
        EncryptionContext=chain_context("operator-a", table["table_id"]),
    )["Plaintext"]
    shoe_secret = stack.kms.decrypt(
        CiphertextBlob=stored_shoe.secret_ct,
        EncryptionContext=shoe_context("operator-a", table["table_id"], 1),
    )["Plaintext"]
    secrets = {
        "chain secret": chain_secret.hex(),
        "shoe secret": shoe_secret.hex(),
        "operator key": stack.key_a,
    }
    seen = {
        "responses": json.dumps(responses),
        "logs": "\n".join(logs),
        "stored items": dump_tables(stack),
    }
    assert logs, "the lifecycle logged nothing: the capture is broken"
    for where, text in seen.items():
        for what, secret in secrets.items():
            assert secret not in text, f"{what} found in {where}"

    # after the end: s_i is revealed (response, shoe item, proof), s_N still is not
    closed = api.post(f"/v1/shoes/{shoe['shoe_id']}/close").body
    assert closed["server_seed"] == shoe_secret.hex()
    proof = api.get(f"/v1/shoes/{shoe['shoe_id']}/proof", key=None).body
    assert proof["server_seed"] == shoe_secret.hex()
    assert chain_secret.hex() not in dump_tables(stack) + "\n".join(logs)


def test_ciphertexts_are_bound_to_their_item(api: Api, stack: Stack) -> None:
    """A shoe secret's ciphertext copied to another shoe (or table, or operator) does not
    decrypt: the KMS encryption context names its operator, table and shoe number."""
    table_id = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"]
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    shoe = runtime.get_runtime().repo.get_shoe("operator-a", ref)
    assert shoe is not None
    for context in (
        shoe_context("operator-a", table_id, 2),
        shoe_context("operator-b", table_id, 1),
        chain_context("operator-a", table_id),
    ):
        with pytest.raises(ClientError):
            stack.kms.decrypt(CiphertextBlob=shoe.secret_ct, EncryptionContext=context)


def test_two_deals_racing_on_one_shoe(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both requests read the shoe at the same version (the race window, made deterministic);
    the second transaction fails its condition: 409 retryable, nothing written."""
    table_id = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "r"}).body["shoe_id"]
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    repo = runtime.get_runtime().repo
    api.present(table_id, {"bets": star_city_bets()})  # the deals' company, reported first
    stale = repo.load("operator-a", shoe=ref, live=table_id)  # the shoe + the table's live state
    first = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
    assert first.status == 201

    monkeypatch.setattr(DynamoRepository, "load", lambda self, op, **_: stale)
    second = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []})
    assert second.status == 409, second.body
    assert second.error["code"] == "concurrent_update" and second.error["retryable"] is True
    monkeypatch.undo()

    # the retry deals the next round, from where the first stopped (once the first is settled)
    assert api.post(f"/v1/rounds/{first.body['round_id']}/settlement").status == 200
    retry = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []})
    assert retry.status == 201 and retry.body["round_number"] == 2
    assert retry.body["start"] == first.body["start"] + first.body["cards_dealt"]
    round_one = api.get(f"/v1/rounds/{first.body['round_id']}").body
    assert len(round_one["bets"]) == 3  # the loser did not overwrite the winner's round
    state = api.get(f"/v1/shoes/{shoe_id}").body
    assert state["rounds_dealt"] == 2
    items = stack.dynamodb.scan(TableName=TABLE_NAMES["StateTable"])["Items"]
    assert sum(1 for i in items if i["kind"]["S"] == "round") == 2


@pytest.mark.parametrize("auto", [False, True])
def test_two_settlements_racing_on_one_round(
    api: Api, monkeypatch: pytest.MonkeyPatch, auto: bool
) -> None:
    """Both read the round unsettled; the conditional write lets one through and the other
    answers the winner's settlement (a settlement has no inputs of its own: the money was fixed
    at the deal), whether the winner was the operator or the sweep."""
    table_id = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "r"}).body["shoe_id"]
    round_id = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body["round_id"]
    ref = parse_round_id(round_id)
    assert ref is not None
    repo = runtime.get_runtime().repo
    stale = repo.load("operator-a", round_=ref, live=table_id)
    assert stale.round is not None
    if auto:
        from baccarat_api.service.settling import settle_round

        winner_body = settle_round(repo, "operator-a", round_id, auto=True).model_dump(mode="json")
    else:
        winner = api.post(f"/v1/rounds/{round_id}/settlement")
        assert winner.status == 200
        winner_body = winner.body

    monkeypatch.setattr(DynamoRepository, "load", lambda self, op, **_: stale)
    loser = api.post(f"/v1/rounds/{round_id}/settlement")
    assert loser.status == 200 and loser.body == winner_body
    assert loser.body["auto_settled"] is auto
    monkeypatch.undo()
    assert api.get(f"/v1/rounds/{round_id}").body["settlement"] == winner_body


def test_a_commit_racing_another_commit(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body["table_id"]
    repo = runtime.get_runtime().repo
    snap = repo.load("operator-a", table_id=table_id, live=table_id)
    stale = snap.table
    assert stale is not None
    assert api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "1"}).status == 201
    monkeypatch.setattr(DynamoRepository, "load", lambda self, op, **_: snap)
    second = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "2"})
    assert second.status == 409 and second.error["code"] == "concurrent_update"
    monkeypatch.undo()
    table = api.get(f"/v1/tables/{table_id}").body
    assert table["next_shoe_number"] == 2 and table["open_shoe_id"] == f"{table_id}_s1"
    assert replace(stale, next_shoe_number=2) != stale  # (the stale read really was stale)
