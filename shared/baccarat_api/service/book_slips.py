"""Betting behind at a book table (``bet_behind: book``): a spectator's slip is an item of the
book store (:mod:`baccarat_api.ports.book`), not a line of the live item — confirmed, replaced
and cancelled in the book's own transactions, with no table event (it would serialise every
slip on the live item's ``seq``). The seated bettors' slips stay on the live item as at every
table (:mod:`.betting`).

The window's book is opened with the live window, at the same epoch (its ``opened_at``), and
cancelled with it. The live window is the truth: a book window it does not hold (the opener's
write lost, or a cancelled window's book left open) is opened — or cancelled and opened again —
by whoever needs it (the confirm, the lock). A window's slips are those placed at or after its
epoch: slips of a cancelled window of the same round stay stored but are never in its book.

A slip is validated alone, exactly as the deal validates that bettor's bets
(:func:`baccarat.validation.validate_bets` with the bettor's lines, balance and personal
limits). At a house-banked bid-squeeze table no limit spans bettors — ``table_max`` is per
bettor per round, tier and personal limits per bettor, nobody covers anybody — except that a
spectator bets only while someone is seated: judged here with the seats present, and again at
the deal (``company_required``: the window is then cancelled, no slip dealt)."""

from __future__ import annotations

from baccarat.bets import bets_from_json
from baccarat.profiles import TableConfig
from baccarat.validation import BetRefused, validate_bets
from baccarat_api.ids import RoundRef, parse_shoe_id
from baccarat_api.ports.book import (
    SHARD_CHARS,
    BookCursor,
    Line,
    PresenceMoved,
    Slip,
    Spectator,
    Window,
    WindowClosed,
    WindowExists,
    slip_shard,
)
from baccarat_api.ports.documents import BettingWindow
from baccarat_api.ports.records import LiveRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.bets import as_doc, refusal
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.models import BetIn, SlipRequest
from baccarat_api.service.window import window_open


def is_book_window(betting: BettingWindow | None) -> bool:
    """Whether ``betting`` is a book table's window (its spectators' slips in the book store)."""
    return betting is not None and "book_shards" in betting


def book_round_id(betting: BettingWindow) -> str:
    """The id of the round the window's book is for (the book store's key)."""
    shoe = parse_shoe_id(betting["shoe_id"])
    assert shoe is not None, betting["shoe_id"]
    return RoundRef(shoe.table_id, shoe.shoe_number, int(betting["round_number"])).round_id


def in_window(slip: Slip, betting: BettingWindow) -> bool:
    """Whether ``slip`` was placed in ``betting`` (not in a cancelled earlier window)."""
    return slip.placed_at >= betting["opened_at"]


def open_book(repo: Repository, operator_id: str, betting: BettingWindow) -> Window:
    """The window's book open at the window's epoch (again: a no-op). A book window of another
    epoch is stale — the live state holds this one —: cancelled, then this one opened."""
    round_id = book_round_id(betting)
    epoch, closes_at = betting["opened_at"], betting["closes_at"]
    try:
        return repo.book.open_window(operator_id, round_id, epoch, closes_at)
    except WindowExists:
        found = repo.book.window(operator_id, round_id)
        if found is not None and found.status != "cancelled":
            repo.book.cancel_window(operator_id, round_id, found.epoch)
        return repo.book.open_window(operator_id, round_id, epoch, closes_at)


def cancel_book(repo: Repository, operator_id: str, betting: BettingWindow) -> None:
    """Mark the window's book cancelled (after the live window was cancelled: nothing of it
    is dealt)."""
    repo.book.cancel_window(operator_id, book_round_id(betting), betting["opened_at"])


def lines_of(request: SlipRequest) -> tuple[Line, ...]:
    """The request's lines as the book stores them (one per bet type, in type order)."""
    return tuple(sorted((Line(b.type.value, int(b.amount)) for b in request.bets),
                        key=lambda line: line.type))  # fmt: skip


def not_at_table(bettor_id: str) -> DomainError:
    return DomainError(
        "not_at_table",
        f"{bettor_id} holds no seat and is no spectator here",
        details={"bettor_id": bettor_id},
    )


def validate_slip(
    config: TableConfig, live: LiveRecord, spectator: Spectator, lines: tuple[Line, ...],
    round_number: int,
) -> None:  # fmt: skip
    """The slip alone, as the deal would validate this bettor's bets: its lines with the
    spectator's balance and personal limits, the seated bettors present."""
    who = {
        "bettor_id": spectator.bettor_id,
        "role": "spectator",
        "balance": spectator.balance,
        "personal_limits": spectator.personal_limits,
    }
    bets = [
        as_doc(BetIn.model_validate({**who, "type": line.type, "amount": line.amount}))
        for line in lines
    ]
    seated = [w["bettor_id"] for w in live.seats.values()]
    try:
        validate_bets(config, bets_from_json(bets), round_number, seated_present=seated)
    except BetRefused as exc:
        raise refusal(exc) from None


