"""The docs runner's own rules (:mod:`baccarat_dev.docs_run`): patterns, masks, the fix, and that
no API example in the docs escapes it."""

from __future__ import annotations

import json

import pytest

from baccarat_dev import docs_run
from baccarat_dev.template import REPO_ROOT

pytestmark = pytest.mark.unit


def ok(pattern: str, actual: object) -> bool:
    return not docs_run.mismatches(docs_run.parse_pattern(pattern), actual)


def test_patterns_elide_keys_elements_and_text_and_nothing_else() -> None:
    assert ok('{"a":1,…}', {"a": 1, "b": 2})
    assert not ok('{"a":1}', {"a": 1, "b": 2})  # without … every key is shown
    assert not ok('{"a":2,…}', {"a": 1})
    assert not ok('{"b":2,"a":1,…}', {"a": 1, "b": 2})  # the answer's order
    assert ok('{"l":[…]}', {"l": [1, 2]})
    assert ok('{"l":[1,…]}', {"l": [1, 2]})
    assert not ok('{"l":[2,…]}', {"l": [1, 2]})
    assert not ok('{"l":[1]}', {"l": [1, 2]})
    assert ok('{"anchor":"c6fa3b0e…"}', {"anchor": "0123456789abcdef"})  # masked hex
    assert ok('{"m":"shoe tbl_…_s1 has ended"}', {"m": "shoe tbl_aaaaaaaaaaaaaaaa_s1 has ended"})
    assert not ok('{"n":1881}', {"n": 1782})
    assert not ok('{"n":"1"}', {"n": 1})


def test_ids_times_and_keys_are_masked_but_not_their_meaning() -> None:
    a = {"round_id": "tbl_abcdefghijklmnop_s1_r2", "at": "2026-01-01T00:00:00.000Z"}
    assert ok('{"round_id":"tbl_5thy6d376fzhoq3f_s1_r2","at":"2025-03-01T12:00:00.123Z"}', a)
    assert not ok('{"round_id":"tbl_5thy6d376fzhoq3f_s1_r3","at":"…"}', a)


def test_text_answers_match_line_by_line() -> None:
    assert not docs_run.text_mismatches(["a …", "…", "z"], ["a b", "x", "y", "z"])
    assert docs_run.text_mismatches(["a", "z"], ["a", "x", "z"])


def test_the_fix_keeps_the_pattern_and_writes_the_answer() -> None:
    pattern = docs_run.parse_pattern('{"b":{"net":1881,…},"l":[…],"id":"tbl_…"}')
    actual = {"id": "tbl_abcdefghijklmnop", "b": {"net": 1782, "x": 1}, "l": [1], "z": 0}
    filled = docs_run.fill(pattern, actual)
    text = docs_run.render(filled)
    # the top had no …: every key shown, in the answer's order; b keeps its …
    assert text == '{"id":"tbl_…","b":{"net":1782,…},"l":[…],"z":0}'
    assert ok(text, actual)
    lines = docs_run.wrap(json.dumps({"k" * 60: 1, "j" * 60: 2}))
    assert lines[0].startswith(docs_run.ARROW) and lines[1].startswith("#   ")
    again = docs_run.parse_pattern(" ".join(line[2:].lstrip("→ ") for line in lines))
    assert again == {"k" * 60: 1, "j" * 60: 2}


def test_every_api_example_of_the_docs_runs() -> None:
    for doc in docs_run.DOCS:
        text = (REPO_ROOT / doc).read_text(encoding="utf-8")
        assert not docs_run.unrunnable_blocks(text), (doc, docs_run.unrunnable_blocks(text))
        for block in docs_run.blocks(text):
            for step in block.steps:
                if step.expected is not None:
                    docs_run.check(step.expected, "{}")  # every answer parses as a pattern
