"""What a fixed sequence of use cases stores and answers, pinned byte for byte: every DynamoDB item
(as the codec writes it) and every round's answer, against a golden file written before the
documents were typed. A refactor of how bets, money, facts, squeeze plans or voids travel through
the service must leave stored items, hashes and answers exactly as they were.

Run with ``BACCARAT_WRITE_GOLDEN=1`` to rewrite the golden file (the numbered one: the one from
before numbers stays as it was) — only when a change of the stored bytes is intended (and the
migration of items already written is part of it)."""

from __future__ import annotations

import base64
import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest

from baccarat_api.adapters.dynamodb.codec import SHAPES, from_item, to_items
from baccarat_api.adapters.dynamodb.shape import PACKED, unpack
from baccarat_api.adapters.shoe_cache import ShoeCache
from baccarat_api.ports.records import KEY_FIELDS
from baccarat_api.service import betting, presence, reading, tables
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.models import CreateTableRequest, DealRequest, SlipRequest
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round
from baccarat_dev.entropy import SeededVault

from .conftest import Game, star_city_bets

#: What the scenario stored before tables had numbers (issue 27): kept as it was, so the items
#: written then are still proven to read back byte for byte.
GOLDEN = Path(__file__).parent / "golden" / "stored_items.json"
#: What it stores since: the same, each table with the number it was assigned (its claim, the
#: operator's counter, its lobby keys; its write id names the number). A new pinned case: the
#: old one is never rewritten.
GOLDEN_NUMBERED = Path(__file__).parent / "golden" / "stored_items_numbered.json"
OP = "operator-a"


