"""The key schema of the DynamoDB adapter: every item's ``pk``/``sk``, the sparse indexes' shard
attributes and the ids that name their keys, built here once (template.yaml ``StateTable`` and
``ConfigTable``, both keyed ``pk`` (S) + ``sk`` (S)). One partition per table under its
operator's id, so another operator's id misses exactly like an unknown one; ordered sort keys
keep shoes and rounds in play order. The layout is drawn in docs/storage.md."""

from __future__ import annotations

import hashlib
import re

from baccarat_api.ports.chat_records import message_ms
from baccarat_api.ports.records import feed_shard

#: Partitions of the sparse ``DueRounds`` index (rounds with locked bets awaiting settlement):
#: a table's rounds always land in the same shard; the sweep queries every shard.
DUE_SHARDS = 8
DUE_INDEX = "DueRounds"
#: Sparse index of unresolved rounds by shoe (``open_in`` = the shoe id).
OPEN_INDEX = "OpenRounds"
#: Partitions per operator and UTC day of the ``RoundsByDay`` index (a table's rounds in one).
DAY_SHARDS = 32
DAY_INDEX = "RoundsByDay"
HEAD_SK = "HEAD"
TABLE_SK = "TABLE"
LIVE_SK = "LIVE"
EVENT_PREFIX = "EV#"
PROOF_SK = "PROOF"
TOTALS_SK = "TOTALS"
IDEM_SK = "IDEM"
TIER_PK = "TIER"


def table_pk(operator_id: str, table_id: str) -> str:
    return f"OP#{operator_id}#TABLE#{table_id}"


def shoe_sk(shoe_number: int) -> str:
    return f"SHOE#{shoe_number:06d}"


def round_sk(shoe_number: int, round_number: int) -> str:
    return f"SHOE#{shoe_number:06d}#ROUND#{round_number:05d}"


def event_sk(seq: int) -> str:
    return f"{EVENT_PREFIX}{seq:012d}"


def proof_pk(shoe_id: str) -> str:
    return f"PROOF#{shoe_id}"


def idempotency_pk(operator_id: str, key_hash: str) -> str:
    return f"OP#{operator_id}#IDEM#{key_hash}"


def _bucket(table_id: str, buckets: int) -> int:
    return int(hashlib.sha256(table_id.encode()).hexdigest()[:8], 16) % buckets


def _shard(table_id: str) -> int:
    return _bucket(table_id, DUE_SHARDS)


def due_shard(table_id: str) -> str:
    return f"DUE#{_shard(table_id)}"


def book_shard(table_id: str) -> str:
    """The ``DueRounds`` partition of the table's betting window awaiting its deal."""
    return f"BOOK#{_shard(table_id)}"


def tick_shard(table_id: str) -> str:
    """The ``DueRounds`` partition of a running table's next time-driven step."""
    return f"TICK#{_shard(table_id)}"


def final_shard(table_id: str) -> str:
    """The ``DueRounds`` partition of the table's proofs awaiting finalisation."""
    return f"FINAL#{_shard(table_id)}"


def idle_shard(table_id: str) -> str:
    """The ``DueRounds`` partition of the table's open shoe, due to be closed when idle."""
    return f"IDLE#{_shard(table_id)}"


def page_part_sk(page: int, part: int) -> str:
    return f"PAGE#{page:03d}#{part}"


def fairness_pk(table_id: str) -> str:
    return f"FAIR#{table_id}"


def day_shard_of(table_id: str) -> int:
    """The ``RoundsByDay`` shard of a table's rounds (the same every day)."""
    return _bucket(table_id, DAY_SHARDS)


def day_shard(operator_id: str, day: str, shard: int) -> str:
    return f"OP#{operator_id}#DAY#{day}#{shard:02d}"


def day_key(table_id: str, shoe_number: int, round_number: int) -> str:
    return f"{table_id}#{shoe_number:06d}#{round_number:05d}"


_DAY_KEY = re.compile(r"(tbl_[a-z2-7]{16})#[0-9]{6,12}#[0-9]{5,12}")


def day_position_valid(position: tuple[object, object], table_id: str | None) -> bool:
    """Whether ``(shard, day key)`` is a position :meth:`day_rounds` could have given for a
    listing of ``table_id``'s rounds (or every table's): a shard of the index, and its last key
    empty or a round's key of a table of that shard."""
    shard, key = position
    if type(shard) is not int or not 0 <= shard < DAY_SHARDS or type(key) is not str:
        return False
    if table_id is not None and shard != day_shard_of(table_id):
        return False
    if key == "":
        return True
    found = _DAY_KEY.fullmatch(key)
    if found is None or day_shard_of(found.group(1)) != shard:
        return False
    return table_id is None or found.group(1) == table_id


