"""The suite's file order for ``--dist loadfile`` (:mod:`support.ordering`): heaviest file
first, a file's tests together and in their order, unknown files by their tier's default."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from support.ordering import durations_from_junit, heaviest_first, load_weights, weight

pytestmark = pytest.mark.unit


@dataclass
class Item:
    nodeid: str


def ids(items: list[Item]) -> list[str]:
    return [i.nodeid for i in items]


def test_heaviest_file_first_each_file_whole_and_in_order() -> None:
    items = [Item(n) for n in (
        "tests/unit/test_a.py::x", "tests/live/test_b.py::y", "tests/unit/test_a.py::z",
        "tests/unit/test_c.py::w", "tests/live/test_b.py::v",
    )]  # fmt: skip
    weights = {"tests/unit/test_a.py": 5.0, "tests/live/test_b.py": 1.0, "tests/unit/test_c.py": 9}
    assert ids(heaviest_first(items, weights)) == [
        "tests/unit/test_c.py::w",
        "tests/unit/test_a.py::x", "tests/unit/test_a.py::z",
        "tests/live/test_b.py::y", "tests/live/test_b.py::v",
    ]  # fmt: skip


def test_unknown_files_weigh_their_tiers_default_and_ties_keep_their_order() -> None:
    assert weight("tests/live/test_new.py", {}) > weight("tests/integration/test_new.py", {})
    assert weight("tests/integration/test_new.py", {}) > weight("tests/unit/test_new.py", {})
    items = [Item("tests/unit/test_q.py::a"), Item("tests/unit/test_p.py::b"),
             Item("tests/live/test_r.py::c")]  # fmt: skip
    assert ids(heaviest_first(items, {})) == [
        "tests/live/test_r.py::c", "tests/unit/test_q.py::a", "tests/unit/test_p.py::b",
    ]  # fmt: skip


def test_the_weights_come_from_a_junit_report(tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    junit.write_text(
        '<testsuites><testsuite>'
        '<testcase classname="tests.unit.test_a" name="t1" time="1.5"/>'
        '<testcase classname="tests.unit.test_a.TestK" name="t2" time="2"/>'
        '<testcase classname="tests.live.test_b" name="t3" time="7.25"/>'
        '</testsuite></testsuites>'
    )  # fmt: skip
    assert durations_from_junit(junit) == {"tests/live/test_b.py": 7.2, "tests/unit/test_a.py": 3.5}
    assert list(durations_from_junit(junit)) == ["tests/live/test_b.py", "tests/unit/test_a.py"]
    assert load_weights(tmp_path / "absent.json") == {}
