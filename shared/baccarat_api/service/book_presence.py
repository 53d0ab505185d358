"""Presence at a book table (``bet_behind: book``): its spectators and watchers are items of the
book store (:attr:`~baccarat_api.ports.repository.Repository.book`, uncapped), not fields of the
live state; a spectator's or watcher's join, leave or update writes NO table event (it would
serialise on the live item's ``seq``). Seats stay on the live state.

The rules are a listed table's (:mod:`.presence_rules`): one place per person — checked in both
places, the live state's seats and the book's spectators and watchers, and once more after each
write (a join sees a seat taken meanwhile and undoes itself; a seat taken sees a join that
slipped past and removes it: the seat wins); the tier's minimum balance; a spectator needs a seated
bettor (checked again after the join: a last seat emptied meanwhile undoes it); a balance report
below the minimum removes the spectator (told in ``removed``); joining with the same details
changes nothing. A change that leaves the spectator's waiting slip refused cancels it with the
change (while the window is open; a locked slip stays: it is dealt).

When the last seat empties, the spectators go (:func:`remove_spectators`): ONE
``spectators_removed`` event, then each marked absent, a page at a time — a loop in the request
that emptied the seat, resumable: a spectator's join at the seatless table runs it again for
whoever is still there."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from baccarat.profiles import TableConfig
from baccarat.proofdoc import bettor_ref
from baccarat.validation import BetRefused, check_personal_limits
from baccarat_api.limits import FIRST_NAMES, REMOVAL_PAGE
from baccarat_api.lru import Lru
from baccarat_api.ports.book import NamesPage, NotPresent, PresenceMoved, Spectator, Watcher
from baccarat_api.ports.records import LiveRecord, RoundRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.vault import SecretVault, ref_key_context
from baccarat_api.ports.writes import Emit
from baccarat_api.service.bets import refusal
from baccarat_api.service.book_slips import book_round_id, in_window, is_book_window, validate_slip
from baccarat_api.service.errors import DomainError
from baccarat_api.service.events import ATTEMPTS
from baccarat_api.service.live import live_change
from baccarat_api.service.models import CrowdOut, NamesOut, PresenceOut
from baccarat_api.service.presence_rules import Removal, already_present, elsewhere, min_balance
from baccarat_api.service.seating import presence_view, where
from baccarat_api.service.window import DEALT

#: Tables' bettor-ref keys, unsealed once per warm container (one KMS ``Decrypt``), keyed by
#: the operator, the table and the key's ciphertext (as the deal's shoe cache keeps them).
_REF_KEYS: Lru[tuple[str, str, bytes], bytes] = Lru(64)
#: Spectators marked absent at once when the last seat empties.
_MARKERS = 8


def at_book(table: TableRecord) -> bool:
    """Whether the table's spectators and watchers are the book store's."""
    return table.bet_behind == "book"


def book_round(live: LiveRecord | None) -> str | None:
    """The round whose book window is the live state's (not dealt yet), or ``None``."""
    betting = None if live is None else live.betting
    if betting is None or betting["status"] == DEALT or not is_book_window(betting):
        return None
    return book_round_id(betting)


def ref_of(vault: SecretVault, table: TableRecord, bettor_id: str) -> str:
    """The bettor's ``bettor_ref`` at the table (the book's order and its leaves')."""

    def unseal() -> bytes:
        return vault.unseal(table.ref_key_ct, ref_key_context(table.operator_id, table.table_id))

    key = _REF_KEYS.get((table.operator_id, table.table_id, table.ref_key_ct), unseal)
    return bettor_ref(key, table.table_id, bettor_id)


def _names(page: NamesPage) -> NamesOut:
    return NamesOut(count=page.count, first=list(page.names), next=page.next)


def crowd(repo: Repository, operator_id: str, table_id: str) -> CrowdOut:
    """The counts and first names of the table's spectators and watchers."""
    spectators = repo.book.spectators(operator_id, table_id, FIRST_NAMES)
    watchers = repo.book.watchers(operator_id, table_id, FIRST_NAMES)
    return CrowdOut(spectators=_names(spectators), watchers=_names(watchers))


def view(repo: Repository, table: TableRecord, live: LiveRecord | None) -> PresenceOut:
    """A book table's presence answer: the live state's seats, the book's crowd."""
    out = presence_view(table.table_id, live)
    return out.model_copy(update={"crowd": crowd(repo, table.operator_id, table.table_id)})


