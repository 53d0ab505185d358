"""A round's money: computed once, at the deal, from the locked bets and the cards.

What bets win or lose is fixed the moment the cards exist: :func:`round_money` computes it then
— the settlement document without ``settled_at`` / ``auto_settled`` — and it is stored on the
round and hashed with the cards. Settling only stamps when and how (:func:`settlement_out`); a
void stores what it replaced (``proofdoc.replaced_amounts``: the ``nets`` and the house's take), and
:func:`void_out` is its settlement-shaped view (every stake returned, every net 0). Answers are
rendered from the round record alone, so a first answer, a replay and a later read are the same
bytes. Maps keyed by participant list the bettors in the order of their first bet, then the
player-banker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from baccarat import currency
from baccarat.bets import Bet, PlayerBanker
from baccarat.eligibility import below_minimum_after, idle_bettors
from baccarat.outcome import Round
from baccarat.profiles import TableConfig
from baccarat.settlement import settle
from baccarat_api.ids import RoundRef
from baccarat_api.ports.documents import Eligibility, LineDoc, Money, ParticipantDoc
from baccarat_api.ports.records import RoundRecord
from baccarat_api.service.bets import Refs
from baccarat_api.service.models import SettlementOut


def _with_ref(doc: Mapping[str, Any], id_field: str, ref: str) -> dict[str, Any]:
    """``doc`` with ``bettor_ref`` right after its ``id_field``."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        out[key] = value
        if key == id_field:
            out["bettor_ref"] = ref
    return out


def _eligibility(
    config: TableConfig,
    previous: list[list[str]],
    bets: Sequence[Bet],
    pb: PlayerBanker | None,
    nets: dict[str, int],
    idle: Sequence[str] | None,
) -> Eligibility:
    balances = {b.bettor_id: b.balance for b in bets if b.balance is not None}
    if pb is not None:
        balances[pb.bettor_id] = pb.balance
    below = below_minimum_after(config, balances, nets, None if pb is None else pb.bettor_id)
    history = [*previous, list(dict.fromkeys(b.bettor_id for b in bets))]
    seen = [bettor for rnd in history for bettor in rnd]
    if idle is None:  # nobody seated at the table (the operator keeps presence): the shoe's
        idle = idle_bettors(config, history, seen)  # recent rounds say who sat them out
    return {
        "below_min_balance": list(below.bettors),
        "player_banker_below_min_balance": below.player_banker,
        "balances_after": dict(below.balances_after),
        "idle_bettors": list(idle),
        "idle_round_limit": config.profile.idle_round_limit,
    }


def round_money(
    ref: RoundRef,
    config: TableConfig,
    round_: Round,
    bets: Sequence[Bet],
    player_banker: PlayerBanker | None,
    previous_bettors: list[list[str]],
    refs: Refs,
    idle: Sequence[str] | None = None,
) -> Money:
    """The settlement document of accepted ``bets`` on the dealt ``round_`` (everything but
    ``settled_at`` / ``auto_settled``), bettors named by id and ref. ``idle``: the seated
    bettors this deal unseats for idleness (the table's idle counters; ``None``: nobody is
    seated at the table, so the shoe's recent bettors decide the advice)."""
    settled = settle(config, round_, bets, player_banker)
    nets = settled.nets()
    pb = settled.player_banker
    return {
        "round_id": ref.round_id,
        "shoe_id": ref.shoe.shoe_id,
        "round_number": ref.round_number,
        "profile": settled.profile,
        "tier": settled.tier,
        "banking": settled.banking.value,
        "rounding": settled.rounding.value,
        "result": settled.result.value,
        "lines": [
            cast(LineDoc, _with_ref(line.as_dict(), "bettor_id", refs(line.bettor_id)))
            for line in settled.lines
        ],
        "bettors": [_participant(p.as_dict(), refs) for p in settled.bettors],
        "player_banker": None if pb is None else _participant(pb.as_dict(), refs),
        "house": {
            "covered": settled.house_covered,
            "commission": settled.house_commission,
            "take": settled.house_take,
        },
        "nets": nets,
        "eligibility": _eligibility(config, previous_bettors, bets, player_banker, nets, idle),
    }


def _participant(doc: Mapping[str, Any], refs: Refs) -> ParticipantDoc:
    return cast(ParticipantDoc, _with_ref(doc, "id", refs(doc["id"])))


def settlement_out(r: RoundRecord) -> SettlementOut:
    """The settlement of a settled round (or the void of a voided one): the operator's answer."""
    if r.void is not None:
        return void_out(r)
    assert r.settlement is not None, f"round {r.round_id} is not settled"
    return SettlementOut.model_validate({**r.settlement, **currency.of_config(r.config)})


def _stake_back(p: ParticipantDoc | None) -> ParticipantDoc | None:
    """A participant whose stake came back: nothing won, nothing lost."""
    return None if p is None else {**p, "gross": 0, "commission": 0, "net": 0}


def void_out(r: RoundRecord) -> SettlementOut:
    """A voided round, shaped like a settlement: every line graded ``void`` with its stake
    returned (net 0), every participant at 0, balances unchanged; and the void itself (reason,
    note, when, and the settlement it replaced)."""
    assert r.void is not None
    money = r.money
    zero = {"grade": "void", "multiplier": "0", "gross_win": 0, "commission": 0, "net": 0}
    balances = {b["bettor_id"]: b["balance"] for b in r.bets if b.get("balance") is not None}
    if r.player_banker is not None:
        balances[r.player_banker["bettor_id"]] = r.player_banker["balance"]
    doc = {
        **money,
        "lines": [{**line, **zero} for line in money["lines"]],
        "bettors": [_stake_back(p) for p in money["bettors"]],
        "player_banker": _stake_back(money["player_banker"]),
        "house": {"covered": 0, "commission": 0, "take": 0},
        "nets": dict.fromkeys(money["nets"], 0),
        "eligibility": {
            **money["eligibility"],
            "below_min_balance": [],
            "player_banker_below_min_balance": None,
            "balances_after": {
                who: balances[who] for who in money["eligibility"]["balances_after"]
            },
            "idle_bettors": [],
        },
        **currency.of_config(r.config),
        "settled_at": r.void["voided_at"],
        "auto_settled": False,
        "voided": True,
        "void": r.void,
    }
    return SettlementOut.model_validate(doc)
