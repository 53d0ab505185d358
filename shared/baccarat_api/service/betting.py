"""The betting window and the book: the table's next round takes confirmed slips
(確認押注 / 取消押注) until ``closes_at``; a deal ``from_book`` locks exactly the book's bets.

Both live on the table's live-state item (:class:`~baccarat_api.ports.records.LiveRecord`):
``betting`` (the window: shoe, round number, ``opened_at``, ``closes_at``, status) and ``book``
(bettor id → slip). Every change is conditional on the live state's ``seq`` and reported by its
event in the same transaction (:mod:`.events`): ``betting_opened``, ``bet_placed``,
``bet_cancelled``, ``betting_closed``.

:func:`book_view` renders the book per seat and per spectator (what each seat shows on the table,
對應押注區): a pure function of the live state, used by ``GET …/state`` and the book routes."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from baccarat.bets import BetType, Role
from baccarat.profiles import Banking, TableConfig
from baccarat_api import limits
from baccarat_api.clock import seconds_after
from baccarat_api.ports.book import BOOK_SHARDS
from baccarat_api.ports.book import Slip as BookSlip
from baccarat_api.ports.documents import (
    BettingWindow,
    Slip,
    SlipBet,
)
from baccarat_api.ports.records import LiveRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service import book_slips
from baccarat_api.service.book import line_orders, place_of, validate_book
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.live import Decision, live_change
from baccarat_api.service.models import (
    BettingWindowOut,
    BookOut,
    BookPageOut,
    SlipBetOut,
    SlipOut,
    SlipRequest,
)
from baccarat_api.service.reading import table_live
from baccarat_api.service.window import DEALT, OPEN, WAITING, window_open, window_status


def _kept_orders(earlier: Slip | None, bets: list[SlipBet], new: int) -> list[int]:
    """The orders of ``bets`` replacing the ``earlier`` slip (seed 001 咪牌 3, equal stakes: the
    earlier bet squeezes): a line the earlier slip holds unchanged (same type and amount) keeps
    its order — re-confirming to add a Tie does not make the Banker bet later —; a changed or new
    line's order is this confirmation (``new``)."""
    kept = [] if earlier is None else list(zip(earlier["bets"], line_orders(earlier), strict=True))
    out = []
    for bet in bets:
        same = next((i for i, (line, _) in enumerate(kept) if line == bet), None)
        out.append(new if same is None else kept.pop(same)[1])
    return out


def _slip(bettor_id: str, slip: Slip) -> SlipOut:
    return SlipOut(
        bettor_id=bettor_id,
        role=Role(slip["role"]),
        seat=slip.get("seat"),
        bets=[
            SlipBetOut(type=BetType(b["type"]), amount=b["amount"], order=o)
            for b, o in zip(slip["bets"], line_orders(slip), strict=True)
        ],
        total=sum(int(b["amount"]) for b in slip["bets"]),
        placed_at=slip["placed_at"],
        order=slip["order"],
    )


def book_view(live: LiveRecord | None, at: str) -> BookOut:
    """The book of ``live``'s betting window as the table shows it: the window (its status as
    of ``at``, default now), each seat's slip by seat number (in seat order), each spectator's
    slip by id (in accepted order; each slip's ``order`` says when it was confirmed). A table
    that never opened betting shows no window and an empty book."""
    table_id = "" if live is None else live.table_id
    if live is None or live.betting is None:
        return BookOut(table_id=table_id, betting=None, seats={}, spectators={}, total=0)
    status = window_status(live.betting, at)
    shown = {k: v for k, v in live.betting.items() if k != "book_shards"}
    window = BettingWindowOut.model_validate({**shown, "status": status})
    slips = sorted(live.book.items(), key=lambda kv: int(kv[1]["order"]))
    by_seat = [(b, s, seat) for b, s in slips if (seat := s.get("seat")) is not None]
    seats = {int(seat): _slip(b, s) for b, s, seat in sorted(by_seat, key=lambda x: x[2])}
    spectators = {b: _slip(b, s) for b, s in slips if s.get("seat") is None}
    total = sum(s.total for s in [*seats.values(), *spectators.values()])
    return BookOut(
        table_id=table_id, betting=window, seats=seats, spectators=spectators, total=total
    )


def _book_out(repo: Repository) -> Callable[[str, LiveRecord | None], BookOut]:
    """The book of a table's live state as the table shows it now."""
    return lambda table_id, live: book_view(live or LiveRecord("", table_id), repo.clock())


# --- opening betting ---------------------------------------------------------------------------


