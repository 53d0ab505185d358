"""What the service stores: one record type per item kind, independent of DynamoDB.

Every record belongs to one operator (``operator_id``), except the public ones: the proof of an
ended shoe and a table's fairness summary. Secrets appear only as KMS ciphertext; ``server_seed``
is set only once the shoe has ended.

A field is written once, here, with its default: the codec stores every field under its name and
reads a missing attribute back as this default (or its frozen stored default,
:mod:`baccarat_api.ports.stored_defaults`). A new record kind is a dataclass here plus its entry
in :data:`KEY_FIELDS` (and its item shape in the codec)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from baccarat_api.clock import seconds_after
from baccarat_api.ids import RoundRef, ShoeRef
from baccarat_api.limits import (
    DEFAULT_BETTING_SECONDS,
    DEFAULT_IDLE_SHOE_CLOSE_SECONDS,
    DEFAULT_SETTLE_DEADLINE_SECONDS,
    DEFAULT_SQUEEZE_SECONDS,
    DEFAULT_VOID_WINDOW_SECONDS,
)
from baccarat_api.ports.chat_records import ChatMessage as ChatMessage
from baccarat_api.ports.chat_records import ChatPerson as ChatPerson
from baccarat_api.ports.chat_records import ChatWindow as ChatWindow
from baccarat_api.ports.chunks import ChunkEmitted as ChunkEmitted
from baccarat_api.ports.chunks import SettleProgress as SettleProgress
from baccarat_api.ports.documents import (
    BeaconDoc,
    BookDoc,
    FactsDoc,
    Interventions,
    LockedBet,
    LockedPlayerBanker,
    Money,
    ProofSignature,
    Reveal,
    RoadResult,
    RoundBeacon,
    RoundLock,
    Settlement,
    ShoeV2Doc,
    SqueezePlan,
    Void,
)
from baccarat_api.ports.feed_records import FEED_SHARDS as FEED_SHARDS
from baccarat_api.ports.feed_records import DeliveryState as DeliveryState
from baccarat_api.ports.feed_records import FeedEntry as FeedEntry
from baccarat_api.ports.feed_records import FeedHead as FeedHead
from baccarat_api.ports.feed_records import FeedMark as FeedMark
from baccarat_api.ports.feed_records import WebhookFailure as WebhookFailure
from baccarat_api.ports.feed_records import WebhookRecord as WebhookRecord
from baccarat_api.ports.feed_records import feed_shard as feed_shard
from baccarat_api.ports.live_records import EventRecord as EventRecord
from baccarat_api.ports.live_records import LiveRecord as LiveRecord
from baccarat_api.ports.lobby_records import TableNumber as TableNumber
from baccarat_api.ports.lobby_records import TableNumberCounter as TableNumberCounter

OPEN = "open"
ENDED = "ended"


@dataclass(frozen=True, slots=True)
class TableRecord:
    operator_id: str
    table_id: str
    #: ``TableConfig.to_dict()``: profile, the tier as it was when the table opened, banking,
    #: pay-table choices, rounding rule.
    config: dict[str, Any]
    #: The shoe rules (``ShoeRules.as_dict()``) every shoe of the table commits to.
    rules: dict[str, int]
    anchor: str
    chain_length: int
    chain_secret_ct: bytes
    next_shoe_number: int
    open_shoe_id: str | None
    created_at: str
    #: Seconds after a deal by which a round with locked bets must be settled; past it the
    #: auto-settlement sweep settles it (the seeds' disconnect rule).
    settle_deadline_seconds: int = DEFAULT_SETTLE_DEADLINE_SECONDS
    #: bacc-audit-v1: the hash of the table's latest round record of an ended shoe (the genesis
    #: value before any); the next shoe's chain starts here (:mod:`baccarat.audit`).
    chain_head: str = ""
    #: The table's ``ref_key`` (32 random bytes, the HMAC key of its bettor refs,
    #: :func:`baccarat.proofdoc.bettor_ref`) sealed under KMS with purpose ``bettor-ref``
    #: (:func:`~baccarat_api.ports.vault.ref_key_context`); drawn at table creation, never
    #: stored or published in clear.
    ref_key_ct: bytes = b""
    #: Seconds after a deal during which an unsettled round may be voided (0: never).
    void_window_seconds: int = DEFAULT_VOID_WINDOW_SECONDS
    #: The id of the write that created the table (:func:`~baccarat_api.service.writeids`).
    write_id: str = ""
    #: Seconds a betting window stays open and a squeeze step may wait.
    betting_seconds: int = DEFAULT_BETTING_SECONDS
    squeeze_seconds: int = DEFAULT_SQUEEZE_SECONDS
    #: Seconds without a deal after which the sweep closes the table's open shoe.
    idle_shoe_close_seconds: int = DEFAULT_IDLE_SHOE_CLOSE_SECONDS
    #: A running table: ``"auto"`` and the pause between rounds (``None`` at an operator table,
    #: so its item is stored as before).
    dealing: str | None = None
    pause_seconds: int | None = None
    #: ``"book"``: spectators bet behind without a cap (:mod:`baccarat_api.ports.book`);
    #: ``None`` (listed, every bet on the live item) at every other table, stored as before.
    bet_behind: str | None = None
    #: The table's human number (桌號, unique per operator: claimed by a
    #: :class:`TableNumber`) and optional name; ``None`` on a table created before numbers.
    number: int | None = None
    name: str | None = None
    #: ``"bacc-pf-v2"``: each round's cards wait for a public beacon (docs/design/beacon.md),
    #: whose chain is ``beacon``, copied at creation; ``None`` (bacc-pf-v1): stored as before.
    fairness: str | None = None
    beacon: BeaconDoc | None = None

    @property
    def profile(self) -> str:
        return str(self.config["profile"])

    @property
    def tier_id(self) -> str:
        return str(self.config["tier"]["id"])

    @property
    def banking(self) -> str:
        return str(self.config["banking"])


@dataclass(frozen=True, slots=True)
class ShoeRecord:
    operator_id: str
    table_id: str
    shoe_number: int
    client_seed: str
    client_hash: str
    rules: dict[str, int]
    anchor: str
    #: A copy of the table's configuration, so dealing needs no table read.
    config: dict[str, Any]
    #: ``s_i`` encrypted under the KMS key (encryption context: operator, shoe).
    secret_ct: bytes
    status: str
    rounds_dealt: int
    #: Shoe position where the next round starts.
    cursor: int
    #: Optimistic-lock counter: every deal and the close condition on it.
    version: int
    #: Per dealt round, what the roads need: result, totals, pairs.
    results: list[RoadResult] = field(default_factory=list)
    #: Bettors of the last rounds (newest last), for the idle-bettor rule.
    recent_bettors: list[list[str]] = field(default_factory=list)
    created_at: str = ""
    end_reason: str | None = None
    ended_at: str | None = None
    #: ``s_i`` in hex, present only once the shoe has ended.
    server_seed: str | None = None
    #: Copied from the table at commit (so dealing needs no table read), like ``ref_key_ct``.
    settle_deadline_seconds: int = DEFAULT_SETTLE_DEADLINE_SECONDS
    void_window_seconds: int = DEFAULT_VOID_WINDOW_SECONDS
    ref_key_ct: bytes = b""
    #: The ids of the writes that committed and ended the shoe (its last deal, or the close).
    write_id: str = ""
    end_write_id: str = ""
    #: bacc-audit-v1: the table's chain head when the shoe was committed, and now (the hash of
    #: the table's latest round record; moved by every deal, conditionally on the version).
    chain_start: str = ""
    chain_head: str = ""
    #: Copied from the table at commit (so dealing needs no table read).
    betting_seconds: int = DEFAULT_BETTING_SECONDS
    squeeze_seconds: int = DEFAULT_SQUEEZE_SECONDS
    #: Copied from the table at commit; ``close_by`` = the last deal (or the commit) + it: past it
    #: the sweep closes the open shoe (keyed by the sparse ``IDLE#`` part of DueRounds).
    idle_shoe_close_seconds: int = DEFAULT_IDLE_SHOE_CLOSE_SECONDS
    close_by: str | None = None
    #: Set when the running table committed the shoe itself: when its client seed was given.
    client_seed_given_at: str | None = None
    #: Copied from the table at commit: ``"bacc-pf-v2"`` and its beacon chain (``None``:
    #: bacc-pf-v1, stored as before); a v2 shoe's draw state (the cards drawn, the locked round).
    fairness: str | None = None
    beacon: BeaconDoc | None = None
    v2: ShoeV2Doc | None = None

    @property
    def ref(self) -> ShoeRef:
        return ShoeRef(self.table_id, self.shoe_number)

    @property
    def shoe_id(self) -> str:
        return self.ref.shoe_id


def _no_money() -> Money:
    """The money of a record written without any (read back as ``{}``, as it was stored)."""
    return cast(Money, {})


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A dealt round: its cards, the bets locked with it, the money they come to — all fixed at
    the deal — and later how it was resolved: settled (``settled_at``) or voided (``void``),
    exactly once. Bettors are named by id and, next to each id, by ``bettor_ref`` (computed at
    the deal with the table's ref key), so nothing later needs the key."""

    operator_id: str
    table_id: str
    shoe_number: int
    round_number: int
    #: Cards as codes, positions, totals, every outcome fact (``Round.facts()``).
    facts: FactsDoc
    #: A copy of the table's configuration, so settling needs no other read.
    config: dict[str, Any]
    #: The bets locked at the deal, in accepted order (``[]``: a round nobody bet on).
    bets: list[LockedBet]
    #: The player-banker locked at the deal, or ``None``.
    player_banker: LockedPlayerBanker | None
    #: Squeeze rights and the reveal plan.
    squeeze: SqueezePlan | None
    shoe_status: str
    #: Bettors of the rounds before this one in the shoe (oldest first), for eligibility.
    previous_bettors: list[list[str]] = field(default_factory=list)
    #: When the round was dealt — its bets were locked then (``dealt_at``).
    created_at: str = ""
    #: The settlement's money, computed at the deal from the locked bets and the cards.
    #: Settling stores nothing but when and how (:attr:`settlement`); a void replaces exactly
    #: this.
    money: Money = field(default_factory=lambda: _no_money())
    #: When the round was settled (``None``: not settled), and whether by the system.
    settled_at: str | None = None
    auto_settled: bool = False
    #: The void, if voided.
    void: Void | None = None
    #: When locked bets must be settled by (ISO 8601 UTC; past it the sweep settles the round);
    #: ``None`` when the round was settled at its deal (nobody bet).
    settle_by: str | None = None
    #: Seconds after the deal during which the round may be voided (copied from the shoe).
    void_window_seconds: int = DEFAULT_VOID_WINDOW_SECONDS
    #: SHA-256 of the canonical deal inputs (``{bets, player_banker}`` as requested): a deal
    #: retried with ``round_number`` is this round again only if they are equal.
    request_digest: str = ""
    #: The ids of the write that dealt the round and of the one that settled or voided it.
    write_id: str = ""
    resolve_write_id: str = ""
    #: bacc-audit-v1 (:mod:`baccarat.audit`): the previous round record's hash, this record's
    #: hash (over the record as dealt), and the stored settlement's (or void's) hash.
    prev_hash: str = ""
    round_hash: str = ""
    settlement_hash: str | None = None
    #: The squeezers' openings of the reveal steps, in order (``baccarat.squeeze.reveal``).
    #: Timings only — the cards and money were fixed at the deal — so not hashed; a step not
    #: opened by its deadline is computed, never stored.
    reveals: list[Reveal] = field(default_factory=list)
    #: At a ``bet_behind: book`` table: the locked book of spectators' slips — its Merkle root,
    #: count, chunks and money, fixed at the deal (hashed when present); ``None`` elsewhere.
    book: BookDoc | None = None
    #: At a ``bacc-pf-v2`` table (docs/bacc-pf-v2.md's round record): the lock that fixed the
    #: round's bets before its beacon round existed, and that beacon (``None``: a round voided
    #: ``beacon_unavailable``, which has no card). Hashed when present; ``None`` elsewhere.
    lock: RoundLock | None = None
    beacon: RoundBeacon | None = None
    #: A ``beacon_unavailable`` void's beacon, fetched (and verified) after the void when the
    #: proof is first built (:mod:`~baccarat_api.service.beacon_prices`): it prices the void in
    #: the proof. Information added later, never the round as dealt — so not hashed.
    late_beacon: RoundBeacon | None = None

    #: bacc-audit-v1 (:data:`baccarat.audit.ROUND_FIELDS`) hashes every field of the round as
    #: dealt EXCEPT these (written later, or the hash itself). A new field is hashed unless it
    #: is added here: a test fails until one of the two is decided (and the spec says so).
    NOT_HASHED: ClassVar[frozenset[str]] = frozenset(
        {
            "settled_at",
            "auto_settled",
            "void",
            "round_hash",
            "settlement_hash",
            "write_id",
            "resolve_write_id",
            "reveals",
            "late_beacon",
        }
    )

    @property
    def ref(self) -> RoundRef:
        return RoundRef(self.table_id, self.shoe_number, self.round_number)

    @property
    def round_id(self) -> str:
        return self.ref.round_id

    @property
    def dealt_at(self) -> str:
        """When the round was dealt, and its bets locked (the same instant)."""
        return self.created_at

    @property
    def void_by(self) -> str | None:
        """The end of the round's void window (``None``: voids are disabled at its table)."""
        if self.void_window_seconds <= 0:
            return None
        return seconds_after(self.created_at, self.void_window_seconds)

    @property
    def resolved(self) -> bool:
        """Settled (by the operator or the system) or voided."""
        return self.settled_at is not None or self.void is not None

    @property
    def settlement(self) -> Settlement | None:
        """The settlement document once settled: :attr:`money` with ``settled_at`` and
        ``auto_settled`` (what the settlement route answers, what the audit hashes)."""
        if self.settled_at is None:
            return None
        return {**self.money, "settled_at": self.settled_at, "auto_settled": self.auto_settled}

    @property
    def resolution(self) -> Settlement | Void | None:
        """What ``settlement_hash`` covers: the settlement document, or the void."""
        return self.settlement if self.void is None else self.void


