"""What a player or lobby token may call (docs/design/browsers.md §1, docs/api.md "Player
tokens"): :data:`PLAYER_ROUTES`, the one table that :func:`baccarat_api.http.deps.current_caller`
scopes a token by, that CORS (:mod:`baccarat_api.http.cors`) opens to browsers and that a test
walks against every route of the app. A route not listed here refuses every token (403
``token_route_forbidden``).

The checks done here need no read, so another table's existence is never revealed: the route,
the role, the table of the path (or of the round id) against the token's. The person: a bettor id
in the path is checked here; one in the body by the route (:func:`own_body`); a seat's or the
player-banker's holder by the use case (``holder``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from baccarat_api.ids import parse_round_id
from baccarat_api.service.callers import Caller, Player, Role
from baccarat_api.service.errors import DomainError

TABLE_ROLES: frozenset[Role] = frozenset({"seat", "banker", "spectator", "watcher"})
BETTING: frozenset[Role] = frozenset({"seat", "banker", "spectator"})
#: How a route binds the token's person: not at all; the path's ``bettor_id``; the body's
#: ``bettor_id`` (the route calls :func:`own_body`); the place's holder (the use case checks).
Own = Literal["none", "path", "body", "place"]


@dataclass(frozen=True, slots=True)
class PlayerRoute:
    method: str
    path: str
    roles: frozenset[Role]
    own: Own = "none"


PLAYER_ROUTES: tuple[PlayerRoute, ...] = (
    PlayerRoute("GET", "/v1/tables/{table_id}/state", TABLE_ROLES),
    PlayerRoute("GET", "/v1/tables/{table_id}/events", TABLE_ROLES),
    PlayerRoute("PUT", "/v1/tables/{table_id}/bets/{bettor_id}", BETTING, "path"),
    PlayerRoute("DELETE", "/v1/tables/{table_id}/bets/{bettor_id}", BETTING, "path"),
    PlayerRoute("POST", "/v1/rounds/{round_id}/reveal", BETTING, "body"),
    PlayerRoute("POST", "/v1/tables/{table_id}/urge", frozenset({"banker"}), "body"),
    PlayerRoute("POST", "/v1/tables/{table_id}/chat", TABLE_ROLES),
    PlayerRoute("GET", "/v1/tables/{table_id}/chat", TABLE_ROLES),
    PlayerRoute("DELETE", "/v1/tables/{table_id}/seats/{seat}", TABLE_ROLES, "place"),
    PlayerRoute("DELETE", "/v1/tables/{table_id}/banker", TABLE_ROLES, "place"),
    PlayerRoute("DELETE", "/v1/tables/{table_id}/spectators/{bettor_id}", TABLE_ROLES, "path"),
    PlayerRoute("DELETE", "/v1/tables/{table_id}/watchers/{bettor_id}", TABLE_ROLES, "path"),
    PlayerRoute("GET", "/v1/tables", TABLE_ROLES | {"lobby"}),
)

#: The codes a player route adds to its documented errors (a token's refusals).
TOKEN_ERRORS = ("token_expired", "token_revoked", "token_table_mismatch", "token_person_mismatch")

_BY_KEY = {(r.method, r.path): r for r in PLAYER_ROUTES}


def player_route(method: str, path: str) -> PlayerRoute | None:
    """The entry of a route (its method and path template), or ``None``."""
    return _BY_KEY.get((method.upper(), path))


def _forbidden(message: str) -> DomainError:
    return DomainError("token_route_forbidden", message)


def scope(player: Player, method: str, path: str, params: dict[str, Any]) -> None:
    """Refuse ``player`` on this route before it runs (no read): not in the table or not for
    its role (403 ``token_route_forbidden``), another table in the path or the round id (403
    ``token_table_mismatch``), another person in the path (403 ``token_person_mismatch``)."""
    route = player_route(method, path)
    if route is None:
        raise _forbidden(f"a player token may not call {method.upper()} {path}")
    if player.role not in route.roles:
        raise _forbidden(f"a {player.role} token may not call {method.upper()} {path}")
    table_id = params.get("table_id")
    if "round_id" in params:
        ref = parse_round_id(str(params["round_id"]))
        table_id = "" if ref is None else ref.table_id
    if table_id is not None and table_id != player.table_id:
        raise DomainError("token_table_mismatch")
    if route.own == "path" and params.get("bettor_id") != player.bettor_id:
        raise DomainError("token_person_mismatch")


def holder(caller: Caller) -> str | None:
    """The person a place must belong to (``None``: an operator, any place)."""
    return None if caller.player is None else caller.player.bettor_id


def own_body(caller: Caller, bettor_id: str) -> None:
    """403 ``token_person_mismatch`` when a token's holder names someone else in the body."""
    if caller.player is not None and caller.player.bettor_id != bettor_id:
        raise DomainError("token_person_mismatch")