def not_in_book(repo: Repository, operator_id: str, table_id: str, bettor_id: str) -> None:
    """Refuse (``already_present``) someone who is one of the book's spectators or watchers."""
    if repo.book.get_spectator(operator_id, table_id, bettor_id) is not None:
        raise already_present(bettor_id, "spectator")
    if repo.book.get_watcher(operator_id, table_id, bettor_id) is not None:
        raise already_present(bettor_id, "watcher")


def seat_wins(repo: Repository, operator_id: str, table_id: str, bettor_id: str) -> None:
    """After a seat is taken: the bettor, if a spectator's or watcher's join raced the seat
    past both checks, leaves that place (their open slip with it)."""
    if repo.book.get_spectator(operator_id, table_id, bettor_id) is not None:
        live = repo.load(operator_id, live=table_id).live
        repo.book.leave_spectator(operator_id, table_id, bettor_id, book_round(live))
    if repo.book.get_watcher(operator_id, table_id, bettor_id) is not None:
        repo.book.leave_watcher(operator_id, table_id, bettor_id)


def _live(repo: Repository, table: TableRecord) -> LiveRecord:
    found = repo.load(table.operator_id, live=table.table_id).live
    return found or LiveRecord(table.operator_id, table.table_id)


def _still_allowed(repo: Repository, table: TableRecord, bettor_id: str, spectator: bool) -> None:
    """After a join: the live state read again; a seat taken by the bettor meanwhile (or, for
    a spectator, every seat emptied) undoes the join and refuses it. With the seat's own
    check before it, one of two racing places always sees the other."""
    live = _live(repo, table)
    found = where(live, bettor_id)
    op, table_id = table.operator_id, table.table_id
    if found is not None or (spectator and not live.seats):
        if spectator:
            repo.book.leave_spectator(op, table_id, bettor_id, book_round(live))
        else:
            repo.book.leave_watcher(op, table_id, bettor_id)
        if found is not None:
            raise already_present(bettor_id, found)
        raise _seated_required()


def _seated_required() -> DomainError:
    return DomainError("seated_bettor_required", "spectators join a table where someone is seated")


def _refused_slip(
    repo: Repository,
    config: TableConfig,
    live: LiveRecord,
    now: Spectator,
    balance: int,
    limits: Mapping[str, Any] | None,
) -> str | None:
    """The round whose waiting slip of the spectator this change leaves refused (as the deal
    validates it: :func:`~.book_slips.validate_slip`), or ``None``."""
    round_id, betting = book_round(live), live.betting
    if round_id is None or betting is None:
        return None
    slip = repo.book.get_slip(live.operator_id, round_id, now.bettor_ref)
    if slip is None or not in_window(slip, betting):
        return None
    after = replace(now, balance=balance, personal_limits=limits)
    try:
        validate_slip(config, live, after, slip.lines, int(betting["round_number"]))
    except DomainError:
        return round_id
    return None


def join_spectator(
    repo: Repository,
    vault: SecretVault,
    table: TableRecord,
    live: LiveRecord,
    bettor_id: str,
    balance: int,
    limits: dict[str, Any] | None,
) -> PresenceOut:
    """``bettor_id`` joins the book's spectators, or their balance or limits are updated (a
    balance below the minimum removes them, told in ``removed``)."""
    op, table_id = table.operator_id, table.table_id
    config = TableConfig.from_dict(table.config)
    elsewhere(live, bettor_id, "spectator")
    if repo.book.get_watcher(op, table_id, bettor_id) is not None:
        raise already_present(bettor_id, "watcher")
    try:  # where they are entered: not refused by each later slip (seed 001 個人限紅)
        check_personal_limits(config, limits or {})
    except BetRefused as exc:
        raise refusal(exc) from None
    removal = Removal()
    for _ in range(ATTEMPTS):
        now = repo.book.get_spectator(op, table_id, bettor_id)
        if now is not None and (now.balance, now.personal_limits) == (balance, limits):
            return view(repo, table, live)
        if not live.seats:
            remove_spectators(repo, op, table_id)  # what an interrupted removal left
            raise _seated_required()
        if now is not None and removal.below(config, bettor_id, "spectator", balance):
            repo.book.leave_spectator(op, table_id, bettor_id, book_round(live))
            return removal.answer(view(repo, table, live))
        min_balance(config, balance)
        if now is None:
            ref = ref_of(vault, table, bettor_id)
            joining = Spectator(bettor_id, ref, balance, repo.clock(), limits)
            if not repo.book.join_spectator(op, table_id, joining):
                continue  # joined at once by another request: decided again
            _still_allowed(repo, table, bettor_id, spectator=True)
            return view(repo, table, live)
        drop = _refused_slip(repo, config, live, now, balance, limits)
        try:
            repo.book.update_spectator(op, table_id, bettor_id, now.epoch, balance, limits, drop)
        except (PresenceMoved, NotPresent):
            continue  # changed or left at once: decided again
        return view(repo, table, live)
    raise DomainError("concurrent_update", "the spectator changed during the request; retry")


