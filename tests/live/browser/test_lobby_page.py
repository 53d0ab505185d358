"""The lobby page (``GET /lobby``) in headless Chromium, against the local server (what ``make
run`` runs, its demo tables opened as ``make run --demo-tables`` does: the README's banner
block is what it prints): with an operator key in its fragment it lists the operator's tables in
number order — number, name, tier, limits, seats — a name written as text (markup in it stays
characters, no element), under the page's own CSP; a bad key shows the error. A screenshot is
saved for a person to look at (``BACC_SCREENSHOT_DIR``, default /tmp)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.local_server import LocalServer, local_server

SCREENSHOT_DIR = Path(os.environ.get("BACC_SCREENSHOT_DIR", "/tmp"))
README = Path(__file__).resolve().parents[3] / "README.md"
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def local_api(shared_dynamodb: Any) -> Iterator[LocalServer]:
    env = {"BACCARAT_DEMO_TABLES": "1"}  # what make run's --demo-tables opens
    with local_server(env, probe="/lobby", dynamodb=shared_dynamodb) as server:
        yield server


def _cards(page: Any, count: int, timeout: float = 20) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        cards: list[dict[str, Any]] = page.eval(
            """[...document.querySelectorAll('.table')].map((c) => ({
                number: c.querySelector('.number').textContent,
                name: (c.querySelector('.name') || {}).textContent || null,
                text: c.textContent,
            }))"""
        )
        if len(cards) >= count or time.monotonic() > deadline:
            return cards
        time.sleep(0.2)


def _demo_lines(lines: list[str]) -> list[str]:
    """The banner's demo table lines, table ids cut (the README shows ``tbl_…``)."""
    return [re.sub(r"tbl_\S+$", "tbl_…", line.strip()) for line in lines if "demo table" in line]


def test_the_lobby_lists_the_tables_in_number_order_names_as_text(
    local_api: LocalServer, page: Any
) -> None:
    readme = README.read_text().split("banner lists them as the lobby", 1)[1]
    block = readme.split("```", 2)[1].strip().splitlines()
    assert _demo_lines(local_api.banner.splitlines()) == _demo_lines(block) and len(block) == 5
    with httpx.Client(
        base_url=local_api.url, headers={"authorization": f"Bearer {local_api.key}"}, timeout=15
    ) as api:
        for body in (
            {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "number": 7,
             "name": HOSTILE},
            {"profile": "star-city", "tier": "star-city-vip", "number": 4, "name": "Dragon 龍"},
        ):  # fmt: skip
            made = api.post("/v1/tables", json={"banking": "house", **body})
            assert made.status_code == 201, made.text
    page.goto(f"{local_api.url}/lobby#token={local_api.key}")
    cards = _cards(page, 7)
    assert [c["number"] for c in cards] == ["#1", "#2", "#3", "#4", "#7", "#8", "#9"]
    mine = {c["number"]: c for c in cards}
    assert [mine["#4"]["name"], mine["#7"]["name"]] == ["Dragon 龍", HOSTILE]  # markup: characters
    assert mine["#9"]["name"] == "High 高額"  # a demo table
    assert page.eval("document.querySelectorAll('img, [onerror]').length") == 0
    assert "1:10" in mine["#4"]["text"] and "seats 0/7" in mine["#4"]["text"]
    assert page.errors() == []
    page.screenshot(SCREENSHOT_DIR / "bacc-lobby.png")


def test_a_bad_token_shows_the_error(local_api: LocalServer, page: Any) -> None:
    page.goto(f"{local_api.url}/lobby#token=bk_not_a_key")
    deadline = time.monotonic() + 20
    while "could not" not in (page.eval("document.getElementById('status').textContent") or ""):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert "unauthorized" in page.eval("document.getElementById('status').textContent")
