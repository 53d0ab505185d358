"""The push job and the push epoch over the in-memory repository: stream records (the items the
changes wrote, as the stream's NEW_IMAGE carries them) → per channel, ONE ``events`` message per
batch in ``seq`` order (split only past the message size), a ``chat`` message per chat line,
``rotate`` last after a rotation; the state names the current channel; a subscription is
allowed only to an own table's current channel."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from baccarat_api.adapters.dynamodb.codec import to_item
from baccarat_api.jobs import push as job
from baccarat_api.ports.chat_records import ChatMessage, new_message_id
from baccarat_api.ports.push import PushUnavailable
from baccarat_api.ports.records import EventRecord
from baccarat_api.service import events, push
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models.push import PUSH_MESSAGE, PushChat, PushEvents, PushRotate
from baccarat_api.service.table_state import table_state

from .conftest import Game
from .test_service import OP, new_table


class Recorder:
    """A publisher that keeps what it was given, in order."""

    def __init__(self) -> None:
        self.published: list[tuple[str, list[str]]] = []

    def publish(self, channel: str, messages: Sequence[str]) -> None:
        self.published.append((channel, list(messages)))

    def parsed(self) -> list[tuple[str, Any]]:
        return [(c, PUSH_MESSAGE.validate_json(m)) for c, ms in self.published for m in ms]


def watchers(game: Game, table_id: str, *names: str) -> None:
    """One change reporting a ``watcher_joined`` per name."""
    live = game.repo.load(OP, live=table_id).live
    ev = events.emit(
        live, OP, table_id, game.repo.clock(),
        [("watcher_joined", {"bettor_id": n}) for n in names],
    )  # fmt: skip
    game.repo.emitting("test", [], ev)


def stored_events(game: Game, table_id: str) -> list[EventRecord]:
    got, _ = game.repo.table_events(OP, table_id, 0, 1000)
    return list(got)


def insert(item: dict[str, Any]) -> dict[str, Any]:
    return {"eventName": "INSERT", "eventSource": "aws:dynamodb", "dynamodb": {"NewImage": item}}


def records_of(evs: Sequence[EventRecord]) -> list[dict[str, Any]]:
    return [insert(to_item(e)) for e in evs]


def chat_item(table_id: str, n: int, epoch: int | None = None) -> dict[str, Any]:
    """A chat line's item as the chat part writes it (its record through the codec)."""
    message_id = new_message_id(1_767_225_600_000 + n)
    line = ChatMessage(
        OP, table_id, message_id, "alice", f"<b>hello</b> {n}", "2026-01-01T00:00:00.000Z",
        1_767_312_000, epoch=epoch,
    )  # fmt: skip
    return to_item(line)


def test_a_batch_is_one_events_message_per_table_in_seq_order(game: Game) -> None:
    a, b = new_table(game), new_table(game)
    watchers(game, a, "w1", "w2")
    watchers(game, b, "x1")
    watchers(game, a, "w3")
    evs_a, evs_b = stored_events(game, a), stored_events(game, b)
    # interleaved as two tables' writes reach the stream; one record twice (a retried write
    # is not, but a retried batch is: the job must not repeat an event within a batch) and a
    # MODIFY of a live item, which the job ignores
    records = records_of([evs_a[0], evs_b[0], evs_a[1], evs_a[1], evs_a[2]])
    image = records[0]["dynamodb"]["NewImage"]
    records.append({"eventName": "MODIFY", "dynamodb": {"NewImage": image}})
    out = Recorder()
    assert job.on_records(records, out) == 2
    assert [c for c, _ in out.published] == [push.channel(a, 1), push.channel(b, 1)]
    (_, first), (_, second) = out.parsed()
    assert isinstance(first, PushEvents) and isinstance(second, PushEvents)
    assert first.table_id == a and [e.seq for e in first.events] == [1, 2, 3]
    assert [e.data["bettor_id"] for e in first.events] == ["w1", "w2", "w3"]
    assert second.table_id == b and [e.event_id for e in second.events] == [f"{b}:1"]
    # exactly what GET …/events answers
    page, _ = events.table_events(game.repo, OP, a, 0, 100)
    assert [e.model_dump() for e in first.events] == [e.model_dump() for e in page.events]


def test_nothing_but_new_event_and_chat_items_is_published(game: Game) -> None:
    a = new_table(game)
    live = game.repo.load(OP, live=a).live
    table = game.repo.get_table(OP, a)
    assert table is not None
    out = Recorder()
    records = [insert(to_item(table)), {"eventName": "REMOVE", "dynamodb": {}}]
    if live is not None:
        records.append(insert(to_item(live)))
    assert job.on_records(records, out) == 0
    assert out.published == []


def test_chat_lines_follow_the_events_one_message_each(game: Game) -> None:
    a = new_table(game)
    watchers(game, a, "w1")
    evs = records_of(stored_events(game, a))
    first, second = chat_item(a, 1), chat_item(a, 2)
    records = [insert(first), *evs, insert(second)]
    out = Recorder()
    assert job.on_records(records, out) == 3
    kinds = [m for _, m in out.parsed()]
    assert isinstance(kinds[0], PushEvents)
    assert [type(m) for m in kinds[1:]] == [PushChat, PushChat]
    chats = [m for m in kinds[1:] if isinstance(m, PushChat)]
    assert [c.message.message_id for c in chats] == [
        first["message_id"]["S"],
        second["message_id"]["S"],
    ]
    assert chats[0].message.text == "<b>hello</b> 1"  # as typed: rendered inert by the page
    assert {c for c, _ in out.published} == {push.channel(a, 1)}


