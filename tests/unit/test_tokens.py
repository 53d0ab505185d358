"""Player and lobby tokens over the in-memory repository and vault (docs/design/browsers.md §1):
the round trip, every tampered byte refused, expiry at its second, key rotation and retirement,
lifetimes, revocation of one token and of every token of a person, the keys unsealed once."""

from __future__ import annotations

import base64
import json

import pytest

from baccarat_api.limits import TOKEN_TTL_DEFAULT_SECONDS, TOKEN_TTL_MAX_SECONDS
from baccarat_api.ports.tokens import Revocations
from baccarat_api.service import events, push, tokens
from baccarat_api.service.errors import DomainError

from .conftest import Game
from .test_service import OP, code_of, new_table

T0 = "2026-12-05T12:00:00.000Z"


@pytest.fixture
def game() -> Game:
    g = Game()
    g.clock.set(T0)
    return g


def mint(game: Game, table_id: str, bettor: str = "alice", **kw: object) -> tokens.Minted:
    return tokens.mint(
        game.repo, game.vault, OP, kw.pop("role", "seat"),  # type: ignore[arg-type]
        table_id=table_id, bettor_id=bettor, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def kid_of(token: str) -> str:
    return str(json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))["kid"])


def auth(game: Game, token: str) -> object:
    return tokens.authenticate(game.repo, game.vault, token)


def test_a_minted_token_verifies_to_its_claims(game: Game) -> None:
    t = new_table(game)
    minted = mint(game, t, "alice", role="banker")
    p = minted.player
    assert (p.operator_id, p.table_id, p.bettor_id, p.role) == (OP, t, "alice", "banker")
    assert p.exp - p.iat == TOKEN_TTL_DEFAULT_SECONDS
    assert p.jti.startswith("tk_") and len(p.jti) == 29
    assert auth(game, minted.token) == p
    assert minted.token.startswith("bpt1.") and len(minted.token) < 400
    claims = json.loads(base64.urlsafe_b64decode(minted.token.split(".")[1] + "=="))
    assert set(claims) == {"v", "kid", "op", "tbl", "sub", "role", "iat", "exp", "jti"}
    lobby = tokens.mint(game.repo, game.vault, OP, "lobby")
    assert (lobby.player.table_id, lobby.player.bettor_id) == (None, None)
    assert auth(game, lobby.token) == lobby.player
    assert mint(game, t).player.jti != p.jti


def test_every_changed_byte_is_refused(game: Game) -> None:
    token = mint(game, new_table(game)).token
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
    for i, c in enumerate(token):
        other = alphabet[(alphabet.index(c) + 1) % len(alphabet)]
        forged = token[:i] + other + token[i + 1 :]
        assert code_of(lambda f=forged: auth(game, f)) == "unauthorized", i
    for forged in ("", "bpt1.", token + "A", token[:-1], "bpt2" + token[4:], token + ".x"):
        assert code_of(lambda f=forged: auth(game, f)) == "unauthorized"


def test_a_payload_re_signed_by_another_key_or_not_canonical_is_refused(game: Game) -> None:
    token = mint(game, new_table(game)).token
    _, payload, mac = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    spaced = json.dumps(claims, indent=1).encode()  # same claims, another encoding
    forged = "bpt1." + base64.urlsafe_b64encode(spaced).rstrip(b"=").decode() + "." + mac
    assert code_of(lambda: auth(game, forged)) == "unauthorized"
    other = Game()  # another deployment's keys
    other.clock.set(T0)
    assert code_of(lambda: auth(other, token)) == "unauthorized"


def test_a_token_expires_at_its_exp_second(game: Game) -> None:
    t = new_table(game)
    minted = mint(game, t, ttl_seconds=60)
    game.clock.advance(59.999)
    assert auth(game, minted.token) == minted.player
    game.clock.advance(0.001)
    assert code_of(lambda: auth(game, minted.token)) == "token_expired"
    # the MAC is still checked for an expired token's refusal: the authorizer's view
    assert tokens.verify(game.repo, game.vault, minted.token, expiry=False) == minted.player


def test_lifetimes_default_and_maximum(game: Game) -> None:
    t = new_table(game)
    assert mint(game, t, ttl_seconds=TOKEN_TTL_MAX_SECONDS).player.exp == (
        mint(game, t).player.iat + TOKEN_TTL_MAX_SECONDS
    )
    for bad in (TOKEN_TTL_MAX_SECONDS + 1, 0, -5):
        assert code_of(lambda b=bad: mint(game, t, ttl_seconds=b)) == "invalid_request"


def test_a_token_is_minted_only_for_the_operators_own_table(game: Game) -> None:
    t = new_table(game)
    with pytest.raises(DomainError) as err:
        tokens.mint(game.repo, game.vault, "operator-b", "seat", table_id=t, bettor_id="a")
    assert err.value.code == "not_found"
    assert code_of(lambda: tokens.revoke(game.repo, "operator-b", t, jti="tk_x")) == "not_found"


