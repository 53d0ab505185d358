"""Player and lobby tokens (docs/design/browsers.md §1): minted by an operator for a person at one
of its tables (or for its lobby), verified on every request a token makes, revoked per token or
per person.

Format ``bpt1.<payload>.<mac>``: ``payload`` = base64url (no padding) of the claims' canonical
JSON (sorted keys, no spaces), ``mac`` = base64url(HMAC-SHA256(K[kid], "bpt1." ‖ payload)). The
keys are 32 random bytes each, drawn and sealed by the vault, stored in the config table and
unsealed once per warm container (:class:`Keyring`). A token carries no balance, limit or name:
only who it is for and what it may try; the table state still decides."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from baccarat_api.clock import at_ms, ms_of
from baccarat_api.limits import TOKEN_TTL_DEFAULT_SECONDS, TOKEN_TTL_MAX_SECONDS
from baccarat_api.ports.repository import ConditionFailed, Repository
from baccarat_api.ports.tokens import (
    Revocations,
    RevocationsMoved,
    TokenKey,
    TokenStore,
    token_key_context,
)
from baccarat_api.ports.vault import SecretVault
from baccarat_api.ports.writes import Put
from baccarat_api.service import idempotency, push
from baccarat_api.service.callers import ROLES, Player, Role
from baccarat_api.service.errors import DomainError, not_found
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models.tokens import (
    LobbyTokenOut,
    LobbyTokenRequest,
    TokenOut,
    TokenRequest,
)
from baccarat_api.service.reading import table_live

PREFIX = "bpt1."
VERSION = 1
#: The longest token accepted (the longest ids make ≈ 310 bytes).
MAX_TOKEN_LENGTH = 1024
#: A warm container reads the key list again after this long (a key made by another container
#: is then minted with here too), and at most this often for a kid it does not know.
KEYRING_REFRESH_SECONDS = 300
_UNKNOWN_KID_REFRESH_SECONDS = 1.0
#: A key no longer the newest still verifies for this long after its successor was made: the
#: longest lifetime of a token it minted, plus the time a container may still mint with it.
KEY_RETIRE_SECONDS = TOKEN_TTL_MAX_SECONDS + KEYRING_REFRESH_SECONDS
_TABLE_CLAIMS = frozenset({"v", "kid", "op", "tbl", "sub", "role", "iat", "exp", "jti"})
_LOBBY_CLAIMS = frozenset({"v", "kid", "op", "role", "iat", "exp", "jti"})
_B32 = "abcdefghijklmnopqrstuvwxyz234567"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(raw) != text:  # a non-canonical encoding (stray bits) names the same bytes
        raise ValueError("not canonical base64url")
    return raw


_B64URL = re.compile("[A-Za-z0-9_-]+")


def canonical(claims: dict[str, Any]) -> bytes:
    """The claims' one JSON encoding (what the MAC covers)."""
    return json.dumps(claims, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def new_jti() -> str:
    """``tk_`` + 26 base32 characters (130 random bits)."""
    n = int.from_bytes(os.urandom(17), "big") >> 6
    return "tk_" + "".join(_B32[(n >> (5 * i)) & 31] for i in range(26))


def _new_kid() -> str:
    return "k_" + base64.b32encode(os.urandom(5)).decode("ascii").lower()


def _mac(key: bytes, payload: str) -> str:
    return _b64(hmac.new(key, (PREFIX + payload).encode("ascii"), hashlib.sha256).digest())


def unix_now(repo: Repository) -> int:
    """The repository clock's time, in Unix seconds (a token's ``iat``/``exp`` unit)."""
    return ms_of(repo.clock()) // 1000


# --- keys --------------------------------------------------------------------------------------


class Keyring:
    """The token keys of one store, unsealed (one vault call per key per warm container)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: list[TokenKey] = []
        self._secrets: dict[tuple[str, bytes], bytes] = {}
        self._loaded = -1e18

    def _load(self, store: TokenStore) -> None:
        keys = sorted(store.token_keys(), key=lambda k: (k.created_at, k.kid))
        with self._lock:
            self._keys = keys
            self._loaded = time.monotonic()

    def _secret(self, key: TokenKey, vault: SecretVault) -> bytes:
        found = self._secrets.get((key.kid, key.ciphertext))
        if found is None:
            found = vault.unseal(key.ciphertext, token_key_context(key.kid))
            with self._lock:
                self._secrets[(key.kid, key.ciphertext)] = found
        return found

    def signing(self, store: TokenStore, vault: SecretVault, now: int) -> tuple[str, bytes]:
        """The newest key: ``(kid, secret)``; the first one is made here."""
        if time.monotonic() - self._loaded > KEYRING_REFRESH_SECONDS or not self._keys:
            self._load(store)
        if not self._keys:
            rotate(store, vault, now)
            self._load(store)
        newest = self._keys[-1]
        return newest.kid, self._secret(newest, vault)

    def verifying(self, store: TokenStore, vault: SecretVault, kid: str, now: int) -> bytes | None:
        """The secret of ``kid`` if it still verifies (the newest, or retired less than
        :data:`KEY_RETIRE_SECONDS` ago), else ``None``."""
        index = self._index(kid)
        if index is None and time.monotonic() - self._loaded > _UNKNOWN_KID_REFRESH_SECONDS:
            self._load(store)
            index = self._index(kid)
        if index is None:
            return None
        keys = self._keys
        if index + 1 < len(keys) and keys[index + 1].created_at + KEY_RETIRE_SECONDS <= now:
            return None
        return self._secret(keys[index], vault)

    def _index(self, kid: str) -> int | None:
        return next((i for i, k in enumerate(self._keys) if k.kid == kid), None)


_KEYRINGS: weakref.WeakKeyDictionary[Any, Keyring] = weakref.WeakKeyDictionary()
_KEYRINGS_LOCK = threading.Lock()


def keyring(store: TokenStore) -> Keyring:
    """The warm container's keyring of ``store``."""
    with _KEYRINGS_LOCK:
        ring = _KEYRINGS.get(store)
        if ring is None:
            ring = _KEYRINGS[store] = Keyring()
        return ring


def rotate(store: TokenStore, vault: SecretVault, now: int) -> str:
    """Make a new token key (the newest mints from then on, in every container within
    :data:`KEYRING_REFRESH_SECONDS`); its kid. Made after every other (its ``created_at`` later
    than theirs), so "the newest" is one key everywhere."""
    now = max([now - 1, *(k.created_at for k in store.token_keys())]) + 1
    while True:
        kid = _new_kid()
        _, ciphertext = vault.draw_secret(token_key_context(kid))
        if store.add_token_key(TokenKey(kid, ciphertext, now)):
            return kid


# --- mint and verify ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Minted:
    token: str
    player: Player
    #: a table token's push channel now (``GET …/state``'s ``push_channel``); ``None``: a lobby's
    channel: str | None = None


def mint(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    role: Role,
    *,
    table_id: str | None = None,
    bettor_id: str | None = None,
    ttl_seconds: int | None = None,
) -> Minted:
    """A token for ``bettor_id`` at ``table_id`` (one of the operator's tables: another's is
    ``not_found``), or a lobby token (``role = "lobby"``, neither). Needs no presence: the role
    says what the holder may try, the table state decides."""
    ttl = TOKEN_TTL_DEFAULT_SECONDS if ttl_seconds is None else ttl_seconds
    if not 1 <= ttl <= TOKEN_TTL_MAX_SECONDS:
        raise DomainError(
            "invalid_request",
            f"ttl_seconds must be 1 to {TOKEN_TTL_MAX_SECONDS}",
            details={"max_ttl_seconds": TOKEN_TTL_MAX_SECONDS},
        )
    if (role == "lobby") != (table_id is None) or (table_id is None) != (bettor_id is None):
        raise DomainError("invalid_request", "a table token names a table and a person; a lobby "
                          "token neither")  # fmt: skip
    channel = None
    if table_id is not None:  # one of the operator's tables (else not_found), and its epoch
        channel = push.current_channel(table_id, table_live(repo, operator_id, table_id)[1])
    now = unix_now(repo)
    kid, key = keyring(repo.token_store).signing(repo.token_store, vault, now)
    claims: dict[str, Any] = {
        "v": VERSION, "kid": kid, "op": operator_id, "role": role,
        "iat": now, "exp": now + ttl, "jti": new_jti(),
    }  # fmt: skip
    if table_id is not None:
        claims["tbl"], claims["sub"] = table_id, bettor_id
    payload = _b64(canonical(claims))
    return Minted(f"{PREFIX}{payload}.{_mac(key, payload)}", _player(claims), channel)


def _player(claims: dict[str, Any]) -> Player:
    return Player(
        operator_id=claims["op"],
        role=claims["role"],
        jti=claims["jti"],
        iat=claims["iat"],
        exp=claims["exp"],
        table_id=claims.get("tbl"),
        bettor_id=claims.get("sub"),
    )


def _refused(reason: str) -> DomainError:
    return DomainError("unauthorized", f"the player token is not valid ({reason})")


def _claims(payload: str) -> dict[str, Any]:
    """The claims of a payload, if it is exactly one canonical claims document."""
    try:
        raw = _unb64(payload)
        claims = json.loads(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise _refused("malformed") from None
    if not isinstance(claims, dict) or canonical(claims) != raw:
        raise _refused("malformed")
    lobby = claims.get("role") == "lobby"
    if set(claims) != (_LOBBY_CLAIMS if lobby else _TABLE_CLAIMS) or claims["v"] != VERSION:
        raise _refused("malformed")
    if type(claims["v"]) is not int:
        raise _refused("malformed")
    ints = all(type(claims[k]) is int for k in ("iat", "exp"))
    strs = all(type(claims[k]) is str for k in claims if k not in ("v", "iat", "exp"))
    if not ints or not strs or claims["role"] not in ROLES:
        raise _refused("malformed")
    return claims


def unverified_claims(token: str) -> dict[str, Any] | None:
    """A token's claims WITHOUT checking its MAC (``None`` if it is not one): for what may
    only narrow a request that is refused anyway when the MAC fails (the idempotency key's
    scope)."""
    parts = token.split(".")
    if len(parts) != 3 or parts[0] + "." != PREFIX:
        return None
    try:
        return _claims(parts[1])
    except DomainError:
        return None


def verify(repo: Repository, vault: SecretVault, token: str, *, expiry: bool = True) -> Player:
    """The holder of ``token`` if its MAC verifies under a live key: 401 ``unauthorized``
    otherwise (malformed, tampered, unknown or retired key), 401 ``token_expired`` from its
    ``exp`` on (``expiry=False``: not checked — the authorizer's use). Revocation is
    :func:`check_revoked`'s."""
    parts = token.split(".")
    if len(token) > MAX_TOKEN_LENGTH or len(parts) != 3 or parts[0] + "." != PREFIX:
        raise _refused("malformed")
    claims = _claims(parts[1])
    now = unix_now(repo)
    key = keyring(repo.token_store).verifying(repo.token_store, vault, claims["kid"], now)
    given = parts[2].encode("utf-8", "surrogatepass")  # bytes: any text compares, none raises
    if key is None or not hmac.compare_digest(_mac(key, parts[1]).encode(), given):
        raise _refused("bad signature")
    if expiry and now >= claims["exp"]:
        raise DomainError("token_expired", details={"expired_at": claims["exp"]})
    return _player(claims)


def check_revoked(repo: Repository, player: Player) -> None:
    """401 ``token_revoked`` if the operator revoked this token, or every token of its person
    minted at or before a moment at or after its ``iat`` (one strongly consistent read; a lobby
    token names no table and is never revoked: its bound is its ``exp``)."""
    if player.table_id is None:
        return
    found = repo.token_store.revocations(player.operator_id, player.table_id)
    floor = found.floor.get(player.bettor_id or "")
    if player.jti in found.revoked or (floor is not None and player.iat <= floor):
        raise DomainError("token_revoked")


def authenticate(repo: Repository, vault: SecretVault, token: str) -> Player:
    """Verified, unexpired, unrevoked: the holder of ``token``."""
    player = verify(repo, vault, token)
    check_revoked(repo, player)
    return player


# --- revocation --------------------------------------------------------------------------------

_REVOKE_ATTEMPTS = 8


def revoke(
    repo: Repository,
    operator_id: str,
    table_id: str,
    *,
    jti: str | None = None,
    bettor_id: str | None = None,
) -> None:
    """Revoke one token (``jti``) or every token of ``bettor_id`` minted until now, at one of
    the operator's tables (another's: ``not_found``). Idempotent. The table's ``TOKENS`` item
    is pruned of entries that can no longer matter (a revoked id past the longest lifetime, a
    person's floor older than it), so it holds at most :data:`TOKEN_TTL_MAX_SECONDS` of
    revocations.

    Then the table's push channel moves on (:func:`~baccarat_api.service.push.rotate`): a
    subscription opened with the revoked token ends with that channel (its holder cannot
    subscribe to the next one). A retried revocation rotates again — one more resubscription,
    nothing else."""
    if repo.get_table(operator_id, table_id) is None:
        raise not_found("table", table_id)
    for _ in range(_REVOKE_ATTEMPTS):
        now = unix_now(repo)
        stored = repo.token_store.revocations(operator_id, table_id)
        revoked = {j: e for j, e in stored.revoked.items() if e > now}
        floor = {b: i for b, i in stored.floor.items() if i + TOKEN_TTL_MAX_SECONDS > now}
        if jti is not None:  # its exp is not known here: no token outlives now + the maximum
            revoked[jti] = max(revoked.get(jti, 0), now + TOKEN_TTL_MAX_SECONDS)
        if bettor_id is not None:
            floor[bettor_id] = max(floor.get(bettor_id, 0), now)
        try:
            repo.token_store.put_revocations(
                operator_id, table_id, Revocations(revoked, floor, stored.version + 1)
            )
        except RevocationsMoved:
            continue
        # the channel as it is now, the revocation written: a rotation past it ends every
        # subscription the revoked token made (a later one is refused by the authorizer)
        written = push.epoch_of(repo.load(operator_id, live=table_id).live)
        _rotate_past(repo, operator_id, table_id, written)
        return
    raise DomainError("unavailable", "too many concurrent revocations at this table; retry")


def _rotate_past(repo: Repository, operator_id: str, table_id: str, before: int) -> None:
    """The table's push channel past epoch ``before`` (read once the revocation was written):
    rotated here, or — when this rotation keeps losing to concurrent ones (revocations at once) —
    by them: any rotation past it ends the revoked token's channel too."""
    try:
        push.rotate(repo, operator_id, table_id)
    except DomainError as exc:
        if exc.code != "concurrent_update":
            raise
        if push.epoch_of(repo.load(operator_id, live=table_id).live) <= before:
            raise


# --- the operator's routes ---------------------------------------------------------------------


def _issued(
    repo: Repository,
    operator_id: str,
    idem: IdempotencyRequest | None,
    make: Callable[[], BaseModel],
) -> dict[str, Any]:
    """``make()``'s answer, exactly once per ``Idempotency-Key``: a retry replays the stored
    answer (the same token), a concurrent duplicate is 409 ``idempotency_in_progress``."""
    if idem is not None:
        idempotency.load(repo, operator_id, idem)
    body = idempotency.answer(make())
    record = idempotency.record(repo.clock(), idem, operator_id, body)
    if record is not None:
        try:
            repo.transact("mint token", [Put(record, expired_by=idempotency.ttl_now())])
        except ConditionFailed as exc:
            idempotency.check_duplicate(exc)
            raise
    return body


def issue(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    table_id: str,
    request: TokenRequest,
    idem: IdempotencyRequest | None = None,
    push_url: str | None = None,
) -> dict[str, Any]:
    """``POST /v1/tables/{table_id}/tokens``: a table token's answer (``TokenOut``), with where
    its page subscribes (``push_url``: a setting, as ``GET …/state`` answers it)."""

    def make() -> TokenOut:
        minted = mint(
            repo, vault, operator_id, request.role, table_id=table_id,
            bettor_id=request.bettor_id, ttl_seconds=request.ttl_seconds,
        )  # fmt: skip
        assert minted.channel is not None  # a table token's mint names its table's channel
        return TokenOut(
            token=minted.token, jti=minted.player.jti, expires_at=at_ms(minted.player.exp * 1000),
            role=request.role, table_id=table_id, bettor_id=request.bettor_id,
            push_url=push_url, push_channel=minted.channel,
        )  # fmt: skip

    return _issued(repo, operator_id, idem, make)


def issue_lobby(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    request: LobbyTokenRequest,
    idem: IdempotencyRequest | None = None,
) -> dict[str, Any]:
    """``POST /v1/lobby-tokens``: a lobby token's answer (``LobbyTokenOut``)."""

    def make() -> LobbyTokenOut:
        minted = mint(repo, vault, operator_id, "lobby", ttl_seconds=request.ttl_seconds)
        exp = at_ms(minted.player.exp * 1000)
        return LobbyTokenOut(token=minted.token, jti=minted.player.jti, expires_at=exp)

    return _issued(repo, operator_id, idem, make)
