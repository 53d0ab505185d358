"""Routers by resource (``tables``, ``shoes``, ``rounds`` …), and :data:`FUNCTIONS`: which
routes each Lambda function of template.yaml serves (``functions/<name>/app.py`` serves
``function_router(name)``; ``make run`` and the OpenAPI document serve them all)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import APIRouter

#: Each function's routes, as ``<resource>.<handler>`` (the handler function of
#: ``http/routers/<resource>.py``), in the order the API documents them.
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "shuffle_commit": (
        "tables.create_table", "shoes.commit_shoe", "shoes.close_shoe",
        "presence.take_seat", "presence.leave_seat", "presence.take_banker",
        "presence.leave_banker", "presence.join_spectators", "presence.leave_spectators",
        "presence.join_watchers", "presence.leave_watchers", "squeeze.urge",
        "tables.pause_table", "tables.resume_table",
        "tables.give_client_seed",
        "chat.post_chat", "chat.remove_chat_message", "chat.mute_chat", "chat.unmute_chat",
        "tokens.mint_token", "tokens.mint_lobby_token", "tokens.revoke_token",
        "tokens.revoke_person_tokens",
    ),
    "deal_and_resolve": (
        "rounds.deal", "betting.open_betting", "betting.place_slip", "betting.cancel_slip",
    ),
    "settle_bets": ("rounds.settle", "rounds.void", "squeeze.reveal"),
    "read": (
        "tables.list_tiers", "tables.get_table", "shoes.get_shoe", "proofs.get_proof",
        "proofs.signing_keys", "proofs.table_fairness", "rounds.get_round", "proofs.verify_page",
        "tables.audit_table", "events.table_events", "tables.get_table_state",
        "events.operator_events", "rounds.list_rounds", "reports.daily_report",
        "betting.get_book",
        "rounds.get_receipt", "rounds.settlement_bettors", "proofs.get_book_page",
        "presence.list_spectators", "presence.list_watchers",
        "chat.get_chat",
        "tables.list_tables", "tables.lobby_page", "tables.table_page",
    ),
    "webhooks": (
        "webhooks.set_webhook", "webhooks.delete_webhook", "webhooks.list_webhook_failures",
        "webhooks.retry_webhook_failure",
    ),
}  # fmt: skip


def function_router(function: str) -> APIRouter:
    """The routes ``function`` serves, in its order (only their resources' modules imported;
    the routes themselves, not copies: each is built once, when first needed)."""
    from fastapi import APIRouter

    from baccarat_api.http.json_body import JsonRoute

    router = APIRouter(route_class=JsonRoute)
    for name in FUNCTIONS[function]:
        resource, handler = name.split(".")
        routes = import_module(f"baccarat_api.http.routers.{resource}").router.routes
        found = [route for route in routes if getattr(route, "name", None) == handler]
        if len(found) != 1:
            raise LookupError(f"{name}: no such route in http/routers/{resource}.py")
        router.routes.append(found[0])
    return router


def all_routers() -> list[APIRouter]:
    """Every function's router, in the order the API documents them."""
    return [function_router(function) for function in FUNCTIONS]
