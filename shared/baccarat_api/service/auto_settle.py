"""The sweep: what the system does when the operator does not (the seeds' disconnect rule).

Each run, from the sparse ``DueRounds`` index, it deals every betting window past its
``deal_by`` from its book, settles every round past its ``settle_by`` (``auto_settled: true``;
never while a card is face down), closes every open shoe idle past its ``close_by`` (unless a
round of it is unresolved or squeezed or a window is open, so the proof is final at once) and
finalises every proof that has become final (:func:`.proofs.finalise_due`); sends again the
chunks of book settlements overdue (:mod:`.settle_chunks`); and takes each
running table's step overdue because its timer was lost. Each step is the
operator's own conditional write, so a sweep racing a late call (or another sweep) changes
nothing twice."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from baccarat_api.clock import seconds_after
from baccarat_api.ports.beacon import BeaconSource
from baccarat_api.ports.repository import Repository, StoreUnavailable
from baccarat_api.ports.shoes import ShoeSource
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service import betting, settle_chunks, table_clock, tables, ticks
from baccarat_api.service.dealing import deal_round
from baccarat_api.service.errors import DomainError
from baccarat_api.service.idempotency import Replayed
from baccarat_api.service.models import DealRequest
from baccarat_api.service.proofs import RefKeys, finalise_due
from baccarat_api.service.settling import settle_round

#: Most rounds one sweep settles (the next run takes the rest).
DEFAULT_LIMIT = 500
#: How long past its due a running table's step must be before the sweep takes it: its timer's
#: message gets that long first (the sweep is the net for a lost timer, not a second timer).
TICK_GRACE_SECONDS = 5
#: Most idle shoes one sweep closes (each a KMS Decrypt and a transaction; the next run takes
#: the rest), so a sweep stays well within its function's 60 s.
IDLE_CLOSE_LIMIT = 50


@dataclass(slots=True)
class SweepReport:
    now: str
    due: int = 0
    #: Auto-settled (``auto_settled: true``) by this sweep or one running at the same time.
    settled: list[str] = field(default_factory=list)
    #: Already settled by someone else (the operator, or another sweep) or voided.
    already: list[str] = field(default_factory=list)
    #: Due, but a card is still face down (a squeeze counting down): never settled inside a
    #: squeeze — a later sweep settles it once every card is shown.
    squeezing: list[str] = field(default_factory=list)
    #: Not settled (or finalised) this time (the next sweep tries again): id → error code.
    failed: dict[str, str] = field(default_factory=dict)
    #: Shoes whose proof this sweep made final (signed, stored, in the fairness summary).
    finalised: list[str] = field(default_factory=list)
    #: Ended shoes whose proof still waits for rounds to be resolved.
    pending: list[str] = field(default_factory=list)
    #: Rounds this sweep dealt from a betting window nobody dealt.
    dealt: list[str] = field(default_factory=list)
    #: Windows whose deal was refused for good, cancelled (``betting_cancelled``): → the code.
    cancelled: dict[str, str] = field(default_factory=dict)
    #: Idle open shoes this sweep closed (their proofs published).
    closed: list[str] = field(default_factory=list)
    #: Running tables whose overdue step (a lost timer's) this sweep took: ``table_id:step``.
    ticked: list[str] = field(default_factory=list)
    #: Book rounds whose settlement fan-out was overdue: their chunks not complete sent again.
    resent: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "due": self.due,
            "settled": self.settled,
            "already": self.already,
            "squeezing": self.squeezing,
            "failed": self.failed,
            "finalised": self.finalised,
            "pending": self.pending,
            "dealt": self.dealt,
            "cancelled": self.cancelled,
            "closed": self.closed,
            "ticked": self.ticked,
            "resent": self.resent,
        }

    def line(self) -> str:
        return (
            f"sweep at {self.now}: {self.due} due, {len(self.settled)} auto-settled, "
            f"{len(self.already)} already settled or voided, {len(self.squeezing)} still "
            f"squeezing, {len(self.failed)} failed; "
            f"{len(self.finalised)} proofs finalised, {len(self.pending)} pending; "
            f"{len(self.dealt)} betting windows dealt, {len(self.cancelled)} cancelled; "
            f"{len(self.closed)} idle shoes closed; {len(self.ticked)} overdue table steps taken; "
            f"{len(self.resent)} book settlements resumed"
        )


def _instant(at: str) -> str:
    """Any ISO 8601 time → the form settle-by times are stored in (UTC, milliseconds, ``Z``),
    so the index's string order is time order (a naive time is taken as UTC)."""
    moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sweep(
    repo: Repository,
    *,
    at: str | None = None,
    limit: int = DEFAULT_LIMIT,
    vault: SecretVault | None = None,
    ref_keys: RefKeys | None = None,
    shoes: ShoeSource | None = None,
    unseal: SecretVault | None = None,
    beacon: BeaconSource | None = None,
) -> SweepReport:
    """With ``shoes``, deal the betting windows due at ``at`` (default: now) from their books;
    settle every round whose locked bets are past their deadline; with ``unseal`` (a vault that
    opens shoe secrets), close the shoes idle by then; then, with ``vault`` and ``ref_keys``,
    finalise the proofs that have become final. ``beacon``: for a bacc-pf-v2 round's overdue
    ``draw``."""
    report = SweepReport(now=_instant(at) if at else repo.clock())
    if shoes is not None and unseal is not None:
        _tick_due(repo, shoes, unseal, report, limit, beacon)
    if shoes is not None:
        _deal_due(repo, shoes, report, limit)
    _settle_due(repo, report, limit)
    _resend_chunks(repo, report, limit)
    if unseal is not None:
        _close_idle(repo, unseal, report, min(limit, IDLE_CLOSE_LIMIT))
    if vault is not None and ref_keys is not None:
        done = finalise_due(repo, vault, ref_keys, report.now, beacon=lambda: beacon)
        report.finalised, report.pending = done.finalised, done.pending
        report.failed |= done.failed
    return report


