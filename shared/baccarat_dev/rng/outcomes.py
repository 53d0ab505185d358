"""Game outcomes of simulated shoes against the exact probabilities of ``baccarat.rtp``.

The exact figures are for a round dealt from a fresh shoe. Round 1 of every shoe is exactly that
(a uniform shuffle, and after a burn the rest is a uniform shuffle whatever the exposed card);
later rounds depend on earlier ones, so only round 1 of each shoe is counted: one independent
round per shoe. Every bet of the bid-squeeze pay table (every bet in the vocabulary) is graded by
``baccarat.paytables.grade``; its categories are each distinct winning multiplier, push and lose,
with the exact probabilities ``compute_rtp`` gives."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from baccarat.outcome import FactSnapshot, Result, Round
from baccarat.paytables import BID_SQUEEZE, BetType, Grade, PayTable, grade
from baccarat.rtp import compute_rtp, outcome_distribution

from .stats import Check, ChiSquare, chi_square

#: Every bet in the vocabulary, graded as the bid-squeeze table pays it.
TABLE: PayTable = BID_SQUEEZE
RESULT_KEY = "result"
NATURAL_KEY = "naturals"
_NATURALS = ("none", "player only", "banker only", "both")


def natural_category(player_natural: bool, banker_natural: bool) -> str:
    return _NATURALS[player_natural + 2 * banker_natural]


def bet_category(g: Grade, multiplier: Fraction) -> str:
    return f"wins {multiplier}" if g is Grade.WIN else g.value


def round_categories(rnd: Round) -> list[tuple[str, str]]:
    """(what, category) of one round: its result, its naturals and every bet's grade."""
    facts = FactSnapshot(rnd)
    out = [
        (RESULT_KEY, facts.result.value),
        (NATURAL_KEY, natural_category(facts.player_natural, facts.banker_natural)),
    ]
    for bet in BetType:
        if bet in TABLE.offered:
            out.append((bet.value, bet_category(*grade(bet, facts, TABLE))))
    return out


def exact_probabilities(decks: int) -> dict[str, dict[str, Fraction]]:
    """What → category → exact probability, from ``compute_rtp`` and ``outcome_distribution``."""
    report = compute_rtp(TABLE, decks)
    out: dict[str, dict[str, Fraction]] = {
        RESULT_KEY: {
            Result.BANKER.value: report.p_banker,
            Result.PLAYER.value: report.p_player,
            Result.TIE.value: report.p_tie,
        }
    }
    naturals: dict[str, Fraction] = dict.fromkeys(_NATURALS, Fraction(0))
    for facts, p in outcome_distribution(decks).items():
        naturals[natural_category(facts.player_natural, facts.banker_natural)] += p
    out[NATURAL_KEY] = naturals
    for entry in report.bets:
        cats = {bet_category(Grade.WIN, m): p for m, p in entry.multipliers}
        if entry.p_push:
            cats[Grade.PUSH.value] = entry.p_push
        cats[Grade.LOSE.value] = entry.p_lose
        out[entry.bet.value] = cats
    return out


@dataclass(frozen=True, slots=True)
class OutcomeTest:
    what: str
    categories: tuple[str, ...]
    probabilities: tuple[Fraction, ...]
    result: ChiSquare


@dataclass(frozen=True, slots=True)
class OutcomeAnalysis:
    decks: int
    rounds: int
    tests: tuple[OutcomeTest, ...]

    def checks(self, section: str) -> list[Check]:
        group = f"{self.decks} decks"
        return [
            Check(
                section,
                group,
                f"{t.what}: {', '.join(t.categories)}",
                f"{self.rounds:,} rounds",
                t.result.text(),
                t.result.p_value,
            )
            for t in self.tests
        ]


def analyse_outcomes(decks: int, counts: Counter[tuple[str, str]], rounds: int) -> OutcomeAnalysis:
    exact = exact_probabilities(decks)
    unknown = {key for key in counts if key[1] not in exact.get(key[0], {})}
    if unknown:
        raise ValueError(f"categories the exact distribution does not have: {sorted(unknown)}")
    tests = []
    for what, cats in exact.items():
        names = tuple(c for c, p in cats.items() if p)
        probs = tuple(cats[c] for c in names)
        if sum(probs) != 1:
            raise AssertionError(f"{what}: exact probabilities do not sum to 1")
        observed = [counts[what, c] for c in names]
        if sum(observed) != rounds:
            raise ValueError(f"{what}: {sum(observed)} rounds counted, {rounds} dealt")
        result = chi_square(observed, [float(p) for p in probs])
        tests.append(OutcomeTest(what, names, probs, result))
    return OutcomeAnalysis(decks, rounds, tuple(tests))
