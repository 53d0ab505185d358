"""Records → the JSON the API returns. A shoe's secret appears only in views of an ended shoe."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from baccarat import currency, proofdoc
from baccarat.cards import code
from baccarat.fairness import SPEC, derive_shoe
from baccarat.profiles import TableConfig
from baccarat.roads import RoundSummary, roads
from baccarat.rules import ShoeRules
from baccarat_api.limits import (
    DEFAULT_BET_BEHIND,
    DEFAULT_DEALING,
    DEFAULT_FAIRNESS,
    DEFAULT_PAUSE_SECONDS,
)
from baccarat_api.ports.documents import BookDoc
from baccarat_api.ports.records import ENDED, RoundRecord, ShoeRecord, TableRecord
from baccarat_api.service.callers import Caller
from baccarat_api.service.models import PresenceOut, RoundStatus
from baccarat_api.service.reveals import shown_plan, squeeze_view


def table_view(t: TableRecord) -> dict[str, Any]:
    config = TableConfig.from_dict(t.config)
    return {
        "table_id": t.table_id,
        "profile": t.profile,
        "tier": t.tier_id,
        "banking": t.banking,
        "rules": t.rules,
        "anchor": t.anchor,
        "chain_length": t.chain_length,
        "next_shoe_number": t.next_shoe_number,
        "open_shoe_id": t.open_shoe_id,
        "banker_pays": config.banker_pays_choice,
        "dragon_table": config.dragon_choice,
        "rounding": config.rounding.value,
        "currency": config.currency,
        "minor_unit_exponent": config.minor_unit_exponent,
        "pay_table": config.pay_table.describe(),
        "created_at": t.created_at,
        "settle_deadline_seconds": t.settle_deadline_seconds,
        "void_window_seconds": t.void_window_seconds,
        "betting_seconds": t.betting_seconds,
        "squeeze_seconds": t.squeeze_seconds,
        "idle_shoe_close_seconds": t.idle_shoe_close_seconds,
        "dealing": t.dealing or DEFAULT_DEALING,
        "bet_behind": t.bet_behind or DEFAULT_BET_BEHIND,
        "pause_seconds": DEFAULT_PAUSE_SECONDS if t.pause_seconds is None else t.pause_seconds,
        "number": t.number,
        "name": t.name,
        "fairness": t.fairness or DEFAULT_FAIRNESS,
        "beacon": t.beacon,
    }


def shoe_view(s: ShoeRecord) -> dict[str, Any]:
    """The commitment: everything fixed before any card is dealt (never the secret)."""
    return {
        "shoe_id": s.shoe_id,
        "table_id": s.table_id,
        "shoe_number": s.shoe_number,
        "client_seed": s.client_seed,
        "client_hash": s.client_hash,
        "rules": s.rules,
        "anchor": s.anchor,
        "status": s.status,
    }


def shoe_state_view(s: ShoeRecord) -> dict[str, Any]:
    road = roads(RoundSummary(**r) for r in s.results).as_dict()
    history = road.pop("history")
    ended = s.status == ENDED
    return {
        **shoe_view(s),
        "rounds_dealt": s.rounds_dealt,
        "cards_remaining": ShoeRules.from_dict(s.rules).size - s.cursor,
        "last_round_id": f"{s.shoe_id}_r{s.rounds_dealt}" if s.rounds_dealt else None,
        "history": history,
        "roads": road,
        "end_reason": s.end_reason,
        "ended_at": s.ended_at,
        "server_seed": s.server_seed if ended else None,
        "created_at": s.created_at,
        "close_by": None if ended else s.close_by,
    }


def round_view(r: RoundRecord, at: str | None = None) -> dict[str, Any]:
    """The round as dealt (what the deal answers); its squeeze steps as they are at ``at``
    (``None``: at the deal, with no reveal — a replayed deal answers the same bytes)."""
    reveals = [] if at is None else r.reveals
    return {
        "round_id": r.round_id,
        "shoe_id": r.ref.shoe.shoe_id,
        "table_id": r.table_id,
        **r.facts,
        **currency.of_config(r.config),
        "bets": r.bets,
        "player_banker": r.player_banker,
        "squeeze": squeeze_view(r.squeeze, r.dealt_at, reveals, at or r.dealt_at),
        "shoe_status": r.shoe_status,
        "dealt_at": r.dealt_at,
        "settle_by": r.settle_by,
        "void_by": r.void_by,
        "prev_hash": r.prev_hash,
        "round_hash": r.round_hash,
        **({} if r.book is None else {"book": book_shown(r.book, money=False)}),
        **({} if r.lock is None else {"lock": r.lock, "beacon": r.beacon}),
    }


def book_shown(doc: BookDoc | None, money: bool) -> dict[str, Any] | None:
    """A round's book of spectators' slips as answers show it: its root, count and chunks —
    and its totals only where the answer shows money (a resolved round's settlement), else
    ``null``. ``None``: not a book round."""
    if doc is None:
        return None
    shown: dict[str, Any] = {"root": doc["root"], "count": doc["count"], "chunks": doc["chunks"]}
    return shown | {"totals": doc["totals"] if money else None}


def status_of(r: RoundRecord) -> RoundStatus:
    if r.void is not None:
        return "voided"
    if r.settled_at is not None:
        return "auto_settled" if r.auto_settled else "settled"
    return "dealt"


def shoe_as_shown(s: ShoeRecord, r: RoundRecord | None, at: str) -> dict[str, Any]:
    """THE shoe view as a table shows it at ``at`` (``GET …/state`` and ``GET /v1/shoes/{id}``):
    while the latest round ``r`` of the shoe has a card face down, its history entry and roads
    leave that round out, the cards it has not shown yet (its third cards) are still in the
    shoe, and an ended shoe's ``server_seed`` (which deals them) is withheld — else they would
    give the squeeze's outcome away."""
    hidden = None
    if r is not None and r.round_number == s.rounds_dealt and r.shoe_number == s.shoe_number:
        shown = round_as_shown(r, at)
        if shown["result"] is None:
            hidden = int(r.facts["cards_dealt"]) - len(shown["cards"])
    if hidden is None:
        return shoe_state_view(s)
    view = shoe_state_view(replace(s, results=s.results[:-1]))
    return view | {"cards_remaining": view["cards_remaining"] + hidden, "server_seed": None}


def round_as_shown(r: RoundRecord, at: str) -> dict[str, Any]:
    """The latest round as the table shows it at ``at``."""
    plan = shown_plan(squeeze_view(r.squeeze, r.dealt_at, r.reveals, at))
    steps = {} if plan is None else plan["steps"]
    cards = []
    for step in ("initial", "draws"):
        for card in [] if plan is None else plan.get(step, []):
            state = steps.get(step)
            if step == "draws" and state is not None and state["status"] == "waiting":
                continue  # the third cards appear once the initial cards are revealed (with
                # no squeeze — squeeze_seconds 0 — every card is face up: no step at all)
            opened = card["face"] == "up" or (
                state is not None and state["hands"][card["hand"]]["opened"] is not None
            )
            hand = r.facts["player"] if card["hand"] == "player" else r.facts["banker"]
            code = hand["cards"][card["index"] - 1] if opened else None
            cards.append({**card, "code": code})
    shown = all(s["status"] == "revealed" for s in steps.values())
    return {
        "round_id": r.round_id,
        "round_number": r.round_number,
        "status": status_of(r),
        "dealt_at": r.dealt_at,
        "settle_by": r.settle_by,
        "bettors": len({b["bettor_id"] for b in r.bets}),
        "squeeze": plan,
        "cards": cards,
        "result": r.facts["result"] if shown else None,
    }


@lru_cache(maxsize=32)
def _derived_proof(
    server_seed: str, client_seed: str, shoe_number: int, rules: tuple[int, ...]
) -> dict[str, Any]:
    shoe = derive_shoe(bytes.fromhex(server_seed), client_seed, shoe_number, ShoeRules(*rules))
    return {
        "cut_index": shoe.cut_index,
        "burn": shoe.burn_count,
        "burn_exposed": None if shoe.burn_exposed is None else code(shoe.burn_exposed),
        "first_round_start": shoe.first_start,
        "rounds": shoe.rounds_json(),
    }


def derived_header(s: ShoeRecord) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An ended shoe's proof header (``proofdoc.HEADER_FIELDS``: what anyone re-derives the
    shoe and every settlement from) and its re-derived rounds (``Shoe.rounds_json``, all of
    them: the shoe's own rules deal ``len(rounds)``)."""
    if s.status != ENDED or s.server_seed is None or s.end_reason is None:
        raise ValueError(f"shoe {s.shoe_id} has not ended: it has no proof")
    rules = ShoeRules.from_dict(s.rules)
    derived = _derived_proof(
        s.server_seed,
        s.client_seed,
        s.shoe_number,
        (rules.decks, rules.burn, rules.cut_min, rules.cut_max, rules.round_limit),
    )
    header = {
        "spec": SPEC,
        "shoe_id": s.shoe_id,
        "table_id": s.table_id,
        "anchor": s.anchor,
        "shoe_number": s.shoe_number,
        "client_seed": s.client_seed,
        "client_hash": s.client_hash,
        "rules": s.rules,
        "server_seed": s.server_seed,
        "end_reason": s.end_reason,
        "ended_at": s.ended_at,
        "cut_index": derived["cut_index"],
        "burn": derived["burn"],
        "burn_exposed": derived["burn_exposed"],
        "first_round_start": derived["first_round_start"],
        "table_config": s.config,
    }
    if s.client_seed_given_at is not None:  # committed by the running table itself
        header |= proofdoc.automatic_commit(s.created_at, s.client_seed_given_at)
    return header, derived["rounds"]


def private_round(r: RoundRecord, derived: dict[str, Any]) -> dict[str, Any]:
    """A resolved round as the private final proof holds it (``baccarat.proofdoc``): the
    re-derived round, when it was dealt (its bets locked), its bets and player-banker as locked
    (with bettor ids: ``public_proof`` names them by ref and drops what is private), and its
    settlement or its void (``{reason, note, voided_at, replaced}``: ``public_proof`` recomputes
    what it replaced from the public bets)."""
    if derived["round_number"] != r.round_number:
        raise ValueError(f"round {r.round_id} is not the shoe's round {derived['round_number']}")
    return {
        **derived,
        "dealt_at": r.dealt_at,
        "bets": r.bets,
        "player_banker": r.player_banker,
        "settlement": r.settlement,
        "void": r.void,
    }


#: What a person holds or may stake: shown to that person only (docs/design/browsers.md §1).
_PRIVATE = ("balance", "personal_limits")


def _redacted(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if k in _PRIVATE else v) for k, v in entry.items()}