def test_keys_rotate_and_the_old_one_retires_after_the_longest_lifetime(game: Game) -> None:
    t = new_table(game)
    old = mint(game, t)
    store = game.repo.token_store
    tokens.rotate(store, game.vault, tokens.unix_now(game.repo))
    tokens.keyring(store)._loaded = -1e18  # as after the refresh interval
    new = mint(game, t)
    assert kid_of(old.token) != kid_of(new.token)
    assert auth(game, old.token) == old.player  # the old key still verifies
    successor = max(k.created_at for k in store.token_keys())
    game.clock.advance(successor - tokens.unix_now(game.repo) + tokens.KEY_RETIRE_SECONDS - 1)
    assert tokens.verify(game.repo, game.vault, old.token, expiry=False) == old.player
    game.clock.advance(1)
    assert code_of(lambda: tokens.verify(game.repo, game.vault, old.token, expiry=False)) == (
        "unauthorized"
    )
    later = mint(game, t)
    assert auth(game, later.token) == later.player


def test_keys_are_unsealed_once_per_container(game: Game) -> None:
    t = new_table(game)
    before = dict(game.vault.calls)
    for _ in range(5):
        auth(game, mint(game, t).token)
    assert game.vault.calls["draw"] - before.get("draw", 0) == 1  # the first key made
    assert game.vault.calls["unseal"] - before.get("unseal", 0) == 1


def test_revoking_one_token_refuses_it_on_the_next_request(game: Game) -> None:
    t = new_table(game)
    a, b = mint(game, t, "alice"), mint(game, t, "alice")
    tokens.revoke(game.repo, OP, t, jti=a.player.jti)
    tokens.revoke(game.repo, OP, t, jti=a.player.jti)  # idempotent
    assert code_of(lambda: auth(game, a.token)) == "token_revoked"
    assert auth(game, b.token) == b.player


def test_revoking_a_person_refuses_every_token_minted_until_then(game: Game) -> None:
    t = new_table(game)
    a1, a2 = mint(game, t, "alice"), mint(game, t, "alice", role="watcher")
    bob = mint(game, t, "bob")
    tokens.revoke(game.repo, OP, t, bettor_id="alice")
    for token in (a1.token, a2.token):
        assert code_of(lambda tok=token: auth(game, tok)) == "token_revoked"
    assert auth(game, bob.token) == bob.player
    game.clock.advance(1)
    fresh = mint(game, t, "alice")
    assert auth(game, fresh.token) == fresh.player


def test_revocations_are_pruned_once_they_cannot_matter(game: Game) -> None:
    t = new_table(game)
    tokens.revoke(game.repo, OP, t, jti="tk_" + "a" * 26, bettor_id=None)
    tokens.revoke(game.repo, OP, t, bettor_id="alice")
    game.clock.advance(TOKEN_TTL_MAX_SECONDS)
    tokens.revoke(game.repo, OP, t, bettor_id="bob")
    stored = game.repo.token_store.revocations(OP, t)
    assert stored.revoked == {} and set(stored.floor) == {"bob"} and stored.version == 3


def test_concurrent_revocations_both_hold(game: Game) -> None:
    t = new_table(game)
    store = game.repo.token_store
    real = store.revocations
    raced: list[int] = []

    def stale(op: str, table: str) -> Revocations:
        seen = real(op, table)
        if not raced:  # another revocation lands between this read and its write
            raced.append(1)
            tokens.revoke(game.repo, OP, t, bettor_id="bob")
        return seen

    store.revocations = stale  # type: ignore[method-assign,assignment]
    tokens.revoke(game.repo, OP, t, bettor_id="alice")
    store.revocations = real  # type: ignore[method-assign]
    assert set(store.revocations(OP, t).floor) == {"alice", "bob"}


def test_a_revocation_moves_the_tables_push_channel_on(game: Game) -> None:
    """Each revocation: the push epoch + 1, announced by ``push_rotated`` on the old channel; a
    subscription to the old channel is refused from then on (its revoked holder cannot take
    the new one: the token is refused first)."""
    t = new_table(game)
    a = mint(game, t, "alice")
    live = game.repo.load(OP, live=t).live
    before = push.epoch_of(live)
    assert push.subscribe_refusal(game.repo, OP, push.channel(t, before)) is None
    tokens.revoke(game.repo, OP, t, jti=a.player.jti)
    live = game.repo.load(OP, live=t).live
    assert push.epoch_of(live) == before + 1
    assert live is not None
    page, _ = events.table_events(game.repo, OP, t, live.seq - 1, 1)
    last = page.events[-1]
    assert (last.type, last.data) == ("push_rotated", {"epoch": before + 1})
    assert push.subscribe_refusal(game.repo, OP, push.channel(t, before)) is not None
    assert push.subscribe_refusal(game.repo, OP, push.channel(t, before + 1)) is None
    tokens.revoke(game.repo, OP, t, bettor_id="alice")
    assert push.epoch_of(game.repo.load(OP, live=t).live) == before + 2