def test_a_chat_line_goes_to_the_channel_of_the_epoch_it_carries(game: Game) -> None:
    a = new_table(game)
    out = Recorder()
    job.on_records([insert(chat_item(a, 1, epoch=3))], out)
    assert [c for c, _ in out.published] == [push.channel(a, 3)]


def test_a_batch_larger_than_a_message_is_split_in_order(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = new_table(game)
    for n in range(12):
        watchers(game, a, f"watcher-{n:02d}")
    monkeypatch.setattr(job, "PUSH_MAX_MESSAGE_BYTES", 700)
    out = Recorder()
    job.on_records(records_of(stored_events(game, a)), out)
    ((_, messages),) = out.published  # one publish, in order
    assert len(messages) > 2
    assert all(len(m.encode()) <= 700 for m in messages)
    seqs = [e.seq for m in messages for e in PushEvents.model_validate_json(m).events]
    assert seqs == list(range(1, 13))


def test_the_state_names_the_table_channel_and_the_push_url(game: Game) -> None:
    a = new_table(game)
    state, _ = table_state(game.repo, OP, a, push_url="ws://127.0.0.1:8000/event/realtime")
    assert state.push_channel == f"/tables/{a}/e1"
    assert state.push_url == "ws://127.0.0.1:8000/event/realtime"
    assert table_state(game.repo, OP, a)[0].push_url is None


def test_a_rotation_moves_the_channel_and_ends_the_old_one_with_rotate(game: Game) -> None:
    a = new_table(game)
    watchers(game, a, "w1")
    assert push.rotate(game.repo, OP, a) == 2
    watchers(game, a, "w2")
    assert push.rotate(game.repo, OP, a) == 3
    assert table_state(game.repo, OP, a)[0].push_channel == f"/tables/{a}/e3"
    evs = stored_events(game, a)
    assert [(e.type, e.epoch) for e in evs] == [
        ("watcher_joined", None),  # never rotated: not stored, read as 1
        ("push_rotated", None),
        ("watcher_joined", 2),
        ("push_rotated", 2),
    ]
    out = Recorder()
    job.on_records(records_of(evs), out)
    got = [(c, m.type, getattr(m, "channel", None)) for c, m in out.parsed()]
    assert got == [
        (f"/tables/{a}/e1", "events", None),
        (f"/tables/{a}/e1", "rotate", f"/tables/{a}/e2"),
        (f"/tables/{a}/e2", "events", None),
        (f"/tables/{a}/e2", "rotate", f"/tables/{a}/e3"),
    ]
    rotated = [e for _, m in out.parsed() if isinstance(m, PushEvents) for e in m.events]
    assert [e.data for e in rotated if e.type == "push_rotated"] == [{"epoch": 2}, {"epoch": 3}]
    assert all(isinstance(m, PushEvents | PushRotate) for _, m in out.parsed())


def test_a_rotation_of_a_table_the_operator_has_not_is_not_found(game: Game) -> None:
    a = new_table(game)
    with pytest.raises(DomainError) as raised:
        push.rotate(game.repo, "operator-b", a)
    assert raised.value.code == "not_found"
    assert all(e.type != "push_rotated" for e in stored_events(game, a))


def test_a_subscription_only_to_an_own_table_current_channel(game: Game) -> None:
    a = new_table(game)
    assert push.subscribe_refusal(game.repo, OP, f"/tables/{a}/e1") is None
    assert push.subscribe_refusal(game.repo, "operator-b", f"/tables/{a}/e1")
    assert push.subscribe_refusal(game.repo, OP, f"/tables/{a}/e2")  # not yet
    for bad in ("/tables", f"/tables/{a}", f"/tables/{a}/e0", f"/default/{a}/e1",
                f"/tables/{a}/e1/x", "/tables/nope/e1", f"/tables/{a}/*"):  # fmt: skip
        assert push.subscribe_refusal(game.repo, OP, bad), bad
    push.rotate(game.repo, OP, a)
    assert push.subscribe_refusal(game.repo, OP, f"/tables/{a}/e1")  # the old one: refused
    assert push.subscribe_refusal(game.repo, OP, f"/tables/{a}/e2") is None


def test_every_message_is_json_of_its_model() -> None:
    for text in (
        '{"type":"events","table_id":"t","events":[]}',
        '{"type":"rotate","table_id":"t","channel":"/tables/t/e2"}',
    ):
        assert PUSH_MESSAGE.validate_json(text).model_dump() == json.loads(text)
    with pytest.raises(ValueError):
        PUSH_MESSAGE.validate_json('{"type":"nope","table_id":"t"}')


class FailingOn(Recorder):
    """Fails the publish to one channel, keeps the others."""

    def __init__(self, channel: str) -> None:
        super().__init__()
        self.channel = channel

    def publish(self, channel: str, messages: Sequence[str]) -> None:
        if channel == self.channel:
            raise PushUnavailable(channel)
        super().publish(channel, messages)


def test_many_tables_publish_at_once_and_a_failure_fails_the_batch(game: Game) -> None:
    tables = [new_table(game) for _ in range(5)]
    for t in tables:
        watchers(game, t, "w1", "w2")
    records = [r for t in tables for r in records_of(stored_events(game, t))]
    out = Recorder()
    assert job.on_records(records, out) == 5
    assert sorted(c for c, _ in out.published) == sorted(push.channel(t, 1) for t in tables)
    for _, m in out.parsed():  # each channel's events whole and in order
        assert isinstance(m, PushEvents) and [e.seq for e in m.events] == [1, 2]
    failing = FailingOn(push.channel(tables[2], 1))
    with pytest.raises(PushUnavailable):
        job.on_records(records, failing)  # the batch is retried whole (at-least-once)
    assert len(failing.published) == 4  # the others were published meanwhile
