"""The chat over the in-memory repository: who may post (people at the table, a book table's
too), the author a token names, hostile text refused through the use case, the per-person and
per-table caps of one window (and the next window free again), mutes and their end, removal
marking (never deleting) and its event, reads skipping expired and removed messages, oldest
first; moderation's events carry no text, and chat is never a table event."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat_api.clock import ms_of
from baccarat_api.limits import (
    CHAT_KEEP_SECONDS,
    CHAT_PER_PERSON,
    CHAT_PER_TABLE,
    CHAT_WINDOW_SECONDS,
    MAX_CHAT_PAGE,
)
from baccarat_api.ports.chat_records import ChatMessage, message_ms
from baccarat_api.ports.records import feed_shard
from baccarat_api.ports.webhooks import Sent
from baccarat_api.service import chat, events, presence, tables, webhooks
from baccarat_api.service import feed as operator_feed
from baccarat_api.service.callers import Caller, Player
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import Replayed, request_for
from baccarat_api.service.models import ChatIn
from baccarat_api.service.settling import settle_round

from .conftest import Game, star_city_bets
from .test_presence_book import BOOK
from .test_service import OP, code_of, deal, final_proof, new_table

OPERATOR = Caller(OP)
#: A window's start, so the test's posts all fall in one window.
START = "2026-12-05T12:00:00.000Z"


def token(table_id: str, bettor_id: str | None, role: Any = "seat") -> Caller:
    player = Player(OP, role, "tk_x", 0, 2**40, table_id, bettor_id)
    return Caller(OP, player)


def say(game: Game, t: str, who: str, text: str = "hello", caller: Caller | None = None) -> Any:
    body = ChatIn(text=text, bettor_id=None if caller else who)
    return chat.post(game.repo, caller or OPERATOR, t, body)


def refusal(call: Any) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call()
    return caught.value


def table_with_people(game: Game) -> str:
    game.clock.set(START)
    t = new_table(game, banking="player_banker")
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    presence.take_banker(game.repo, OP, t, "bank", 5_000_000)
    presence.join_watchers(game.repo, OP, t, "wes")
    return t


def texts(game: Game, t: str, limit: int = 50) -> list[str]:
    return [m.text for m in chat.recent(game.repo, OPERATOR, t, limit).messages]


def feed(game: Game, t: str) -> list[tuple[str, dict[str, Any]]]:
    page, _ = events.table_events(game.repo, OP, t, 0, 100)
    return [(e.type, dict(e.data)) for e in page.events]


def test_people_at_the_table_post_and_everyone_reads_oldest_first(game: Game) -> None:
    t = table_with_people(game)
    seq = feed(game, t)
    first = say(game, t, "alice", "hi all")
    game.clock.advance(0.001)
    say(game, t, "bank", "莊家在此")
    game.clock.advance(0.001)
    say(game, t, "wes", "👀", caller=token(t, "wes", "watcher"))
    assert first.bettor_id == "alice" and first.at == START
    assert first.message_id.startswith("ch_") and message_ms(first.message_id) == ms_of(START)
    assert texts(game, t) == ["hi all", "莊家在此", "👀"]
    assert texts(game, t, 2) == ["莊家在此", "👀"]  # the newest, oldest first
    assert feed(game, t) == seq  # chat is never a table event
    stored = game.repo.items[(ChatMessage, (OP, t, first.message_id))]
    assert isinstance(stored, ChatMessage)
    assert stored.expires_at == ms_of(START) // 1000 + CHAT_KEEP_SECONDS


def test_only_a_person_at_the_table_posts(game: Game) -> None:
    t = table_with_people(game)
    before = dict(game.repo.items)
    refused = refusal(lambda: say(game, t, "stranger"))
    assert (refused.code, refused.details) == ("not_at_table", {"bettor_id": "stranger"})
    assert code_of(lambda: say(game, "tbl_aaaaaaaaaaaaaaaa", "alice")) == "not_found"
    assert code_of(lambda: say(game, "not-a-table", "alice")) == "not_found"
    presence.leave_seat(game.repo, OP, t, 1)
    before = dict(game.repo.items)
    assert code_of(lambda: say(game, t, "alice")) == "not_at_table"
    assert dict(game.repo.items) == before  # refusals write nothing


def test_a_book_tables_spectators_and_watchers_post(game: Game) -> None:
    game.clock.set(START)
    t = new_table(game, **BOOK)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, 5)
    presence.join_spectators(game.repo, OP, t, "sam", 50_000, None, game.vault)
    presence.join_watchers(game.repo, OP, t, "wil")
    assert game.repo.book.get_spectator(OP, t, "sam") is not None
    say(game, t, "sam", "from the book")
    game.clock.advance(0.001)
    say(game, t, "wil", "watching")
    assert texts(game, t) == ["from the book", "watching"]
    presence.leave_spectators(game.repo, OP, t, "sam")
    assert code_of(lambda: say(game, t, "sam")) == "not_at_table"


def test_the_author_is_the_tokens_person(game: Game) -> None:
    t = table_with_people(game)
    assert say(game, t, "", "me", caller=token(t, "alice")).bettor_id == "alice"
    named = ChatIn(text="as bank", bettor_id="bank")
    assert code_of(lambda: chat.post(game.repo, token(t, "alice"), t, named)) == (
        "token_person_mismatch"
    )
    mine = ChatIn(text="me again", bettor_id="alice")
    assert chat.post(game.repo, token(t, "alice"), t, mine).bettor_id == "alice"
    other = new_table(game)
    assert code_of(lambda: say(game, other, "", caller=token(t, "alice"))) == (
        "token_table_mismatch"
    )
    lobby = Caller(OP, Player(OP, "lobby", "tk_y", 0, 2**40))
    assert code_of(lambda: say(game, t, "", caller=lobby)) == "token_table_mismatch"
    anonymous = refusal(lambda: chat.post(game.repo, OPERATOR, t, ChatIn(text="who?")))
    assert (anonymous.code, anonymous.details) == ("not_at_table", {"bettor_id": None})


@pytest.mark.parametrize(
    ("text", "code", "reason"),
    [
        ("bidi \u202eevil", "chat_text_invalid", "format"),
        ("two\nlines", "chat_text_invalid", "control"),
        ("   ", "chat_text_invalid", "empty"),
        ("x" * 201, "chat_text_too_long", None),
    ],
)
def test_hostile_text_is_refused_before_anything_is_read(
    game: Game, text: str, code: str, reason: str | None
) -> None:
    t = table_with_people(game)
    calls = dict(game.repo.calls)
    refused = refusal(lambda: say(game, t, "alice", text))
    assert refused.code == code and refused.details.get("reason") == reason
    assert dict(game.repo.calls) == calls  # refused with no read at all


def test_markup_is_stored_and_answered_as_typed(game: Game) -> None:
    t = table_with_people(game)
    hostile = "<img src=x onerror=alert(1)> &amp; <script>x</script>"
    assert say(game, t, "alice", hostile).text == hostile
    assert texts(game, t) == [hostile]


def test_a_person_posts_at_most_the_cap_per_window_then_again_next_window(game: Game) -> None:
    t = table_with_people(game)
    for n in range(CHAT_PER_PERSON):
        say(game, t, "alice", f"line {n}")
    game.clock.advance(CHAT_WINDOW_SECONDS - 2.5)  # 7.5 s into the window
    before = dict(game.repo.items)
    refused = refusal(lambda: say(game, t, "alice", "one more"))
    assert refused.code == "chat_rate_limited" and refused.retryable
    assert refused.retry_after == 3  # the window ends in 2.5 s: whole seconds, rounded up
    assert refused.details["scope"] == "person"
    assert dict(game.repo.items) == before
    say(game, t, "bank", "others still may")
    game.clock.advance(2.5)  # the next window
    say(game, t, "alice", "again")
    assert texts(game, t)[-1] == "again"


def test_the_table_takes_at_most_its_cap_per_window(game: Game) -> None:
    game.clock.set(START)
    t = new_table(game)
    presence.take_seat(game.repo, OP, t, 1, "alice", 50_000, None)
    people = [f"w{n}" for n in range(CHAT_PER_TABLE + 1)]
    for who in people:
        presence.join_watchers(game.repo, OP, t, who)
    for who in people[:CHAT_PER_TABLE]:
        say(game, t, who)
    refused = refusal(lambda: say(game, t, people[-1]))
    assert (refused.code, refused.details["scope"]) == ("chat_rate_limited", "table")
    assert refused.retry_after == CHAT_WINDOW_SECONDS
    assert len(texts(game, t)) == CHAT_PER_TABLE


def test_a_mute_refuses_posts_until_it_ends_or_is_lifted(game: Game) -> None:
    t = table_with_people(game)
    muted = chat.mute(game.repo, OP, t, "alice", 30)
    assert muted.until == "2026-12-05T12:00:30.000Z"
    refused = refusal(lambda: say(game, t, "alice"))
    assert (refused.code, refused.details) == ("chat_muted", {"until": muted.until})
    assert refused.retryable is False
    game.clock.advance(30)
    assert code_of(lambda: say(game, t, "alice")) == "chat_muted"  # until is included
    game.clock.advance(0.001)  # the mute has ended
    say(game, t, "alice", "back")
    chat.mute(game.repo, OP, t, "alice", 60)
    chat.unmute(game.repo, OP, t, "alice")
    say(game, t, "alice", "unmuted")
    chat.unmute(game.repo, OP, t, "alice")  # not muted: nothing happens, no event
    moderation = [e for e in feed(game, t) if e[0].startswith("chat_")]
    assert moderation == [
        ("chat_muted", {"bettor_id": "alice", "until": muted.until}),
        ("chat_muted", {"bettor_id": "alice", "until": "2026-12-05T12:01:30.001Z"}),
        ("chat_unmuted", {"bettor_id": "alice"}),
    ]
    assert code_of(lambda: chat.mute(game.repo, OP, "tbl_aaaaaaaaaaaaaaaa", "a", 5)) == (
        "not_found"
    )
    assert code_of(lambda: chat.unmute(game.repo, OP, "tbl_aaaaaaaaaaaaaaaa", "a")) == ("not_found")


def test_a_mute_lost_to_the_race_still_refuses_the_post(game: Game) -> None:
    """The post read no mute, but one committed before its transaction: its condition loses,
    it is decided again and refused."""
    t = table_with_people(game)
    read = game.repo.chat_post_state

    def mute_in_between(*args: Any, **kwargs: Any) -> Any:
        state = read(*args, **kwargs)
        if not any(e[0] == "chat_muted" for e in feed(game, t)):
            chat.mute(game.repo, OP, t, "alice", 30)
        return state

    game.repo.chat_post_state = mute_in_between  # type: ignore[method-assign]
    assert code_of(lambda: say(game, t, "alice")) == "chat_muted"
    assert texts(game, t) == []


def test_removal_marks_the_message_and_reports_it_without_its_text(game: Game) -> None:
    t = table_with_people(game)
    kept = say(game, t, "alice", "keep me")
    gone = say(game, t, "bank", "secret words")
    chat.remove(game.repo, OP, t, gone.message_id)
    assert texts(game, t) == ["keep me"]
    stored = game.repo.items[(ChatMessage, (OP, t, gone.message_id))]
    assert isinstance(stored, ChatMessage)  # marked, not deleted
    assert stored.removed and stored.text is None
    assert feed(game, t)[-1] == (
        "chat_message_deleted",
        {"message_id": gone.message_id, "by": "operator"},
    )
    assert "secret words" not in json.dumps(feed(game, t))
    assert code_of(lambda: chat.remove(game.repo, OP, t, gone.message_id)) == "not_found"
    assert code_of(lambda: chat.remove(game.repo, OP, t, "ch_nope")) == "not_found"
    assert code_of(lambda: chat.remove(game.repo, "operator-b", t, kept.message_id)) == (
        "not_found"
    )


def test_reads_skip_expired_messages(game: Game) -> None:
    t = table_with_people(game)
    say(game, t, "alice", "old")
    game.clock.advance(CHAT_KEEP_SECONDS - 1)
    say(game, t, "alice", "new")
    assert texts(game, t) == ["old", "new"]
    game.clock.advance(1)  # "old" is past its TTL (the store may not have deleted it yet)
    assert texts(game, t) == ["new"]
    assert code_of(lambda: chat.remove(game.repo, OP, t, _id_of(game, t, "old"))) == "not_found"


def _id_of(game: Game, t: str, text: str) -> str:
    return next(
        m.message_id
        for m in game.repo.items.values()
        if isinstance(m, ChatMessage) and m.table_id == t and m.text == text
    )


def test_a_page_is_at_most_the_maximum_and_an_unknown_table_is_404(game: Game) -> None:
    t = table_with_people(game)
    assert chat.recent(game.repo, OPERATOR, t, MAX_CHAT_PAGE + 50).messages == []
    assert code_of(lambda: chat.recent(game.repo, OPERATOR, "tbl_aaaaaaaaaaaaaaaa", 5)) == (
        "not_found"
    )
    assert code_of(lambda: chat.recent(game.repo, Caller("operator-b"), t, 5)) == "not_found"
    other = new_table(game)
    assert code_of(lambda: chat.recent(game.repo, token(other, "alice"), t, 5)) == (
        "token_table_mismatch"
    )


def test_an_idempotent_post_is_answered_again_and_posted_once(game: Game) -> None:
    t = table_with_people(game)
    body = ChatIn(text="once", bettor_id="alice")
    raw = body.model_dump_json().encode()
    idem = request_for("key-1", "POST", f"/v1/tables/{t}/chat", raw, 201)
    first = chat.post(game.repo, OPERATOR, t, body, idem)
    with pytest.raises(Replayed) as again:
        chat.post(game.repo, OPERATOR, t, body, idem)
    assert again.value.body == first.model_dump(mode="json")
    assert texts(game, t) == ["once"]


class _Receiver:
    """A webhook receiver that answers 200 and keeps every body."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        self.bodies.append(body)
        return Sent(200, "")


