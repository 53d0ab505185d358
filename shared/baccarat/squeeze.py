"""Squeeze rights (瞇牌 / 咪牌) and the reveal plan of a dealt round: who squeezes which hand
(:func:`squeeze_rights`, by profile), which cards are dealt face down, and the countdown after
which the system opens a hand nobody opened (:func:`timeline`, :func:`reveal`). Rules from
``docs/rules/game-rules.md``; the seeds, ``docs/rules/seeds/``, win on conflict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from .bets import Bet, Role
from .outcome import Round
from .paytables import BetType

__all__ = [
    "BANKER_STAKES",
    "PLAYER_STAKES",
    "STEPS",
    "SYSTEM",
    "CardReveal",
    "Profile",
    "RevealPlan",
    "RevealRefused",
    "SqueezeRights",
    "StepState",
    "bid_squeezers",
    "live_steps",
    "reveal",
    "reveal_plan",
    "squeeze_rights",
    "star_city_leader",
    "step_hands",
    "system_reveals",
    "timeline",
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


def _ranking(stakes: dict[str, _Stake], *, by_level: bool = False) -> list[str]:
    """Bettor ids, best first: larger stake, [higher level], earlier order, then bettor id."""

    def key(bettor: str) -> tuple[int, bool, int, int, str]:
        s = stakes[bettor]
        level = (s.level is None, -(s.level or 0)) if by_level else (False, 0)
        return (-s.amount, *level, s.order or 0, bettor)

    return sorted(stakes, key=key)


def star_city_leader(bets: Iterable[Bet], *, player_banker_id: str | None = None) -> str | None:
    """The star-city squeeze leader (seed 000, 遊戲方式 and item 12: "the bettor with the most
    chips staked leads the squeeze or opens directly, the others watch; equal stakes → the
    higher player level leads"; third cards "the same way"): one leader for the round, for both
    hands and the third cards. Stake = the bettor's total over all areas. Ties: total stake,
    then higher level (no level ranks below every level), then the earlier accepted bet (lowest
    ``order``), then bettor id. Never the player-banker (only the urge button), never a
    spectator (they watch); ``None`` if nobody staked."""
    stakes = _stakes((b for b in bets if b.bettor_id != player_banker_id), None)
    ranked = _ranking(stakes, by_level=True)
    return ranked[0] if ranked else None


def bid_squeezers(bets: Iterable[Bet]) -> tuple[str | None, str | None]:
    """Bid-squeeze ``(player hand squeezer, banker hand squeezer)`` (seed 001, 咪牌（競咪）1–4):
    only seated bettors. The largest Banker stake squeezes the Banker hand, the largest Player
    stake the Player hand; equal stakes → the earlier accepted bet (lowest ``order`` on that
    hand), then bettor id. A bettor with equal Banker and Player stakes who would get both
    hands squeezes the Player hand; the Banker hand then goes to the next banker staker in rank
    (``None`` if there is none). A bettor who tops both hands with *unequal* stakes squeezes
    both (rule 2 applies to each hand; rule 4 only speaks of equal stakes). A No-commission
    Banker stake counts as a Banker stake (both are bets on 莊); side bets do not count."""
    bets = list(bets)
    player_stakes = _stakes(bets, PLAYER_STAKES)
    banker_stakes = _stakes(bets, BANKER_STAKES)
    player_rank = _ranking(player_stakes)
    banker_rank = _ranking(banker_stakes)
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


def reveal_plan(round_: Round, rights: SqueezeRights, *, squeezed: bool = True) -> RevealPlan:
    """Each hand's first card face up; its second and third cards face down, squeezed by the
    hand's squeezer (seed 000: "只開第一張牌，第二張將以蓋牌的方式呈現 … 補第3張牌時，瞇牌方式與上述
    相同"; bid-squeeze follows the same presentation, decision). The first four cards are the
    ``initial`` part, the third cards the ``draws``. ``squeezed=False`` (a table without a
    squeeze): every card face up, nobody squeezes — the whole round is shown at the deal."""
    cards = [
        CardReveal(
            position=pos,
            hand=hand,
            index=i,
            face="up" if i == 1 or not squeezed else "down",
            squeezer=None if i == 1 or not squeezed else rights.squeezer(hand),
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


# --- the squeeze countdown: who opened what, and when the system does ------------------------

#: The two reveal steps of a round, in order: the four initial cards, then the third cards.
STEPS = ("initial", "draws")

#: Who opened a hand when its squeezer did not by the step's deadline.
SYSTEM = "system"


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _after(iso: str, seconds: int) -> str:
    return _iso(datetime.fromisoformat(iso.replace("Z", "+00:00")) + timedelta(seconds=seconds))


def step_hands(plan: Mapping[str, Any]) -> dict[str, dict[str, str | None]]:
    """Per step of the plan (``RevealPlan.as_dict()``) that has face-down cards: each hand with
    a face-down card in it → its squeezer (``None``: only the system opens it). A round without
    third cards has no ``draws`` step."""
    out: dict[str, dict[str, str | None]] = {}
    for step in STEPS:
        hands = {c["hand"]: c["squeezer"] for c in plan.get(step, []) if c["face"] == "down"}
        if hands:
            out[step] = dict(sorted(hands.items(), key=lambda kv: kv[0] != "player"))
    return out


@dataclass(frozen=True, slots=True)
class StepState:
    """One reveal step at a moment: ``status`` ``waiting`` (the previous step is not revealed
    yet: no countdown) | ``squeezing`` (counting down to ``reveal_by``) | ``revealed``
    (``revealed_at``); ``opened``: hand → ``{by, at}`` (``by``: the squeezer's bettor id, or
    ``system`` for a hand not opened by ``reveal_by``)."""

    step: str
    hands: dict[str, str | None]
    reveal_by: str | None
    opened: dict[str, dict[str, str]]
    revealed_at: str | None

    @property
    def status(self) -> str:
        if self.revealed_at is not None:
            return "revealed"
        return "waiting" if self.reveal_by is None else "squeezing"

    @property
    def by_system(self) -> list[str]:
        """The hands the system opened (at ``reveal_by``)."""
        return [h for h, o in self.opened.items() if o["by"] == SYSTEM]

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reveal_by": self.reveal_by,
            "revealed_at": self.revealed_at,
            "hands": {
                hand: {"squeezer": who, "opened": self.opened.get(hand)}
                for hand, who in self.hands.items()
            },
        }


def timeline(
    hands: dict[str, dict[str, str | None]],
    dealt_at: str,
    seconds: int,
    reveals: Iterable[Mapping[str, Any]],
    now: str | None,
) -> list[StepState]:
    """The steps at ``now`` (ISO 8601 UTC as the service writes it; ``None``: at the end of
    time, every step revealed). The initial step counts down from the deal, the draws from the
    moment the initial step is revealed: ``reveal_by`` = that start + ``seconds``. ``reveals``
    are the squeezers' openings (``{step, hands, by, at}``, each before its step's deadline);
    a hand not opened by ``reveal_by`` is opened by the system then, and a step is revealed
    once every hand of it is open."""
    reveals = list(reveals)
    out: list[StepState] = []
    start: str | None = dealt_at
    for step in STEPS:
        if step not in hands:
            continue
        if start is None:
            out.append(StepState(step, hands[step], None, {}, None))
            continue
        deadline = _after(start, seconds)
        opened = {
            hand: {"by": r["by"], "at": r["at"]}
            for r in reveals
            if r["step"] == step and r["at"] <= deadline
            for hand in r["hands"]
        }
        revealed_at: str | None = None
        if len(opened) == len(hands[step]):
            revealed_at = max(o["at"] for o in opened.values())
        elif now is None or now >= deadline:
            for hand in hands[step]:
                opened.setdefault(hand, {"by": SYSTEM, "at": deadline})
            revealed_at = deadline
        out.append(StepState(step, hands[step], deadline, opened, revealed_at))
        start = revealed_at
    return out


class RevealRefused(Exception):
    """A reveal that may not be recorded: ``code`` (``no_draws``, ``not_squeezer``,
    ``already_revealed``, ``reveal_out_of_order``, ``reveal_deadline_passed``)."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.details = details