def parse_day_key(key: str) -> tuple[str, int, int]:
    table_id, shoe, round_ = key.split("#")
    return table_id, int(shoe), int(round_)


def feed_pk(operator_id: str, shard: int) -> str:
    return f"OP#{operator_id}#FEED#{shard:02d}"


def feed_pos_sk(pos: int) -> str:
    return f"POS#{pos:012d}"


def key_pk(key_hash: str) -> str:
    return f"KEY#{key_hash}"


# (pk, sk) of each record kind, from its KEY_FIELDS values (baccarat_api.ports.records) --------


def table_key(operator_id: str, table_id: str) -> tuple[str, str]:
    return table_pk(operator_id, table_id), TABLE_SK


def shoe_key(operator_id: str, table_id: str, shoe_number: int) -> tuple[str, str]:
    return table_pk(operator_id, table_id), shoe_sk(shoe_number)


def shoe_commit_key(operator_id: str, table_id: str, shoe_number: int) -> tuple[str, str]:
    """The shoe's constants, fixed at its commit (the codec's ``Shape.apart``): an item of their
    own, so the update of the shoe at every deal is charged on the moving part alone."""
    return table_pk(operator_id, table_id), f"{shoe_sk(shoe_number)}{SHOE_COMMIT_SUFFIX}"


#: The sort-key suffix of a shoe's constants item (sorts before its rounds' ``#ROUND#``).
SHOE_COMMIT_SUFFIX = "#COMMIT"


def round_key(
    operator_id: str, table_id: str, shoe_number: int, round_number: int
) -> tuple[str, str]:
    return table_pk(operator_id, table_id), round_sk(shoe_number, round_number)


def live_key(operator_id: str, table_id: str) -> tuple[str, str]:
    return table_pk(operator_id, table_id), LIVE_SK


def event_key(operator_id: str, table_id: str, seq: int) -> tuple[str, str]:
    return table_pk(operator_id, table_id), event_sk(seq)


def feed_head_key(operator_id: str, shard: int) -> tuple[str, str]:
    return feed_pk(operator_id, shard), HEAD_SK


def feed_mark_key(operator_id: str, table_id: str) -> tuple[str, str]:
    return feed_pk(operator_id, feed_shard(table_id)), f"MARK#{table_id}"


def feed_entry_key(operator_id: str, shard: int, pos: int) -> tuple[str, str]:
    return feed_pk(operator_id, shard), feed_pos_sk(pos)


def webhook_pk(operator_id: str) -> str:
    return f"OP#{operator_id}#WEBHOOK"


def webhook_key(operator_id: str) -> tuple[str, str]:
    return webhook_pk(operator_id), "WEBHOOK"


def delivery_key(operator_id: str, shard: int) -> tuple[str, str]:
    return feed_pk(operator_id, shard), "DELIVERY"


FAILURE_PREFIX = "FAIL#"


def failure_key(operator_id: str, event_id: str) -> tuple[str, str]:
    return webhook_pk(operator_id), f"{FAILURE_PREFIX}{event_id}"


def proof_key(shoe_id: str) -> tuple[str, str]:
    return proof_pk(shoe_id), PROOF_SK


def shoe_fairness_key(table_id: str, shoe_number: int) -> tuple[str, str]:
    return fairness_pk(table_id), shoe_sk(shoe_number)


def fairness_totals_key(table_id: str) -> tuple[str, str]:
    return fairness_pk(table_id), TOTALS_SK


def idempotency_key(operator_id: str, key_hash: str) -> tuple[str, str]:
    return idempotency_pk(operator_id, key_hash), IDEM_SK


#: The history of the keys that signed proofs: one partition, an item per key (``KEY#{kid}``),
#: under ``PROOF#`` (public items: the proof finalisers may write only those).
SIGNING_KEYS_PK = "PROOF#signing-keys"
SIGNING_KEY_PREFIX = "KEY#"


def signing_key_key(kid: str) -> tuple[str, str]:
    return SIGNING_KEYS_PK, SIGNING_KEY_PREFIX + kid


def tier_key(tier_id: str) -> tuple[str, str]:
    return TIER_PK, tier_id


