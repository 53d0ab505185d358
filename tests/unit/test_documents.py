"""The documents the service stores, one type each (``ports/documents.py``): what a use case
really stores has exactly the keys its type names (a TypedDict is a promise the type checker
cannot verify at run time), and the outcome facts are described once, in the core — the record's
facts, the graded facts and the round's answer are the same names."""

from __future__ import annotations

import types
import typing
from typing import Any, get_args, get_origin, get_type_hints, is_typeddict

from baccarat.outcome import FactsDoc, FactSnapshot, deal_round
from baccarat.paytables import RoundFacts
from baccarat_api.ports import documents
from baccarat_api.ports.records import (
    LiveRecord,
    ProofRecord,
    RoundRecord,
    ShoeFairness,
    ShoeRecord,
)
from baccarat_api.service import proofs
from baccarat_api.service.models import RoundOut

from .conftest import Game
from .test_stored_bytes_pinned import _scenario, fixed  # noqa: F401 (a fixture)


def _problems(value: Any, kind: Any, where: str) -> list[str]:
    """Where ``value`` is not of ``kind`` (TypedDicts: exactly their keys, each of its type)."""
    origin = get_origin(kind)
    if kind is Any or kind is object:
        return []
    if origin in (typing.Union, types.UnionType):
        options = [_problems(value, k, where) for k in get_args(kind)]
        return [] if any(not p for p in options) else min(options, key=len)
    if origin is typing.Literal:
        return [] if value in get_args(kind) else [f"{where}: {value!r} not in {get_args(kind)}"]
    if is_typeddict(kind):
        if not isinstance(value, dict):
            return [f"{where}: not a document"]
        hints = get_type_hints(kind)
        missing = kind.__required_keys__ - set(value)
        unknown = set(value) - set(hints)
        out = [f"{where}: missing {sorted(missing)}"] if missing else []
        out += [f"{where}: unknown {sorted(unknown)}"] if unknown else []
        for key in set(value) & set(hints):
            hint = hints[key]
            if get_origin(hint) in (typing.NotRequired, typing.Required):
                (hint,) = get_args(hint)
            out += _problems(value[key], hint, f"{where}.{key}")
        return out
    if origin is list:
        (item,) = get_args(kind)
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        return [p for i, v in enumerate(value) for p in _problems(v, item, f"{where}[{i}]")]
    if origin is dict:
        _, item = get_args(kind)
        if not isinstance(value, dict):
            return [f"{where}: not a map"]
        return [p for k, v in value.items() for p in _problems(v, item, f"{where}[{k}]")]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not an int"]
    if isinstance(kind, type):
        return [] if isinstance(value, kind) else [f"{where}: {value!r} is not a {kind.__name__}"]
    raise AssertionError(f"{where}: no check for {kind!r}")


def _checked(record: Any) -> list[str]:
    hints = get_type_hints(type(record))
    out = []
    for name, hint in hints.items():
        if name in ("config",) or get_origin(hint) is typing.ClassVar:
            continue
        value = getattr(record, name)
        if value == {} and name == "money":
            continue
        out += _problems(value, hint, f"{type(record).__name__}.{name}")
    return out


def test_what_the_use_cases_store_has_the_keys_its_type_names(fixed: Game) -> None:  # noqa: F811
    _scenario(fixed)
    for proof in [r for r in fixed.repo.items.values() if isinstance(r, ProofRecord)]:
        proofs.proof_page(fixed.repo, fixed.vault, fixed.shoes.ref_key, proof.shoe_id)  # final
    records = list(fixed.repo.items.values())
    kinds = {type(r) for r in records}
    assert {RoundRecord, ShoeRecord, LiveRecord, ProofRecord, ShoeFairness} <= kinds
    assert all(r.signature for r in records if isinstance(r, ProofRecord))
    problems = [p for r in records if type(r) in kinds for p in _checked(r)]
    assert problems == []
    rounds = [r for r in records if isinstance(r, RoundRecord)]
    assert any(r.void for r in rounds) and any(r.settlement for r in rounds)
    settled = [r.settlement for r in rounds if r.settlement is not None]
    assert all(not _problems(s, documents.Settlement, "settlement") for s in settled)


def test_a_document_that_misses_or_adds_a_key_is_caught() -> None:
    bet = {"bettor_id": "a", "role": "seated", "type": "banker", "amount": 100}
    assert _problems(bet, documents.LockedBet, "bet") == []
    assert _problems({**bet, "colour": "red"}, documents.LockedBet, "bet") == [
        "bet: unknown ['colour']"
    ]
    assert _problems({**bet, "amount": "100"}, documents.LockedBet, "bet") == [
        "bet.amount: '100' is not an int"
    ]
    del bet["type"]
    assert _problems(bet, documents.LockedBet, "bet") == ["bet: missing ['type']"]


def test_the_outcome_facts_are_described_once_in_the_core() -> None:
    rnd = deal_round(list(range(416)), 0)
    # the record's facts: exactly the core's description, in its order
    assert list(rnd.facts()) == list(FactsDoc.__annotations__)
    assert not _problems(rnd.facts(), FactsDoc, "facts")
    # the graded facts: the same facts (a hand's total under ``<hand>_total``), computed once
    graded = {n for n in dir(RoundFacts) if not n.startswith("_")}
    assert graded == set(FactSnapshot.__slots__)
    snapshot, facts = FactSnapshot(rnd), dict(rnd.facts())
    flat = {**facts, "player_total": facts["player"]["total"],
            "banker_total": facts["banker"]["total"]}  # fmt: skip
    assert {n: getattr(snapshot, n) for n in graded} == {n: flat[n] for n in graded}
    # the round's answer shows every fact under its name
    assert set(FactsDoc.__annotations__) <= set(RoundOut.model_fields)
