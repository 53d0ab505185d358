"""How the fairness spec pages (docs/bacc-pf-v1.md, docs/bacc-pf-v2.md) write their vector
blocks: ``key = value`` rows aligned, and a round as ``start p: Player … (t), Banker … (t) → r``."""

from __future__ import annotations

from typing import Any

from baccarat.cards import codes
from baccarat.outcome import Round


def kv(rows: list[tuple[str, Any]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)} = {v}" for k, v in rows)


def hand(cards: tuple[int, ...], total: int) -> str:
    return f"{' '.join(codes(cards))} ({total})"


def round_text(r: Round) -> str:
    return (
        f"start {r.start}: Player {hand(r.player, r.player_total)}, "
        f"Banker {hand(r.banker, r.banker_total)} → {r.result.value}"
    )
