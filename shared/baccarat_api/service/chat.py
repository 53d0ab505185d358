"""A table's chat (聊天視窗, seed 000 item 10; docs/design/browsers.md §4): a person at the table
posts a line, anyone at it reads the last ones, the operator moderates.

A post is one read (the table, its live state, the poster's chat state and rate windows, the
``Idempotency-Key``'s record) and ONE transaction: the message, the poster's chat state on
condition that they are not muted, and their rate window and the table's, each added to on
condition that it is under its cap — so of concurrent posts exactly the cap is taken, whatever
the race (429 ``chat_rate_limited`` for the rest, ``Retry-After`` = the window's end).

Chat is not a table event: a message has no ``seq`` and never enters ``GET …/events``, the
operator feed, webhooks, settlements or proofs (it reaches browsers by the push). Moderation is
a fact about the table, so each act is one: ``chat_message_deleted`` (the message is marked
removed and its text dropped, never deleted), ``chat_muted``, ``chat_unmuted`` — no text in any
of them."""

from __future__ import annotations

from baccarat_api.clock import at_ms, ms_of
from baccarat_api.ids import parse_table_id
from baccarat_api.limits import (
    CHAT_KEEP_SECONDS,
    CHAT_MAX_BYTES,
    CHAT_MAX_CHARS,
    CHAT_PER_PERSON,
    CHAT_PER_TABLE,
    CHAT_WINDOW_SECONDS,
    DEFAULT_CHAT_PAGE,
    MAX_CHAT_PAGE,
)
from baccarat_api.ports.chat import ChatPostState
from baccarat_api.ports.chat_records import (
    TABLE_WIDE,
    ChatMessage,
    ChatPerson,
    ChatWindow,
    message_ms,
    new_message_id,
)
from baccarat_api.ports.repository import ConditionFailed, Repository, StoreUnavailable
from baccarat_api.ports.writes import Below, Put, Update, Write
from baccarat_api.service import idempotency
from baccarat_api.service.callers import Caller
from baccarat_api.service.errors import DomainError, not_found
from baccarat_api.service.events import Change, emit, retrying
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.live import commit
from baccarat_api.service.models import ChatIn, ChatOut, ChatPageOut, MuteOut
from baccarat_api.service.reading import table_live
from baccarat_api.service.seating import where
from baccarat_api.service.text import check_text

#: How long a rate window's item outlives its window (its TTL; DynamoDB deletes it late).
WINDOW_TTL_SECONDS = 60
#: Attempts of a post whose transaction lost a condition (the state moved since its read: it is
#: decided again) or met a transaction conflict (the same writes again, under the same token).
POST_ATTEMPTS = 6


def author(caller: Caller, table_id: str, named: str | None) -> str:
    """Who posts: the token's person (``named``, if given, must be them), or with the operator
    key the body's ``bettor_id`` (none: 409 ``not_at_table``, as for anyone not there)."""
    player = caller.player
    if player is None:
        if named is None:  # schema-valid (a token names its person), but nobody posts
            raise DomainError(
                "not_at_table",
                "with the operator key, bettor_id names who posts: a person at the table",
                details={"bettor_id": None},
            )
        return named
    if player.table_id != table_id:
        raise DomainError("token_table_mismatch")
    if player.bettor_id is None:
        raise DomainError("token_route_forbidden")
    if named is not None and named != player.bettor_id:
        raise DomainError("token_person_mismatch", details={"bettor_id": named})
    return player.bettor_id


def window_of(now_ms: int) -> int:
    """The rate window a time is in."""
    return now_ms // (CHAT_WINDOW_SECONDS * 1000)


