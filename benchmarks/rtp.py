"""Exact RTP figures: every bet of a profile by full enumeration, cold (memo cleared) and
memoised, next to the plain enumeration (``rtp_naive``) run once in the same process."""

from __future__ import annotations

import time

from baccarat.paytables import BID_SQUEEZE
from baccarat.rtp import clear_cache, compute_rtp, rtp_naive

from ._timing import fmt_time, per_call


def _cold(decks: int) -> None:
    clear_cache()
    compute_rtp(BID_SQUEEZE, decks)


def run() -> list[str]:
    lines = [
        "## Exact RTP, every bid-squeeze bet (13 bets), full enumeration",
        f"{'decks':>5} {'cold':>12} {'memoised':>12} {'naive':>12} {'ratio (cold)':>13}",
    ]
    for decks in (4, 6, 8):
        cold = per_call(lambda d=decks: _cold(d), min_time=0.5, repeats=3)
        compute_rtp(BID_SQUEEZE, decks)
        warm = per_call(lambda d=decks: compute_rtp(BID_SQUEEZE, d), min_time=0.3, repeats=3)
        if decks == 8:
            t0 = time.perf_counter()
            slow_report = rtp_naive(BID_SQUEEZE, decks)  # once: it takes seconds
            slow = time.perf_counter() - t0
            same = slow_report.as_dict() == compute_rtp(BID_SQUEEZE, decks).as_dict()
            lines.append(
                f"{decks:>5} {fmt_time(cold)} {fmt_time(warm)} {fmt_time(slow)} "
                f"{slow / cold:11.1f}x  (same figures: {'yes' if same else 'NO'})"
            )
        else:
            lines.append(f"{decks:>5} {fmt_time(cold)} {fmt_time(warm)}")
    return lines
