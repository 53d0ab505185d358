"""``GET /v1/tables``: the lobby — an operator's numbered tables in number order, a page at a
time, each as a lobby draws it: number and name, the tier (its names, 倍率, limits, chips), how
it is banked and dealt, its phase and deadline, how full it is, its shoe's progress and last 30
results. Nothing about a person: counts, never a bettor id or a balance.

A table created before tables had numbers is in no lobby. The listing is the ``Lobby`` index's
(eventually consistent): a table created a moment ago may appear a moment later.

Round trips: 2 (a ``Query`` of the index, a ``BatchGetItem`` of the page's live states and
shoes; book tables' count shards join it, more requests only past 100 keys); the tiers' units
(for 倍率) once per warm container every 5 minutes. ``ETag``: the SHA-256 of the answer."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import time
from typing import Any

from baccarat import currency
from baccarat.roads import RoundSummary, history
from baccarat.rules import ShoeRules
from baccarat.squeeze import live_steps
from baccarat_api.ids import parse_round_id
from baccarat_api.limits import DEFAULT_FAIRNESS, MAX_TABLE_NUMBER, MIN_TABLE_NUMBER
from baccarat_api.lru import Lru
from baccarat_api.ports.lobby import LobbyPosition, LobbyRow, LobbyShoe
from baccarat_api.ports.records import LiveRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import LobbyOut
from baccarat_api.service.window import window_status

#: The cursor: ``l1.`` + base64url of ``<number>#<table id>`` (the last table of the page).
CURSOR_PATTERN = r"l1\.[A-Za-z0-9_-]{1,64}"
_POSITION = re.compile(r"([0-9]{1,5})#(tbl_[a-z2-7]{16})")
#: The smallest chip unit of each (profile, currency) among the live tiers, per repository,
#: refreshed every 5 minutes.
_UNITS: Lru[tuple[int, int], dict[tuple[str, str], int]] = Lru(8)
_UNITS_SECONDS = 300


def list_tables(
    repo: Repository, operator_id: str, limit: int, after: str | None
) -> tuple[LobbyOut, str]:
    """A page of the operator's lobby after the cursor ``after``, and its ETag."""
    page = repo.lobby_page(operator_id, decode_cursor(after), limit)
    at = repo.clock()
    units = _units(repo)
    tables = [entry(row, at, units) for row in page.rows]
    last = page.rows[-1].table if page.rows and page.more else None
    out = LobbyOut.model_validate(
        {"tables": tables, "next": None if last is None else encode_cursor(last)}
    )
    body = out.model_dump_json().encode()
    return out, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def encode_cursor(table: TableRecord) -> str:
    text = f"{table.number}#{table.table_id}"
    return "l1." + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> LobbyPosition | None:
    """The position a cursor of this route names (422 ``invalid_cursor`` for anything else)."""
    if cursor is None:
        return None
    bad = DomainError(
        "invalid_cursor", "the cursor is malformed or of another query", details={"cursor": cursor}
    )
    if not re.fullmatch(CURSOR_PATTERN, cursor):
        raise bad
    body = cursor[3:]
    try:
        text = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise bad from None
    found = _POSITION.fullmatch(text)
    if found is None or not MIN_TABLE_NUMBER <= int(found.group(1)) <= MAX_TABLE_NUMBER:
        raise bad
    return int(found.group(1)), found.group(2)