def _rate_limited(scope: str, cap: int, window: int, now_ms: int) -> DomainError:
    end_ms = (window + 1) * CHAT_WINDOW_SECONDS * 1000
    seconds = max(1, -(-(end_ms - now_ms) // 1000))
    return DomainError(
        "chat_rate_limited",
        f"at most {cap} chat messages per {scope} every {CHAT_WINDOW_SECONDS} s; retry in "
        f"{seconds} s",
        details={
            "scope": scope,
            "limit": cap,
            "window_seconds": CHAT_WINDOW_SECONDS,
            "retry_after_seconds": seconds,
        },
        retry_after=seconds,
    )


def refusal(state: ChatPostState, bettor_id: str, now: str, window: int) -> DomainError | None:
    """Why the post may not be taken on the state read (``None``: it may)."""
    live = state.live
    if not state.in_book and (live is None or where(live, bettor_id) is None):
        return DomainError(
            "not_at_table",
            "only a person at the table (seat, player-banker, spectator, watcher) chats",
            details={"bettor_id": bettor_id},
        )
    person = state.person
    if person is not None and person.muted_until is not None and person.muted_until >= now:
        return DomainError("chat_muted", details={"until": person.muted_until})
    now_ms = ms_of(now)
    for scope, counted, cap in (
        ("person", state.person_window, CHAT_PER_PERSON),
        ("table", state.table_window, CHAT_PER_TABLE),
    ):
        if counted is not None and counted.n >= cap:
            return _rate_limited(scope, cap, window, now_ms)
    return None


def post_writes(message: ChatMessage, window: int) -> list[Write]:
    """A post's transaction: the message; the poster's chat state, on condition of no mute
    running at the message's time; the poster's and the table's rate windows, each on condition
    of being under its cap."""
    op, table, who, now = message.operator_id, message.table_id, message.bettor_id, message.at
    ttl = (window + 1) * CHAT_WINDOW_SECONDS + WINDOW_TTL_SECONDS

    def counted(whose: str, cap: int) -> Update:
        return Update(
            ChatWindow,
            (op, table, whose, window),
            set={"expires_at": ttl},
            add={"n": 1},
            expect={"n": Below(cap)},
            upsert=True,
        )

    return [
        Put(message),
        Update(
            ChatPerson,
            (op, table, who),
            set={"last_at": now, "expires_at": message.expires_at},
            add={"posts": 1},
            expect={"muted_until": Below(now)},
            upsert=True,
        ),
        counted(who, CHAT_PER_PERSON),
        counted(TABLE_WIDE, CHAT_PER_TABLE),
    ]


def out(message: ChatMessage) -> ChatOut:
    return ChatOut(
        message_id=message.message_id,
        bettor_id=message.bettor_id,
        text=message.text or "",
        at=message.at,
    )


def post(
    repo: Repository,
    caller: Caller,
    table_id: str,
    body: ChatIn,
    idem: IdempotencyRequest | None = None,
) -> ChatOut:
    """Post ``body`` at the table: 201 with the message; refusals as the module says."""
    bettor_id = author(caller, table_id, body.bettor_id)
    text = check_text(body.text, CHAT_MAX_CHARS, CHAT_MAX_BYTES)
    if parse_table_id(table_id) is None:
        raise not_found("table", table_id)
    op = caller.operator_id

    def attempt() -> ChatOut | None:
        now = repo.clock()
        now_ms = ms_of(now)
        window = window_of(now_ms)
        key = None if idem is None else idem.key_hash
        state = repo.chat_post_state(op, table_id, bettor_id, window, key)
        idempotency.replay(state.idempotency, idem)
        if state.table is None:
            raise not_found("table", table_id)
        refused = refusal(state, bettor_id, now, window)
        if refused is not None:
            raise refused
        message = ChatMessage(
            op,
            table_id,
            new_message_id(now_ms),
            bettor_id=bettor_id,
            text=text,
            at=now,
            expires_at=now_ms // 1000 + CHAT_KEEP_SECONDS,
            # the live state's push epoch (service/push.py): the channel it is published on
            epoch=getattr(state.live, "push_epoch", None),
        )
        answer = out(message)
        writes = post_writes(message, window)
        stored = idempotency.record(now, idem, op, idempotency.answer(answer))
        if stored is not None:
            writes.append(Put(stored, expired_by=idempotency.ttl_now()))
        return answer if _written(repo, writes, message.message_id) else None

    def attempts() -> ChatOut:
        for _ in range(POST_ATTEMPTS):
            done = attempt()
            if done is not None:
                return done
        raise DomainError("concurrent_update", "the chat changed during the request; retry")

    return idempotency.replaying_refusals(repo, op, idem, attempts)


def _written(repo: Repository, writes: list[Write], token: str) -> bool:
    """Whether the post's transaction committed: ``False`` when a condition lost (decide
    again); a transaction conflict is tried again with the same token (applied at most once);
    a duplicate ``Idempotency-Key`` that completed first: 409 ``idempotency_in_progress``."""
    for tries in range(POST_ATTEMPTS):
        try:
            repo.transact("post chat", writes, token)
            return True
        except ConditionFailed as exc:
            idempotency.check_duplicate(exc)
            return False
        except StoreUnavailable:
            if tries == POST_ATTEMPTS - 1:
                raise
    return False  # pragma: no cover (the loop returns or raises)


def recent(repo: Repository, caller: Caller, table_id: str, limit: int) -> ChatPageOut:
    """The table's last ``limit`` messages (at most ``MAX_CHAT_PAGE``), oldest first."""
    if caller.player is not None and caller.player.table_id != table_id:
        raise DomainError("token_table_mismatch")
    if parse_table_id(table_id) is None:
        raise not_found("table", table_id)
    limit = max(1, min(limit or DEFAULT_CHAT_PAGE, MAX_CHAT_PAGE))
    now_s = ms_of(repo.clock()) // 1000
    messages, exists = repo.chat_recent(caller.operator_id, table_id, now_s, limit)
    if not exists:
        raise not_found("table", table_id)
    return ChatPageOut(messages=[out(m) for m in messages])


def _moderate(
    repo: Repository, what: str, operator_id: str, table_id: str, event: Change, writes: list[Write]
) -> None:
    """One act of moderation: ``writes`` with its event, one transaction (on the table's live
    state: a change lost to another is made again from a fresh read)."""
    _, live = table_live(repo, operator_id, table_id)
    ev = emit(live, operator_id, table_id, repo.clock(), [event])
    commit(repo, what, ev, None, operator_id, None, writes)


def remove(repo: Repository, operator_id: str, table_id: str, message_id: str) -> None:
    """Mark a message removed (its text dropped; every read skips it) and report
    ``chat_message_deleted``; 404 for a message that is not there (or no longer: expired,
    removed)."""
    if parse_table_id(table_id) is None or message_ms(message_id) is None:
        raise not_found("message", message_id)

    def attempt() -> None:
        found = repo.chat_message(operator_id, table_id, message_id)
        now = repo.clock()
        if found is None or found.removed or found.expires_at <= ms_of(now) // 1000:
            raise not_found("message", message_id)
        mark = Update(
            ChatMessage,
            (operator_id, table_id, message_id),
            set={"removed": True},
            remove=("text",),
            expect={"removed": False},
        )
        event: Change = ("chat_message_deleted", {"message_id": message_id, "by": "operator"})
        _moderate(repo, "remove chat message", operator_id, table_id, event, [mark])

    retrying(attempt)


def mute(
    repo: Repository, operator_id: str, table_id: str, bettor_id: str, seconds: int
) -> MuteOut:
    """Mute a person's chat at the table for ``seconds`` from now (a new mute replaces a
    running one) and report ``chat_muted``."""
    if parse_table_id(table_id) is None:
        raise not_found("table", table_id)

    def attempt() -> MuteOut:
        now_ms = ms_of(repo.clock())
        until = at_ms(now_ms + seconds * 1000)
        write = Update(
            ChatPerson,
            (operator_id, table_id, bettor_id),
            set={"muted_until": until, "expires_at": now_ms // 1000 + seconds + CHAT_KEEP_SECONDS},
            upsert=True,
        )
        event: Change = ("chat_muted", {"bettor_id": bettor_id, "until": until})
        _moderate(repo, "mute chat", operator_id, table_id, event, [write])
        return MuteOut(bettor_id=bettor_id, until=until)

    return retrying(attempt)


def unmute(repo: Repository, operator_id: str, table_id: str, bettor_id: str) -> None:
    """End a person's running mute and report ``chat_unmuted``; nothing (no event) when they
    are not muted."""
    if parse_table_id(table_id) is None:
        raise not_found("table", table_id)

    def attempt() -> None:
        person = repo.chat_person(operator_id, table_id, bettor_id)
        now = repo.clock()
        if person is None or person.muted_until is None or person.muted_until < now:
            table_live(repo, operator_id, table_id)  # an unknown table is 404 all the same
            return
        write = Update(
            ChatPerson,
            (operator_id, table_id, bettor_id),
            set={},
            remove=("muted_until",),
            expect={"muted_until": person.muted_until},
        )
        event: Change = ("chat_unmuted", {"bettor_id": bettor_id})
        _moderate(repo, "unmute chat", operator_id, table_id, event, [write])

    retrying(attempt)
