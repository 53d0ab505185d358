"""The operator's reads of a book round's settlement: a spectator's receipt, and the pages of
every spectator's money (each written by its settlement chunk, :mod:`.settle_chunks`).

A receipt is read by the bettor's id (one read: receipts are stored under it); only when none is
found are the round and its fan-out read, to say why: ``settlement_pending`` (its chunk is not
written yet, or the round is not resolved) or ``not_in_book`` (no slip of that bettor in the
book — a seated bettor's bets are in the proof, not in the book)."""

from __future__ import annotations

from baccarat_api.ids import parse_round_id
from baccarat_api.ports.records import RoundRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.errors import DomainError, not_found
from baccarat_api.service.models.receipts import (
    ReceiptOut,
    SettlementBettorOut,
    SettlementBettorsOut,
)
from baccarat_api.service.reading import round_record


def _pending(round_id: str) -> DomainError:
    return DomainError(
        "settlement_pending",
        f"the book of round {round_id!r} is not settled that far yet",
        details={"round_id": round_id},
    )


def _book_round(repo: Repository, operator_id: str, round_id: str) -> RoundRecord:
    r = round_record(repo, operator_id, round_id)
    if r.book is None:
        raise DomainError(
            "not_in_book", f"round {round_id!r} has no book", details={"round_id": round_id}
        )
    return r


def get_receipt(repo: Repository, operator_id: str, round_id: str, bettor_id: str) -> ReceiptOut:
    """The bettor's receipt of the round's book."""
    ref = parse_round_id(round_id)
    if ref is None:
        raise not_found("round", round_id)
    found = repo.chunks.receipt(operator_id, ref, bettor_id)
    if found is not None:
        return ReceiptOut.model_validate(dict(found.doc))
    r = _book_round(repo, operator_id, round_id)
    progress = repo.chunks.progress(operator_id, r.ref)
    if (
        r.book is not None
        and r.book["count"]
        and (progress is None or not progress.done >= frozenset(range(progress.chunks)))
    ):
        raise _pending(round_id)
    raise DomainError(
        "not_in_book",
        f"no slip of {bettor_id!r} in the book of round {round_id!r}",
        details={"round_id": round_id, "bettor_id": bettor_id},
    )


def settlement_bettors(
    repo: Repository, operator_id: str, round_id: str, page: int
) -> SettlementBettorsOut:
    """Page ``page`` of the round's spectators' money (``settlement_pending`` until written)."""
    r = _book_round(repo, operator_id, round_id)
    assert r.book is not None
    pages = r.book["chunks"]
    if not 0 <= page < max(pages, 1):
        raise not_found("page", str(page))
    entries = [] if not pages else repo.chunks.page(operator_id, r.ref, page)
    if entries is None:
        raise _pending(round_id)
    return SettlementBettorsOut(
        round_id=round_id,
        page=page,
        pages=pages,
        next=page + 1 if page + 1 < pages else None,
        bettors=[SettlementBettorOut(**e.as_dict()) for e in entries],
    )