def check_company(config: TableConfig, live: LiveRecord, what: str = "betting opens") -> None:
    """The profile's minimum company (409 ``company_required``): at least one seated bettor,
    and on a player-banker table the player-banker too (star-city "兩人成局（含荷官）"; at a
    house table the house is the other side) — to open betting and again to deal its book."""
    missing = []
    if config.banking is Banking.PLAYER_BANKER and live.banker is None:
        missing.append("player_banker")
    if not live.seats:
        missing.append("seated_bettor")
    if missing:
        raise DomainError(
            "company_required",
            what
            + " when "
            + " and ".join(m.replace("_", " ") for m in missing)
            + (" are" if len(missing) > 1 else " is")
            + " present",
            details={"missing": missing},
        )


def previous_resolved(live: LiveRecord) -> None:
    """Late joiners wait for the dealt round (seed 000): no next round — betting, or a deal —
    while the table's latest round is neither settled nor voided (409 ``round_unsettled``,
    naming it; its squeeze may still be counting down: it is settled once its cards are
    shown)."""
    last = live.last_round
    if last is not None and not last["resolved"]:
        raise DomainError(
            "round_unsettled",
            f"round {last['round_id']} is not settled yet",
            details={"round_id": last["round_id"]},
        )


def _next_round(live: LiveRecord) -> tuple[str, int]:
    """The open shoe and the number of its next round (409 ``no_open_shoe``; 409
    ``round_unsettled`` while the table's latest round is neither settled nor voided)."""
    if live.open_shoe_id is None:
        raise DomainError("no_open_shoe", "the table has no open shoe: commit one first")
    previous_resolved(live)
    last = live.last_round
    if last is not None and last["shoe_id"] == live.open_shoe_id:
        return live.open_shoe_id, int(last["round_number"]) + 1
    return live.open_shoe_id, 1


def _in_progress(live: LiveRecord, at: str) -> None:
    status = window_status(live.betting, at)
    shoe_id = None if live.betting is None else live.betting["shoe_id"]
    if status in WAITING and shoe_id == live.open_shoe_id:  # (a closed shoe's is void)
        assert live.betting is not None
        raise DomainError(
            "betting_in_progress",
            f"betting for round {live.betting['round_number']} is {status} and not dealt yet",
            details={"status": status, "round_number": live.betting["round_number"],
                     "closes_at": live.betting["closes_at"]},
        )  # fmt: skip


def not_auto(live: LiveRecord, what: str) -> None:
    """409 ``auto_dealing``: a running table opens betting and deals by itself."""
    if live.clock is not None:
        raise DomainError("auto_dealing", f"this table runs itself: {what} by itself")


def open_betting(
    repo: Repository,
    operator_id: str,
    table_id: str,
    idem: IdempotencyRequest | None = None,
    *,
    system: bool = False,
) -> BookOut:
    """Open betting for the next round of the table's open shoe, until now + the table's
    ``betting_seconds``; reports ``betting_opened``. With ``idem`` a retry replays the first
    answer (not 409 ``betting_in_progress``). At a running table only the table's own clock
    (``system``) opens it (else 409 ``auto_dealing``)."""

    opened: list[BettingWindow] = []  # a book table's window decided: its book opened after

    def decide(table: TableRecord, live: LiveRecord) -> Decision:
        opened.clear()  # decided again after losing a race: only the write that lands counts
        at = repo.clock()
        if not system:
            not_auto(live, "it opens betting")
        elif live.clock is not None and live.clock["paused"]:
            return None  # paused since the clock derived its step (decided on every retry)
        _in_progress(live, at)
        shoe_id, number = _next_round(live)
        check_company(TableConfig.from_dict(table.config), live)
        closes_at = seconds_after(at, table.betting_seconds)
        window: BettingWindow = {
            "shoe_id": shoe_id,
            "round_number": number,
            "opened_at": at,
            "closes_at": closes_at,
            "status": OPEN,
            "round_id": None,
        }
        if table.bet_behind == "book":
            window["book_shards"] = BOOK_SHARDS
            opened.append(window)
        data = {"shoe_id": shoe_id, "round_number": number, "closes_at": closes_at}
        deal_by = seconds_after(closes_at, table.betting_seconds)  # the sweep's, if nobody deals
        return [("betting_opened", data)], {"betting": window, "book": {}, "deal_by": deal_by}

    out = live_change(repo, operator_id, table_id, decide, _book_out(repo), idem)
    for window in opened:  # after the live window (which is the truth; a lost write of the
        book_slips.open_book(repo, operator_id, window)  # book is opened by its first need)
    return out


# --- slips ---------------------------------------------------------------------------------------