@dataclass(frozen=True, slots=True)
class SigningKeyRecord:
    """A key that has signed proofs: its public JWK (``kid`` = RFC 7638 thumbprint), when it
    first signed and when it last signed. Written (:meth:`Repository.record_signing_key`) just
    before each signature, so every key that ever signed a proof is listed, with a validity that
    covers every ``signed_at`` it signed at; never deleted."""

    kid: str
    jwk: dict[str, str]
    first_signed_at: str
    last_signed_at: str


@dataclass(frozen=True, slots=True)
class ProofRecord:
    """The public record of an ended shoe: everything a third party needs, nothing secret
    that is still in use. Keyed by shoe id alone (the proof route needs no operator key); its
    ``operator_id`` (never served) names the partition holding the shoe's round records.

    Written by the transaction that ends the shoe; once the proof is final (every dealt round
    resolved) its pages are stored next to it and the finalisation sets ``signature`` — the
    manifest of those pages, signed — once (:mod:`baccarat_api.service.proofs`)."""

    shoe_id: str
    table_id: str
    shoe_number: int
    anchor: str
    client_seed: str
    client_hash: str
    rules: dict[str, int]
    server_seed: str
    rounds_dealt: int
    end_reason: str
    ended_at: str
    #: ``TableConfig.to_dict()`` of the shoe's table (what recomputing a settlement needs).
    config: dict[str, Any] | None = None
    operator_id: str = ""
    #: Set once, when the proof became final: the ``signature`` object every page carries
    #: (``{alg, key_id, manifest, value}``), how many pages there are, and when.
    signature: ProofSignature | None = None
    page_count: int | None = None
    finalised_at: str | None = None