@pytest.fixture
def fixed(monkeypatch: pytest.MonkeyPatch) -> Game:
    """A game whose clock, ids and secrets are the same on every run."""
    counter = itertools.count()

    def urandom(n: int) -> bytes:
        seed = next(counter).to_bytes(4, "big")
        return (seed * (n // 4 + 1))[:n]

    monkeypatch.setattr(os, "urandom", urandom)
    game = Game()
    game.clock.set("2026-03-01T12:00:00.000Z")  # one instant: the bytes do not depend on
    # how many times a use case reads the clock
    game.vault = SeededVault(game.vault, "pinned")  # type: ignore[assignment]
    game.shoes = ShoeCache(game.vault)
    return game


def _table(game: Game, **fields: Any) -> tuple[str, str]:
    request = CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house", **fields}
    )
    table_id = tables.create_table(game.repo, game.vault, OP, request).table_id
    return table_id, tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed").shoe_id


def _slip(*bets: tuple[str, int]) -> SlipRequest:
    return SlipRequest.model_validate({"bets": [{"type": t, "amount": a} for t, a in bets]})


def _deal(game: Game, shoe_id: str, **body: Any) -> Any:
    return deal_round(game.repo, game.shoes, OP, shoe_id, DealRequest.model_validate(body))


def _scenario(game: Game) -> list[str]:
    """Explicit deals (settled, voided, nobody betting), from-book deals with spectators and
    their personal limits, a player-banker, a squeezed round left open, a closed shoe. The
    answers, as JSON."""
    answers: list[str] = []
    repo = game.repo

    # a house table without a squeeze: explicit deals
    t, shoe = _table(game, squeeze_seconds=0)
    presence.take_seat(repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(repo, OP, t, 2, "bob", 20_000, None)
    first = _deal(game, shoe, bets=star_city_bets())
    answers.append(first.model_dump_json())
    answers.append(settle_round(repo, OP, first.round_id).model_dump_json())
    second = _deal(game, shoe, bets=star_city_bets(), round_number=2)
    answers.append(second.model_dump_json())
    voided = void_round(repo, OP, second.round_id, reason="technical_fault", note="a card fell")
    answers.append(voided.model_dump_json())
    answers.append(_deal(game, shoe, bets=[]).model_dump_json())
    answers.append(tables.close_shoe(repo, game.vault, OP, shoe).model_dump_json())

    # a bid-squeeze table: spectators with personal limits (a maximum and a range), the book
    t, shoe = _table(game, profile="bid-squeeze", tier="bid-squeeze-standard", squeeze_seconds=0)
    presence.take_seat(repo, OP, t, 1, "alice", 50_000, 5)
    presence.join_spectators(repo, OP, t, "carol", 40_000, {"player": 3_000})
    presence.join_spectators(
        repo, OP, t, "dave", 40_000, {"banker": {"min": 1_500, "max": 4_000}, "tie": 800}
    )
    betting.open_betting(repo, OP, t)
    betting.place_slip(repo, OP, t, "alice", _slip(("banker", 1000), ("player_pair", 500)))
    betting.place_slip(repo, OP, t, "carol", _slip(("player", 2500)))
    betting.place_slip(repo, OP, t, "dave", _slip(("banker", 2000), ("tie", 500)))
    dealt = _deal(game, shoe, from_book=True)
    answers.append(dealt.model_dump_json())
    answers.append(settle_round(repo, OP, dealt.round_id).model_dump_json())

    # a player-banked table: the banker seat covers the book
    t, shoe = _table(game, banking="player_banker", squeeze_seconds=0)
    presence.take_banker(repo, OP, t, "bank", 35_000)
    presence.take_seat(repo, OP, t, 1, "alice", 60_000, None)
    betting.open_betting(repo, OP, t)
    betting.place_slip(repo, OP, t, "alice", _slip(("player", 5000)))
    dealt = _deal(game, shoe, from_book=True)
    answers.append(dealt.model_dump_json())
    answers.append(settle_round(repo, OP, dealt.round_id).model_dump_json())

    # a squeezed round, left open (its reveal plan stored with it)
    t, shoe = _table(game)
    presence.take_seat(repo, OP, t, 1, "alice", 50_000, 3)
    presence.take_seat(repo, OP, t, 2, "bob", 20_000, None)
    dealt = _deal(game, shoe, bets=star_city_bets())
    answers.append(dealt.model_dump_json())
    answers.append(reading.get_round(repo, OP, dealt.round_id).model_dump_json())
    return answers


def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return {"b64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _stored(game: Game) -> list[Any]:
    items = [item for record in game.repo.items.values() for item in to_items(record)]
    plain = [_plain(item) for item in items]
    return sorted(plain, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))


def test_stored_items_and_answers_are_the_bytes_they_were(fixed: Game) -> None:
    answers = _scenario(fixed)
    now = {"items": _stored(fixed), "answers": answers}
    if os.environ.get("BACCARAT_WRITE_GOLDEN") == "1":
        GOLDEN_NUMBERED.write_text(json.dumps(now, indent=1, ensure_ascii=False) + "\n")
    pinned = json.loads(GOLDEN_NUMBERED.read_text())
    assert len(now["items"]) == len(pinned["items"])
    for got, want in zip(now["items"], pinned["items"], strict=True):
        assert got == want, (got["pk"], got["sk"])
    assert now["answers"] == pinned["answers"]


def _unplain(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"b64"}:
            return base64.b64decode(value["b64"])
        return {k: _unplain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    return value


#: What numbering a table adds to its item (the number's claim and the counter are items of
#: their own).
NUMBER_ATTRIBUTES = frozenset({"number", "lobby_pk", "lobby_sk"})


#: The fields events gained after the old golden was written (issue 27: the table page draws
#: from the push channel alone): what the table shows right after a deal or a reveal, a slip's
#: lines, a new shoe's cards remaining. Additive: without them an event is the old bytes.
SHOWN_FIELDS = ("round", "shoe", "lines", "cards_remaining")


def _before_shown(item: dict[str, Any]) -> dict[str, Any]:
    if item["kind"]["S"] != "event":
        return item
    data = json.loads(item["data"]["S"])
    # (``lines`` of a settlement is its count, there before: a slip's lines are a list)
    old = {
        k: v
        for k, v in data.items()
        if k not in SHOWN_FIELDS or (k == "lines" and isinstance(v, int))
    }
    return {**item, "data": {"S": json.dumps(old, separators=(",", ":"), ensure_ascii=False)}}


def test_numbering_changed_nothing_but_the_tables_numbers() -> None:
    """The numbered golden is the old one item for item and answer for answer, but for each
    table's number: its attributes, the write id naming it (packed), its claim and the
    operator's counter. Everything else — shoes, rounds, events, hashes — is the same bytes."""
    old, new = json.loads(GOLDEN.read_text()), json.loads(GOLDEN_NUMBERED.read_text())
    assert new["answers"] == old["answers"]
    before = {(i["pk"]["S"], i["sk"]["S"]): i for i in old["items"]}
    added = [i for i in new["items"] if (i["pk"]["S"], i["sk"]["S"]) not in before]
    assert sorted(i["kind"]["S"] for i in added) == [
        "table_number", "table_number", "table_number", "table_number", "table_number_counter"
    ]  # fmt: skip
    numbers = []
    for item in new["items"]:
        was = before.get((item["pk"]["S"], item["sk"]["S"]))
        if was is None:
            continue
        if item["kind"]["S"] != "table":
            assert _before_shown(item) == was, item["sk"]
            continue
        numbers.append(int(item["number"]["N"]))
        assert {k: v for k, v in item.items() if k not in NUMBER_ATTRIBUTES | {PACKED}} == {
            k: v for k, v in was.items() if k != PACKED
        }
        doc, doc_was = (json.loads(unpack(_unplain(i)[PACKED]["B"])) for i in (item, was))
        assert doc.pop("write_id") != doc_was.pop("write_id") and doc == doc_was
    assert sorted(numbers) == [1, 2, 3, 4]


@pytest.mark.parametrize("golden", [GOLDEN, GOLDEN_NUMBERED], ids=["before numbers", "numbered"])
def test_the_pinned_items_read_back_and_are_written_again_byte_for_byte(golden: Path) -> None:
    """Items already stored (the golden ones) decode to records whose items are those bytes
    again: reading a stored round, shoe or live table through the typed records loses or
    reorders nothing."""
    pinned = json.loads(golden.read_text())["items"]
    items = [_unplain(i) for i in pinned]
    by_key = {(i["pk"]["S"], i["sk"]["S"]): i for i in items}
    shapes = {s.kind: s for s in SHAPES.values()}
    again = []
    for item in items:
        shape = shapes.get(item["kind"]["S"])
        if shape is None:  # an item of packed fields apart: read with its record's item
            assert item["kind"]["S"].endswith("_packed")
            continue
        apart = None
        if shape.apart is not None:
            ident = tuple(shape.field(n).decode(item) for n in KEY_FIELDS[shape.record])
            apart = by_key[shape.apart(*ident)]
        again += to_items(from_item(shape.record, item, apart))
    assert sorted((_plain(i) for i in again), key=lambda i: (i["pk"]["S"], i["sk"]["S"])) == pinned