def test_chat_during_a_round_is_in_no_feed_webhook_settlement_or_proof(game: Game) -> None:
    webhooks.set_webhook(game.repo, game.vault, OP, "https://example.com/hook")
    t = new_table(game)
    shoe_id = tables.commit_shoe(game.repo, game.vault, OP, t, "seed").shoe_id
    bets = star_city_bets()
    dealt = deal(game, shoe_id, bets)
    seated = next(b["bettor_id"] for b in bets if b["role"] == "seated")
    secrets = ["CHATSECRET-one", "CHATSECRET-two <b>x</b>"]
    for text in secrets:
        game.clock.advance(0.001)
        say(game, t, seated, text)
    gone = say(game, t, seated, "CHATSECRET-removed")
    chat.remove(game.repo, OP, t, gone.message_id)
    chat.mute(game.repo, OP, t, seated, 60)
    settled = settle_round(game.repo, OP, dealt.round_id)
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    seq = events.table_events(game.repo, OP, t, 0, 1)[0]
    assert seq.events  # the table has events (moderation's among them)
    operator_feed.index(game.repo, [(OP, t, 10**6)])
    receiver = _Receiver()
    webhooks.deliver(game.repo, game.vault, receiver, OP, feed_shard(t))
    page = operator_feed.operator_events(game.repo, OP, None, 100)
    table_events = events.table_events(game.repo, OP, t, 0, 100)[0]
    seen = {
        "table events": table_events.model_dump_json(),
        "operator feed": page.model_dump_json(),
        "webhooks": b"".join(receiver.bodies).decode(),
        "settlement": settled.model_dump_json(),
        "proof": json.dumps(final_proof(game, shoe_id), ensure_ascii=False),
    }
    assert receiver.bodies and "chat_muted" in seen["webhooks"]  # moderation is delivered
    assert "chat_message_deleted" in seen["operator feed"]
    for where_, text in seen.items():
        assert "CHATSECRET" not in text, where_
    assert [m.text for m in chat.recent(game.repo, OPERATOR, t, 10).messages] == secrets


def test_a_post_is_one_batched_read_and_one_transaction(game: Game) -> None:
    t = table_with_people(game)
    before = dict(game.repo.calls)
    say(game, t, "alice")
    after = dict(game.repo.calls)
    moved = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    assert {k: v for k, v in moved.items() if v} == {"batch_get": 1, "transaction": 1}
    before = dict(game.repo.calls)
    chat.recent(game.repo, OPERATOR, t, 10)
    assert dict(game.repo.calls)["query"] == before.get("query", 0) + 1
