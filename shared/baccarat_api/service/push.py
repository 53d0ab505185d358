"""A table's push channel (docs/design/browsers.md §2): its name, and its rotation.

The channel is ``/tables/{table_id}/e{epoch}`` (AppSync Events' namespace ``tables``). The
epoch lives on the table's live state (``push_epoch``; absent = 1) and every event is stamped
with the epoch its change read, so the push job (``jobs/push.py``) publishes from the stream's
images alone. A rotation — after a token is revoked — moves the epoch on: its
``push_rotated {epoch}`` event still goes to the old channel, followed by the ``rotate``
message; subscribers resubscribe to the new one, where the authorizer refuses the revoked
token."""

from __future__ import annotations

import re

from baccarat_api.ids import parse_table_id
from baccarat_api.limits import PUSH_FIRST_EPOCH
from baccarat_api.ports.records import LiveRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.events import emit, retrying
from baccarat_api.service.live import commit
from baccarat_api.service.reading import table_live

#: The AppSync Events namespace of the tables' channels.
NAMESPACE = "tables"


def epoch_of(live: LiveRecord | None) -> int:
    """The table's push epoch now (a table never rotated: the first)."""
    if live is None or live.push_epoch is None:
        return PUSH_FIRST_EPOCH
    return live.push_epoch


def channel(table_id: str, epoch: int) -> str:
    """The table's push channel in ``epoch``."""
    return f"/{NAMESPACE}/{table_id}/e{epoch}"


def current_channel(table_id: str, live: LiveRecord | None) -> str:
    """The channel a subscriber of the table subscribes to now (``GET …/state``'s
    ``push_channel``)."""
    return channel(table_id, epoch_of(live))


def rotate(repo: Repository, operator_id: str, table_id: str) -> int:
    """Move the table's push channel to its next epoch and return it: one change of the live
    state, reported by ``push_rotated {epoch}`` (stamped with the old epoch, so published on the
    old channel, then ``rotate``). 404 ``not_found`` for a table the operator does not have."""

    def attempt() -> int:
        _, live = table_live(repo, operator_id, table_id)
        new = epoch_of(live) + 1
        ev = emit(
            live, operator_id, table_id, repo.clock(), [("push_rotated", {"epoch": new})],
            push_epoch=new,
        )  # fmt: skip
        return commit(repo, "push rotate", ev, new, operator_id, None)

    return retrying(attempt)


_CHANNEL_RE = re.compile(rf"/{NAMESPACE}/([^/]+)/e([1-9][0-9]{{0,9}})")


def parse_channel(name: str) -> tuple[str, int] | None:
    """(table id, epoch) of a table channel's name, or ``None``."""
    m = _CHANNEL_RE.fullmatch(name)
    if m is None or parse_table_id(m[1]) is None:
        return None
    return m[1], int(m[2])


def subscribe_refusal(repo: Repository, operator_id: str, name: str) -> str | None:
    """Why ``operator_id`` may not subscribe to channel ``name`` — not a table channel, not a
    table of theirs (answered like a missing one), not the table's current epoch — or ``None``
    when it may. One read (table + live state)."""
    parsed = parse_channel(name)
    if parsed is None:
        return "not a table channel: /tables/{table_id}/e{epoch}"
    table_id, epoch = parsed
    snap = repo.load(operator_id, table_id=table_id, live=table_id)
    if snap.table is None:
        return f"no table {table_id}"
    if epoch != epoch_of(snap.live):
        return f"not the table's current channel: {current_channel(table_id, snap.live)}"
    return None
