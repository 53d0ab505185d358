"""Who calls: an operator (its key) or a person holding a player or lobby token the operator
minted (docs/design/browsers.md §1). Pure data; the HTTP layer builds it
(:func:`baccarat_api.http.deps.current_caller`), the use cases read it.

A route a token may call (``http/player.py``'s ``PLAYER_ROUTES``) takes a :class:`Caller`; an
operator-only route keeps taking the operator id alone (a token there is refused before the route
runs: 403 ``token_route_forbidden``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: What a token lets its holder try (the table state still decides): a seated bettor, the
#: player-banker, a spectator, a watcher (all of one table), or a lobby reader (no table, no
#: person).
Role = Literal["seat", "banker", "spectator", "watcher", "lobby"]
ROLES: tuple[Role, ...] = ("seat", "banker", "spectator", "watcher", "lobby")


@dataclass(frozen=True, slots=True)
class Player:
    """A verified, unexpired, unrevoked token's claims."""

    operator_id: str
    role: Role
    jti: str
    iat: int
    exp: int
    #: The table and the person; both ``None`` on a lobby token.
    table_id: str | None = None
    bettor_id: str | None = None


@dataclass(frozen=True, slots=True)
class Caller:
    """The request's caller: always an operator; ``player`` set when a token called."""

    operator_id: str
    player: Player | None = None

    @property
    def is_operator(self) -> bool:
        return self.player is None
