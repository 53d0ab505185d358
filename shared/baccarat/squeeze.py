"""Squeeze rights (瞇牌 / 咪牌) and the reveal plan of a dealt round.

Rules (``spec/game-rules.md``; the seeds win on conflict):

* **star-city** (seed 000, 遊戲方式 and item 12): the first two cards of each hand show the first
  card face up and the second face down; "the bettor with the most chips staked leads the squeeze
  or opens directly, the others watch; equal stakes → the higher player level leads"; third cards
  "the same way". So there is **one leader for the round**, for both hands and the third cards.
  Only bettors squeeze: the player-banker (荷官) has only the urge button and spectators only
  watch. Stake = the bettor's **total** stake over all areas (Banker/Player, Tie, pairs).
  Final tie-breaks: total stake, then higher level (no level ranks below every level), then the
  earlier accepted bet (the bettor's lowest ``order``), then ``bettor_id``.
* **bid-squeeze** (seed 001, 咪牌（競咪）1–4): only seated bettors. The largest Banker stake
  squeezes the Banker hand, the largest Player stake the Player hand; equal stakes → the earlier
  accepted bet (the bettor's lowest ``order`` on that hand), then ``bettor_id``. A bettor with
  equal Banker and Player stakes who would get both hands squeezes the Player hand; the Banker
  hand then goes to the next banker staker in rank (``None`` if there is none). A bettor who tops
  both hands with *unequal* stakes squeezes both (rule 2 applies to each hand; rule 4 only
  speaks of equal stakes). Decision: a No-commission Banker stake counts as a Banker stake (both
  are bets on 莊); side bets (Tie, pairs, dragons, Big/Small, Lucky 6) do not count.

A hand whose squeezer is ``None`` is revealed by the system after the countdown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .bets import Bet, Role
from .outcome import Round
from .paytables import BetType

__all__ = [
    "BANKER_STAKES",
    "PLAYER_STAKES",
    "CardReveal",
    "Profile",
    "RevealPlan",
    "SqueezeRights",
    "bid_squeezers",
    "reveal_plan",
    "squeeze_rights",
    "star_city_leader",
]


class Profile(StrEnum):
    STAR_CITY = "star-city"
    BID_SQUEEZE = "bid-squeeze"


#: Bet types that make a Banker / Player stake for the bid-squeeze squeeze.
BANKER_STAKES = frozenset({BetType.BANKER, BetType.BANKER_NO_COMMISSION})
PLAYER_STAKES = frozenset({BetType.PLAYER})


@dataclass(frozen=True, slots=True)
class SqueezeRights:
    """Who squeezes each hand of a round (``None``: the system reveals after the countdown)."""

    profile: Profile
    player: str | None
    banker: str | None

    def squeezer(self, hand: str) -> str | None:
        if hand == "player":
            return self.player
        if hand == "banker":
            return self.banker
        raise ValueError(f"not a hand: {hand!r}")

    def as_dict(self) -> dict[str, Any]:
        return {"profile": self.profile.value, "player": self.player, "banker": self.banker}


@dataclass(slots=True)
class _Stake:
    amount: int = 0
    order: int | None = None
    level: int | None = None

    def add(self, bet: Bet) -> None:
        self.amount += bet.amount
        self.order = bet.order if self.order is None else min(self.order, bet.order)
        if bet.level is not None:
            self.level = bet.level if self.level is None else max(self.level, bet.level)


def _stakes(bets: Iterable[Bet], types: frozenset[BetType] | None) -> dict[str, _Stake]:
    """Per seated bettor: summed stake on ``types`` (all types if ``None``), earliest order."""
    out: dict[str, _Stake] = {}
    for bet in bets:
        if bet.role is Role.SEATED and (types is None or bet.type in types):
            out.setdefault(bet.bettor_id, _Stake()).add(bet)
    return {bettor: s for bettor, s in out.items() if s.amount > 0}


def _ranked(stakes: dict[str, _Stake], *, by_level: bool = False) -> list[str]:
    """Bettor ids, best first: larger stake, [higher level], earlier order, then bettor id."""

    def key(bettor: str) -> tuple[int, bool, int, int, str]:
        s = stakes[bettor]
        level = (s.level is None, -(s.level or 0)) if by_level else (False, 0)
        return (-s.amount, *level, s.order or 0, bettor)

    return sorted(stakes, key=key)


def star_city_leader(bets: Iterable[Bet], *, player_banker_id: str | None = None) -> str | None:
    """The star-city squeeze leader: largest total stake, then higher level, then earlier order,
    then bettor id. Never the player-banker, never a spectator; ``None`` if nobody staked."""
    stakes = _stakes((b for b in bets if b.bettor_id != player_banker_id), None)
    ranked = _ranked(stakes, by_level=True)
    return ranked[0] if ranked else None


def bid_squeezers(bets: Iterable[Bet]) -> tuple[str | None, str | None]:
    """Bid-squeeze ``(player hand squeezer, banker hand squeezer)``; see the module docstring."""
    bets = list(bets)
    player_stakes = _stakes(bets, PLAYER_STAKES)
    banker_stakes = _stakes(bets, BANKER_STAKES)
    player_rank = _ranked(player_stakes)
    banker_rank = _ranked(banker_stakes)
    player = player_rank[0] if player_rank else None
    if (
        banker_rank
        and banker_rank[0] == player
        and banker_stakes[player].amount == player_stakes[player].amount
    ):
        banker_rank = banker_rank[1:]  # rule 4: equal stakes → the Player hand only
    return player, (banker_rank[0] if banker_rank else None)


def squeeze_rights(
    profile: Profile | str, bets: Iterable[Bet], *, player_banker_id: str | None = None
) -> SqueezeRights:
    """Squeeze rights of a round's accepted bets under ``profile`` ('star-city' | 'bid-squeeze').

    ``player_banker_id`` (star-city) names the player-banker seat, who never squeezes."""
    profile = Profile(profile)
    if profile is Profile.STAR_CITY:
        leader = star_city_leader(bets, player_banker_id=player_banker_id)
        return SqueezeRights(profile, leader, leader)
    player, banker = bid_squeezers(b for b in bets if b.bettor_id != player_banker_id)
    return SqueezeRights(profile, player, banker)


@dataclass(frozen=True, slots=True)
class CardReveal:
    """One card of the plan: shoe ``position``, ``hand`` and ``index`` in it (1–3), ``face`` it
    is dealt with, and who may squeeze it (face-down cards only; ``None`` = system reveal)."""

    position: int
    hand: str
    index: int
    face: str
    squeezer: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "hand": self.hand,
            "index": self.index,
            "face": self.face,
            "squeezer": self.squeezer,
        }


@dataclass(frozen=True, slots=True)
class RevealPlan:
    """How a dealt round is shown, in two parts that can be published one after the other.

    ``initial``: the first four cards in dealing order (Player 1, Banker 1, Player 2, Banker 2:
    shoe positions ``start`` … ``start + 3``), each hand's first card face up and its second
    face down with the hand's squeezer. It is the same whatever the rest of the round is — it
    says nothing about whether third cards follow — so it may be shown before any reveal.
    ``draws``: the third cards (Player's, then Banker's, in dealing order; none, one or two),
    face down with their hand's squeezer: to show only once the initial cards are revealed (how
    many there are gives the natural / drawing outcome away). Neither carries a card face."""

    round_number: int
    rights: SqueezeRights
    initial: tuple[CardReveal, ...]
    draws: tuple[CardReveal, ...]

    @property
    def cards(self) -> tuple[CardReveal, ...]:
        """Every card of the plan, in dealing order."""
        return self.initial + self.draws

    def as_dict(self) -> dict[str, Any]:
        """``{profile, player, banker, initial, draws}``: the squeeze rights and both parts."""
        return {
            **self.rights.as_dict(),
            "initial": [c.as_dict() for c in self.initial],
            "draws": [c.as_dict() for c in self.draws],
        }


def reveal_plan(round_: Round, rights: SqueezeRights) -> RevealPlan:
    """Each hand's first card face up; its second and third cards face down, squeezed by the
    hand's squeezer (seed 000: "只開第一張牌，第二張將以蓋牌的方式呈現 … 補第3張牌時，瞇牌方式與上述
    相同"; bid-squeeze follows the same presentation, decision). The first four cards are the
    ``initial`` part, the third cards the ``draws``."""
    cards = [
        CardReveal(
            position=pos,
            hand=hand,
            index=i,
            face="up" if i == 1 else "down",
            squeezer=None if i == 1 else rights.squeezer(hand),
        )
        for hand, positions in (
            ("player", round_.player_positions),
            ("banker", round_.banker_positions),
        )
        for i, pos in enumerate(positions, 1)
    ]
    cards.sort(key=lambda c: c.position)
    return RevealPlan(
        round_.number,
        rights,
        tuple(c for c in cards if c.index <= 2),
        tuple(c for c in cards if c.index == 3),
    )
