"""A shoe's interventions: what its voids took from the bettors and the player-banker, and
whether it was closed early — computed from the public proof's rounds, and worded in the one
line every verifier prints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The header's ``interventions``, in order.
INTERVENTION_FIELDS = (
    "voided_rounds",
    "voided_player_net",
    "voided_player_banker_net",
    "closed_early",
    "rounds_dealt",
    "rounds_possible",
)


def _book_net(round_: Mapping[str, Any]) -> int:
    """Σ of a v1.1 round's book's nets (``book.totals.net``; 0 without a book)."""
    book = round_.get("book")
    totals = book.get("totals") if isinstance(book, Mapping) else None
    net = totals.get("net") if isinstance(totals, Mapping) else None
    return net if isinstance(net, int) and not isinstance(net, bool) else 0


def voided_nets(round_: Mapping[str, Any]) -> tuple[int, int]:
    """What a voided public round's void took: ``(bettors, player_banker)`` — the Σ of its
    ``void.replaced.nets`` of every bettor, and the net of its player-banker (the round's
    ``player_banker.bettor_ref``; 0 at a house-banked table), the bettors' including a
    bacc-pf-v1.1 round's book (``book.totals.net``). The house is not in ``nets``. Malformed
    nets count 0 (a verifier reports them on their own)."""
    void = round_.get("void")
    replaced = void.get("replaced") if isinstance(void, Mapping) else None
    nets = replaced.get("nets") if isinstance(replaced, Mapping) else None
    if not isinstance(nets, Mapping):
        return 0, 0
    pb = round_.get("player_banker")
    pb_ref = pb.get("bettor_ref") if isinstance(pb, Mapping) else None
    bettors, banker = _book_net(round_), 0
    for ref, net in nets.items():
        if not isinstance(net, int) or isinstance(net, bool):
            continue
        if pb_ref is not None and ref == pb_ref:
            banker += net
        else:
            bettors += net
    return bettors, banker


def interventions(
    end_reason: str, rounds: Sequence[Mapping[str, Any]], rounds_possible: int
) -> dict[str, Any]:
    """``{voided_rounds, voided_player_net, voided_player_banker_net, closed_early,
    rounds_dealt, rounds_possible}`` from public proof rounds: ``voided_player_net`` sums what
    every voided round's ``replaced.nets`` gave the bettors (what the voids took from them),
    ``voided_player_banker_net`` what they gave the round's player-banker, apart (the house is
    not in ``nets``)."""
    voided = [r for r in rounds if r.get("void") is not None]
    split = [voided_nets(r) for r in voided]
    return {
        "voided_rounds": len(voided),
        "voided_player_net": sum(b for b, _ in split),
        "voided_player_banker_net": sum(pb for _, pb in split),
        "closed_early": end_reason == "closed",
        "rounds_dealt": len(rounds),
        "rounds_possible": rounds_possible,
    }


def as_claimed(recomputed: Mapping[str, Any], claimed: Mapping[str, Any]) -> dict[str, Any]:
    """``recomputed`` (:func:`interventions`) in the form ``claimed`` states it. A proof signed
    before voids were priced for the bettors alone has no ``voided_player_banker_net``: its
    ``voided_player_net`` nets every replaced net, the player-banker's included (the earlier
    form, still verified; the spec's "Interventions")."""
    if "voided_player_banker_net" in claimed:
        return dict(recomputed)
    earlier = {k: v for k, v in recomputed.items() if k != "voided_player_banker_net"}
    earlier["voided_player_net"] = (
        recomputed["voided_player_net"] + recomputed["voided_player_banker_net"]
    )
    return earlier


def _with_sign(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}"


def interventions_text(iv: Mapping[str, Any]) -> str:
    """The one line verifiers print, e.g. ``2 voided rounds, players would have netted +12,300;
    closed early after round 1 of 30``, ``1 voided round, players would have netted +5,000, the
    player-banker -5,050; …`` (a player-banker's net only when not 0) or ``no voids; played to
    the end (30 of 30 rounds)``."""
    n = iv["voided_rounds"]
    voids = (
        "no voids"
        if n == 0
        else f"{n} voided round{'' if n == 1 else 's'}, players would have netted "
        f"{_with_sign(iv['voided_player_net'])}"
    )
    banker = iv.get("voided_player_banker_net", 0)
    if n and banker:
        voids += f", the player-banker {_with_sign(banker)}"
    dealt, possible = iv["rounds_dealt"], iv["rounds_possible"]
    end = (
        f"closed early after round {dealt} of {possible}"
        if iv["closed_early"]
        else f"played to the end ({dealt} of {possible} rounds)"
    )
    return f"{voids}; {end}"
