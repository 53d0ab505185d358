"""A bacc-pf-v2 shoe's rounds between their lock and their draw (docs/design/beacon.md §3–§4):
the shoe's draw state (the cards drawn, as a bitmap on the shoe item), how a locked round is
answered (``status: locked``, its beacon round and when it is due) and refused
(409 ``round_locked``, retryable, ``Retry-After`` = seconds to the beacon round).

Pure functions of the shoe's record: the lock itself is :mod:`.locking`, the draw and the
beacon void :mod:`.drawing`."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from baccarat_api.clock import ms_of
from baccarat_api.ids import RoundRef
from baccarat_api.ports.documents import LockDoc
from baccarat_api.ports.records import RoundRecord, ShoeRecord
from baccarat_api.service.errors import DomainError


def locked(shoe: ShoeRecord | None) -> LockDoc | None:
    """The shoe's round locked and not drawn yet (``None``: none, or a v1 shoe)."""
    return None if shoe is None or shoe.v2 is None else shoe.v2["locked"]


def round_id_of(shoe: ShoeRecord, lock: LockDoc) -> str:
    return RoundRef(shoe.table_id, shoe.shoe_number, lock["round_number"]).round_id


def wait_seconds(lock: LockDoc, at: str) -> int:
    """Seconds from ``at`` to the beacon round's time, at least 1 (``Retry-After``)."""
    return wait_until(lock["expected_at"], at)


def wait_until(expected_at: str | None, at: str) -> int:
    """Seconds from ``at`` to ``expected_at``, at least 1."""
    if expected_at is None:
        return 1
    return max(1, math.ceil((ms_of(expected_at) - ms_of(at)) / 1000))


def locked_view(shoe: ShoeRecord, lock: LockDoc) -> dict[str, Any]:
    """A locked round as the deal's 202 and ``GET /v1/rounds/{id}`` answer it: its bets, the
    root that fixes them, the beacon round whose signature draws its cards, when that round is
    due and when, without it, the round is voided ``beacon_unavailable``."""
    assert shoe.beacon is not None
    return {
        "round_id": round_id_of(shoe, lock),
        "shoe_id": shoe.shoe_id,
        "table_id": shoe.table_id,
        "round_number": lock["round_number"],
        "status": "locked",
        "locked_at": lock["locked_at"],
        "book_root": lock["book_root"],
        "beacon": {
            "chain_hash": shoe.beacon["chain_hash"],
            "round": lock["beacon_round"],
            "expected_at": lock["expected_at"],
        },
        "void_at": lock["void_at"],
        "bets": lock["bets"],
        "player_banker": lock["player_banker"],
        "void": None,
    }


def beacon_void_view(r: RoundRecord, shoe: ShoeRecord) -> dict[str, Any]:
    """A round voided ``beacon_unavailable`` (no card ever existed): its lock and its void."""
    assert r.lock is not None and shoe.beacon is not None
    lock = r.lock
    return {
        "round_id": r.round_id,
        "shoe_id": shoe.shoe_id,
        "table_id": r.table_id,
        "round_number": r.round_number,
        "status": "voided",
        "locked_at": lock["locked_at"],
        "book_root": lock["book_root"],
        "beacon": {
            "chain_hash": shoe.beacon["chain_hash"],
            "round": lock["beacon_round"],
            "expected_at": None,
        },
        "void_at": None,
        "bets": r.bets,
        "player_banker": r.player_banker,
        "void": r.void,
    }


def round_locked(shoe: ShoeRecord, lock: LockDoc, at: str, what: str) -> DomainError:
    """409 ``round_locked`` (retryable): ``what`` waits for the locked round's draw."""
    round_id = round_id_of(shoe, lock)
    return DomainError(
        "round_locked",
        f"round {round_id} is locked: {what} once its cards are drawn with beacon round "
        f"{lock['beacon_round']} (due {lock['expected_at']})",
        details={
            "round_id": round_id,
            "beacon_round": lock["beacon_round"],
            "expected_at": lock["expected_at"],
        },
        retry_after=wait_seconds(lock, at),
    )


# --- the cards drawn: a bitmap -------------------------------------------------------------


def remaining(drawn: str, size: int) -> list[int]:
    """The cards not drawn yet, ascending (what the next round draws from)."""
    bits = bytes.fromhex(drawn)
    return [c for c in range(size) if not bits[c // 8] >> (c % 8) & 1]


def with_drawn(drawn: str, cards: Iterable[int]) -> str:
    """The bitmap ``drawn`` with ``cards`` drawn too."""
    bits = bytearray.fromhex(drawn)
    for c in cards:
        bits[c // 8] |= 1 << (c % 8)
    return bits.hex()