# The book (spectators, watchers, a round's window shards and slips) ------------------------
WINDOW_SK = "WINDOW"
SPEC_PREFIX = "SPEC#"
WATCH_PREFIX = "W#"
SLIP_PREFIX = "SLIP#"
COUNT_PREFIX = "COUNT#"


def spectators_pk(operator_id: str, table_id: str) -> str:
    return f"{table_pk(operator_id, table_id)}#SPEC"


def watchers_pk(operator_id: str, table_id: str) -> str:
    return f"{table_pk(operator_id, table_id)}#WATCH"


def count_sk(shard: int) -> str:
    return f"{COUNT_PREFIX}{shard}"


def book_pk(operator_id: str, round_id: str, shard: str) -> str:
    """The partition of one shard of a round's book: its window item and its slips."""
    return f"OP#{operator_id}#ROUND#{round_id}#BOOK#{shard}"


def window_key(operator_id: str, round_id: str, shard: str) -> tuple[str, str]:
    return book_pk(operator_id, round_id, shard), WINDOW_SK


def slip_key(operator_id: str, round_id: str, shard: str, bettor_ref: str) -> tuple[str, str]:
    return book_pk(operator_id, round_id, shard), SLIP_PREFIX + bettor_ref


# The chat of a table (ports/chat_records.py): items of the table's partition ---------------
CHAT_PREFIX = "CHAT#"
CHAT_PERSON_PREFIX = "CHATWHO#"
CHAT_WINDOW_PREFIX = "CHATRATE#"


def chat_sk(at_ms: int, message_id: str = "") -> str:
    """A message's sort key (``CHAT#<at ms, 13 digits>#<message_id>``): the table's messages
    in time order. Without ``message_id``: where the messages of ``at_ms`` begin."""
    return f"{CHAT_PREFIX}{at_ms:013d}#{message_id}"


def chat_message_key(operator_id: str, table_id: str, message_id: str) -> tuple[str, str]:
    at_ms = message_ms(message_id)
    if at_ms is None:
        raise ValueError(f"not a message id: {message_id!r}")
    return table_pk(operator_id, table_id), chat_sk(at_ms, message_id)


def chat_person_key(operator_id: str, table_id: str, bettor_id: str) -> tuple[str, str]:
    return table_pk(operator_id, table_id), CHAT_PERSON_PREFIX + bettor_id


def chat_window_key(operator_id: str, table_id: str, who: str, window: int) -> tuple[str, str]:
    return table_pk(operator_id, table_id), f"{CHAT_WINDOW_PREFIX}{who}#{window}"


#: A table's token revocations (docs/design/browsers.md §1), in the table's partition.
TOKENS_SK = "TOKENS"
#: The token keys, in the config table (``sk`` = the key id).
TOKEN_KEY_PK = "TOKENKEY"


def tokens_key(operator_id: str, table_id: str) -> tuple[str, str]:
    return table_pk(operator_id, table_id), TOKENS_SK


# Table numbers (桌號) and the lobby ----------------------------------------------------------
#: The sparse ``Lobby`` index: an operator's numbered tables (``lobby_pk`` = ``OP#<op>``) in
#: number order (``lobby_sk`` = ``<number:05d>#<table_id>``), on the TABLE item.
LOBBY_INDEX = "Lobby"
#: The sort key of the operator's number counter in its ``TABLENO`` partition (after every
#: number's: digits sort first).
NUMBER_COUNTER_SK = "LAST"


def table_numbers_pk(operator_id: str) -> str:
    """The partition of the operator's number claims (one item per number) and counter."""
    return f"OP#{operator_id}#TABLENO"


def table_number_sk(number: int) -> str:
    return f"{number:05d}"


def table_number_key(operator_id: str, number: int) -> tuple[str, str]:
    return table_numbers_pk(operator_id), table_number_sk(number)


def number_counter_key(operator_id: str) -> tuple[str, str]:
    return table_numbers_pk(operator_id), NUMBER_COUNTER_SK


def lobby_pk(operator_id: str) -> str:
    return f"OP#{operator_id}"


def lobby_sk(number: int, table_id: str) -> str:
    return f"{number:05d}#{table_id}"


_LOBBY_SK = re.compile(r"([0-9]{5})#(tbl_[a-z2-7]{16})")


def parse_lobby_sk(sk: str) -> tuple[int, str] | None:
    """(number, table id) of a ``lobby_sk``, or ``None`` if it is not one."""
    found = _LOBBY_SK.fullmatch(sk)
    return None if found is None else (int(found.group(1)), found.group(2))
