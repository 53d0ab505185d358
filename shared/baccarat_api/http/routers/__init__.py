"""One FastAPI router per Lambda function (``functions/<name>/app.py`` serves one of them;
``make run`` and the OpenAPI document serve them all)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import APIRouter


def all_routers() -> list[APIRouter]:
    """Every router, in the order the API documents them (imported only when asked for)."""
    from baccarat_api.http.routers import (
        deal_and_resolve,
        read,
        settle_bets,
        shuffle_commit,
        webhooks,
    )

    return [
        shuffle_commit.router, deal_and_resolve.router, settle_bets.router, read.router,
        webhooks.router,
    ]  # fmt: skip