def reveal(
    hands: dict[str, dict[str, str | None]],
    dealt_at: str,
    seconds: int,
    reveals: Iterable[Mapping[str, Any]],
    step: str,
    bettor_id: str,
    now: str,
) -> dict[str, Any]:
    """The squeezer ``bettor_id`` opens, at ``now``, the hands of ``step`` they squeeze: the
    reveal record ``{step, hands, by, at}`` — or :class:`RevealRefused` (checked in this order:
    the draws only after the initial step is revealed — first, so that nobody learns before
    then whether, and to which hand, third cards come; when the player hand draws, nobody but
    its squeezer opens draws before the player's third card is open — whether the banker draws
    depends on that card, so the banker's third card, its squeezer's answer included, would
    give it away; a round without third cards has no draws; only the hand's squeezer opens
    it; once; only before the step's ``reveal_by``)."""
    _check_draws_order(hands, dealt_at, seconds, reveals, step, bettor_id, now)
    mine = _hands_squeezed_by(hands, step, bettor_id)
    state = next(s for s in timeline(hands, dealt_at, seconds, reveals, now) if s.step == step)
    if all(state.opened.get(h, {}).get("by") == bettor_id for h in mine):
        raise RevealRefused("already_revealed", f"the {step} cards are already opened", step=step)
    if state.status == "waiting":
        raise RevealRefused(
            "reveal_out_of_order", "the draws open only after the initial cards", step=step
        )
    if state.reveal_by is not None and now >= state.reveal_by:
        raise RevealRefused(
            "reveal_deadline_passed",
            f"the {step} cards were opened by the system at {state.reveal_by}",
            step=step,
            reveal_by=state.reveal_by,
        )
    return {"step": step, "hands": mine, "by": bettor_id, "at": now}


