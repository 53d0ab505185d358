"""The JSON documents the records hold, one type each.

A document is stored as the JSON it is (the codec writes a record's non-scalar fields as JSON, a
round's in the key order they were written) and answered from it, so each is a ``TypedDict``:
the type checker knows its keys, the bytes are those of the dict. Key order is part of what is
stored — a document is always built in the order its type lists its keys.

(No ``from __future__ import annotations`` here: a TypedDict reads ``NotRequired`` from its
evaluated annotations.)"""

from typing import Literal, NotRequired, TypedDict

from baccarat.outcome import FactsDoc, HandFacts

__all__ = [
    "BankerSeat",
    "BettingWindow",
    "ClockDoc",
    "Eligibility",
    "FactsDoc",
    "HandFacts",
    "House",
    "Interventions",
    "LastRound",
    "LineDoc",
    "LiveSqueeze",
    "LockedBet",
    "LockedPlayerBanker",
    "Manifest",
    "Money",
    "ParticipantDoc",
    "PersonalLimit",
    "PersonalLimitRange",
    "PlanCard",
    "ProofSignature",
    "QueuedSeed",
    "Replaced",
    "Reveal",
    "RoadResult",
    "SeatHolder",
    "Settlement",
    "Slip",
    "SlipBet",
    "Spectator",
    "SqueezePlan",
    "TickDoc",
    "Void",
]


class PersonalLimitRange(TypedDict, total=False):
    """A personal limit (個人限紅) as a range: its API form when not a bare maximum."""

    min: int
    max: int


#: A spectator's limit on one bet type: a maximum, or a range.
PersonalLimit = int | PersonalLimitRange


class LockedBet(TypedDict):
    """One bet as a round locks it: the request's (or the book's) bet in API form, the
    bettor's ``bettor_ref`` right after ``bettor_id``, a spectator's personal limits reduced to
    the bet's own type. Stored on the round, hashed, published and answered as it is."""

    bettor_id: str
    bettor_ref: NotRequired[str]
    role: str
    seat: NotRequired[int]
    type: str
    amount: int
    level: NotRequired[int]
    balance: NotRequired[int]
    personal_limits: NotRequired[dict[str, PersonalLimit]]


class LockedPlayerBanker(TypedDict):
    """The player-banker a round locks: ``bettor_id``, its ``bettor_ref``, its balance."""

    bettor_id: str
    bettor_ref: NotRequired[str]
    balance: int
    level: NotRequired[int]


class LineDoc(TypedDict):
    """One graded bet of a round's money (``baccarat.settlement.Line``), bettor named by ref."""

    index: int
    bettor_id: str
    bettor_ref: str
    type: str
    stake: int
    grade: str
    multiplier: str
    gross_win: int
    commission: int
    net: int
    covered_by: str


class ParticipantDoc(TypedDict):
    """One participant's round (``baccarat.settlement.Participant``), named by id and ref."""

    id: str
    bettor_ref: str
    role: str
    stake: int
    gross: int
    commission: int
    net: int


class House(TypedDict):
    covered: int
    commission: int
    take: int


class Eligibility(TypedDict):
    """Who may play on after the round: below the minimum balance, idle, balances after."""

    below_min_balance: list[str]
    player_banker_below_min_balance: str | None
    balances_after: dict[str, int]
    idle_bettors: list[str]
    idle_round_limit: int | None


class Money(TypedDict):
    """A round's money, fixed at its deal: the settlement document without ``settled_at`` and
    ``auto_settled``. Maps keyed by participant list the bettors in the order of their first
    bet, then the player-banker."""

    round_id: str
    shoe_id: str
    round_number: int
    profile: str
    tier: str
    banking: str
    rounding: str
    result: str
    lines: list[LineDoc]
    bettors: list[ParticipantDoc]
    player_banker: ParticipantDoc | None
    house: House
    nets: dict[str, int]
    eligibility: Eligibility


class Settlement(Money):
    """A settled round's money with when, and whether by the system."""

    settled_at: str
    auto_settled: bool


class Replaced(TypedDict):
    """What a void shows of the settlement it replaced; at a book round also the book's
    totals (every slip of the locked book refunded instead)."""

    nets: dict[str, int]
    house_take: int
    book_totals: NotRequired["BookTotalsDoc"]


class Void(TypedDict):
    """A round's void: why, the operator's note, when, and what it replaced."""

    reason: str
    note: str | None
    voided_at: str
    replaced: Replaced


