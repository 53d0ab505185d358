"""Which runs of the local server open the demo tables (``baccarat_dev.local.demo_tables_wanted``):
``make run`` (``--demo-tables``) does, unless told not to or serving the docs' fixed answers;
``BACCARAT_DEMO_TABLES`` decides when set."""

from __future__ import annotations

import pytest

from baccarat_dev.local import demo_tables_wanted

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("flag", "env", "wanted"),
    [
        (True, {}, True),  # make run
        (False, {}, False),  # python -m baccarat_dev.local (the tests' servers)
        (True, {"BACCARAT_DEMO_TABLES": "0"}, False),
        (True, {"BACCARAT_DEV_ENTROPY": "docs"}, False),  # the docs' answers: no tables
        (True, {"BACCARAT_DEV_ENTROPY": "docs", "BACCARAT_DEMO_TABLES": "1"}, True),
        (False, {"BACCARAT_DEMO_TABLES": "1"}, True),
    ],
)
def test_make_run_opens_the_demo_tables_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch, flag: bool, env: dict[str, str], wanted: bool
) -> None:
    for name in ("BACCARAT_DEMO_TABLES", "BACCARAT_DEV_ENTROPY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert demo_tables_wanted(flag) is wanted