def _check_draws_order(
    hands: dict[str, dict[str, str | None]],
    dealt_at: str,
    seconds: int,
    reveals: Iterable[Mapping[str, Any]],
    step: str,
    bettor_id: str,
    now: str,
) -> None:
    """The draws open after the initial step is revealed, and — when the player hand draws —
    with the player's third card first unless ``bettor_id`` squeezes it."""
    if step != STEPS[1]:
        return
    if STEPS[0] in hands:
        first = timeline({STEPS[0]: hands[STEPS[0]]}, dealt_at, seconds, reveals, now)[0]
        if first.status != "revealed":
            raise RevealRefused(
                "reveal_out_of_order", "the draws open only after the initial cards", step=step
            )
    player = hands.get(step, {})
    if "player" in player and player["player"] != bettor_id:
        draws = next(s for s in timeline(hands, dealt_at, seconds, reveals, now) if s.step == step)
        if "player" not in draws.opened:
            raise RevealRefused(
                "reveal_out_of_order",
                "the draws open with the player's third card first",
                step=step,
            )


def _hands_squeezed_by(
    hands: dict[str, dict[str, str | None]], step: str, bettor_id: str
) -> list[str]:
    """The hands of ``step`` that ``bettor_id`` squeezes, or why there are none."""
    if not hands:
        raise RevealRefused(
            "no_squeeze", "this round was dealt face up: nothing to reveal", step=step
        )
    if step not in hands:
        raise RevealRefused("no_draws", "this round has no third cards to reveal", step=step)
    mine = [hand for hand, who in hands[step].items() if who == bettor_id]
    if not mine:
        raise RevealRefused(
            "not_squeezer",
            f"{bettor_id} does not squeeze the {step} cards of this round",
            step=step,
            squeezers=sorted({w for w in hands[step].values() if w is not None}),
        )
    return mine


# --- the live table's copy: {round_id, dealt_at, seconds, hands, reveals, noticed} -----------


def live_steps(sq: Mapping[str, Any], at: str | None) -> list[StepState]:
    """The steps of a live squeeze (the table's copy of its latest round's squeeze) at ``at``."""
    return timeline(sq["hands"], sq["dealt_at"], sq["seconds"], sq["reveals"], at)


def _system_events(sq: Mapping[str, Any], at: str | None) -> list[tuple[str, dict[str, Any]]]:
    return [
        (
            "squeeze_revealed",
            {
                "round_id": sq["round_id"],
                "step": s.step,
                "by": SYSTEM,
                "hands": s.by_system,
                "revealed_at": s.revealed_at,
            },
        )
        for s in live_steps(sq, at)
        if s.status == "revealed" and s.by_system and s.step not in sq["noticed"]
    ]


def system_reveals(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, at: str
) -> tuple[list[tuple[str, dict[str, Any]]], Mapping[str, Any] | None]:
    """The ``squeeze_revealed`` events (``by: system``) a change at ``at`` reports before its
    own, and the live squeeze it leaves: the steps the system opened by ``at`` and not yet
    reported — of ``after`` (what the change leaves), or of ``before`` when the change replaces
    the round (the next deal: a step of the previous round due after it is never reported, the
    next ``round_dealt`` ends that round's squeeze for a frontend; reads still compute it)."""
    if before is not None and (after is None or after["round_id"] != before["round_id"]):
        return _system_events(before, at), after
    if after is None:
        return [], None
    events = _system_events(after, at)
    if events:
        after = {**after, "noticed": [*after["noticed"], *(d["step"] for _, d in events)]}
    return events, after
