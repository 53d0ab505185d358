"""The lobby page (``GET /lobby``) in headless Chromium, against the local server (what ``make
run`` runs): with an operator key in its fragment it lists the operator's tables in number
order — number, name, tier, limits, seats — a name written as text (markup in it stays
characters, no element), under the page's own CSP; a bad key shows the error. A screenshot is
saved for a person to look at (``BACC_SCREENSHOT_DIR``, default /tmp)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.local_server import LocalServer, local_server

SCREENSHOT_DIR = Path(os.environ.get("BACC_SCREENSHOT_DIR", "/tmp"))
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def local_api(shared_dynamodb: Any) -> Iterator[LocalServer]:
    with local_server(probe="/lobby", dynamodb=shared_dynamodb) as server:
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


def test_the_lobby_lists_the_tables_in_number_order_names_as_text(
    local_api: LocalServer, page: Any
) -> None:
    with httpx.Client(
        base_url=local_api.url, headers={"authorization": f"Bearer {local_api.key}"}, timeout=15
    ) as api:
        for body in (
            {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "number": 7,
             "name": HOSTILE},
            {"profile": "star-city", "tier": "star-city-vip", "number": 3, "name": "Dragon 龍"},
        ):  # fmt: skip
            made = api.post("/v1/tables", json={"banking": "house", **body})
            assert made.status_code == 201, made.text
    page.goto(f"{local_api.url}/lobby#token={local_api.key}")
    cards = _cards(page, 2)
    assert [c["number"] for c in cards] == ["#3", "#7"]
    assert [c["name"] for c in cards] == ["Dragon 龍", HOSTILE]  # the markup, as characters
    assert page.eval("document.querySelectorAll('img, [onerror]').length") == 0
    assert "1:10" in cards[0]["text"] and "seats 0/7" in cards[0]["text"]
    assert page.errors() == []
    page.screenshot(SCREENSHOT_DIR / "bacc-lobby.png")


def test_a_bad_token_shows_the_error(local_api: LocalServer, page: Any) -> None:
    page.goto(f"{local_api.url}/lobby#token=bk_not_a_key")
    deadline = time.monotonic() + 20
    while "could not" not in (page.eval("document.getElementById('status').textContent") or ""):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert "unauthorized" in page.eval("document.getElementById('status').textContent")
