"""A shoe's private final proof (what ``proofdoc.public_proof`` — or, at a bacc-pf-v2 table,
``pf2proof.public_proof_v2`` — turns into the public one), from its ended shoe record and its
round records: apart from :mod:`.proofs` (finalising, serving), which it serves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baccarat import pf2proof
from baccarat_api.ports.records import RoundRecord, ShoeRecord
from baccarat_api.service.views import derived_header, private_round


def private_proof(shoe: ShoeRecord, rounds: Sequence[RoundRecord]) -> dict[str, Any]:
    """The private final proof ``proofdoc.public_proof`` takes, from the ended shoe's record
    and its round records (in order, every one resolved)."""
    header, derived = derived_header(shoe)
    if shoe.fairness == pf2proof.SPEC:  # cards drawn by each round's lock and beacon
        assert shoe.beacon is not None
        v2 = [_with_book(_v2_round(r), r) for r in rounds]
        return {**header, "fairness": shoe.fairness, "beacon": dict(shoe.beacon), "rounds": v2}
    return {
        **header,
        "rounds": [
            _with_book(private_round(r, d), r) for r, d in zip(rounds, derived, strict=False)
        ],
    }


def _v2_round(r: RoundRecord) -> dict[str, Any]:
    """A bacc-pf-v2 round as ``pf2proof.public_proof_v2`` takes it: its lock and beacon (for a
    ``beacon_unavailable`` void, the one fetched later, or none), bets, money; its cards are drawn
    there from the lock and the beacon, not copied from the record."""
    row: dict[str, Any] = {
        "round_number": r.round_number,
        "dealt_at": r.dealt_at,
        "bets": r.bets,
        "player_banker": r.player_banker,
        "settlement": r.settlement,
        "void": r.void,
        "lock": r.lock,
    }
    beacon = r.beacon or r.late_beacon  # a beacon void's, fetched later, prices it
    return row if beacon is None else {**row, "beacon": beacon}


def _with_book(private: dict[str, Any], r: RoundRecord) -> dict[str, Any]:
    """A round of a ``bet_behind: book`` table carries its locked book (root, count, totals):
    its proof is ``bacc-pf-v1.1`` (``proofdoc.public_proof``). Every other round is unchanged."""
    return private if r.book is None else {**private, "book": r.book}
