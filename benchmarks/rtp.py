"""Exact RTP figures: all bets of a profile by full enumeration, cold (cache cleared)."""

from __future__ import annotations

import time

from baccarat.paytables import BID_SQUEEZE
from baccarat.rtp import clear_cache, compute_rtp, rtp_naive

from ._timing import fmt_time, per_call


def _cold(decks: int) -> None:
    clear_cache()
    compute_rtp(BID_SQUEEZE, decks)


def run() -> list[str]:
    lines = ["## Exact RTP, every bid-squeeze bet (13 bets), cold enumeration"]
    lines.append(f"{'decks':>5} {'engine':>12} {'naive':>12} {'ratio':>7}")
    for decks in (4, 6, 8):
        fast = per_call(lambda d=decks: _cold(d), min_time=0.5, repeats=3)
        t0 = time.perf_counter()
        rtp_naive(BID_SQUEEZE, decks)  # one run: it takes seconds
        slow = time.perf_counter() - t0
        lines.append(f"{decks:>5} {fmt_time(fast)} {fmt_time(slow)} {slow / fast:6.1f}x")
    return lines