class PlanCard(TypedDict):
    """One card of a reveal plan (``baccarat.squeeze.CardReveal``)."""

    position: int
    hand: str
    index: int
    face: str
    squeezer: str | None


class SqueezePlan(TypedDict):
    """A round's squeeze rights and reveal plan (``baccarat.squeeze.RevealPlan``), with the
    seconds each step may wait."""

    profile: str
    player: str | None
    banker: str | None
    initial: list[PlanCard]
    draws: list[PlanCard]
    squeeze_seconds: NotRequired[int]


class Reveal(TypedDict):
    """A squeezer's opening of a reveal step (``baccarat.squeeze.reveal``)."""

    step: str
    hands: list[str]
    by: str
    at: str


class RoadResult(TypedDict):
    """What the roads need of one dealt round of a shoe. ``round``: its number, written only when
    it is not its place among the shoe's rounds with cards (after a bacc-pf-v2 beacon void: a
    round with no card) — so the roads number each round as the feed and the proof do."""

    result: str
    player_total: int
    banker_total: int
    player_pair: bool
    banker_pair: bool
    round: NotRequired[int]


class SeatHolder(TypedDict):
    """Who sits on a seat of the live table."""

    bettor_id: str
    balance: int
    level: NotRequired[int | None]


class BankerSeat(TypedDict):
    """Who holds the player-banker seat."""

    bettor_id: str
    balance: int


class Spectator(TypedDict):
    """A spectator of a bid-squeeze table: balance and personal limits (API form)."""

    balance: int
    personal_limits: NotRequired[dict[str, PersonalLimit] | None]


class ClockDoc(TypedDict):
    """How a running table (``"dealing": "auto"``) runs itself: the pause between a round's
    resolution and the next window, whether the operator paused it, whether its company needs
    the player-banker, and why it waits (``None``: it does not)."""

    dealing: Literal["auto"]
    pause_seconds: int
    paused: bool
    needs_banker: bool
    waiting: str | None
    #: When the table last became ready for a next window (its latest round resolved, or a
    #: shoe committed): the pause counts from it.
    resolved_at: NotRequired[str]


class TickDoc(TypedDict):
    """The running table's next time-driven step (``ports/scheduler.py`` ``Tick`` without the
    table's ids): what, on which state, when."""

    step: Literal["open", "close", "reveal", "settle", "commit", "draw"]
    key: str
    due: str


class QueuedSeed(TypedDict):
    """A client seed the operator gave a running table in advance, for the automatic commit of
    the shoe numbered ``for_shoe_number`` (oldest first; never made, changed, skipped or
    reordered by the service)."""

    client_seed: str
    client_hash: str
    given_at: str
    for_shoe_number: int


class BettingWindow(TypedDict):
    """The betting window of the table's next round: ``open`` until ``closes_at``, ``closed``
    ("no more bets"), ``locked`` (a book table's: its book locked, not dealt yet), or ``dealt``
    (``round_id`` names the round). ``book_shards``: a book table's window only — its
    spectators' slips are in the book store's shards, not in the live item's ``book``."""

    shoe_id: str
    round_number: int
    opened_at: str
    closes_at: str
    status: Literal["open", "closed", "locked", "dealt"] | str
    round_id: str | None
    book_shards: NotRequired[int]


class BookTotalsDoc(TypedDict):
    """The totals of a locked book (:meth:`baccarat.bookmoney.BookTotals.as_dict`):
    ``net + house.take == 0``."""

    bettors: int
    stake: int
    net: int
    by_type: dict[str, dict[str, int]]
    house: House


class BookDoc(TypedDict):
    """A round's locked book of spectators' slips at a ``bet_behind: book`` table, fixed at the
    deal: the Merkle root of its leaves (:mod:`baccarat.booktree`, hex), their number, the
    settlement chunks (:data:`~baccarat_api.limits.CHUNK_SLIPS` leaves each), the book's
    shards, and its money (computed at the deal, like :class:`Money`)."""

    root: str
    count: int
    chunks: int
    shards: int
    totals: BookTotalsDoc


class SlipBet(TypedDict):
    type: str
    amount: int


class Slip(TypedDict):
    """A bettor's confirmed slip in the book: its bets, each line's accepted order (``orders``;
    a slip stored before lines had their own has only ``order``), when it was placed."""

    role: str
    seat: int | None
    bets: list[SlipBet]
    orders: NotRequired[list[int]]
    placed_at: str
    order: int


