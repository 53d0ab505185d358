"""Every size and rate limit of the HTTP API, as data, in one place.

The request models (:mod:`baccarat_api.service.models`, hence ``docs/openapi.json``), the body-size
guard of the app (:class:`baccarat_api.http.app.RequestContext`) and the per-operator rate limiter
(:mod:`baccarat_api.ratelimit`, defaults of :class:`baccarat_api.settings.Settings`) read them
from here. The API Gateway side (route throttling) is in template.yaml's parameters."""

from __future__ import annotations

from typing import Final

from baccarat import beacon as _beacon
from baccarat.fairness import MAX_CLIENT_SEED_BYTES
from baccarat.paytables import BetType
from baccarat.profiles import BID_SQUEEZE

#: Largest request body accepted, in bytes, whether or not the client sends Content-Length. A
#: full round at the limit below, every bet with personal limits, stays under half of it.
MAX_BODY_BYTES = 256 * 1024

#: Most bets one round may carry (deal or settlement request): every seat of the richest table
#: betting every bet type, the rest room for bid-squeeze spectators (:data:`MAX_SPECTATORS`).
MAX_BETS_PER_ROUND = 200

#: A client seed is used exactly as sent, at most this many UTF-8 bytes (bacc-pf-v1).
CLIENT_SEED_BYTES = MAX_CLIENT_SEED_BYTES
#: Most client seeds a running table holds given in advance (oldest first, one per shoe).
MAX_QUEUED_CLIENT_SEEDS = 3

#: Bettor ids, tier ids and other caller-chosen identifiers.
MAX_ID_LENGTH = 64

#: A bettor id (bets and the player-banker): 1 to 64 ASCII characters of this set, matched whole
#: (``re.fullmatch``: a trailing newline is refused). ASCII keeps every id's stored size equal to
#: its length, which the byte budgets below count on.
BETTOR_ID_CHARACTERS = "A-Za-z0-9._:@-"
BETTOR_ID_PATTERN = rf"[{BETTOR_ID_CHARACTERS}]{{1,{MAX_ID_LENGTH}}}"

#: Amounts and balances, in minor units (|value| ≤ 10^15).
MAX_MONEY = 10**15

#: Seconds after a deal by which a round with locked bets must be settled (a table's choice,
#: default and bounds); past it the auto-settlement sweep settles it.
DEFAULT_SETTLE_DEADLINE_SECONDS = 60
MAX_SETTLE_DEADLINE_SECONDS = 86_400

#: Seconds after a deal during which an unsettled round may be voided (a table's choice, default
#: and bounds; 0 disables voids at the table). Past it: 409 ``void_window_closed``.
DEFAULT_VOID_WINDOW_SECONDS = 120
MAX_VOID_WINDOW_SECONDS = 3600

#: A table's idle open shoe: a shoe with no deal for this many seconds (default and
#: bounds) is closed by the sweep itself, like ``POST /v1/shoes/{id}/close``, so its proof (and
#: its voids) is published whether or not the operator ever ends it.
DEFAULT_IDLE_SHOE_CLOSE_SECONDS = 3600
MIN_IDLE_SHOE_CLOSE_SECONDS = 60
MAX_IDLE_SHOE_CLOSE_SECONDS = 86_400

#: A table's betting window: seconds from ``POST …/betting`` to "no more bets"
#: (default and bounds); the sweep deals a window closed this long ago and never dealt.
DEFAULT_BETTING_SECONDS = 15
MAX_BETTING_SECONDS = 600

#: A table's squeeze countdown: seconds a squeezer has to reveal a step (default and
#: bounds); past it the system reveals.
DEFAULT_SQUEEZE_SECONDS = 10
MAX_SQUEEZE_SECONDS = 300

#: A running table (``"dealing": "auto"``): seconds between a round's resolution and the next
#: betting window it opens by itself (default and bounds).
DEFAULT_PAUSE_SECONDS = 5
MAX_PAUSE_SECONDS = 600
#: How a table is dealt: ``operator`` (every step a request; the default) or ``auto`` (it runs
#: itself on its own clock).
DEALING_MODES = ("operator", "auto")
DEFAULT_DEALING: Final = "operator"
#: How a house-banked bid-squeeze table takes its spectators' bets: ``listed`` (every bet on
#: the live item and listed in the proof; at most :data:`MAX_SPECTATORS` spectators; the
#: default) or ``book`` (no cap: each spectator and slip an item of its own, the locked book
#: committed by its Merkle root, each bettor's money in a receipt, the proof small).
BET_BEHIND_MODES = ("listed", "book")
DEFAULT_BET_BEHIND: Final = "listed"
#: A book's settlement is fanned out in chunks of this many consecutive leaves (one receipt
#: each; a chunk is one settlement page of the operator and one public book page).
CHUNK_SLIPS = 100