def place_slip(
    repo: Repository, operator_id: str, table_id: str, bettor_id: str, request: SlipRequest
) -> BookOut:
    """Set ``bettor_id``'s confirmed slip (replacing an earlier one), validated as the deal will
    validate it; reports ``bet_placed``. The same slip again changes nothing — also once betting
    has closed or the round is dealt: a PUT retried after its answer was lost answers the book
    that holds it (its window's ``status`` says whether it was dealt), not ``betting_closed``
    (which would tell the bettor a dealt slip was refused).
    With ``round_number``, a slip for any other round than the window's is 409
    ``round_mismatch``: a retry that arrives once the next window is open is not staked there."""
    bets = [cast(SlipBet, b.model_dump(mode="json")) for b in request.bets]

    def decide(table: TableRecord, live: LiveRecord) -> Decision:
        at = repo.clock()
        number = request.round_number
        current = None if live.betting is None else int(live.betting["round_number"])
        if number is not None and number != current:
            raise DomainError(
                "round_mismatch",
                f"the slip is for round {number}; the table's window is for round {current}",
                details={"round_number": number, "window_round_number": current},
            )
        _behind(table, live, bettor_id)
        earlier = live.book.get(bettor_id)
        if live.betting is not None and earlier is not None and earlier["bets"] == bets:
            return None
        window = window_open(live, at)
        place = place_of(live, bettor_id)
        if place is None:
            if live.banker is not None and live.banker["bettor_id"] == bettor_id:
                raise DomainError("player_banker_cannot_bet", "the player-banker does not bet")
            raise DomainError(
                "not_at_table",
                f"{bettor_id} holds no seat and is no spectator here",
                details={"bettor_id": bettor_id},
            )
        config = TableConfig.from_dict(table.config)
        order = live.seq + 1  # its bet_placed event's
        slip: Slip = {"role": place["role"], "seat": place.get("seat"), "bets": bets,
                      "orders": _kept_orders(earlier, bets, order), "placed_at": at,
                      "order": order}  # fmt: skip
        book = {**live.book, bettor_id: slip}
        validate_book(config, live, book, int(window["round_number"]))
        total = sum(int(b["amount"]) for b in bets)
        lines = [{"type": b["type"], "amount": int(b["amount"])} for b in bets]
        placed = {"round_number": window["round_number"], "bettor_id": bettor_id,
                  "bets": len(bets), "total": total, "lines": lines}  # fmt: skip
        return [("bet_placed", placed)], {"book": book}

    try:
        return live_change(repo, operator_id, table_id, decide, _book_out(repo))
    except _Behind as behind:
        slip = book_slips.place_spectator_slip(repo, behind.table, behind.live, bettor_id, request)
        return with_spectator(book_view(behind.live, repo.clock()), slip)


def cancel_slip(repo: Repository, operator_id: str, table_id: str, bettor_id: str) -> BookOut:
    """Cancel ``bettor_id``'s slip while betting is open; reports ``bet_cancelled``. A bettor
    with no slip in the book is 404 ``not_found`` whether betting is open or not: a DELETE
    retried after closes_at, its answer lost, learns that its slip is gone (``betting_closed``
    would say it stands)."""

    def decide(table: TableRecord, live: LiveRecord) -> Decision:
        _behind(table, live, bettor_id)
        if bettor_id not in live.book:
            raise DomainError(
                "not_found", f"{bettor_id} has no slip", details={"bettor_id": bettor_id}
            )
        window = window_open(live, repo.clock())
        book = {k: v for k, v in live.book.items() if k != bettor_id}
        cancelled = {"round_number": window["round_number"], "bettor_id": bettor_id}
        return [("bet_cancelled", cancelled)], {"book": book}

    try:
        return live_change(repo, operator_id, table_id, decide, _book_out(repo))
    except _Behind as behind:
        book_slips.cancel_spectator_slip(repo, behind.table, behind.live, bettor_id)
        return book_view(behind.live, repo.clock())


class _Behind(Exception):
    """Out of a live change: the bettor is a book table's spectator (the book store's slip)."""

    def __init__(self, table: TableRecord, live: LiveRecord) -> None:
        super().__init__(table.table_id)
        self.table, self.live = table, live


def _behind(table: TableRecord, live: LiveRecord, bettor_id: str) -> None:
    """At a book table a bettor who holds no seat bets behind: :class:`_Behind`."""
    if table.bet_behind == "book" and not any(
        w["bettor_id"] == bettor_id for w in live.seats.values()
    ):
        raise _Behind(table, live)


def book_slip_out(slip: BookSlip) -> SlipOut:
    """A book table's spectator slip as the table shows it (no event: ``order`` 0)."""
    return SlipOut(
        bettor_id=slip.bettor_id,
        role=Role.SPECTATOR,
        seat=None,
        bets=[SlipBetOut(type=BetType(x.type), amount=x.amount, order=0) for x in slip.lines],
        total=slip.total,
        placed_at=slip.placed_at,
        order=0,
    )


def with_spectator(view: BookOut, slip: BookSlip) -> BookOut:
    """``view`` (the window and the seats' slips) with the caller's spectator slip."""
    spectators = {**view.spectators, slip.bettor_id: book_slip_out(slip)}
    return view.model_copy(update={"spectators": spectators, "total": view.total + slip.total})