def _tick_due(
    repo: Repository, shoes: ShoeSource, vault: SecretVault, report: SweepReport, limit: int,
    beacon: BeaconSource | None = None,
) -> None:  # fmt: skip
    """Take each running table's step overdue by :data:`TICK_GRACE_SECONDS` (its timer was
    lost: a failed send, a crash between the commit and the send, a message dead-lettered),
    exactly as its timer would (:func:`.table_clock.run_tick`: conditional, so a timer arriving
    meanwhile changes nothing twice)."""
    overdue = seconds_after(report.now, -TICK_GRACE_SECONDS)
    for operator_id, table_id in repo.due_ticks(overdue, limit):
        try:
            tick = ticks.tick_of(repo.load(operator_id, live=table_id).live)
            if tick is None or tick["due"] > overdue:
                continue  # taken a moment ago (the index lags), or a newer step not due yet
            args = (
                (repo, shoes, vault, tick) if beacon is None else (repo, shoes, vault, tick, beacon)
            )
            if table_clock.run_tick(*args) == "done":
                report.ticked.append(f"{table_id}:{tick['step']}")
        except StoreUnavailable:
            report.failed[f"{table_id}:tick"] = "unavailable"
        except Exception as exc:  # one table must not stop the sweep for every other table
            report.failed[f"{table_id}:tick"] = getattr(exc, "code", type(exc).__name__)


def _deal_due(repo: Repository, shoes: ShoeSource, report: SweepReport, limit: int) -> None:
    for operator_id, table_id in repo.due_books(report.now, limit):
        try:
            _deal_window(repo, shoes, report, operator_id, table_id)
        except StoreUnavailable:
            report.failed[f"{table_id}:betting"] = "unavailable"
        except Exception as exc:  # one table must not stop the sweep for every other table
            report.failed[f"{table_id}:betting"] = getattr(exc, "code", type(exc).__name__)


def _deal_window(
    repo: Repository, shoes: ShoeSource, report: SweepReport, operator_id: str, table_id: str
) -> None:
    """Deal the table's window from its book if it is due now (the index is eventually
    consistent: the table may have dealt it and opened the next meanwhile); if the deal is
    refused for good, cancel that same window — unless the table changed since it was read."""
    live = repo.load(operator_id, live=table_id).live
    window = None if live is None else live.betting
    if window is None or live is None or live.deal_by is None or live.deal_by > report.now:
        return  # dealt a moment ago, or a newer window not due yet
    opened_at = str(window["opened_at"])
    request = DealRequest(from_book=True, round_number=window["round_number"])
    try:
        out = deal_round(repo, shoes, operator_id, window["shoe_id"], request, window=opened_at)
    except Replayed:
        return  # the operator dealt it first
    except DomainError as exc:
        if exc.code == "no_betting_window":
            return  # that window is gone (dealt, or replaced by a newer one)
        if exc.retryable:
            report.failed[f"{table_id}:betting"] = exc.code
        elif betting.cancel_window(
            repo, operator_id, table_id, opened_at, live.seq, exc.code, report.now
        ):
            report.cancelled[f"{table_id}:betting"] = exc.code  # refused for good
        else:  # the table changed since: the next sweep deals it again
            report.failed[f"{table_id}:betting"] = exc.code
        return
    report.dealt.append(out.round_id)


def _close_idle(repo: Repository, vault: SecretVault, report: SweepReport, limit: int) -> None:
    for operator_id, ref in repo.idle_shoes(report.now, limit):
        shoe_id = ref.shoe_id
        try:
            tables.close_shoe(repo, vault, operator_id, shoe_id, idle_at=report.now)
        except tables.NotIdle:
            continue  # dealt from since, or waiting for a round: a later sweep
        except DomainError as exc:
            if exc.code not in ("shoe_ended", "not_found"):  # ended since: nothing to do
                report.failed[f"{shoe_id}:idle"] = exc.code
            continue
        except StoreUnavailable:
            report.failed[f"{shoe_id}:idle"] = "unavailable"
            continue
        except Exception as exc:  # one shoe must not stop the sweep for every other one
            report.failed[f"{shoe_id}:idle"] = type(exc).__name__
            continue
        report.closed.append(shoe_id)


def _resend_chunks(repo: Repository, report: SweepReport, limit: int) -> None:
    """Send again the chunks of book rounds whose settlement fan-out is overdue (a lost message,
    a worker that died): :func:`.settle_chunks.resend_due`."""
    try:
        report.resent = settle_chunks.resend_due(repo, report.now, limit)
    except StoreUnavailable:
        report.failed["settle_chunks"] = "unavailable"


def _settle_due(repo: Repository, report: SweepReport, limit: int) -> None:
    due = repo.due_rounds(report.now, limit)
    report.due = len(due)
    for operator_id, ref in due:
        rid = ref.round_id
        try:
            doc = settle_round(repo, operator_id, rid, auto=True)
        except DomainError as exc:
            if exc.code in ("round_voided", "not_found"):
                report.already.append(rid)
            elif exc.code == "cards_not_shown":
                report.squeezing.append(rid)
            else:
                report.failed[rid] = exc.code
            continue
        except StoreUnavailable:
            report.failed[rid] = "unavailable"
            continue
        except Exception as exc:  # one bad round must not stop the sweep for every other round
            report.failed[rid] = type(exc).__name__
            continue
        if doc.auto_settled:  # by this sweep (or a concurrent one)
            report.settled.append(rid)
        else:
            report.already.append(rid)
