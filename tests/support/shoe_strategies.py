"""Hypothesis strategies for shoes: rule sets the product accepts, and bacc-pf-v2's round inputs
(book roots and beacons as bytes). Shared by the engine's tests and the JavaScript cross-checks."""

from __future__ import annotations

from hypothesis import strategies as st

from baccarat.fairness_v2 import BeaconDraw, RoundInput
from baccarat.rules import ShoeRules

key32 = st.binary(min_size=32, max_size=32)


@st.composite
def safe_rules(draw: st.DrawFn) -> ShoeRules:
    """Any rules that cannot run out of cards: a cut card (maybe with a limit) or a limit."""
    decks = draw(st.integers(4, 8))
    burn = draw(st.integers(0, 1))
    if draw(st.booleans()):
        cut_min = draw(st.integers(11, 60))
        cut_max = draw(st.integers(cut_min, 80))
        limit = draw(st.sampled_from([0, 0, 10, 40]))
    else:
        cut_min = cut_max = 0
        limit = draw(st.integers(1, (52 * decks - 11) // 6))
    return ShoeRules(decks, burn, cut_min, cut_max, limit)


def beacons(max_round: int = 2**64 - 1, signatures: int = 48) -> st.SearchStrategy[BeaconDraw]:
    """Beacons as the draw takes them: any chain hash, round and signature bytes."""
    return st.builds(
        BeaconDraw,
        chain_hash=key32,
        round=st.integers(0, max_round),
        signature=st.binary(min_size=1 if signatures != 48 else 48, max_size=signatures),
    )


def round_inputs(
    beacon: st.SearchStrategy[BeaconDraw | None] | None = None,
) -> st.SearchStrategy[RoundInput]:
    """A round's book root and beacon (``None``: voided ``beacon_unavailable``) when given."""
    return st.builds(RoundInput, book_root=key32, beacon=beacons() if beacon is None else beacon)
