"""``GET /v1/tables/{table_id}/spectators`` and ``…/watchers``: a table's spectators (with the
balance last reported) and watchers, a page at a time in bettor-id order (``after``: the last
id of the page before). At a book table (``bet_behind: book``) from the book store, where they
are uncapped: a count (the count shards summed) and a ``Query`` page; elsewhere from the live
state (at most :data:`~baccarat_api.limits.MAX_SPECTATORS` /
:data:`~baccarat_api.limits.MAX_WATCHERS`), paged the same way.

Round trips: BatchGetItem (table + live state); at a book table + BatchGetItem (count shards)
+ Query (one or more: a page past many who left reads on)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from baccarat_api.ports.repository import Repository
from baccarat_api.service.book_presence import at_book
from baccarat_api.service.models import SpectatorEntryOut, SpectatorsPageOut, WatchersPageOut
from baccarat_api.service.reading import table_live


def _page(ids: Sequence[str], limit: int, after: str | None) -> tuple[list[str], str | None]:
    later = sorted(b for b in ids if after is None or b > after)
    names = later[:limit]
    return names, names[-1] if len(later) > limit else None


def spectators_page(
    repo: Repository, operator_id: str, table_id: str, limit: int, after: str | None = None
) -> SpectatorsPageOut:
    table, live = table_live(repo, operator_id, table_id)
    if at_book(table):
        page = repo.book.spectator_page(operator_id, table_id, limit, after)
        entries = [SpectatorEntryOut(bettor_id=s.bettor_id, balance=s.balance)
                   for s in page.spectators]  # fmt: skip
        return SpectatorsPageOut(
            table_id=table_id, count=page.count, spectators=entries, next=page.next
        )
    present: Mapping[str, Mapping[str, object]] = {} if live is None else live.spectators
    names, after_last = _page(list(present), limit, after)
    entries = [SpectatorEntryOut(bettor_id=b, balance=int(str(present[b]["balance"])))
               for b in names]  # fmt: skip
    return SpectatorsPageOut(
        table_id=table_id, count=len(present), spectators=entries, next=after_last
    )


def watchers_page(
    repo: Repository, operator_id: str, table_id: str, limit: int, after: str | None = None
) -> WatchersPageOut:
    table, live = table_live(repo, operator_id, table_id)
    if at_book(table):
        page = repo.book.watchers(operator_id, table_id, limit, after)
        return WatchersPageOut(
            table_id=table_id, count=page.count, watchers=list(page.names), next=page.next
        )
    present = [] if live is None else list(live.watchers)
    names, after_last = _page(present, limit, after)
    return WatchersPageOut(table_id=table_id, count=len(present), watchers=names, next=after_last)
