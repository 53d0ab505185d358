"""read: the operator's GET routes, one DynamoDB round trip each (GetItem, or one Query for the
tiers; ``GET /v1/shoes/{id}``: two, the shoe and then its latest round). No KMS: a shoe's
secret is stored in clear (and shown) only once the shoe has ended. The public ones (the proof,
the signing keys, the fairness summary) are in :mod:`.proofs`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baccarat_api.ids import RoundRef, parse_round_id, parse_shoe_id, parse_table_id
from baccarat_api.ports.records import LiveRecord, RoundRecord, ShoeRecord, TableRecord
from baccarat_api.ports.repository import Repository, Snapshot
from baccarat_api.service import idempotency
from baccarat_api.service.errors import DomainError, lost_race, not_found
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import (
    LockedRoundOut,
    RoundDetailOut,
    ShoeStateOut,
    TableOut,
    TiersOut,
)
from baccarat_api.service.money import settlement_out
from baccarat_api.service.v2_rounds import beacon_void_view, locked, locked_view, round_locked
from baccarat_api.service.views import book_shown, round_view, shoe_as_shown, table_view


def list_tiers(repo: Repository) -> TiersOut:
    return TiersOut(tiers=repo.list_tiers())


# The operator's item an id names, or 404 (a malformed id too). With ``idem`` (a POST's
# Idempotency-Key) the item and the key's record are read in one round trip, and a live record
# replays (:func:`~baccarat_api.service.idempotency.load`).


def table_record(
    repo: Repository, operator_id: str, table_id: str, idem: IdempotencyRequest | None = None
) -> TableRecord:
    table = None
    if parse_table_id(table_id) is not None:
        if idem is None:
            table = repo.get_table(operator_id, table_id)
        else:
            table = idempotency.load(repo, operator_id, idem, table_id=table_id).table
    if table is None:
        raise not_found("table", table_id)
    return table


def shoe_record(
    repo: Repository, operator_id: str, shoe_id: str, idem: IdempotencyRequest | None = None
) -> ShoeRecord:
    ref = parse_shoe_id(shoe_id)
    shoe = None
    if ref is not None:
        if idem is None:
            shoe = repo.get_shoe(operator_id, ref)
        else:
            shoe = idempotency.load(repo, operator_id, idem, shoe=ref).shoe
    if shoe is None:
        raise not_found("shoe", shoe_id)
    return shoe


def round_record(
    repo: Repository,
    operator_id: str,
    round_id: str,
    idem: IdempotencyRequest | None = None,
    answer: Callable[[RoundRecord], dict[str, Any]] | None = None,
) -> RoundRecord:
    """The round; with ``idem``, a live record replays ``answer(round)`` (the round's answer,
    rendered from the round read in the same round trip)."""
    ref = parse_round_id(round_id)
    rnd = None
    if ref is not None:
        if idem is None:
            rnd = repo.get_round(operator_id, ref)
        else:
            rnd = idempotency.load(repo, operator_id, idem, _render(answer), round_=ref).round
    if rnd is None:
        raise not_found("round", round_id)
    return rnd


def _render(
    answer: Callable[[RoundRecord], dict[str, Any]] | None,
) -> Callable[[Snapshot], idempotency.Render]:
    """A replay's answer, rendered from the round read with the key's record."""

    def render(snap: Snapshot) -> idempotency.Render:
        def rendered(_: str) -> dict[str, Any]:
            assert answer is not None and snap.round is not None
            return answer(snap.round)

        return rendered

    return render


# The same, with the table's live state (:mod:`.events`) read in the same round trip: what a
# change that reports events needs (one BatchGetItem instead of one GetItem).


def table_live(
    repo: Repository, operator_id: str, table_id: str, idem: IdempotencyRequest | None = None
) -> tuple[TableRecord, LiveRecord | None]:
    snap = Snapshot()
    if parse_table_id(table_id) is not None:
        if idem is None:
            snap = repo.load(operator_id, table_id=table_id, live=table_id)
        else:
            snap = idempotency.load(repo, operator_id, idem, table_id=table_id, live=table_id)
    if snap.table is None:
        raise not_found("table", table_id)
    return snap.table, snap.live


def shoe_live(
    repo: Repository, operator_id: str, shoe_id: str, idem: IdempotencyRequest | None = None
) -> tuple[ShoeRecord, LiveRecord | None]:
    ref = parse_shoe_id(shoe_id)
    snap = Snapshot()
    if ref is not None:
        if idem is None:
            snap = repo.load(operator_id, shoe=ref, live=ref.table_id)
        else:
            snap = idempotency.load(repo, operator_id, idem, shoe=ref, live=ref.table_id)
    if snap.shoe is None:
        raise not_found("shoe", shoe_id)
    return snap.shoe, snap.live


def round_live(
    repo: Repository,
    operator_id: str,
    round_id: str,
    idem: IdempotencyRequest | None = None,
    answer: Callable[[RoundRecord], dict[str, Any]] | None = None,
) -> tuple[RoundRecord, LiveRecord | None]:
    """The round and its table's live state; with ``idem``, a live record replays
    ``answer(round)``."""
    snap = round_snapshot(repo, operator_id, round_id, idem, answer)
    assert snap.round is not None
    return snap.round, snap.live


def round_snapshot(
    repo: Repository,
    operator_id: str,
    round_id: str,
    idem: IdempotencyRequest | None = None,
    answer: Callable[[RoundRecord], dict[str, Any]] | None = None,
    *,
    shoe: bool = False,
) -> Snapshot:
    """:func:`round_live`'s read as read (with ``shoe``, the round's shoe too: in the same
    round trip); 404 when the round is unknown."""
    ref = parse_round_id(round_id)
    snap = Snapshot()
    if ref is not None:
        keys: dict[str, Any] = {"round_": ref, "live": ref.table_id}
        if shoe:
            keys["shoe"] = ref.shoe
        if idem is None:
            snap = repo.load(operator_id, **keys)
        else:
            snap = idempotency.load(repo, operator_id, idem, _render(answer), **keys)
    if snap.round is None:
        raise _missing(repo, operator_id, round_id)
    return snap


def _missing(repo: Repository, operator_id: str, round_id: str) -> DomainError:
    """A round that is not there: 409 ``round_locked`` while it is a bacc-pf-v2 round locked
    and not drawn (its shoe holds its lock: one more GetItem), else 404."""
    ref = parse_round_id(round_id)
    shoe = None if ref is None else repo.load(operator_id, shoe=ref.shoe).shoe
    lock = locked(shoe)
    if shoe is not None and ref is not None and lock and lock["round_number"] == ref.round_number:
        return round_locked(shoe, lock, repo.clock(), "it is resolved or squeezed")
    if shoe is not None and ref is not None and shoe.v2 and shoe.rounds_dealt >= ref.round_number:
        return lost_race()  # drawn between the two reads: retry
    return not_found("round", round_id)


def get_table(repo: Repository, operator_id: str, table_id: str) -> TableOut:
    return TableOut.model_validate(table_view(table_record(repo, operator_id, table_id)))


def get_shoe(repo: Repository, operator_id: str, shoe_id: str) -> ShoeStateOut:
    """The shoe as its table shows it now: while a card of its latest round is face down, its
    history, roads and cards dealt leave that round's hidden cards out (and an ended shoe's
    server seed, which deals them, waits too) — one more GetItem (the latest round) then."""
    shoe = shoe_record(repo, operator_id, shoe_id)
    latest = None
    if shoe.rounds_dealt:
        latest = repo.get_round(operator_id, RoundRef(shoe.table_id, shoe.shoe_number,
                                                      shoe.rounds_dealt))  # fmt: skip
    return ShoeStateOut.model_validate(shoe_as_shown(shoe, latest, repo.clock()))


def get_round(repo: Repository, operator_id: str, round_id: str) -> RoundDetailOut | LockedRoundOut:
    """The round: dealt (its settlement once resolved), or — a bacc-pf-v2 round — locked
    (its cards wait for its beacon round) or voided ``beacon_unavailable`` (no card)."""
    try:
        r = round_record(repo, operator_id, round_id)
    except DomainError:
        ref = parse_round_id(round_id)
        shoe = None if ref is None else repo.load(operator_id, shoe=ref.shoe).shoe
        if shoe is None or ref is None or shoe.v2 is None:
            raise
        lock = locked(shoe)
        if lock is not None and lock["round_number"] == ref.round_number:
            return LockedRoundOut.model_validate(locked_view(shoe, lock))
        if shoe.rounds_dealt < ref.round_number:
            raise
        r = round_record(repo, operator_id, round_id)  # drawn between the two reads
    if r.lock is not None and r.beacon is None:  # voided beacon_unavailable: no card
        shoe = repo.load(operator_id, shoe=r.ref.shoe).shoe
        assert shoe is not None
        return LockedRoundOut.model_validate(beacon_void_view(r, shoe))
    settlement = settlement_out(r).model_dump() if r.resolved else None
    shown = round_view(r, repo.clock())
    if r.book is not None:  # its totals shown as its money is: once resolved
        shown["book"] = book_shown(r.book, money=r.resolved)
    return RoundDetailOut.model_validate({**shown, "settlement": settlement})