def _waiting(live: LiveRecord, shoe_id: str, round_number: int) -> BettingWindow | None:
    """The window of round ``round_number`` of ``shoe_id`` if it waits to be dealt, else None."""
    betting = live.betting
    if (
        betting is None
        or betting["shoe_id"] != shoe_id
        or betting["round_number"] != round_number
        or betting["status"] == DEALT
    ):
        return None
    return betting


def cancel_window(
    repo: Repository,
    operator_id: str,
    table_id: str,
    opened_at: str,
    seq: int,
    code: str,
    at: str,
    *,
    due: bool = True,
) -> bool:
    """The sweep's way out of a window whose deal is refused for good (the book stopped passing
    the deal's checks after its slips were confirmed, e.g. the player-banker left or cannot
    cover it; or its shoe was closed): the window opened at ``opened_at`` and its book are
    dropped, reported ``betting_cancelled`` with the refusal's ``code``, and the table can open
    betting again. No bet was locked, so no money moves. Only while the table is still at
    ``seq`` — as the sweep read it before the refused deal, so the refusal still holds — and
    the window is past its ``deal_by`` at ``at`` (the sweep's time; a running table's clock,
    ``due=False``, cancels it at its ``closes_at``); else False (nothing changes)."""
    cancelled: list[BettingWindow] = []

    def decide(table: TableRecord, live: LiveRecord) -> Decision:
        cancelled.clear()  # decided again after losing a race: only the write that lands counts
        betting = live.betting
        if (
            live.seq != seq
            or betting is None
            or betting["opened_at"] != opened_at
            or _waiting(live, betting["shoe_id"], betting["round_number"]) is None
            or (due and (live.deal_by is None or live.deal_by > at))
        ):
            return None
        cancelled.append(betting)
        data = {"shoe_id": betting["shoe_id"], "round_number": betting["round_number"],
                "reason": code, "slips": len(live.book)}  # fmt: skip
        return [("betting_cancelled", data)], {"betting": None, "book": {}, "deal_by": None}

    live_change(repo, operator_id, table_id, decide, _book_out(repo))
    for window in cancelled:
        if book_slips.is_book_window(window):  # its book: no slip of it is ever dealt
            book_slips.cancel_book(repo, operator_id, window)
    return bool(cancelled)


# --- at the deal ---------------------------------------------------------------------------------


def book_window(live: LiveRecord, shoe_id: str, round_number: int) -> BettingWindow:
    """The window a from-book deal of round ``round_number`` deals (409 ``no_betting_window``:
    none was opened for it, or it was dealt)."""
    betting = _waiting(live, shoe_id, round_number)
    if betting is None:
        raise DomainError(
            "no_betting_window",
            f"no betting window is waiting for round {round_number} of {shoe_id}: "
            "open betting first (POST /v1/tables/{table_id}/betting)",
            details={"round_number": round_number},
        )
    return betting


def explicit_deal_allowed(live: LiveRecord, shoe_id: str, at: str) -> None:
    """A deal with explicit ``bets`` while a window of the shoe waits to be dealt: 409
    ``betting_in_progress`` (deal it ``from_book``)."""
    betting = live.betting
    if betting is not None and betting["shoe_id"] == shoe_id and betting["status"] != DEALT:
        raise DomainError(
            "betting_in_progress",
            f"betting for round {betting['round_number']} is open at this table: "
            "deal it from the book",
            details={"status": window_status(betting, at),
                     "round_number": betting["round_number"],
                     "closes_at": betting["closes_at"]},
        )  # fmt: skip


def book_page(
    repo: Repository, operator_id: str, table_id: str, after: str | None = None
) -> BookPageOut:
    """The table's book as it shows now, paged: the window, the seats' slips and, at a book
    table, at most :data:`~baccarat_api.limits.BOOK_PAGE_SLIPS` spectators' slips after the
    ref ``after`` in book order (``next``: the ref to pass for the page after; ``null`` at the
    end). At any other table every spectator's slip (they are few), ``next`` null."""
    _, live = table_live(repo, operator_id, table_id)
    view = book_view(live or LiveRecord(operator_id, table_id), repo.clock())
    window = None if live is None else live.betting
    if window is None or not book_slips.is_book_window(window):
        return BookPageOut(**dict(view), next=None)
    slips, nxt = book_slips.slips_page(repo, operator_id, window, after, limits.BOOK_PAGE_SLIPS)
    spectators = {s.bettor_id: book_slip_out(s) for s in slips}
    total = view.total + sum(s.total for s in slips)
    return BookPageOut(**{**dict(view), "spectators": spectators, "total": total}, next=nxt)