#: The urge button's cooldown: seconds after a table's last urge during which
#: another press is 429 ``urge_cooldown`` (``retry_after``) and writes nothing.
URGE_COOLDOWN_SECONDS = 5
#: The longest ``WEBHOOK_TIMEOUT_SECONDS`` (a delivery pass keeps one POST's timeout and 5 s of
#: DeliveryFunction's 60 s).
MAX_WEBHOOK_TIMEOUT_SECONDS = 30
#: A webhook failure's retry claims it while it POSTs (a duplicate is 409, never a second POST);
#: a claim older than this (twice the longest POST) was left by a request that died: taken over.
WEBHOOK_RETRY_CLAIM_SECONDS = 2 * MAX_WEBHOOK_TIMEOUT_SECONDS

#: Longest note a void may carry (characters), published with the void in the proof.
MAX_VOID_NOTE_LENGTH = 256

#: Per-operator token bucket of the app (every authenticated request takes one token): a
#: sustained rate and the burst above it — the stage's default route throttling
#: (template.yaml ``ThrottlingRateLimit`` / ``ThrottlingBurstLimit``), so one operator alone can
#: use at most what one route may take. Per warm container in Lambda, per process with
#: ``make run``; the stage-wide ceiling is the HTTP API's route throttling. Environment
#: overrides: ``RATE_LIMIT_PER_SECOND``, ``RATE_LIMIT_BURST`` (rate 0 turns the limiter off).
RATE_LIMIT_PER_SECOND = 200.0
RATE_LIMIT_BURST = 400


# --- byte budgets ----------------------------------------------------------------------------
#
# Every item a round writes, and every answer rendered from it, has a worst case fixed by the
# limits above. It is computed here, once, from the limits (:func:`worst_case_bytes`); the
# tests recompute it from real worst-case payloads stored on DynamoDB Local and answered by the
# handlers (``tests/integration/test_byte_budgets.py``: measured ≤ computed ≤ budget).
#
# Layout that keeps it bounded: a round is ONE item (cards, bets, the money computed at the
# deal, later the settlement's stamp or the void) — at most :data:`MAX_BETS_PER_ROUND` bets and
# their lines, and one entry per bettor in each per-bettor list or map; an idempotency record
# of a deal, settlement or void names its round (``round_id``) instead of copying the answer;
# every such answer is rendered from the round item alone.

#: DynamoDB's limit per item (attribute names + values, UTF-8) and Lambda's per response.
DYNAMODB_ITEM_BYTES = 400 * 1024
LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024

#: What the deal checks a round item against, as it will be at its largest (voided, with the
#: longest note): a round that could exceed it is refused (422 ``round_too_large``, nothing
#: stored). The computed worst case stays under it, so no accepted request reaches it; the
#: margin to DynamoDB's limit (50 KiB) absorbs the key attributes and the sparse index's.
ROUND_ITEM_BUDGET_BYTES = 350 * 1024
#: The budget of a table's live item at its largest (the limits' presence, a full book of slips, a
#: running table's clock, tick and full queue of client seeds): every change rewrites it.
LIVE_ITEM_BUDGET_BYTES = 32 * 1024

#: The longest numbers a round holds, as printed: an accepted amount, balance or personal limit
#: (0 … :data:`MAX_MONEY`); one bet's win (× at most 100, the pay tables' largest is 50:1) or
#: net, with its sign; a bettor's or the player-banker's total over every bet of the round
#: (200 × 100 × :data:`MAX_MONEY`, with a sign); a seat, a level, a line's index.
_AMOUNT = len(str(MAX_MONEY))
_WIN = len(str(-100 * MAX_MONEY))
_TOTAL = len(str(-100 * MAX_BETS_PER_ROUND * MAX_MONEY))
_SEAT, _LEVEL, _INDEX = len("1000"), len("10000"), len(str(MAX_BETS_PER_ROUND - 1))
#: ``"bettor_ref"``: ``br_`` + 24 base32 characters (:func:`baccarat.proofdoc.bettor_ref`).
BETTOR_REF_LENGTH = 27
#: Longest role (``player_banker``, a line's ``covered_by``), grade, multiplier ("0.95").
_ROLE, _GRADE, _MULTIPLIER = len("player_banker"), len("lose"), 8