class LastRound(TypedDict):
    """The table's latest dealt round, and the spectators who bet in it."""

    round_id: str
    shoe_id: str
    round_number: int
    resolved: bool
    spectators: list[str]
    #: A bacc-pf-v2 round locked, not drawn: when its beacon round is due (its ``draw``
    #: step's time) and when, with no beacon, it is voided ``beacon_unavailable``.
    draw_at: NotRequired[str]
    void_at: NotRequired[str]


class Manifest(TypedDict):
    """What a proof's signature signs: the hash of every page (``proofdoc.manifest``)."""

    spec: str
    shoe_id: str
    key_id: str
    signed_at: str
    pages: list[str]


class ProofSignature(TypedDict):
    """The signature every page of a final proof carries (``proofdoc.sign``)."""

    alg: str
    key_id: str
    manifest: Manifest
    value: str


class Interventions(TypedDict):
    """What a final proof says the operator did to its shoe (``proofdoc.interventions``); a
    proof signed before the player-banker's net was shown apart has no
    ``voided_player_banker_net``."""

    voided_rounds: int
    voided_player_net: int
    voided_player_banker_net: NotRequired[int]
    closed_early: bool
    rounds_dealt: int
    #: ``None``: a bacc-pf-v2 shoe with a cut card closed early (unknowable).
    rounds_possible: int | None
    #: bacc-pf-v2 (``pf2proof.BEACON_VOID_FIELDS``): the beacon_unavailable voids, apart.
    beacon_voids: NotRequired[int]
    beacon_voids_priced: NotRequired[int]
    beacon_voided_player_net: NotRequired[int]
    beacon_voided_player_banker_net: NotRequired[int]


class LiveSqueeze(TypedDict):
    """The live table's copy of its latest round's squeeze: what the next change at the table
    needs to report a step the system opened at its deadline (``noticed``: the steps already
    reported), and what ``GET …/state`` shows."""

    round_id: str
    dealt_at: str
    seconds: int
    hands: dict[str, dict[str, str | None]]
    reveals: list[Reveal]
    noticed: list[str]


class BeaconDoc(TypedDict):
    """The beacon chain a ``bacc-pf-v2`` table's rounds wait for, copied into the table (and
    each shoe) at its creation — a table never changes beacon: drand ``quicknet`` in AWS, the
    local test beacon on ``make run`` (``test``: never shown as drand)."""

    name: str
    chain_hash: str
    public_key: str
    scheme: str
    period_ms: int
    genesis_ms: int
    test: bool


class LockBookDoc(TypedDict):
    """A book table's locked book as a bacc-pf-v2 lock keeps it until the draw seals it: its
    window's epoch (``opened_at``: which slips are its), shards, root and number of slips."""

    opened_at: str
    shards: int
    root: str
    count: int


class LockDoc(TypedDict):
    """A ``bacc-pf-v2`` round locked and not drawn yet (docs/design/beacon.md §3): its bets,
    fixed by ``book_root``, wait for beacon round ``beacon_round`` (due ``expected_at``); no
    beacon verified by ``void_at`` voids it ``beacon_unavailable``. What the draw needs to
    deal it exactly as the deal would have: the request's digest, bets and player-banker, the
    seated bettors judged present (``present``: seated, not betting), the bettors of the idle
    seats it vacated, its write id."""

    round_number: int
    locked_at: str
    book_root: str
    beacon_round: int
    expected_at: str
    void_at: str
    bets: list[LockedBet]
    player_banker: LockedPlayerBanker | None
    from_book: bool
    request_digest: str
    idle_out: list[str] | None
    present: list[str]
    seq: int
    write_id: str
    #: at a book table (a from-book lock): its spectators' book, locked with the round
    book: NotRequired[LockBookDoc]


class RoundLock(TypedDict):
    """A bacc-pf-v2 round's lock as its record and proof carry it: when, the root of every
    slip locked (``baccarat.fairness_v2.locked_root``, hex), the beacon round it fixed."""

    locked_at: str
    book_root: str
    beacon_round: int


class RoundBeacon(TypedDict):
    """The verified beacon a bacc-pf-v2 round's cards were drawn with (signature hex)."""

    round: int
    signature: str


class ShoeV2Doc(TypedDict):
    """A ``bacc-pf-v2`` shoe's draw state on its shoe item: the cards drawn so far (a bitmap,
    hex, bit ``c`` of byte ``c // 8`` — the remaining cards are the others, ascending), how
    many rounds drew cards and whether the cut card asked for one last round (the rules' end,
    :class:`baccarat.fairness_v2.ShoeEnd`), and the round locked and waiting for its beacon."""

    drawn: str
    dealt: int
    last_due: bool
    locked: LockDoc | None