def leave_spectator(
    repo: Repository, table: TableRecord, live: LiveRecord, bettor_id: str
) -> PresenceOut:
    """The spectator leaves (their slip of an open window with them)."""
    op, table_id = table.operator_id, table.table_id
    if not repo.book.leave_spectator(op, table_id, bettor_id, book_round(live)):
        raise DomainError(
            "not_found", f"{bettor_id} is not a spectator", details={"bettor_id": bettor_id}
        )
    return view(repo, table, live)


def join_watcher(
    repo: Repository, table: TableRecord, live: LiveRecord, bettor_id: str
) -> PresenceOut:
    op, table_id = table.operator_id, table.table_id
    if repo.book.get_watcher(op, table_id, bettor_id) is not None:
        return view(repo, table, live)
    elsewhere(live, bettor_id, "watcher")
    if repo.book.get_spectator(op, table_id, bettor_id) is not None:
        raise already_present(bettor_id, "spectator")
    if repo.book.join_watcher(op, table_id, Watcher(bettor_id, repo.clock())):
        _still_allowed(repo, table, bettor_id, spectator=False)
    return view(repo, table, live)


def leave_watcher(
    repo: Repository, table: TableRecord, live: LiveRecord, bettor_id: str
) -> PresenceOut:
    if not repo.book.leave_watcher(table.operator_id, table.table_id, bettor_id):
        raise DomainError(
            "not_found", f"{bettor_id} is not watching", details={"bettor_id": bettor_id}
        )
    return view(repo, table, live)


def after_resolution(repo: Repository, r: RoundRecord, ev: Emit) -> None:
    """A settlement or void ``ev`` that left a book table with no seated bettor (its last seat
    vacated by the round's balances, or already empty at a book round): the spectators go now,
    in the resolving request — not at the next join (:func:`remove_spectators`)."""
    if ev.after.seats:
        return
    emptied = ev.before is not None and bool(ev.before.seats)
    if emptied or r.book is not None:
        remove_spectators(repo, r.operator_id, r.table_id)


def remove_spectators(
    repo: Repository, operator_id: str, table_id: str, reason: str = "no_seated_bettor"
) -> int:
    """Every spectator of a book table with no seated bettor marked absent (their slips of an
    open window with them): ONE ``spectators_removed`` event (``reason``, ``count``, the first
    :data:`~baccarat_api.limits.REMOVAL_PAGE` ids) written only while no seat is taken, then
    the marks, a page at a time. How many were marked."""
    first = repo.book.spectators(operator_id, table_id, REMOVAL_PAGE)
    if not first.names:
        return 0
    data = {"reason": reason, "count": first.count, "first": list(first.names)}
    seatless: list[LiveRecord] = []

    def decide(_: TableRecord, live: LiveRecord) -> Any:
        seatless[:] = [] if live.seats else [live]
        return None if live.seats else ([("spectators_removed", data)], {})

    live_change(repo, operator_id, table_id, decide, lambda _, live: live)
    if not seatless:
        return 0  # someone sat down: the spectators stay
    round_id = book_round(seatless[0])

    def mark(bettor_id: str) -> bool:
        return repo.book.leave_spectator(operator_id, table_id, bettor_id, round_id)

    marked, page = 0, first
    with ThreadPoolExecutor(_MARKERS) as pool:
        while True:
            marked += sum(pool.map(mark, page.names))
            if page.next is None:
                return marked
            page = repo.book.spectators(operator_id, table_id, REMOVAL_PAGE, page.next)