#: Everything of a round item that is neither per bet nor per bettor, at most: keys, ids,
#: hashes and write ids (≈ 0.9 KiB), the cards and outcome facts (≈ 0.4 KiB), the table's
#: configuration with its tier (≈ 1.1 KiB), the squeeze plan (≤ 1 KiB: it names at most the
#: two squeezers), the settlement's header and the house (≈ 0.4 KiB), the void's reason, time
#: and note (≤ 4 × 256 + 100 bytes). The test measures the real one.
FIXED_ROUND_BYTES = 8 * 1024


def json_bytes(doc: object) -> int:
    import json

    return len(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _digits(n: int) -> int:
    return int("9" * n)


def _worst_entry_bytes() -> dict[str, int]:
    """The longest JSON (bytes, with its separating comma) of each per-bet and per-bettor
    element of a round item: every id at :data:`MAX_ID_LENGTH`, every number at its longest,
    the longest bet type, a personal limit (a range) — a locked bet keeps its own type's only
    (:func:`baccarat_api.service.bets.own_limit`)."""
    from baccarat.bets import BetType

    ident, ref = "x" * MAX_ID_LENGTH, "x" * BETTOR_REF_LENGTH
    kind = max((t.value for t in BetType), key=len)
    amount, win, total = _digits(_AMOUNT), -_digits(_WIN - 1), -_digits(_TOTAL - 1)
    bet = {"bettor_id": ident, "bettor_ref": ref, "role": "spectator", "seat": _digits(_SEAT),
           "type": kind, "amount": amount, "level": _digits(_LEVEL), "balance": amount,
           "personal_limits": {kind: {"min": amount, "max": amount}}}  # fmt: skip
    line = {"index": _digits(_INDEX), "bettor_id": ident, "bettor_ref": ref, "type": kind,
            "stake": amount, "grade": "x" * _GRADE, "multiplier": "x" * _MULTIPLIER,
            "gross_win": win, "commission": amount, "net": win,
            "covered_by": "x" * _ROLE}  # fmt: skip
    participant = {"id": ident, "bettor_ref": ref, "role": "x" * _ROLE, "stake": total,
                   "gross": total, "commission": total, "net": total}  # fmt: skip
    keyed = MAX_ID_LENGTH + 4 + _TOTAL  # `"id":n,` — nets, balances_after, the void's nets
    listed = MAX_ID_LENGTH + 3  # `"id",` — below_min_balance, idle_bettors, previous bettors
    return {
        "bet": json_bytes(bet) + 1,
        "line": json_bytes(line) + 1,
        # its participant, its net, its balance after, its place in the two eligibility lists,
        # its net in the void's replaced settlement
        "bettor": json_bytes(participant) + 1 + 3 * keyed + 2 * listed,
        "previous_bettor": listed,
    }


#: A shoe item's part that does not grow with its rounds: ids, seeds, rules, the table's
#: configuration, the sealed secret and ref key, hashes and write ids (≈ 2.5 KiB measured).
FIXED_SHOE_BYTES = 8 * 1024
#: One dealt round in the shoe's ``results`` (what the roads need), at its longest.
_RESULT = {"result": "banker", "player_total": 9, "banker_total": 9, "player_pair": False,
           "banker_pair": False}  # fmt: skip


def worst_case_bytes(profile: str) -> dict[str, int]:
    """The worst case, in bytes, of what a round of ``profile`` stores and answers, from the
    limits alone: ``round_item`` (as voided: its largest form), ``deal_response`` /
    ``settlement_response`` / ``void_response`` / ``round_response`` (JSON bodies),
    ``lambda_response`` (the body inside Lambda's proxy envelope, every byte escaped at worst
    as ``\\uXXXX``), ``idempotency_item`` and ``shoe_item`` (every round of a shoe of the most
    decks dealt, the recent bettors of the idle rule). Bettors per round: every bet's own, plus the
    player-banker — at profiles where spectators only watch, at most the seats."""
    from baccarat.cards import CARDS_PER_DECK
    from baccarat.profiles import PROFILES
    from baccarat.rules import MAX_DECKS

    p = PROFILES[profile]
    e = _worst_entry_bytes()
    bettors = (MAX_BETS_PER_ROUND if p.spectators_may_bet else p.seats) + 1
    history = 2 * (p.idle_round_limit or 0) * (bettors - 1)  # previous rounds' bettors
    bets = MAX_BETS_PER_ROUND * (e["bet"] + e["line"])
    item = FIXED_ROUND_BYTES + bets + bettors * e["bettor"] + history * e["previous_bettor"]
    deal = FIXED_ROUND_BYTES + MAX_BETS_PER_ROUND * e["bet"]
    return {
        "round_item": item,
        "deal_response": deal,
        "settlement_response": item,
        "void_response": item,
        "round_response": item,
        "lambda_response": 6 * item,
        "idempotency_item": 1024,  # key, fingerprint, status, times and the round's id
        # at least 4 cards a round; the idle rule keeps 2 × its limit rounds of bettors
        "shoe_item": FIXED_SHOE_BYTES
        + CARDS_PER_DECK * MAX_DECKS // 4 * (json_bytes(_RESULT) + 1)
        + history * e["previous_bettor"],
    }


#: The table event feed (``GET /v1/tables/{table_id}/events``): events per page, default and
#: most. An event's ``data`` stays under 2 KB at the limits above (ids and a money summary), so
#: a page stays under a few hundred KB.
DEFAULT_EVENTS_PAGE = 50
MAX_EVENTS_PAGE = 100

#: Presence at one table: bid-squeeze spectators (each may bet every bet type once:
#: with the seats' bets a round stays within :data:`MAX_BETS_PER_ROUND` — derived from the bet
#: vocabulary and the profile, so a new bet type moves it) and watchers (ids only). The
#: live-state item at its largest: 7 seats + 8 spectators with personal limits + 200 watchers of
#: 64-character ids ≈ 17 KiB (tests/unit/test_presence.py measures it).
MAX_SPECTATORS = (MAX_BETS_PER_ROUND - BID_SQUEEZE.seats * len(BetType)) // len(BetType)
MAX_WATCHERS = 200

#: Presence at a book table (``bet_behind: book``: spectators and watchers are items of their
#: own, uncapped): the names a presence answer and ``GET …/state`` show of each (with the
#: counts), a names page's default and most entries (``GET …/spectators``, ``…/watchers``), and
#: the spectators marked per page (and named in the event) when the last seat empties.
FIRST_NAMES = 20
DEFAULT_NAMES_PAGE = 100
MAX_NAMES_PAGE = 200
REMOVAL_PAGE = 100
#: Their answers' budgets at any number present: a presence answer or ``GET …/state``'s
#: presence (7 seats, the counts, the first names) and a names page.
PRESENCE_BUDGET_BYTES = 16 * 1024
NAMES_PAGE_BUDGET_BYTES = 96 * 1024


def worst_presence_bytes() -> dict[str, int]:
    """The worst case, in bytes, of a book table's presence answer (``presence``: 7 seats of
    the longest ids, balances and levels, the counts and first names of 64-character ids) and
    of a names page (``spectators_page``, ``watchers_page``: :data:`MAX_NAMES_PAGE` entries)."""
    ident, amount = "x" * MAX_ID_LENGTH, _digits(_AMOUNT)
    names = {"count": amount, "first": [ident] * FIRST_NAMES, "next": ident}
    seats = {str(n): {"bettor_id": ident, "balance": amount, "level": _digits(_LEVEL)}
             for n in range(1, BID_SQUEEZE.seats + 1)}  # fmt: skip
    removed = {"bettor_id": ident, "where": ident, "reason": "balance", "limit": amount,
               "attempted": amount}  # fmt: skip
    presence: dict[str, object] = {
        "table_id": ident, "seats": seats, "banker": None, "spectators": {}, "watchers": [],
        "seq": amount, "removed": removed, "crowd": {"spectators": names, "watchers": names},
    }  # fmt: skip
    entry = {"bettor_id": ident, "balance": amount}
    page = {"table_id": ident, "count": amount, "next": ident}
    return {
        "presence": json_bytes(presence),
        "spectators_page": json_bytes({**page, "spectators": [entry] * MAX_NAMES_PAGE}),
        "watchers_page": json_bytes({**page, "watchers": [ident] * MAX_NAMES_PAGE}),
    }


#: Betting behind at a book table: the answer to a spectator's confirm or cancel (the window,
#: the seats' slips, the caller's slip) and a page of the book (the window, the seats' slips and
#: at most :data:`BOOK_PAGE_SLIPS` spectators' slips) stay within these bytes at any book size.
BOOK_SLIP_ANSWER_BUDGET_BYTES = 16 * 1024
BOOK_PAGE_SLIPS = 100
BOOK_PAGE_BUDGET_BYTES = 128 * 1024

#: A book round's settlement fan-out: seconds after the round's settlement (or void) past which
#: the sweep sends again the chunks of a fan-out still not complete (their messages were lost).
CHUNK_RESEND_SECONDS = 60
#: A receipt (``GET /v1/rounds/{round_id}/receipts/{bettor_id}``) at its largest: 13 lines at
#: the longest amounts, a path of a book of 2**20 leaves, the longest ids (a test measures it).
RECEIPT_BUDGET_BYTES = 8 * 1024
#: A page of a book round's spectators' money (``…/settlement/bettors?page=k``): 100 bettors of
#: the longest ids and amounts (a test measures it).
SETTLEMENT_PAGE_BUDGET_BYTES = 24 * 1024

# Browsers at the table (issue 27; docs/design/browsers.md): player and lobby tokens, chat, the
# lobby. Each figure is documented in docs/api.md where its route is.
#: A token's lifetime when the operator names none, and the longest it may name (seconds).
TOKEN_TTL_DEFAULT_SECONDS = 3_600
TOKEN_TTL_MAX_SECONDS = 14_400
#: A chat message: at most this many code points and UTF-8 bytes after NFC normalisation.
CHAT_MAX_CHARS = 200
CHAT_MAX_BYTES = 800
#: Chat posts per person, and per table, in one window of CHAT_WINDOW_SECONDS.
CHAT_WINDOW_SECONDS = 10
CHAT_PER_PERSON = 3
CHAT_PER_TABLE = 10
#: How long a chat message is kept (its TTL) and how many of the last ones a read answers.
CHAT_KEEP_SECONDS = 24 * 3_600
DEFAULT_CHAT_PAGE = 50
MAX_CHAT_PAGE = 100
#: The longest mute the operator may set (seconds).
MAX_MUTE_SECONDS = 86_400
#: A table's human number (桌號) and optional name.
MIN_TABLE_NUMBER = 1
MAX_TABLE_NUMBER = 99_999
MAX_TABLE_NAME_CHARS = 32
#: The lobby's page of tables (GET /v1/tables).
DEFAULT_LOBBY_PAGE = 25
MAX_LOBBY_PAGE = 50
#: The push channel (AppSync Events; ``make run``'s stand-in): one message (an AppSync event,
#: a JSON string) at most these bytes — AppSync's 240 KB per event — and at most this many
#: messages per publish request (AppSync's batch of five).
PUSH_MAX_MESSAGE_BYTES = 240 * 1024
PUSH_MESSAGES_PER_PUBLISH = 5
#: How many channels the push job publishes to at once (one stream batch holds many tables).
PUSH_PUBLISH_CONCURRENCY = 16
#: A table's push epoch before its first rotation (a live item without one reads it).
PUSH_FIRST_EPOCH = 1
#: bacc-pf-v2 (docs/design/beacon.md): a locked round whose beacon round is not verified this
#: long after its lock is voided ``beacon_unavailable`` (the spec's wait, which the verifiers
#: check: :data:`baccarat.beacon.BEACON_WAIT_MS`); until then its draw is tried again every
#: BEACON_RETRY_SECONDS.
BEACON_WAIT_SECONDS = _beacon.BEACON_WAIT_MS // 1000
BEACON_RETRY_SECONDS = 1
#: How long after its shoe's end a bacc-pf-v2 proof on a TEST beacon waits for a
#: ``beacon_unavailable`` void's beacon to price it (each proof read or sweep before then fetches
#: it once more, answering 409 ``proof_pending``); past it that proof is final with the void
#: unpriced. On drand (which keeps every round) a proof waits until every void is priced: the
#: verifiers refuse an unpriced one there (an unpriced void would be a free veto).
BEACON_PRICE_WAIT_SECONDS = 600
#: A table's fairness scheme: bacc-pf-v1 (the whole shoe fixed at its commit) or bacc-pf-v2
#: (each round's cards drawn after its lock with a public beacon).
DEFAULT_FAIRNESS: Final = "bacc-pf-v1"
FAIRNESS_V2: Final = "bacc-pf-v2"