def _units(repo: Repository) -> dict[tuple[str, str], int]:
    def make() -> dict[tuple[str, str], int]:
        units: dict[tuple[str, str], int] = {}
        for tier in repo.list_tiers():
            key = (str(tier["profile"]), currency.of_tier(tier)[0])
            units[key] = min(units.get(key, int(tier["unit"])), int(tier["unit"]))
        return units

    return _UNITS.get((id(repo), int(time.monotonic() // _UNITS_SECONDS)), make)


def entry(row: LobbyRow, at: str, units: dict[tuple[str, str], int]) -> dict[str, Any]:
    """One table as the lobby shows it at ``at``."""
    t, live = row.table, row.live
    tier = t.config["tier"]
    money = currency.of_config(t.config)
    unit = int(tier["unit"])
    smallest = units.get((t.profile, money["currency"]), unit)
    phase, deadline = phase_of(live, at)
    return {
        "table_id": t.table_id,
        "number": t.number,
        "name": t.name,
        "profile": t.profile,
        "tier": t.tier_id,
        "tier_name": tier["name"],
        "tier_name_zh": tier["name_zh"],
        "ratio": f"1:{unit // smallest}" if unit % smallest == 0 else f"{smallest}:{unit}",
        **money,
        "limits": {
            "min_bet": tier["min_bet"],
            "table_max": tier.get("table_max"),
            "areas": {k: {"min": v["min"], "max": v["max"]} for k, v in tier["limits"].items()},
        },
        "chips": [int(c) * unit for c in tier["chips"]],
        "banking": t.banking,
        "dealing": t.dealing or "operator",
        "bet_behind": t.bet_behind or "listed",
        "fairness": t.fairness or DEFAULT_FAIRNESS,
        "phase": phase,
        "deadline": deadline,
        "seats_taken": 0 if live is None else len(live.seats),
        "banker": live is not None and live.banker is not None,
        "spectators": _count(row.spectators, live, "spectators"),
        "watchers": _count(row.watchers, live, "watchers"),
        "shoe": None if row.shoe is None else shoe_progress(t, row.shoe, live, at),
    }


def _count(counted: int | None, live: LiveRecord | None, field: str) -> int:
    if counted is not None:
        return counted
    return 0 if live is None else len(getattr(live, field))


def phase_of(live: LiveRecord | None, at: str) -> tuple[str, str | None]:
    """The lobby's phase of a table and its deadline, from its live state alone."""
    if live is None:
        return "idle", None
    clock = live.clock
    if clock is not None and clock["paused"]:
        return "paused", None
    status = window_status(live.betting, at)
    if live.betting is not None and status == "open":
        return "betting", str(live.betting["closes_at"])
    if status in ("closed", "locked"):
        return "in_round", live.deal_by
    squeezing = _squeezing(live, at)
    if squeezing is not None:
        return "in_round", squeezing
    if clock is not None and clock["waiting"] is not None:
        return "waiting", None
    return "idle", None if live.tick is None else live.tick["due"]


def _squeezing(live: LiveRecord, at: str) -> str | None:
    """The reveal deadline of the latest round's step counting down at ``at``, if any."""
    if live.squeeze is None:
        return None
    for step in live_steps(live.squeeze, at):
        if step.status == "squeezing":
            return step.reveal_by
    return None


def _face_down(live: LiveRecord | None, shoe: LobbyShoe, at: str) -> bool:
    """Whether a card of the shoe's latest round is still face down at ``at``."""
    sq = None if live is None else live.squeeze
    if sq is None or not shoe.rounds_dealt:
        return False
    ref = parse_round_id(str(sq["round_id"]))
    if ref is None or (ref.shoe_number, ref.round_number) != (shoe.shoe_number, shoe.rounds_dealt):
        return False
    return any(s.status != "revealed" for s in live_steps(sq, at))


def shoe_progress(
    t: TableRecord, shoe: LobbyShoe, live: LiveRecord | None, at: str
) -> dict[str, Any]:
    """The shoe as a lobby shows it at ``at``: while a card of its latest round is face down,
    that round is not in the history and the cards left are not told."""
    hidden = _face_down(live, shoe, at)
    results = shoe.results[:-1] if hidden else shoe.results
    return {
        "shoe_number": shoe.shoe_number,
        "status": shoe.status,
        "rounds_dealt": shoe.rounds_dealt,
        "cards_remaining": None if hidden else ShoeRules.from_dict(t.rules).size - shoe.cursor,
        "history": [e.as_dict() for e in history(RoundSummary(**r) for r in results)],
    }
