"""A bacc-pf-v2 shoe's ``beacon_unavailable`` voids priced when its proof is first built
(docs/design/beacon.md §5): a void's beacon round did not come within ``BEACON_WAIT_SECONDS``,
but drand catches up, so the final proof carries it and the proof and the verifiers price the
void (``replaced``: what the round's locked bets would have come to on the cards it would have
drawn). Pricing is information: the round stays voided and no money moves.

Each unpriced void's beacon round is fetched from the deployment's source and verified as the
draw's is (:func:`.drawing.verified_beacon`), then stored on the round as ``late_beacon`` (one
conditional write: only if it has none — a concurrent finaliser stores the same, unique
signature). Still unavailable: the proof is pending (409 ``proof_pending``; each read or sweep
tries once more) — on drand until every void is priced (drand keeps every round, and the
verifiers refuse an unpriced void on it: it would be a veto nobody sees the cost of); on a test
beacon until :data:`~baccarat_api.limits.BEACON_PRICE_WAIT_SECONDS` after the shoe's end, then
final with the void unpriced (``replaced: null``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace

from baccarat import pf2proof
from baccarat_api.clock import seconds_after
from baccarat_api.limits import BEACON_PRICE_WAIT_SECONDS
from baccarat_api.ports.beacon import BeaconSource
from baccarat_api.ports.documents import RoundBeacon
from baccarat_api.ports.records import RoundRecord, ShoeRecord
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.service.drawing import verified_beacon
from baccarat_api.service.errors import DomainError

#: The deployment's beacon, asked for only when a shoe has a void to price (a v1 proof read never
#: builds one); ``None``: no beacon configured.
BeaconProvider = Callable[[], BeaconSource | None]
#: ``Retry-After`` of a proof waiting for a beacon void's beacon (drand publishes every 3 s).
PRICE_RETRY_SECONDS = 5


def unpriced(r: RoundRecord) -> bool:
    """A round voided ``beacon_unavailable`` whose beacon the service has not obtained."""
    return (
        r.void is not None
        and r.void["reason"] == pf2proof.BEACON_VOID
        and r.lock is not None
        and r.beacon is None
        and r.late_beacon is None
    )


def price_beacon_voids(
    repo: Repository,
    beacon: BeaconProvider | None,
    shoe: ShoeRecord,
    rounds: Sequence[RoundRecord],
) -> list[RoundRecord]:
    """``rounds`` with each unpriced beacon void's beacon fetched, verified and stored; 409
    ``proof_pending`` while one is still missing within the wait (module docstring)."""
    todo = [r for r in rounds if unpriced(r)]
    source = None if not todo or beacon is None or shoe.beacon is None else beacon()
    if source is None:
        return list(rounds)
    priced: dict[int, RoundRecord] = {}
    missing: list[int] = []
    for r in todo:
        assert r.lock is not None
        got = verified_beacon(source, shoe, r.lock["beacon_round"])
        if got is None:
            missing.append(r.lock["beacon_round"])
            continue
        doc: RoundBeacon = {"round": got.round, "signature": got.signature.hex()}
        with suppress(ConditionFailed):  # priced meanwhile: the same verified (unique) signature
            repo.price_beacon_void(r, doc)
        priced[r.round_number] = replace(r, late_beacon=doc)
    if missing:
        _pending(repo, shoe, missing)
    return [priced.get(r.round_number, r) for r in rounds]


def _pending(repo: Repository, shoe: ShoeRecord, missing: list[int]) -> None:
    """409 ``proof_pending`` for the beacon rounds still missing — on drand always (it keeps
    every round, and the verifiers refuse an unpriced void there), on a test beacon until the
    wait after the shoe's end (then the proof is final with those voids unpriced)."""
    assert shoe.ended_at is not None and shoe.beacon is not None
    test = shoe.beacon["test"]
    until = seconds_after(shoe.ended_at, BEACON_PRICE_WAIT_SECONDS) if test else None
    if until is not None and repo.clock() >= until:
        return
    by = "" if until is None else f" until {until}"
    raise DomainError(
        "proof_pending",
        f"the shoe has ended; its proof waits{by} for the beacon rounds of its "
        f"beacon_unavailable voids ({len(missing)} not yet fetched), to price them",
        details={"unpriced_beacon_rounds": missing, "price_by": until},
        retry_after=PRICE_RETRY_SECONDS,
    )