def _betting_closed() -> DomainError:
    return DomainError(
        "betting_closed", "no betting window is open at this table", details={"status": "locked"}
    )


def _confirm(
    repo: Repository, operator_id: str, table_id: str, window: BettingWindow, slip: Slip, at: str
) -> None:
    """The book's confirm; a window the book does not hold at this epoch is opened first."""
    round_id = book_round_id(window)
    epoch = window["opened_at"]
    try:
        repo.book.confirm_slip(operator_id, table_id, round_id, epoch, slip, at)
        return
    except WindowClosed:
        found = repo.book.window(operator_id, round_id)
        if found is not None and found.epoch == epoch:
            raise _betting_closed() from None
    open_book(repo, operator_id, window)  # the opener's write of the book was lost
    try:
        repo.book.confirm_slip(operator_id, table_id, round_id, epoch, slip, at)
    except WindowClosed:
        raise _betting_closed() from None


def place_spectator_slip(
    repo: Repository, table: TableRecord, live: LiveRecord, bettor_id: str,
    request: SlipRequest,
) -> Slip:  # fmt: skip
    """Confirm a spectator's slip at a book table: the slip as stored. The same slip again
    answers the stored one — also once the book is locked or dealt (never 409)."""
    lines = lines_of(request)
    for _ in range(2):  # the spectator changed since it was read: read it again, once
        spectator = repo.book.get_spectator(live.operator_id, table.table_id, bettor_id)
        if spectator is None:
            raise not_at_table(bettor_id)
        same = _same_slip(repo, live, spectator, lines)
        if same is not None:
            return same
        at = repo.clock()
        window = window_open(live, at)
        config = TableConfig.from_dict(table.config)
        validate_slip(config, live, spectator, lines, int(window["round_number"]))
        slip = Slip(bettor_id, spectator.bettor_ref, lines, at, spectator.epoch)
        try:
            _confirm(repo, live.operator_id, table.table_id, window, slip, at)
        except PresenceMoved:
            continue
        return slip
    raise lost_race()


def _same_slip(
    repo: Repository, live: LiveRecord, spectator: Spectator, lines: tuple[Line, ...]
) -> Slip | None:
    """The spectator's slip of the live window if it holds exactly ``lines``."""
    betting = live.betting
    if betting is None or not is_book_window(betting):
        return None
    earlier = repo.book.get_slip(live.operator_id, book_round_id(betting), spectator.bettor_ref)
    if earlier is not None and in_window(earlier, betting) and earlier.lines == lines:
        return earlier
    return None


def cancel_spectator_slip(
    repo: Repository, table: TableRecord, live: LiveRecord, bettor_id: str
) -> None:
    """Cancel a spectator's slip while the book's window is open: 404 ``not_found`` when the
    bettor has no slip in it (also once betting closed: a retried DELETE learns it is gone),
    409 ``betting_closed`` after the lock or ``closes_at``."""
    betting = live.betting
    spectator = repo.book.get_spectator(live.operator_id, table.table_id, bettor_id)
    slip = None
    if spectator is not None and betting is not None and is_book_window(betting):
        round_id = book_round_id(betting)
        slip = repo.book.get_slip(live.operator_id, round_id, spectator.bettor_ref)
    if slip is None or betting is None or not in_window(slip, betting):
        raise DomainError("not_found", f"{bettor_id} has no slip", details={"bettor_id": bettor_id})
    at = repo.clock()
    window = window_open(live, at)
    try:
        gone = repo.book.cancel_slip(
            live.operator_id, book_round_id(window), window["opened_at"], slip.bettor_ref, at
        )
    except WindowClosed:
        raise _betting_closed() from None
    if not gone:
        raise DomainError("not_found", f"{bettor_id} has no slip", details={"bettor_id": bettor_id})


def _cursor(after: str | None) -> BookCursor:
    """Where a page after the ref ``after`` starts (400 ``invalid_cursor``: not a ref)."""
    if after is None:
        return BookCursor(0)
    try:
        return BookCursor(SHARD_CHARS.index(slip_shard(after)), after)
    except ValueError:
        raise DomainError(
            "invalid_cursor",
            "after: the bettor_ref of a page's last slip",
            details={"after": after},
        ) from None


def slips_page(
    repo: Repository, operator_id: str, betting: BettingWindow, after: str | None, limit: int
) -> tuple[list[Slip], str | None]:
    """At most ``limit`` slips of the window's book after the ref ``after``, in book order, and
    the ref to pass as ``after`` for the next page (``None``: the end)."""
    round_id = book_round_id(betting)
    got: list[Slip] = []
    cursor: BookCursor | None = _cursor(after)
    while cursor is not None and len(got) < limit:
        page = repo.book.book_page(operator_id, round_id, cursor, limit - len(got))
        got += [s for s in page.slips if in_window(s, betting)]
        cursor = page.next
    return got, None if cursor is None or not got else got[-1].bettor_ref
