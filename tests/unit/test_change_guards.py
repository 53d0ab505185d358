"""Touchpoints of the typical changes (docs/architecture.md, "Where each change goes") that no
other test saw: a value written again in prose. Each check here failed nowhere before — a
default changed in ``limits.py``, a new current pay table or a new field of a round's answer
left the docs stating the old one while every test passed."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from baccarat import paytables
from baccarat_api.service.models import CreateTableRequest
from baccarat_api.service.models import rounds as round_models

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
API = ROOT / "docs" / "api.md"
#: Every page a reader may take a table's default from.
PAGES = (README, *sorted((ROOT / "docs").glob("*.md")))
#: How far after a field's name its default is looked for ("`x` (0–3600, default 120)").
WINDOW = 60
#: "default 1 hour": the fields are seconds.
UNITS = {"": 1, "minute": 60, "hour": 3600}


def table_defaults() -> dict[str, int]:
    """The table's defaults as the contract has them (read from ``limits.py``)."""
    return {
        name: field.default
        for name, field in CreateTableRequest.model_fields.items()
        if type(field.default) is int
    }


def stated_defaults(text: str, fields: dict[str, int]) -> list[tuple[str, int]]:
    """(field, the default the text states for it) for every field name followed closely by
    "default N" or "N by default" (the sentence that names the field, not the next one)."""
    found = []
    for name in fields:
        for m in re.finditer(rf"\b{name}\b", text):
            after = re.split(r"\.\s|;|\n\n", text[m.end() : m.end() + WINDOW])[0]
            said = re.search(r"default (\d+)( hours?| minutes?)?|(\d+) by default", after)
            if said:
                unit = UNITS[(said.group(2) or "").strip().rstrip("s")]
                found.append((name, int(said.group(1) or said.group(3)) * unit))
    return found


def test_every_default_the_docs_state_is_the_contracts() -> None:
    fields = table_defaults()
    assert {"void_window_seconds", "settle_deadline_seconds", "betting_seconds"} <= set(fields)
    wrong = [
        (page.name, name, said)
        for page in PAGES
        for name, said in stated_defaults(page.read_text(encoding="utf-8"), fields)
        if said != fields[name]
    ]
    assert not wrong, f"docs state defaults limits.py does not have: {wrong}"
    stated = stated_defaults(API.read_text(encoding="utf-8"), fields)
    assert ("void_window_seconds", fields["void_window_seconds"]) in stated  # the walk reads


def test_the_default_check_sees_a_stale_default() -> None:
    fields = {"void_window_seconds": 180, "betting_seconds": 15}
    text = "`void_window_seconds` (0–3600, default 120): … `betting_seconds` (1–600, default 15)"
    assert stated_defaults(text, fields) == [("void_window_seconds", 120), ("betting_seconds", 15)]
    assert stated_defaults("`void_window_seconds` of the deal: 120 by default", fields) == [
        ("void_window_seconds", 120)
    ]
    assert stated_defaults("`betting_seconds` (default 1 minute)", fields) == [
        ("betting_seconds", 60)
    ]


def readme_current_versions(text: str) -> set[str]:
    line = re.search(r"as the\s+current pay tables state them \(([^:]*):", text)
    assert line is not None, "README.md no longer names the current pay tables"
    return set(re.findall(r"`([\w-]+@\d+)`", line.group(1)))


def test_the_readme_names_the_current_pay_table_versions() -> None:
    """A new current version (a payout, a side bet) is named where the README says which
    versions its pay table shows."""
    shown = readme_current_versions(README.read_text(encoding="utf-8"))
    assert shown == set(paytables.CURRENT.values())


def test_the_version_check_reads_the_sentence() -> None:
    text = "as the current pay tables state them (`star-city@2`, `bid-squeeze@1`: a table keeps"
    assert readme_current_versions(text) == {"star-city@2", "bid-squeeze@1"}


def round_answer_fields() -> dict[str, set[str]]:
    """Every field of the round resource's answers (``…Out`` of ``service/models/rounds.py``)."""
    return {
        name: set(model.model_fields)
        for name, model in vars(round_models).items()
        if name.endswith("Out")
        and isinstance(model, type)
        and issubclass(model, BaseModel)
        and model.__module__ == round_models.__name__
    }


def test_every_field_of_a_round_answer_is_named_in_the_api_doc() -> None:
    """A new round field shown in the answer is described in docs/api.md (the contract's
    prose), not only in the generated docs/openapi.json."""
    named = set(re.findall(r"`([a-z_][a-z0-9_]*)`", API.read_text(encoding="utf-8")))
    models = round_answer_fields()
    assert "RoundOut" in models and "round_hash" in models["RoundOut"]
    missing = {m: sorted(f - named) for m, f in models.items() if f - named}
    assert not missing, f"docs/api.md does not name these fields of the round answers: {missing}"