def player_presence(
    seats: dict[int, dict[str, Any]],
    banker: dict[str, Any] | None,
    spectators: dict[str, dict[str, Any]],
    bettor_id: str,
) -> tuple[dict[int, dict[str, Any]], dict[str, Any] | None, dict[str, dict[str, Any]]]:
    """The state's presence as ``bettor_id`` (a token's holder) sees it: what anyone staked is
    public at the table, what they hold or may stake is theirs — every other person's
    ``balance`` and ``personal_limits`` are ``None``."""
    mine = banker is not None and banker["bettor_id"] == bettor_id
    return (
        {n: s if s["bettor_id"] == bettor_id else _redacted(s) for n, s in seats.items()},
        banker if banker is None or mine else _redacted(banker),
        {b: s if b == bettor_id else _redacted(s) for b, s in spectators.items()},
    )


def presence_as_seen(out: PresenceOut, caller: Caller) -> PresenceOut:
    """A presence answer as its caller may see it: whole for the operator; for a token's
    holder (who leaves their own place) every other person's balance and limits hidden, as in
    their state (:func:`player_presence`)."""
    if caller.player is None or caller.player.bettor_id is None:
        return out
    seats, banker, spectators = player_presence(
        out.seats, out.banker, out.spectators, caller.player.bettor_id
    )
    return out.model_copy(update={"seats": seats, "banker": banker, "spectators": spectators})


def you_view(
    bettor_id: str,
    role: str,
    seats: dict[int, dict[str, Any]],
    banker: dict[str, Any] | None,
    spectators: dict[str, dict[str, Any]],
    watchers: list[str],
) -> dict[str, Any]:
    """``you`` of a player's state: who the token is for, its role, where that person is now
    (``seat 1`` … ``seat 7``, ``banker``, ``spectator``, ``watcher``; ``None``: not at the
    table) and their balance (``None`` where a place has none)."""
    place: str | None = None
    balance: int | None = None
    for n, s in seats.items():
        if s["bettor_id"] == bettor_id:
            place, balance = f"seat {n}", s.get("balance")
    if place is None and banker is not None and banker["bettor_id"] == bettor_id:
        place, balance = "banker", banker.get("balance")
    if place is None and bettor_id in spectators:
        place, balance = "spectator", spectators[bettor_id].get("balance")
    if place is None and bettor_id in watchers:
        place = "watcher"
    return {"bettor_id": bettor_id, "role": role, "place": place, "balance": balance}
