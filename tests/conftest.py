"""Test tiers and Hypothesis profiles, for every test.

Tiers, one folder each, marked by folder (``-m unit`` …):

* ``unit`` — the pure core and every use case over the in-memory repository; seconds
  (``make unit``);
* ``integration`` — the DynamoDB adapter over moto, the handlers with real HTTP API v2 events,
  the independent JavaScript implementation, the example client;
* ``infra`` — template.yaml (cfn-lint's and SAM's views, least privilege), ``sam build`` and the
  built artifacts, build slimming;
* ``live`` — the local server over loopback: races, schemathesis, the browser;
* ``sam_local`` — docs/sam-local.md in Docker with the real SAM CLI (``make sam-local-test``;
  the suite's run leaves it out, ``make test`` runs it beside).

``slow`` marks the statistical and oracle checks of seconds each: ``make test`` runs them,
``make unit`` leaves them out. ``make test`` runs every tier under the ``ci`` Hypothesis profile
(:mod:`support.examples`), the files heaviest first (:mod:`support.ordering`: with
``--dist loadfile`` the short files fill the end, not a one-minute live file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.examples import register
from support.ordering import heaviest_first, load_weights

TIERS = ("unit", "integration", "infra", "live", "sam_local")
HERE = Path(__file__).resolve().parent

PROFILE = register()


def pytest_report_header() -> str:
    return f"hypothesis profile: {PROFILE}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = Path(str(item.fspath)).resolve().relative_to(HERE).parts[0]
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))
    items[:] = heaviest_first(items, load_weights())