@dataclass(frozen=True, slots=True)
class ShoeFairness:
    """One line of a table's public fairness summary (``GET /v1/tables/{table_id}/fairness``):
    an ended shoe whose proof is final, with the interventions of that proof. Written by the
    finalisation, once, in the table's public partition (keyed by table id alone)."""

    table_id: str
    shoe_number: int
    shoe_id: str
    ended_at: str
    end_reason: str
    interventions: Interventions
    finalised_at: str


@dataclass(frozen=True, slots=True)
class FairnessTotals:
    """The running totals of a table's fairness summary: the interventions of every final proof
    summed (``closed_early`` counted), added to by each finalisation in its own transaction;
    put (zero) when the table is created, so a table without a final proof yet is known."""

    table_id: str
    shoes: int = 0
    voided_rounds: int = 0
    voided_player_net: int = 0
    closed_early: int = 0
    rounds_dealt: int = 0
    rounds_possible: int = 0
    #: apart from ``voided_player_net`` (the bettors'): the player-banker's replaced nets
    voided_player_banker_net: int = 0
    #: The table's operator (not public) and its latest committed shoe's number, set by every
    #: commit: the public routes find a table's open shoe through them (``""``/0: no shoe
    #: committed since they were written — none shown).
    operator_id: str = ""
    latest_shoe_number: int = 0


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    """The outcome of a POST made with an ``Idempotency-Key``, stored by the same transaction
    as the request's effect (so it exists exactly when the effect does) and kept until
    ``expires_at`` (epoch seconds; the table's TTL attribute). Keyed by the operator and the
    SHA-256 of the key; ``fingerprint`` is the SHA-256 of the request (method, path, body).

    ``body`` is the answer itself for the small ones (table, shoe); a round's answers (deal,
    settlement, void: up to 200 bets) are not copied — ``round_id`` names the round, and the
    replay renders the answer from its record, byte for byte as the first time."""

    operator_id: str
    key_hash: str
    fingerprint: str
    status: int
    body: dict[str, Any]
    created_at: str
    expires_at: int
    round_id: str | None = None


