"""Every size and rate limit of the HTTP API, as data, in one place.

The request models (:mod:`baccarat_api.service.models`, hence ``docs/openapi.json``), the body-size
guard of the app (:class:`baccarat_api.http.app.RequestContext`) and the per-operator rate limiter
(:mod:`baccarat_api.http.ratelimit`, defaults of :class:`baccarat_api.settings.Settings`) read them
from here. The API Gateway side (route throttling) is in template.yaml's parameters."""

from __future__ import annotations

from baccarat.fairness import MAX_CLIENT_SEED_BYTES

#: Largest request body accepted, in bytes, whether or not the client sends Content-Length. A
#: full round at the limit below, every bet with personal limits, stays under half of it.
MAX_BODY_BYTES = 256 * 1024

#: Most bets one round may carry (deal or settlement request). The richest table has 7 seats
#: and 13 bet types (91 seated bets at most); the rest is room for bid-squeeze spectators.
MAX_BETS_PER_ROUND = 200

#: A client seed is used exactly as sent, at most this many UTF-8 bytes (bacc-pf-v1).
CLIENT_SEED_BYTES = MAX_CLIENT_SEED_BYTES

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