Record = (
    TableRecord
    | ShoeRecord
    | RoundRecord
    | ProofRecord
    | ShoeFairness
    | FairnessTotals
    | IdempotencyRecord
    | LiveRecord
    | EventRecord
    | FeedHead
    | FeedMark
    | FeedEntry
    | WebhookRecord
    | DeliveryState
    | WebhookFailure
    | SettleProgress
    | ChunkEmitted
    | ChatMessage
    | ChatPerson
    | ChatWindow
    | TableNumber
    | TableNumberCounter
)

#: The fields that name each record kind's item (its key), in order: a put or an update of one
#: record touches exactly the item these values name.
KEY_FIELDS: dict[type, tuple[str, ...]] = {
    TableRecord: ("operator_id", "table_id"),
    ShoeRecord: ("operator_id", "table_id", "shoe_number"),
    RoundRecord: ("operator_id", "table_id", "shoe_number", "round_number"),
    ProofRecord: ("shoe_id",),
    ShoeFairness: ("table_id", "shoe_number"),
    FairnessTotals: ("table_id",),
    IdempotencyRecord: ("operator_id", "key_hash"),
    LiveRecord: ("operator_id", "table_id"),
    EventRecord: ("operator_id", "table_id", "seq"),
    FeedHead: ("operator_id", "shard"),
    FeedMark: ("operator_id", "table_id"),
    FeedEntry: ("operator_id", "shard", "pos"),
    WebhookRecord: ("operator_id",),
    DeliveryState: ("operator_id", "shard"),
    WebhookFailure: ("operator_id", "event_id"),
    SettleProgress: ("operator_id", "table_id", "shoe_number", "round_number"),
    ChunkEmitted: ("operator_id", "table_id", "shoe_number", "round_number", "chunk"),
    ChatMessage: ("operator_id", "table_id", "message_id"),
    ChatPerson: ("operator_id", "table_id", "bettor_id"),
    ChatWindow: ("operator_id", "table_id", "who", "window"),
    TableNumber: ("operator_id", "number"),
    TableNumberCounter: ("operator_id",),
}
